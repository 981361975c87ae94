"""What users get from pip: each family alone with core, and ``neurogym`` over NeuroGym 2.3.1.

One wheelhouse holds the wheels of every distribution of this checkout (neurogym-core,
neurogym-apps, each plugin under ``plugins/`` and the ``neurogym`` distribution of
``neurogym-meta/``). Each plugin's wheel is installed with core's into a fresh virtual
environment holding nothing else (dependencies from the package index): every task the
first-party table lists for it is listed, made, reset and stepped there, no application code
is installed, and ``neurogym train`` says which package brings it. A venv holding upstream's
``neurogym==2.3.1`` is upgraded to this checkout's ``neurogym[train,plot]``: every first-party
task works there, ``neurogym plot`` draws and ``neurogym train`` trains.
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
# No byte-compiling at install: torch alone has thousands of modules, and the probes import
# only a few of them.
QUIET_PIP = ("--disable-pip-version-check", "--no-compile")
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
import importlib.util
absent = [m for m in sys.argv[2:] if importlib.util.find_spec(m) is None]
print(json.dumps({"ids": ids, "others": others, "absent": absent}))
"""
APPLICATION_MODULES = ("neurogym_apps", "torch", "matplotlib")


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
    """Wheels of every distribution of this checkout (no dependencies)."""
    out = tmp_path_factory.mktemp("wheels")
    sources = [ROOT / "neurogym-core", ROOT / "neurogym-apps", ROOT / "neurogym-meta", *PLUGINS]
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
    _run([python, "-m", "pip", "install", *QUIET_PIP, core, plugin], env=env)
    found = json.loads(
        _run([python, "-c", PROBE, entry_point, *APPLICATION_MODULES], env=env, cwd=tmp_path)
    )
    expected = sorted(f"neurogym/{name}-v0" for name in ROWS[distribution].tasks)
    assert found == {"ids": expected, "others": [], "absent": list(APPLICATION_MODULES)}
    train = subprocess.run(
        [venv / "bin" / "neurogym", "train", expected[0]],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=TIMEOUT, check=False,
    )  # fmt: skip
    assert train.returncode == 1, train
    assert train.stderr.strip() == (
        "neurogym train: the 'train' command comes with neurogym-apps, which is not installed: "
        'pip install "neurogym[train]"'
    )


# Runs inside the upgraded venv: every first-party task, and nothing left of 2.3.1.
UPGRADED = """
import importlib.metadata as md, importlib.util, json
import gymnasium, neurogym
ids = sorted(spec.id for spec in neurogym.tasks())
for task_id in ids:
    env = gymnasium.make(task_id)
    env.reset(seed=0)
    env.step(env.action_space.sample())
print(json.dumps({
    "ids": ids,
    "neurogym": md.version("neurogym"),
    "core": md.version("neurogym-core"),
    "left of 2.3.1": [m for m in ("neurogym.core", "neurogym.envs", "neurogym.utils")
                      if importlib.util.find_spec(m) is not None],
}))
"""


def test_neurogym_upgrades_a_2_3_1_venv_to_every_task_and_the_app_commands(wheelhouse, tmp_path):
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", venv])
    python, env = venv / "bin" / "python", _clean_env()
    pip = [python, "-m", "pip", "install", *QUIET_PIP]
    _run([*pip, "--no-deps", "neurogym==2.3.1"], env=env)  # upstream's files and metadata
    _run([*pip, "--find-links", wheelhouse, "--upgrade", "neurogym[train,plot]"], env=env)
    found = json.loads(_run([python, "-c", UPGRADED], env=env, cwd=tmp_path))
    meta = tomllib.loads((ROOT / "neurogym-meta" / "pyproject.toml").read_text())["project"]
    core = tomllib.loads((ROOT / "neurogym-core" / "pyproject.toml").read_text())["project"]
    every = sorted(
        f"neurogym/{name}-v0"
        for row in FIRST_PARTY
        if row.distribution != "neurogym-apps"
        for name in row.tasks
    )
    assert found == {
        "ids": every,
        "neurogym": meta["version"],
        "core": core["version"],
        "left of 2.3.1": [],
    }
    out = tmp_path / "pdm.png"
    _run([venv / "bin" / "neurogym", "plot", "PerceptualDecisionMaking", "--out", out], env=env)
    assert out.stat().st_size > 10_000
    run = tmp_path / "run"
    train = ["train", "PerceptualDecisionMaking", "--steps", "3", "--eval-trials", "5"]
    _run([venv / "bin" / "neurogym", *train, "--no-figures", "--out", run], env=env, cwd=tmp_path)
    assert json.loads((run / "metrics.json").read_text())["task"].endswith(
        "PerceptualDecisionMaking-v0"
    )


def test_the_neurogym_wheel_carries_cores_shared_files_byte_for_byte(wheelhouse):
    import zipfile

    meta = tomllib.loads((ROOT / "neurogym-meta" / "pyproject.toml").read_text())["project"]
    core = tomllib.loads((ROOT / "neurogym-core" / "pyproject.toml").read_text())["project"]
    assert f"neurogym-core=={core['version']}" in meta["dependencies"]
    (wheel,) = wheelhouse.glob(f"neurogym-{meta['version']}-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shared = sorted(name for name in archive.namelist() if not name.startswith("neurogym-"))
        assert shared == [
            "neurogym/__init__.py", "neurogym/wrappers/__init__.py", "neurogym/wrappers/monitor.py"
        ]  # fmt: skip
        for name in shared:
            source = ROOT / "neurogym-core" / "src" / name
            assert archive.read(name) == source.read_bytes(), name
