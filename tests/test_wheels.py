"""What ``pip install neurogym-<family>`` gives a user: each plugin's wheel, alone with core's.

The wheels of neurogym-core and of each plugin under ``plugins/`` are built from this checkout;
each plugin's wheel is installed with core's into a fresh virtual environment holding nothing
else (dependencies from the package index), and every task the first-party table lists for it
is listed, made, reset and stepped there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from neurogym._registry.firstparty import FIRST_PARTY

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 900  # seconds for one pip command (cold caches)
PLUGINS = sorted(p.parent for p in ROOT.glob("plugins/*/pyproject.toml"))
ROWS = {row.distribution: row for row in FIRST_PARTY}

# Runs inside the fresh venv: lists the plugin's tasks, makes each one and steps it.
PROBE = """
import json, sys
import gymnasium, neurogym
plugin = sys.argv[1]
ids = [spec.id for spec in neurogym.tasks(plugin=plugin)]
for task_id in ids:
    env = gymnasium.make(task_id)
    env.reset(seed=0)
    for _ in range(5):
        env.step(env.action_space.sample())
others = sorted({spec.plugin for spec in neurogym.tasks()} - {plugin, "core"})
print(json.dumps({"ids": ids, "others": others}))
"""


def _run(command: list[object], **kwargs: object) -> str:
    result = subprocess.run(
        [str(part) for part in command],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        **kwargs,  # type: ignore[arg-type]
    )
    assert result.returncode == 0, f"$ {command}\n{result.stdout}\n{result.stderr}"
    return result.stdout


def _clean_env() -> dict[str, str]:
    return {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTHON", "NEUROGYM_")) and key != "VIRTUAL_ENV"
    }


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory):
    """Wheels of core and every plugin, built from this checkout (no dependencies)."""
    out = tmp_path_factory.mktemp("wheels")
    sources = [ROOT / "neurogym-core", *PLUGINS]
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check"]
    _run([*pip, "-w", out, *sources], env=_clean_env())
    return out


def _wheel(wheelhouse: Path, distribution: str) -> Path:
    (wheel,) = wheelhouse.glob(f"{distribution.replace('-', '_')}-*.whl")
    return wheel


@pytest.mark.parametrize("plugin_dir", PLUGINS, ids=lambda path: path.name)
def test_plugin_wheel_alone_with_core_lists_and_makes_its_tasks(plugin_dir, wheelhouse, tmp_path):
    project = tomllib.loads((plugin_dir / "pyproject.toml").read_text())["project"]
    distribution = project["name"]
    (entry_point,) = project["entry-points"]["neurogym.plugins"]
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", venv])
    python = venv / "bin" / "python"
    core = _wheel(wheelhouse, "neurogym-core")
    plugin = _wheel(wheelhouse, distribution)
    env = _clean_env()
    _run([python, "-m", "pip", "install", "--disable-pip-version-check", core, plugin], env=env)
    found = json.loads(_run([python, "-c", PROBE, entry_point], env=env, cwd=tmp_path))
    expected = sorted(f"neurogym/{name}-v0" for name in ROWS[distribution].tasks)
    assert found == {"ids": expected, "others": []}
