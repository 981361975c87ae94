"""neurogym's pytest plugin (pytest11) is inert in projects that do not use it (issue #47)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import importlib_metadata

# Runs in a pytest session of an unrelated project (filterwarnings = error) while a broken
# neurogym plugin is installed. The first test runs before anything requests a fixture.
INNER_TESTS = """
import sys

import pytest


def _neurogym_modules():
    return sorted(
        name
        for name in sys.modules
        if name.split(".")[0] in {"neurogym", "fake_broken", "fake_good", "fake_tasks"}
        or name.startswith(("neurogym_", "neurogym."))
    )


def test_a_session_that_uses_no_fixture_imports_nothing_of_neurogym(pytestconfig):
    assert pytestconfig.pluginmanager.has_plugin("neurogym")  # loaded, but inert
    assert _neurogym_modules() == []


@pytest.mark.filterwarnings("ignore:neurogym plugin 'broken'")
def test_a_fixture_imports_neurogym_when_asked(ngym_registry):
    assert [spec.id for spec in ngym_registry.tasks()] == ["neurogym/Null-v0"]
    assert "neurogym" in sys.modules
"""


def test_pytest11_entry_point_targets_a_module_that_imports_no_neurogym():
    (entry_point,) = importlib_metadata.entry_points(group="pytest11", name="neurogym")
    assert entry_point.value.split(":")[0].split(".")[0] != "neurogym"


def test_an_unrelated_pytest_run_imports_no_plugin_and_survives_a_broken_one(
    installed_fake_plugin, good_plugin, fake_tasks_file, tmp_path
):
    installed_fake_plugin("fake-good", good_plugin, files=fake_tasks_file)
    site = installed_fake_plugin("fake-broken", "raise ImportError('boom')", entry_point="broken")
    project = tmp_path / "project"
    project.mkdir()
    (project / "pytest.ini").write_text("[pytest]\nfilterwarnings =\n    error\n")
    (project / "test_unrelated.py").write_text(textwrap.dedent(INNER_TESTS))
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_ADDOPTS", "PYTEST_PLUGINS"}
        and not key.startswith("NEUROGYM_")
    }
    env["PYTHONPATH"] = os.pathsep.join([str(site), *sys.path])
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-p", "no:xdist"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout
