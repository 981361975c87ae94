"""Test helpers for neurogym and its plugins.

* :func:`check_task`: the conformance kit every task must pass (raises :class:`TaskCheckError`
  listing every failed check).
* ``neurogym.testing.plugin`` is a pytest plugin (inert unless a fixture is requested)
  providing the fixtures ``ngym_pm``, ``ngym_registry``, ``installed_fake_plugin`` and
  ``ngym_hide_installed_plugins``. The ``pytest11`` entry point loads the same fixtures from the
  top-level module ``_neurogym_pytest``, which imports nothing of ``neurogym``.
"""

from neurogym.testing._check import INFORMATIONAL_WARNINGS, TaskCheckError, check_task

__all__ = ["INFORMATIONAL_WARNINGS", "TaskCheckError", "check_task"]
