"""Test helpers for neurogym and its plugins.

* :func:`check_task`: the conformance kit every task must pass (raises :class:`TaskCheckError`
  listing every failed check).
* ``neurogym.testing.plugin`` is a pytest plugin (registered through ``pytest11``, inert unless
  a fixture is requested) providing the fixtures ``ngym_pm``, ``ngym_registry`` and
  ``installed_fake_plugin``.
"""

from neurogym.testing._check import INFORMATIONAL_WARNINGS, TaskCheckError, check_task

__all__ = ["INFORMATIONAL_WARNINGS", "TaskCheckError", "check_task"]
