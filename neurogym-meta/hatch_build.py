"""Hatchling build hook: the three files the ``neurogym`` wheel shares with neurogym-core.

Why. ``neurogym`` 2.3.1 (upstream) and neurogym-core both install files into the import
package ``neurogym``; three paths are the same: ``neurogym/__init__.py``,
``neurogym/wrappers/__init__.py`` and ``neurogym/wrappers/monitor.py``. ``pip install -U
neurogym`` over 2.3.1 installs neurogym-core first (a dependency before its dependent) and only
then uninstalls 2.3.1, which removes those paths, core's files among them, so ``import
neurogym`` would fail. This wheel therefore carries the same three files, byte for byte (core
is pinned exactly), and writes them back when it is installed, after the uninstall. The cost:
``pip uninstall neurogym`` alone removes them from core too (``pip install --force-reinstall
neurogym-core`` restores them); uninstall the whole set instead (docs/architecture.md §11).

Where from. Beside ``neurogym-meta/`` when building from the repository; from ``shared/``
inside the project when building from the sdist, which carries them there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

#: The paths (inside site-packages) that upstream 2.3.1 and neurogym-core both install.
SHARED = ("neurogym/__init__.py", "neurogym/wrappers/__init__.py", "neurogym/wrappers/monitor.py")


def _source(root: Path) -> Path:
    checkout = root.parent / "neurogym-core" / "src"
    if all((checkout / path).is_file() for path in SHARED):
        return checkout
    packed = root / "shared"
    if all((packed / path).is_file() for path in SHARED):
        return packed
    raise FileNotFoundError(
        f"the neurogym wheel needs neurogym-core's {', '.join(SHARED)}: found neither under "
        f"{checkout} nor under {packed}"
    )


class SharedFilesHook(BuildHookInterface):
    """Adds the shared files to sdists (under ``shared/``) and wheels (at their own paths)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Add the shared files to ``build_data["force_include"]``."""
        source = _source(Path(self.root))
        if self.target_name == "sdist":
            build_data["force_include"].update(
                {str(source / path): f"shared/{path}" for path in SHARED}
            )
            return
        if version == "editable":
            return
        build_data["force_include"].update({str(source / path): path for path in SHARED})
