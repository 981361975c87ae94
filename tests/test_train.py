"""neurogym.train: training, closed-loop evaluation, checkpoints, the CLI, the main job."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="neurogym.train needs the torch extra")

from neurogym.cli import main as cli  # noqa: E402
from neurogym.train import (  # noqa: E402
    TrainConfig,
    TrainedModel,
    evaluate,
    showcase,
    train,
)

ROOT = Path(__file__).resolve().parents[1]
PDM = "PerceptualDecisionMaking"


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """Small networks run fastest on one thread (as the CLI and the main job use)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def trained(one_thread):
    """PerceptualDecisionMaking after 300 steps: well above chance, far from perfect."""
    return train(PDM, TrainConfig(steps=300, seed=0), progress=False)


def test_import_neurogym_imports_neither_torch_nor_matplotlib():
    code = (
        "import sys, neurogym; "
        "print([m for m in ('torch', 'tqdm', 'matplotlib') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_same_config_same_weights_and_losses():
    first = train(PDM, TrainConfig(steps=15, seed=3, hidden_size=16), progress=False)
    second = train(PDM, TrainConfig(steps=15, seed=3, hidden_size=16), progress=False)
    assert first.history["loss"] == second.history["loss"]
    for a, b in zip(first.network.parameters(), second.network.parameters(), strict=True):
        assert torch.equal(a, b)
    third = train(PDM, TrainConfig(steps=15, seed=4, hidden_size=16), progress=False)
    assert third.history["loss"] != first.history["loss"]


def test_training_learns_and_closed_loop_beats_chance(trained):
    loss = np.array(trained.history["loss"])
    assert loss[-30:].mean() < 0.6 * loss[:10].mean()
    result = evaluate(trained, 300, seed=1)
    assert result.chance["fixation"] == 0.0  # PDM never pays for fixating through a trial
    # one decision step (dt=100): a random action among 3 is right a third of the time
    assert result.chance["random"] == pytest.approx(1 / 3, abs=0.08)
    assert result.performance > result.chance_level + 0.2
    coh = result.conditions["coh"]
    assert set(coh) == {0.0, 6.4, 12.8, 25.6, 51.2}
    assert coh[51.2] > coh[0.0]  # easier trials are answered better
    assert result.trials == 300
    assert json.loads(json.dumps(result.to_dict()))["trials"] == 300


def test_evaluation_is_seeded_and_can_carry_the_state(trained):
    a = evaluate(trained, 100, seed=5, chance=False)
    b = evaluate(trained, 100, seed=5, chance=False)
    np.testing.assert_array_equal(a.per_trial, b.per_trial)
    assert a.chance == {}
    carried = evaluate(trained, 100, seed=5, chance=False, carry_state=True)
    assert carried.trials == 100


def test_lstm_and_continuous_actions():
    lstm = train(PDM, model="lstm", steps=5, hidden_size=8, progress=False)
    assert evaluate(lstm, 70, chance=False).trials == 70  # the (h, c) state restarts per row
    reach = train("ReachingDelayResponse", steps=5, hidden_size=8, progress=False)
    assert reach.continuous
    assert np.isnan(reach.history["accuracy"]).all()  # MSE: no step accuracy
    n_in = reach.make_env().observation_space.shape[0]
    actions, _ = reach.act(np.zeros((3, n_in), dtype=np.float32))
    assert actions.shape == (3, 2)
    assert 0.0 <= evaluate(reach, 20, chance=False).performance <= 1.0


def test_a_task_without_ground_truth_says_to_use_rl():
    with pytest.raises(ValueError, match="reinforcement learning"):
        train("Null", steps=1, progress=False)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"model": "gruu"}, "model must be one of 'gru', 'lstm', 'rnn', got 'gruu'"),
        ({"steps": 0}, "steps"),
        ({"lr": -1.0}, "lr"),
        ({"seconds": float("nan")}, "seconds"),
    ],
)
def test_bad_config(kwargs, message):
    with pytest.raises((TypeError, ValueError), match=re.escape(message)):
        TrainConfig(**kwargs)


def test_save_and_load_give_the_same_network(trained, tmp_path):
    trained.save(tmp_path / "run")
    again = TrainedModel.load(tmp_path / "run")
    obs = np.random.default_rng(0).random((5, 3), dtype=np.float32)
    np.testing.assert_array_equal(trained.act(obs)[0], again.act(obs)[0])
    assert again.config == trained.config
    assert again.history["loss"] == trained.history["loss"]
    with pytest.raises(FileNotFoundError, match="not a saved model folder"):
        TrainedModel.load(tmp_path)


def test_cli_trains_evaluates_and_writes_the_run(tmp_path, capsys):
    out = tmp_path / "pdm"
    status = cli(["train", PDM, "--steps", "5", "--out", str(out), "--eval-trials", "20"])
    assert status == 0
    printed = capsys.readouterr().out
    assert "PerceptualDecisionMaking" in printed
    assert "chance (random)" in printed
    assert {p.name for p in out.iterdir()} >= {
        "model.pt",
        "config.json",
        "metrics.json",
        "loss.png",
        "trial.png",
    }
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["steps"] == 5
    assert metrics["evaluation"]["trials"] == 20
    assert set(metrics["evaluation"]["chance"]) == {"random", "fixation"}


def test_cli_errors(tmp_path, capsys):
    assert cli(["train", "PerceptualDecisionMakin", "--steps", "1"]) == 2
    assert "PerceptualDecisionMaking" in capsys.readouterr().err  # the close match
    with pytest.raises(SystemExit):
        cli(["train", PDM, "--steps", "0"])
    assert cli(["train", "Null", "--steps", "1", "--out", str(tmp_path)]) == 1
    assert "reinforcement learning" in capsys.readouterr().err


def test_the_tutorial_runs(tmp_path, monkeypatch):
    page = ROOT / "docs" / "training.md"
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 3
    monkeypatch.chdir(tmp_path)
    namespace = {"STEPS": 20, "TRIALS": 50}
    for index, block in enumerate(blocks):
        exec(compile(block, f"training.md, block {index + 1}", "exec"), namespace)
    assert (tmp_path / "pdm-run" / "model.pt").is_file()
    assert (tmp_path / "trial.png").is_file()


def test_the_main_job_runs_every_installed_showcase_task(tmp_path, capsys):
    status = showcase.main(["--out", str(tmp_path), "--scale", "0.02", "--eval-trials", "20"])
    assert status == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert set(summary) == set(showcase.installed([name for name, _ in showcase.SHOWCASE]))
    assert PDM in summary
    assert (tmp_path / PDM / "trial.png").is_file()
    assert "accuracy" in capsys.readouterr().out


def test_main_job_full_budget_meets_the_floor(request, tmp_path):
    """The README's main job as a user runs it: PerceptualDecisionMaking >= 0.85 (slow)."""
    if not request.config.getoption("--run-main-job"):
        pytest.skip("slow: run with --run-main-job (nox -s mainjob)")
    assert showcase.main(["--out", str(tmp_path), "--floor", f"{PDM}=0.85"]) == 0


def test_learnability_rows_merge_per_plugin(tmp_path):
    from neurogym.train import learnability

    out = tmp_path / "learn.md"
    stored = [
        {
            "task": "Other",
            "plugin": "lab",
            "seconds": 9.0,
            "date": "2026-01-01",
            "status": "learned",
            "accuracy": 0.9,
            "chance": 0.5,
            "oracle": 1.0,
            "steps": 7,
        }
    ]
    out.with_suffix(".json").write_text(json.dumps(stored))
    args = ["--out", str(out), "--seconds", "0.2", "--eval-trials", "20", "--plugin", "core"]
    assert learnability.main(args) == 0
    rows = {row["task"]: row for row in json.loads(out.with_suffix(".json").read_text())}
    assert rows["Null"]["status"] == "RL-only (no ground truth)"
    assert rows["Other"] == stored[0]  # another plugin's row is kept
    text = out.read_text()
    assert "| Null | core |" in text
    assert "| Other | lab | 0.900 | 0.500 | 1.000 | 7 | 9 s | 2026-01-01 | learned |" in text


@pytest.mark.parametrize(
    ("accuracy", "chance", "oracle", "status"),
    [
        (0.9, 0.3, 1.0, "learned"),
        (0.6, 0.3, 1.0, "not learned within the budget"),
        (1.0, 1.0, 1.0, "no gap: a baseline already scores as well as the scripted agent"),
        (0.0, 0.0, 0.0, "no score: the task reports no performance (info['performance'] stays 0)"),
    ],
)
def test_learnability_status(accuracy, chance, oracle, status):
    from neurogym.train.learnability import _status

    assert _status(accuracy, chance, oracle) == status
