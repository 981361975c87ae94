"""neurogym's pytest plugin (the ``pytest11`` entry point ``neurogym``): fixtures only.

pytest imports every installed ``pytest11`` plugin in every session, also in projects that
never use neurogym. This module is therefore top-level, outside the ``neurogym`` package:
importing ``neurogym.testing.plugin`` would import ``neurogym``, whose ``__init__`` runs plugin
discovery (it registers the task ids with gymnasium), so every pytest session would import
every installed neurogym plugin, and one broken plugin's warning would fail an unrelated
project's run under ``filterwarnings = error``. Here nothing of neurogym is imported until a
test requests one of the fixtures.

Import it as ``neurogym.testing.plugin`` (its public home, which re-exports it); where
auto-loading is not wanted (``-p no:neurogym``), enable it per package with
``pytest_plugins = ["neurogym.testing.plugin"]`` in ``conftest.py``.

Fixtures:

* ``ngym_pm``: a fresh plugin manager holding only core (no entry points loaded).
* ``ngym_registry``: a fresh registry holding only core's tasks.
* ``installed_fake_plugin``: a :class:`FakePluginInstaller` that writes fake installed
  distributions (``*.dist-info`` with a ``neurogym.plugins`` entry point) for discovery tests.
* ``ngym_hide_installed_plugins``: disables the really installed plugins for one test, so that
  discovery sees only core and fake plugins.

Requesting ``ngym_pm`` or ``ngym_registry`` imports ``neurogym``, which runs discovery.
"""

from __future__ import annotations

import importlib
import re
import sys
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import importlib_metadata
import pytest

if TYPE_CHECKING:
    from neurogym._registry.plugins import PluginManager
    from neurogym._registry.registry import Registry

# Literals, not imports: loading this pytest plugin must not import neurogym (which runs
# plugin discovery); neurogym is imported inside the fixtures, only when a test asks
# (tests/test_pytest_plugin.py).
ENTRY_POINT_GROUP = "neurogym.plugins"
NO_PLUGINS_ENV = "NEUROGYM_NO_PLUGINS"
DISABLE_PLUGINS_ENV = "NEUROGYM_DISABLE_PLUGINS"

__all__ = [
    "FakePluginInstaller",
    "installed_fake_plugin",
    "ngym_hide_installed_plugins",
    "ngym_pm",
    "ngym_registry",
]

_MODULE_RE = re.compile(r"[A-Za-z_]\w*", re.ASCII)


def _normalize(distribution: str) -> str:
    return re.sub(r"[-_.]+", "_", distribution).lower()


def _invalidate_import_caches() -> None:
    importlib.invalidate_caches()
    importlib_metadata.MetadataPathFinder.invalidate_caches()


class FakePluginInstaller:
    """Writes fake installed distributions into one site directory on ``sys.path``.

    Each call writes ``<site>/<dist>-<version>.dist-info/{METADATA,entry_points.txt}`` with one
    ``neurogym.plugins`` entry point, the hook module it points at, and any extra modules.
    Modules imported from the site directory are dropped from ``sys.modules`` when the test
    ends, so later tests can reuse module names.

    Args:
        site: The directory to write into; it is prepended to ``sys.path`` on first use.
        monkeypatch: The test's monkeypatch, which undoes the ``sys.path`` change.
    """

    def __init__(self, site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.site = site
        self._monkeypatch = monkeypatch
        self._on_path = False

    def __call__(
        self,
        distribution: str,
        source: str,
        *,
        module: str | None = None,
        entry_point: str | None = None,
        files: Mapping[str, str] | None = None,
        version: str = "1.0",
    ) -> Path:
        """Install one fake distribution.

        Args:
            distribution: The distribution name, e.g. ``"fake-good"``.
            source: Source of the hook module (dedented), e.g. hookimpls returning specs, or
                ``"raise ImportError('boom')"`` for a broken plugin.
            module: Import name of the hook module; defaults to the normalized distribution
                name (``"fake_good"``).
            entry_point: Entry-point name (the plugin name); defaults to the module name.
            files: Extra files to write, as paths relative to the site directory mapped to
                their (dedented) source, e.g. ``{"fake_tasks.py": "..."}``.
            version: The distribution's version.

        Returns:
            The site directory (put it on ``PYTHONPATH`` to see the plugin in a subprocess).

        Raises:
            ValueError: If ``module`` is not a plain top-level module name.
        """
        module = module or _normalize(distribution)
        if _MODULE_RE.fullmatch(module) is None:
            raise ValueError(f"module must be a top-level module name, got {module!r}")
        entry_point = entry_point or module
        dist_info = self.site / f"{_normalize(distribution)}-{version}.dist-info"
        dist_info.mkdir(parents=True)
        (dist_info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n"
        )
        (dist_info / "entry_points.txt").write_text(
            f"[neurogym.plugins]\n{entry_point} = {module}\n"
        )
        for relative, text in {f"{module}.py": source, **(files or {})}.items():
            path = self.site / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text))
        if not self._on_path:
            self._monkeypatch.syspath_prepend(str(self.site))
            self._on_path = True
        self.forget_modules()
        return self.site

    def forget_modules(self) -> None:
        """Drop every module imported from the site directory from ``sys.modules``."""
        for name, mod in list(sys.modules.items()):
            path = getattr(mod, "__file__", None)
            if path is not None and Path(path).is_relative_to(self.site):
                del sys.modules[name]
        _invalidate_import_caches()


@pytest.fixture
def ngym_pm() -> PluginManager:
    """A fresh neurogym plugin manager with core registered and no entry points loaded."""
    from neurogym._registry.plugins import build_plugin_manager

    return build_plugin_manager(discover=False)


@pytest.fixture
def ngym_registry() -> Registry:
    """A fresh registry holding only core's tasks; the default registry is untouched."""
    from neurogym._registry.api import build_registry

    return build_registry(discover=False)


@pytest.fixture
def ngym_hide_installed_plugins(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Hide every really installed neurogym plugin from discovery during the test.

    Sets ``NEUROGYM_DISABLE_PLUGINS`` to the entry-point names installed now (and unsets
    ``NEUROGYM_NO_PLUGINS``), so discovery, also in subprocesses, sees only core and the fake
    plugins the test installs. Returns the hidden names.
    """
    hidden = sorted({ep.name for ep in importlib_metadata.entry_points(group=ENTRY_POINT_GROUP)})
    monkeypatch.delenv(NO_PLUGINS_ENV, raising=False)
    monkeypatch.setenv(DISABLE_PLUGINS_ENV, ",".join(hidden))
    return hidden


@pytest.fixture
def installed_fake_plugin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[FakePluginInstaller]:
    """Install fake plugin distributions for this test (see :class:`FakePluginInstaller`)."""
    installer = FakePluginInstaller(tmp_path / "site", monkeypatch)
    yield installer
    installer.forget_modules()
