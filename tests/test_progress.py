"""Training respects the machine and says what it does: threads, progress, strict JSON, reprs.

Issue #48: the Python API trained on torch's default threads (several times slower beside
another job), progress was silent when stderr is not a terminal and showed an unlabelled
fixation-dominated accuracy, and files held bare NaN.
"""

from __future__ import annotations

import json
import math
import re

import pytest

torch = pytest.importorskip("torch", reason="neurogym_apps.train needs the torch extra")

from neurogym.cli import main as cli  # noqa: E402
from neurogym_apps.train import TrainConfig, TrainedModel, torch_threads, train  # noqa: E402

PDM = "PerceptualDecisionMaking"


def strict_json(text: str):
    """``json.loads`` that refuses NaN and Infinity, as JSON.parse and jq do."""

    def refuse(name: str):
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture
def threads_before():
    """torch set to 3 threads before the test (not the default of 1), restored after it."""
    before = torch.get_num_threads()
    torch.set_num_threads(3)
    yield 3
    torch.set_num_threads(before)


@pytest.mark.parametrize(("threads", "during"), [(1, 1), (2, 2), (None, 3)])
def test_train_uses_its_threads_while_it_trains_and_restores_them(threads, during, threads_before):
    seen = []
    model = train(
        PDM,
        steps=3,
        hidden_size=8,
        threads=threads,
        progress=False,
        callback=lambda model, step: seen.append(torch.get_num_threads()),
    )
    assert seen == [during] * 3
    assert torch.get_num_threads() == threads_before
    assert model.config.threads == threads


def test_threads_are_restored_when_training_fails(threads_before):
    def fail(model, step):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        train(PDM, steps=3, hidden_size=8, progress=False, callback=fail)
    assert torch.get_num_threads() == threads_before
    with torch_threads(2):
        assert torch.get_num_threads() == 2
    assert torch.get_num_threads() == threads_before


@pytest.mark.parametrize(("threads", "during"), [(None, 3), (1, 1)])
def test_evaluate_uses_one_thread_by_default_and_restores_the_setting(
    threads, during, threads_before, monkeypatch
):
    from neurogym_apps.train import _evaluate, evaluate

    model = train(PDM, steps=2, hidden_size=8, progress=False)
    seen = []
    act_of = _evaluate._act_of

    def counting(model):
        act = act_of(model)

        def counted(obs, state, rng):
            seen.append(torch.get_num_threads())
            return act(obs, state, rng)

        return counted

    monkeypatch.setattr(_evaluate, "_act_of", counting)
    kwargs = {} if threads == 1 else {"threads": threads}  # 1 is the default
    evaluate(model, 4, chance=False, **kwargs)
    assert set(seen) == {during}
    assert torch.get_num_threads() == threads_before


@pytest.mark.parametrize("threads", [0, -1, 1.5, "2"])
def test_bad_threads_are_refused_with_the_value(threads):
    with pytest.raises((TypeError, ValueError), match="threads"):
        TrainConfig(threads=threads)


def test_progress_is_plain_labelled_lines_when_stderr_is_not_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(
        "neurogym_apps.train._progress.MIN_SECONDS", 0.0
    )  # every tenth, however fast
    train(PDM, steps=20, hidden_size=8, threads=1)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 10  # 10%, ..., 90%, then the last line
    assert lines[0].startswith("PerceptualDecisionMaking: step 2/20 (10%)  loss ")
    assert lines[-1].startswith("PerceptualDecisionMaking: step 20/20 (100%)  loss ")
    assert lines[-1].endswith("done")
    for line in lines:
        for label in ("  step_acc ", "  resp_acc ", "  elapsed "):
            assert label in line
        assert "\r" not in line  # no bar


def test_a_short_run_writes_its_last_line_only(capsys):
    train(PDM, seconds=0.5, hidden_size=8, threads=1)
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("PerceptualDecisionMaking: 0.5/0.5 s (100%)  step ")
    assert line.endswith("done")


def test_resp_acc_tells_a_fixating_network_from_one_that_answers():
    model = train(PDM, steps=40, hidden_size=8, threads=1, progress=False)
    history = model.history
    assert len(history["response_accuracy"]) == 40
    # fixation is most of the trained steps: the step accuracy is high before any answer
    assert history["accuracy"][-1] > 0.8
    assert history["response_accuracy"][-1] < 0.5


def test_neurogym_train_writes_progress_lines_to_a_redirected_stderr(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["train", PDM, "--steps", "5", "--hidden", "8", "--eval-trials", "10"]
    assert cli([*args, "--no-figures", "--threads", "2", "--out", str(out)]) == 0
    printed = capsys.readouterr().err  # captured: not a terminal, as in a cluster log
    assert "PerceptualDecisionMaking: step 5/5 (100%)  loss " in printed
    assert "  step_acc " in printed
    assert "  resp_acc " in printed
    config = strict_json((out / "config.json").read_text())["config"]
    assert config["threads"] == 2  # --threads is TrainConfig.threads


def test_trained_model_repr_is_one_short_line():
    model = train(PDM, steps=30, hidden_size=8, threads=1, progress=False)
    text = repr(model)
    expected = (
        r"TrainedModel\(task='neurogym/PerceptualDecisionMaking-v0', model='gru', "
        r"hidden_size=8, steps=30, final_loss=[0-9.e-]+\)"
    )
    assert re.fullmatch(expected, text)
    assert str(model) == text


def test_a_saved_model_is_strict_json_and_reloads_its_nans(tmp_path):
    model = train("ReachingDelayResponse", steps=2, hidden_size=8, threads=1, progress=False)
    assert math.isnan(model.history["accuracy"][0])  # Box actions: no step accuracy
    model.save(tmp_path)
    record = strict_json((tmp_path / "config.json").read_text())
    assert record["history"]["accuracy"] == [None, None]
    again = TrainedModel.load(tmp_path)
    assert math.isnan(again.history["accuracy"][0])


def test_learnability_says_which_task_it_trains_and_writes_strict_json(tmp_path, capsys):
    from neurogym_apps.train import learnability

    out = tmp_path / "learn.md"
    args = ["--out", str(out), "--task", "ReadySetGo", "--steps", "5", "--check-every", "0"]
    assert learnability.main([*args, "--eval-trials", "10"]) == 0
    err = capsys.readouterr().err
    assert "ReadySetGo: training (supervised, at most 5 steps)" in err
    assert "ReadySetGo: not learned within the budget (strict accuracy " in err
    (row,) = strict_json(out.with_suffix(".json").read_text())
    assert row["fixation_breaks"] is None  # ReadySetGo has no fixation to break: NaN, as null
