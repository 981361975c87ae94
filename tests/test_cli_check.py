"""The ``neurogym`` command over the installed plugins: every plugin passes ``neurogym check``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import neurogym

PLUGINS = sorted({spec.plugin for spec in neurogym.tasks()} - {"core"})


def neurogym_command(*args, script=False):
    """Run the console script next to this interpreter, or ``python -m neurogym``."""
    script_path = Path(sys.executable).with_name("neurogym")
    launcher = [str(script_path)] if script else [sys.executable, "-m", "neurogym"]
    return subprocess.run(
        [*launcher, *args], capture_output=True, text=True, timeout=900, check=False
    )


def table(stdout):
    """The rows of the table that starts the output, split into cells."""
    return [line.split() for line in stdout.split("\n\n", 1)[0].splitlines()[1:]]


def test_plugins_are_installed():
    assert "perceptual" in PLUGINS


@pytest.mark.parametrize("plugin", PLUGINS)
def test_check_plugin_passes_every_task(plugin):
    expected = [spec.id for spec in neurogym.tasks(plugin=plugin)]
    result = neurogym_command("check", "--plugin", plugin)
    assert result.returncode == 0, result.stdout + result.stderr
    assert [row[:3] for row in table(result.stdout)] == [[i, plugin, "PASS"] for i in expected]
    count = len(expected)
    assert f"checked {count} task{'s' * (count != 1)}: {count} passed, 0 failed" in result.stdout


def test_console_script_lists_every_task():
    result = neurogym_command("list", script=True)
    assert result.returncode == 0, result.stderr
    assert [row[0] for row in table(result.stdout)] == [spec.id for spec in neurogym.tasks()]
