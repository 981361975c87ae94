"""The wheelhouse the packaging tests install from: ``--wheelhouse DIR``, or one built here.

``nox -s build`` builds an sdist and a wheel of every distribution into one directory, checks
them, and runs these tests with ``--wheelhouse`` pointing at it, so the archives that were
checked are the ones installed. Without the option (``pytest tests/packaging``) the tests
build wheels of their own with ``pip wheel``, and the tests that read sdists skip.

These tests are not part of the integration session (``nox -s integration`` passes
``--ignore=tests/packaging``): the build session runs them on its wheelhouse.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pip_venvs import DIRS, archive_stem, clean_env, run


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--wheelhouse",
        metavar="DIR",
        help="install the wheels (and read the sdists) of every distribution from DIR, as "
        "nox -s build made them, instead of building wheels here",
    )


@pytest.fixture(scope="session")
def wheelhouse(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding a wheel (and, from ``--wheelhouse``, an sdist) per distribution."""
    given = request.config.getoption("--wheelhouse", default=None)
    if given is None:
        out = tmp_path_factory.mktemp("wheels")
        pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check"]
        run([*pip, "-w", out, *DIRS], env=clean_env())
        return out
    out = Path(given).resolve()
    if not out.is_dir():
        raise pytest.UsageError(f"--wheelhouse {given}: not a directory")
    expected = {
        f"{archive_stem(d)}{ext}" for d in DIRS for ext in ("-py3-none-any.whl", ".tar.gz")
    }
    found = {path.name for path in out.iterdir()}
    if found != expected:
        raise pytest.UsageError(
            f"--wheelhouse {given} must hold exactly the sdist and wheel of every distribution "
            f"of this checkout: missing {sorted(expected - found)}, unexpected "
            f"{sorted(found - expected)}"
        )
    return out


@pytest.fixture(scope="session")
def sdists(wheelhouse: Path) -> dict[Path, Path]:
    """Distribution directory -> its sdist in the wheelhouse (skips without ``--wheelhouse``)."""
    found = {d: wheelhouse / f"{archive_stem(d)}.tar.gz" for d in DIRS}
    if not all(path.is_file() for path in found.values()):
        pytest.skip("no sdists in the wheelhouse: pass --wheelhouse DIR (nox -s build)")
    return found
