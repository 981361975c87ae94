"""pytest plugin of neurogym: fixtures only, inert unless a test requests one.

The ``pytest11`` entry point ``neurogym`` of neurogym-core loads the top-level module
``_neurogym_pytest``, which this module re-exports: importing this module imports the
``neurogym`` package (and so runs plugin discovery), which an auto-loaded plugin must not do in
every pytest session. Where auto-loading is not wanted (``-p no:neurogym``), enable the
fixtures per package with ``pytest_plugins = ["neurogym.testing.plugin"]`` in ``conftest.py``.

Fixtures:

* ``ngym_pm``: a fresh plugin manager holding only core (no entry points loaded).
* ``ngym_registry``: a fresh registry holding only core's tasks.
* ``installed_fake_plugin``: a :class:`FakePluginInstaller` that writes fake installed
  distributions (``*.dist-info`` with a ``neurogym.plugins`` entry point) for discovery tests.
* ``ngym_hide_installed_plugins``: disables the really installed plugins for one test, so that
  discovery sees only core and fake plugins.
"""

from _neurogym_pytest import (
    FakePluginInstaller,
    installed_fake_plugin,
    ngym_hide_installed_plugins,
    ngym_pm,
    ngym_registry,
)

__all__ = [
    "FakePluginInstaller",
    "installed_fake_plugin",
    "ngym_hide_installed_plugins",
    "ngym_pm",
    "ngym_registry",
]
