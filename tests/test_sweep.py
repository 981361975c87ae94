"""neurogym_apps.train.sweep and ``neurogym sweep`` run here (Ray: tests/test_scale.py)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys

import pytest

pytest.importorskip("torch", reason="sweeps train with neurogym_apps.train (the torch extra)")

from neurogym.cli import main as cli
from neurogym_apps.train import TrainConfig
from neurogym_apps.train.sweep import main as sweep_main
from neurogym_apps.train.sweep import sweep

PDM = "neurogym/PerceptualDecisionMaking-v0"
DMS = "neurogym/DelayMatchSample-v0"

# The two ways to run a sweep from a shell: the neurogym command line, and the module alone.
COMMANDS = {
    "neurogym sweep": lambda args: cli(["sweep", *args]),
    "python -m neurogym_apps.train.sweep": sweep_main,
}


def test_a_sweep_runs_the_grid_in_order_and_each_run_is_repeatable():
    config = TrainConfig(steps=5, hidden_size=8, seed=99)  # the sweep's seeds replace 99
    runs = sweep([PDM, DMS], [0, 1], config, eval_trials=20)
    assert [(r["task"], r["seed"]) for r in runs] == [(PDM, 0), (PDM, 1), (DMS, 0), (DMS, 1)]
    assert all(r["steps"] == 5 for r in runs)
    assert runs[0]["final_loss"] != runs[1]["final_loss"]  # another seed, another run
    assert sweep([PDM], [1], config, eval_trials=20) == [runs[1]]


def test_bad_sweeps():
    with pytest.raises(ValueError, match=re.escape("a sweep needs tasks and seeds")):
        sweep([PDM], [])
    with pytest.raises(ValueError, match="eval_trials"):
        sweep([PDM], [0], eval_trials=0)


@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS)
def test_the_sweep_command_prints_and_writes_the_runs(command, tmp_path, capsys):
    out = tmp_path / "runs.json"
    args = ["PerceptualDecisionMaking", "--seeds", "0", "1", "--steps", "5"]
    assert command([*args, "--eval-trials", "20", "--out", str(out)]) == 0
    runs = json.loads(out.read_text())
    assert [(r["task"], r["seed"]) for r in runs] == [(PDM, 0), (PDM, 1)]
    printed = capsys.readouterr().out
    assert printed.count("accuracy") == 2
    assert command(["PerceptualDecisionMakin"]) == 2
    assert "did you mean 'neurogym/PerceptualDecisionMaking-v0'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        command([PDM, "--steps", "0"])


@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS)
def test_the_sweep_command_never_replaces_an_earlier_file_unasked(command, tmp_path, capsys):
    out = tmp_path / "runs.json"
    out.write_text("[]")
    args = ["PerceptualDecisionMaking", "--steps", "2", "--eval-trials", "5", "--out", str(out)]
    assert command(args) == 1  # refused before any training, as neurogym train --out is
    err = capsys.readouterr().err
    assert f"--out {str(out)!r} exists" in err
    assert "--overwrite" in err
    assert out.read_text() == "[]"
    assert command([*args[:-2], "--out", str(tmp_path)]) == 1
    assert "is a directory" in capsys.readouterr().err
    assert command([*args, "--overwrite"]) == 0
    assert [run["seed"] for run in json.loads(out.read_text())] == [0]


def test_the_sweep_command_reports_each_run_and_writes_strict_json(tmp_path, capsys, monkeypatch):
    seen_threads = []

    def run_one(task, seed, config, eval_trials):  # nothing to score: NaN, as a real run can
        seen_threads.append(config.threads)
        nan = float("nan")
        return {"task": task, "seed": seed, "steps": 1, "final_loss": nan, "accuracy": nan,
                "performance": nan, "chance": nan}  # fmt: skip

    monkeypatch.setattr("neurogym_apps.train.sweep.run_one", run_one)
    out = tmp_path / "runs.json"
    args = [PDM, "--seeds", "0", "1", "--threads", "2", "--out", str(out)]
    assert cli(["sweep", *args]) == 0
    assert seen_threads == [2, 2]  # --threads is TrainConfig.threads
    err = capsys.readouterr().err
    assert f"sweep run 1/2: {PDM} seed 0  strict accuracy nan" in err
    assert f"sweep run 2/2: {PDM} seed 1" in err

    def refuse(name):
        raise ValueError(f"not JSON: {name}")

    runs = json.loads(out.read_text(), parse_constant=refuse)
    assert [run["accuracy"] for run in runs] == [None, None]


@pytest.mark.parametrize(
    "args", [["PerceptualDecisionMakin"], [PDM, "--steps", "0"], ["--help"], []], ids=repr
)
def test_the_module_alone_says_what_neurogym_sweep_says(args, capsys):
    said = {}
    for name, command in COMMANDS.items():
        try:
            status = command(args)
        except SystemExit as exc:  # argparse: --help, or a refused argument
            status = exc.code
        said[name] = (status, *capsys.readouterr())
    assert said["neurogym sweep"][0] in (0, 2)
    assert said["python -m neurogym_apps.train.sweep"] == said["neurogym sweep"]


def test_python_m_sweep_runs_without_the_command_line():
    probe = (
        "import runpy, sys\n"
        "sys.argv = ['sweep', 'PerceptualDecisionMakin']\n"
        "try:\n"
        "    runpy.run_module('neurogym_apps.train.sweep', run_name='__main__', alter_sys=True)\n"
        "except SystemExit as exc:\n"
        "    print(exc.code, 'neurogym.cli' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout == "2 False\n"
    assert done.stderr.startswith("neurogym sweep: error: unknown task 'PerceptualDecisionMakin'")


@pytest.mark.skipif(importlib.util.find_spec("ray") is not None, reason="ray is installed")
@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS)
def test_sweeping_on_ray_without_ray_says_how_to_install_it(command, capsys):
    assert command([PDM, "--steps", "1", "--eval-trials", "1", "--ray"]) == 1
    assert 'pip install "neurogym[ray]"' in capsys.readouterr().err
