"""Hatchling hooks of the ``neurogym`` distribution: core's exact pin and three shared files.

Metadata. ``dependencies`` and ``optional-dependencies`` are written from the
``[tool.hatch.metadata.hooks.custom]`` table of ``pyproject.toml``, where ``neurogym-core`` is
named without a version: :class:`CorePinHook` pins it to exactly the version in
``../neurogym-core/pyproject.toml``, so core's version is defined once. A wheel built from the
sdist takes the pinned requirements from the sdist's ``PKG-INFO`` (hatchling does this for
dynamic fields), so it needs no checkout.

Shared files (:class:`SharedFilesHook`). Why: ``neurogym`` 2.3.1 (upstream) and neurogym-core
both install files into the import package ``neurogym``, and many paths are the same:
``neurogym/__init__.py``, ``neurogym/wrappers/monitor.py`` and the 2.3.1 module paths core keeps
working (``neurogym/core.py``, ``neurogym/utils/...``, ``neurogym/envs/...``; see
``upstream-2.3.1-files.txt``, which lists every file 2.3.1's wheel installs).
``pip install -U neurogym`` over 2.3.1 installs neurogym-core first (a dependency before its
dependent) and only then uninstalls 2.3.1, which removes those paths, core's files among them,
so ``import neurogym`` would fail. This wheel therefore carries core's file at every such path,
byte for byte (core is pinned exactly), and writes them back when installed, after the uninstall.
The cost: ``pip uninstall neurogym`` alone removes them from core too (``pip install
--force-reinstall neurogym-core`` restores them); uninstall the whole set instead
(docs/architecture.md §11).

The shared files come from beside ``neurogym-meta/`` when building from the repository, and
from ``shared/`` inside the project when building from the sdist, which carries them there.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from hatchling.metadata.plugin.interface import MetadataHookInterface
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

CORE = "neurogym-core"

#: Every file upstream 2.3.1's wheel installs, one path (inside site-packages) a line.
UPSTREAM_FILES = "upstream-2.3.1-files.txt"


def upstream_files(root: Path) -> list[str]:
    """The paths listed in ``root/upstream-2.3.1-files.txt`` (comments and blanks skipped)."""
    lines = (root / UPSTREAM_FILES).read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def shared_paths(root: Path, source: Path) -> list[str]:
    """The paths both upstream 2.3.1 and neurogym-core (its files under ``source``) install."""
    return [path for path in upstream_files(root) if (source / path).is_file()]


def _source(root: Path) -> Path:
    checkout = root.parent / "neurogym-core" / "src"
    if (checkout / "neurogym" / "__init__.py").is_file():
        return checkout
    packed = root / "shared"
    if (packed / "neurogym" / "__init__.py").is_file():
        return packed
    raise FileNotFoundError(
        "the neurogym wheel needs neurogym-core's files at 2.3.1's paths: found neither "
        f"{checkout} nor {packed}"
    )


class SharedFilesHook(BuildHookInterface):
    """Adds the shared files to sdists (under ``shared/``) and wheels (at their own paths)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Add the shared files to ``build_data["force_include"]``."""
        root = Path(self.root)
        source = _source(root)
        shared = shared_paths(root, source)
        if self.target_name == "sdist":
            build_data["force_include"].update(
                {str(source / path): f"shared/{path}" for path in shared}
            )
            return
        if version == "editable":
            return
        build_data["force_include"].update({str(source / path): path for path in shared})


def core_version(root: Path) -> str:
    """Return the version in neurogym-core's ``pyproject.toml`` beside this project."""
    pyproject = root.parent / CORE / "pyproject.toml"
    if not pyproject.is_file():
        raise FileNotFoundError(
            f"the neurogym distribution pins neurogym-core to its version, read from {pyproject}, "
            "which does not exist: build from the repository (neurogym-meta/ beside "
            "neurogym-core/) or from the sdist"
        )
    version = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"]
    if not isinstance(version, str):
        raise TypeError(f"{pyproject}: project.version must be a string, not {version!r}")
    return version


def pin_core(requirements: list[str], version: str) -> list[str]:
    """Return ``requirements`` with each bare ``neurogym-core`` pinned to ``==version``.

    Raises:
        ValueError: A requirement on neurogym-core already has a version specifier.
    """
    pinned = []
    for text in requirements:
        requirement = Requirement(text)
        if canonicalize_name(requirement.name) == CORE:
            if requirement.specifier:
                raise ValueError(
                    f"{text!r} in [tool.hatch.metadata.hooks.custom]: name neurogym-core "
                    f"without a version; the hook pins it to =={version} (core's version)"
                )
            requirement.specifier = SpecifierSet(f"=={version}")
        pinned.append(str(requirement))
    return pinned


class CorePinHook(MetadataHookInterface):
    """Writes the requirements of ``[tool.hatch.metadata.hooks.custom]``, core pinned exactly."""

    PLUGIN_NAME = "custom"

    def update(self, metadata: dict[str, Any]) -> None:
        """Set ``dependencies`` and ``optional-dependencies`` in ``metadata``."""
        version = core_version(Path(self.root))
        metadata["dependencies"] = pin_core(self.config["dependencies"], version)
        metadata["optional-dependencies"] = {
            extra: pin_core(requirements, version)
            for extra, requirements in self.config["optional-dependencies"].items()
        }
