"""Each distribution is ready to publish: one version, requirements that admit it, a changelog.

A distribution is a directory with a ``pyproject.toml``: ``neurogym-core``, ``neurogym-apps``,
``neurogym-meta`` (the ``neurogym`` distribution) and every ``plugins/*``. Each version is
written once, as ``project.version``; ``__version__`` attributes read it from the installed
metadata, and the ``neurogym`` distribution's exact pin of neurogym-core is written at build
time by ``neurogym-meta/hatch_build.py``. Every requirement anywhere in the repository on one of
these distributions must admit the version this checkout builds. ``nox -s build`` builds and
checks the archives themselves (tests/packaging/).
"""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version
from pyprojects import DIRS, META_HOOK, PROJECTS, ROOT, requirements_of

VERSIONS = {
    canonicalize_name(p["project"]["name"]): p["project"]["version"] for p in PROJECTS.values()
}
# Keep a Changelog's section names.
SECTIONS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def _id(directory: Path) -> str:
    return directory.relative_to(ROOT).as_posix()


def _strings(requirements: object) -> list[str]:
    """The requirement strings of a list (dependency groups also hold include-group tables)."""
    return (
        [r for r in requirements if isinstance(r, str)] if isinstance(requirements, list) else []
    )


def _requirements(pyproject: dict[str, Any]) -> list[str]:
    """Every requirement string a pyproject declares: dependencies, extras and groups."""
    project = pyproject.get("project", {})
    found = _strings(project.get("dependencies"))
    for extra in project.get("optional-dependencies", {}).values():
        found += _strings(extra)
    for group in pyproject.get("dependency-groups", {}).values():
        found += _strings(group)
    return found


def _all_requirements() -> list[tuple[str, str]]:
    """(where, requirement) for every requirement in the repository's pyproject files."""
    return requirements_of(_requirements, root=True)


def test_the_distributions_are_found():
    assert set(VERSIONS) == {
        "neurogym-core", "neurogym-apps", "neurogym", "neurogym-perceptual",
        "neurogym-workingmemory", "neurogym-valuebased", "neurogym-motor", "neurogym-multitask",
    }  # fmt: skip


@pytest.mark.parametrize("directory", DIRS, ids=_id)
def test_the_version_is_static_and_one_pypi_accepts(directory):
    project = PROJECTS[directory]["project"]
    assert "version" not in project.get("dynamic", [])
    assert Version(project["version"]).local is None  # PyPI refuses local versions (+...)


def test_every_requirement_on_a_distribution_of_this_repo_admits_the_version_built_here():
    checked = []
    for where, text in _all_requirements():
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        if name in VERSIONS:
            version = VERSIONS[name]
            assert requirement.specifier.contains(version, prereleases=True), (
                f"{where}: {text!r} does not admit {name} {version}, the version built here"
            )
            checked.append(name)
    # Core is required by apps, by every plugin and by the template; the meta requires the rest.
    assert checked.count("neurogym-core") >= 8
    assert set(checked) == set(VERSIONS) - {"neurogym"}


def test_the_meta_names_core_without_a_version_for_its_build_hook_to_pin():
    core = [
        Requirement(text)
        for requirements in [
            META_HOOK["dependencies"],
            *META_HOOK["optional-dependencies"].values(),
        ]
        for text in requirements
        if canonicalize_name(Requirement(text).name) == "neurogym-core"
    ]
    assert len(core) == 2  # the dependency and the template extra
    assert all(not requirement.specifier for requirement in core)
    meta = PROJECTS[ROOT / "neurogym-meta"]["project"]
    assert set(meta["dynamic"]) == {"dependencies", "optional-dependencies"}
    assert "dependencies" not in meta
    assert "optional-dependencies" not in meta


@pytest.mark.parametrize(
    ("module", "distribution"), [("neurogym", "neurogym-core"), ("neurogym_apps", "neurogym-apps")]
)
def test_version_attributes_read_the_installed_metadata(module, distribution):
    imported = __import__(module)
    assert imported.__version__ == importlib.metadata.version(distribution)
    assert imported.__version__ == VERSIONS[distribution]


def test_every_first_party_distribution_carries_one_version():
    """The version story (README, CHANGELOGs): core, the apps, the families and ``neurogym``
    are released together under one number, so ``neurogym.__version__`` is what ``pip show
    neurogym`` says."""
    assert set(VERSIONS.values()) == {"3.0.0"}


def test_neurogym_version_is_core_metadata_and_the_meta_version():
    import neurogym

    assert neurogym.__version__ == importlib.metadata.version("neurogym-core")
    assert neurogym.__version__ == VERSIONS["neurogym"]  # the `neurogym` distribution's version


def test_every_first_party_range_admits_this_major_only():
    """Ranges between first-party distributions are ``>=X.0,<X+1`` of the one version."""
    major = Version(VERSIONS["neurogym-core"]).major
    for where, text in _all_requirements():
        requirement = Requirement(text)
        if canonicalize_name(requirement.name) in VERSIONS and requirement.specifier:
            assert str(requirement.specifier) == f"<{major + 1},>={major}.0", (where, text)


def test_no_source_file_writes_a_version_literal():
    assignment = re.compile(r"^\s*__version__\s*(:[^=]*)?=", re.MULTILINE)
    sources = [path for directory in DIRS for path in (directory / "src").rglob("*.py")]
    assert len(sources) > 50
    assert [str(path) for path in sources if assignment.search(path.read_text())] == []


@pytest.mark.parametrize("directory", DIRS, ids=_id)
def test_the_changelog_starts_with_the_version_built_here(directory):
    changelog = (directory / "CHANGELOG.md").read_text(encoding="utf-8")
    project = PROJECTS[directory]["project"]
    assert changelog.startswith("# Changelog\n")
    assert "[Keep a Changelog](https://keepachangelog.com/" in changelog
    entries = re.findall(r"^## (.*)$", changelog, re.MULTILINE)
    assert entries, f"{directory.name}/CHANGELOG.md has no '## [version] - date' entry"
    top = re.fullmatch(r"\[([^\]]+)\] - (\d{4}-\d\d-\d\d|Unreleased)", entries[0])
    assert top, f"{directory.name}/CHANGELOG.md: top entry {entries[0]!r} is not '[X.Y.Z] - date'"
    assert top.group(1) == project["version"], (
        f"{directory.name}/CHANGELOG.md's top entry is {top.group(1)}, the package is "
        f"{project['version']}: add an entry for it"
    )
    body = changelog.split("\n## ", 2)[1]
    sections = re.findall(r"^### (.*)$", body, re.MULTILINE)
    assert sections, f"{directory.name}/CHANGELOG.md: the {top.group(1)} entry has no sections"
    assert set(sections) <= SECTIONS


@pytest.mark.parametrize("directory", DIRS, ids=_id)
def test_each_distribution_ships_the_license_it_declares(directory):
    assert PROJECTS[directory]["project"]["license"] == "Apache-2.0"
    root = (ROOT / "LICENSE").read_bytes()
    assert root.lstrip().startswith(b"Apache License\n")
    assert b"Version 2.0, January 2004" in root
    assert (directory / "LICENSE").read_bytes() == root, f"{directory.name}/LICENSE != LICENSE"


@pytest.mark.parametrize("directory", DIRS, ids=_id)
def test_the_readme_pypi_shows_has_no_relative_links(directory):
    readme = (directory / PROJECTS[directory]["project"]["readme"]).read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", readme)
    assert [t for t in targets if not t.startswith(("https://", "http://", "#"))] == []


@pytest.mark.parametrize("directory", [d for d in DIRS if (d / "src").is_dir()], ids=_id)
def test_each_package_is_marked_typed(directory):
    (package,) = PROJECTS[directory]["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
    assert (directory / package / "py.typed").is_file()
    assert "Typing :: Typed" in PROJECTS[directory]["project"]["classifiers"]
