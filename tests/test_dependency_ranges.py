"""Published metadata declares ranges; the exact builds of dev and CI live in constraints.txt.

``pip install "neurogym[train]"`` must never replace what a lab already has (its own torch
build, CUDA included) while that is in range, so no published requirement is an exact pin
(``==``/``===``): not in any distribution's ``[project]`` dependencies or extras, not in the
``neurogym`` distribution's hook table, not in the plugin template. The one exact pin in built
metadata is first-party: ``neurogym`` requires ``neurogym-core`` at exactly its own version,
written at build time (``neurogym-meta/hatch_build.py``; tests/packaging checks the wheels).
The exact torch of dev and CI (the CPU wheel) is pinned once, in ``constraints.txt``, and every
pip install of the noxfile and of tests/packaging passes it.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from pyprojects import PROJECTS, ROOT, requirements_of

CONSTRAINTS = ROOT / "constraints.txt"
TORCH = "torch==2.13.0"  # the CPU wheel on the dev and CI machines


def _published(pyproject: dict[str, Any]) -> list[str]:
    """The requirements a distribution's wheel metadata carries: dependencies and extras."""
    project = pyproject.get("project", {})
    found = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        found += extra
    return found


def _groups(pyproject: dict[str, Any]) -> list[str]:
    """The requirement strings of the dependency groups (dev-only, never published)."""
    return [
        r for group in pyproject.get("dependency-groups", {}).values() for r in group
        if isinstance(r, str)
    ]  # fmt: skip


def published_requirements() -> list[tuple[str, str]]:
    """(where, requirement) for every requirement that reaches published metadata."""
    return requirements_of(_published)


def constraints() -> list[Requirement]:
    lines = CONSTRAINTS.read_text(encoding="utf-8").splitlines()
    return [Requirement(line) for line in lines if line.strip() and not line.startswith("#")]


def test_the_published_requirements_are_found():
    found = published_requirements()
    names = {canonicalize_name(Requirement(r).name) for _, r in found}
    assert {"torch", "numpy", "gymnasium", "neurogym-core", "neurogym-apps"} <= names
    assert len(found) > 30


@pytest.mark.parametrize(("where", "text"), published_requirements())
def test_no_published_requirement_is_an_exact_pin(where, text):
    operators = {spec.operator for spec in Requirement(text).specifier}
    assert not operators & {"==", "==="}, (
        f"{where}: {text!r} pins exactly; published metadata declares the range that works "
        "(an exact pin makes pip replace what a lab has), and constraints.txt pins dev and CI"
    )


def test_torch_is_published_as_a_range_from_2_3_below_3():
    torch = [
        Requirement(text).specifier
        for _, text in published_requirements()
        if canonicalize_name(Requirement(text).name) == "torch"
    ]
    assert len(torch) == 3  # neurogym-apps' extras torch, rl and ray
    assert {str(spec) for spec in torch} == {"<3,>=2.3"}


def test_the_constraints_file_pins_torch_exactly_and_names_each_package_once():
    pins = constraints()
    assert CONSTRAINTS.read_text(encoding="utf-8").startswith("#")  # the header says why
    assert TORCH in [str(pin) for pin in pins]
    names = [canonicalize_name(pin.name) for pin in pins]
    assert len(names) == len(set(names))
    assert all(not pin.extras and not pin.marker for pin in pins)


def test_every_torch_requirement_admits_the_pinned_build_and_none_pins_it():
    """One source of truth: dependency groups use the published range, constraints.txt pins."""
    pinned = Requirement(TORCH).specifier
    (version,) = [spec.version for spec in pinned]
    pyprojects = [
        tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8")),
        *PROJECTS.values(),
    ]
    texts = [t for _, t in published_requirements()]
    texts += [t for pyproject in pyprojects for t in _groups(pyproject)]
    torch = [Requirement(t) for t in texts if canonicalize_name(Requirement(t).name) == "torch"]
    assert len(torch) >= 5  # the three extras, the root train group, valuebased's test group
    for requirement in torch:
        assert requirement.specifier.contains(version), f"{requirement} refuses {TORCH}"
        assert requirement.specifier != pinned, f"{requirement}: pin it in constraints.txt only"


def test_every_nox_install_passes_the_constraints_file():
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    # session.install is called in exactly one place: install(), which adds the constraints.
    assert noxfile.count("session.install(") == 1
    assert 'session.install("--constraint", str(CONSTRAINTS), *args)' in noxfile
    assert 'CONSTRAINTS = ROOT / "constraints.txt"' in noxfile
    # The one pip run outside a session venv (upstream 2.3.1's, for the benchmark) too.
    pip_runs = re.findall(r'^.*"pip", "install".*$', noxfile, re.MULTILINE)
    assert pip_runs
    assert all('"--constraint", str(CONSTRAINTS)' in line for line in pip_runs)


def test_every_pip_install_of_the_packaging_tests_passes_the_constraints_file():
    source = (ROOT / "tests" / "packaging" / "test_wheels.py").read_text(encoding="utf-8")
    quiet = re.findall(r"^QUIET_PIP = (.*)$", source, re.MULTILINE)
    assert quiet
    assert all('"--constraint", str(CONSTRAINTS)' in line for line in quiet)
    installs = re.findall(r'^.*"pip", "install".*$', source, re.MULTILINE)
    assert len(installs) >= 3
    assert all("*QUIET_PIP" in line for line in installs)
