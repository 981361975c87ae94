"""Development sessions: ``nox`` runs them all, ``nox -l`` lists them."""

from __future__ import annotations

import os

import nox

nox.needs_version = ">=2025.2.9"
nox.options.error_on_external_run = True  # every tool must come from the session's venv

PYPROJECT = nox.project.load_toml("pyproject.toml")
# The neurogym-core to test against: from PyPI unless NEUROGYM_CORE names another one, e.g.
# the neurogym-core/ directory of a checkout (NEUROGYM_CORE=../neurogym/neurogym-core nox).
CORE = os.environ.get("NEUROGYM_CORE", "neurogym-core")
# The Python versions the plugin supports (the classifiers in pyproject.toml say the same):
# `nox -s tests` runs on each one installed, `nox -s tests-3.12` on one (as CI does).
PYTHONS = ["3.11", "3.12", "3.13"]


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """Install the plugin with its test dependencies and run its tests."""
    session.install(CORE, "-e", ".", *nox.project.dependency_groups(PYPROJECT, "test"))
    session.run("pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Check the code with ruff: lint rules, then formatting (no changes are written)."""
    session.install(*nox.project.dependency_groups(PYPROJECT, "lint"))
    session.run("ruff", "check", *(session.posargs or ["."]))
    session.run("ruff", "format", "--check", *(session.posargs or ["."]))
