"""neurogym_apps.train: training, closed-loop evaluation, checkpoints, the CLI, the main job."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import neurogym

torch = pytest.importorskip("torch", reason="neurogym_apps.train needs the torch extra")

from neurogym.cli import main as cli  # noqa: E402
from neurogym_apps.train import (  # noqa: E402
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
    assert result.criterion == "fixate-then-respond"
    # strict: random actions and never answering score 0; a guess after fixating scores 1/2
    assert result.chance["random"] == result.chance["fixation"] == 0.0
    assert result.chance_level == result.chance["guess"] == pytest.approx(0.5, abs=0.1)
    # the env's own score: one decision step (dt=100), a random action among 3 is right a
    # third of the time, but it breaks fixation on the way
    assert result.chance_performance["random"] == pytest.approx(1 / 3, abs=0.08)
    assert result.accuracy > result.chance_level + 0.2
    assert result.fixation_breaks == 0.0  # the loss covered the fixation steps
    coh = result.conditions["coh"]
    assert set(coh) == {0.0, 6.4, 12.8, 25.6, 51.2}
    assert coh[51.2]["accuracy"] > coh[6.4]["accuracy"]  # easier trials are answered better
    assert sum(row["trials"] for row in coh.values()) == 300
    assert result.trials == 300
    summary = json.loads(json.dumps(result.to_dict(), allow_nan=True))
    assert summary["trials"] == 300
    assert summary["criterion"] == "fixate-then-respond"


def _scripted(env_list, break_on):
    """A batch policy that plays each env's ground truth, except action 1 on ``break_on``."""

    def act(obs, state, rng):
        step = state or 0
        actions = [env.unwrapped.gt_now for env in env_list]
        if step in break_on:
            actions = [1 for _ in env_list]
        return np.array(actions), step + 1

    return act


def test_strict_accuracy_scores_a_trial_that_breaks_fixation_once_zero():
    # PDM at dt=100: fixation 1 step, stimulus 20, delay 0, decision 1 (22 steps). Without
    # abort the env goes on after a fixation break and pays the correct answer (performance
    # 1); strict accuracy counts that trial 0.
    from neurogym_apps.train._closed_loop import run_closed_loop, strict_criterion

    envs = []

    def make():
        envs.append(neurogym.make(PDM))
        return envs[-1]

    assert strict_criterion(make()) == ("fixate-then-respond", 0)
    envs.clear()
    clean = run_closed_loop(make, _scripted(envs, ()), 3, fixation_action=0)
    assert clean.performance.tolist() == [1.0, 1.0, 1.0]
    assert clean.strict.tolist() == [1.0, 1.0, 1.0]
    envs.clear()
    # one step of the stimulus answered "choice 1": every trial still ends correct
    broken = run_closed_loop(make, _scripted(envs, {5}), 3, fixation_action=0, carry_state=True)
    assert broken.performance.tolist() == [1.0, 1.0, 1.0]
    assert broken.broke_fixation.tolist() == [True, True, True]
    assert broken.strict.tolist() == [0.0, 0.0, 0.0]


def test_the_valid_loss_covers_fixation_until_the_response_and_skips_untargeted_ties():
    from neurogym_apps.train import loss_weights

    data = neurogym.batch(PDM, 8, seed=0, as_torch=True)
    weights = loss_weights(data, "valid")
    decision = int(data.periods["decision"][0][0])
    assert torch.equal(weights[:, :decision], torch.ones(8, decision))  # fixate, stimulus
    assert torch.equal(weights[:, decision:], data.mask[:, decision:].float())
    heavy = loss_weights(data, "valid", response_weight=5.0)
    assert torch.equal(heavy[:, :decision], weights[:, :decision])  # fixation unchanged
    assert torch.equal(heavy[:, decision:], 5 * data.mask[:, decision:].float())
    assert torch.equal(loss_weights(data, "mask"), data.mask.float())
    cost = loss_weights(data, "cost")
    assert torch.equal(cost, torch.as_tensor(data.cost_mask("decision")))
    # EconomicDecisionMaking: a tie (either choice correct) sets no target in the decision
    offers = np.array([[0, 0], [1, 1]] * 4)  # no drops of either juice: a tie
    edm = neurogym.batch("EconomicDecisionMaking", 8, seed=0, as_torch=True, offer=offers)
    ties = torch.as_tensor(edm.trial["ground_truth"] == 0)
    assert ties.tolist() == [True, False] * 4
    start = torch.as_tensor(np.asarray(edm.periods["decision"][0]))
    after = torch.arange(edm.mask.shape[1])[None, :] >= start[:, None]
    valid_weights = loss_weights(edm, "valid")
    assert not valid_weights[ties][after[ties]].any()
    assert valid_weights[~ties][~after[~ties] & edm.valid[~ties].bool()].all()


def test_a_network_output_that_breaks_fixation_once_costs_loss():
    # hand-built outputs: perfect logits everywhere, except "choice 1" on one fixation step
    from neurogym_apps.train._steps import _loss, loss_weights

    data = neurogym.batch(PDM, 4, seed=1, as_torch=True)
    perfect = torch.nn.functional.one_hot(data.targets.long(), 3).float() * 20.0
    broken = perfect.clone()
    broken[0, 0] = torch.tensor([0.0, 20.0, 0.0])
    for kind, sees_it in (("valid", True), ("cost", False), ("mask", False)):
        weights = loss_weights(data, kind)
        clean_loss, _ = _loss(perfect, data.targets, weights, False)
        loss, accuracy = _loss(broken, data.targets, weights, False)
        # the cost mask skips the first 100 ms; the old masked loss never sees fixation
        assert (float(loss) > float(clean_loss) + 0.1) is sees_it, kind
        assert accuracy == (1.0 if not sees_it else accuracy)


def test_a_config_without_a_loss_field_loads_as_the_old_masked_loss(trained, tmp_path):
    trained.save(tmp_path / "run")
    record = json.loads((tmp_path / "run" / "config.json").read_text())
    assert record["config"]["loss"] == "valid"
    del record["config"]["loss"]
    (tmp_path / "run" / "config.json").write_text(json.dumps(record))
    assert TrainedModel.load(tmp_path / "run").config.loss == "mask"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: r["config"].update(hidden_size=40_000), r"recurrent.weight_ih_l0 has shape "
         r"\(192, 3\), but config.json \(model 'gru', hidden_size 40000, n_in 3, n_out 3\) "
         r"needs \(120000, 3\)"),
        (lambda r: r.pop("n_out"), r"lacks \['n_out'\]: it was not written by TrainedModel.save"),
        (lambda r: r.update(continuous="yes"), r"continuous must be bool, got 'yes'"),
        (lambda r: r.update(n_in=0), r"n_in must be a positive int, got 0"),
        (lambda r: r.update(n_out=4), r"n_out 4, continuous False do not match its task "
         r"'neurogym/PerceptualDecisionMaking-v0' \(n_in 3, n_out 3, continuous False\)"),
        (lambda r: r["config"].update(model="rnn"), r"recurrent.weight_ih_l0 has shape "
         r"\(192, 3\), .* needs \(64, 3\)"),
    ],
)  # fmt: skip
def test_load_checks_config_json_against_the_weights_before_building(
    trained, tmp_path, edit, message
):
    trained.save(tmp_path / "run")
    path = tmp_path / "run" / "config.json"
    record = json.loads(path.read_text())
    edit(record)
    path.write_text(json.dumps(record))
    with pytest.raises(ValueError, match=message):
        TrainedModel.load(tmp_path / "run")


def test_load_refuses_a_weights_file_with_pickled_code(trained, tmp_path):
    import pickle

    trained.save(tmp_path / "run")
    (tmp_path / "run" / "model.pt").write_bytes(pickle.dumps(print, protocol=2))  # code
    with pytest.raises(ValueError, match=r"model\.pt' is not a zip archive"):
        TrainedModel.load(tmp_path / "run")


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
    reached = evaluate(reach, 20, chance=False)
    assert reached.criterion == "performance"  # no fixation action: the env's own score
    assert reached.accuracy == reached.performance
    assert np.isnan(reached.fixation_breaks)


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
        ({"loss": "masked"}, "loss must be one of 'valid', 'cost', 'mask', got 'masked'"),
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
    assert "chance (guess)" in printed
    assert "fixation breaks" in printed
    assert {p.name for p in out.iterdir()} >= {
        "model.pt",
        "config.json",
        "metrics.json",
        "loss.png",
        "trial.png",
        "psychometric.png",  # PDM: two choices and a coherence
    }
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["steps"] == 5
    assert metrics["evaluation"]["trials"] == 20
    assert set(metrics["evaluation"]["chance"]) == {"random", "fixation", "guess"}


def test_cli_errors(tmp_path, capsys):
    assert cli(["train", "PerceptualDecisionMakin", "--steps", "1"]) == 2
    assert "PerceptualDecisionMaking" in capsys.readouterr().err  # the close match
    with pytest.raises(SystemExit):
        cli(["train", PDM, "--steps", "0"])
    assert cli(["train", "Null", "--steps", "1", "--out", str(tmp_path)]) == 1
    assert "reinforcement learning" in capsys.readouterr().err


def test_cli_checks_the_output_before_training_and_names_the_way_out(
    tmp_path, capsys, monkeypatch
):
    from neurogym_apps.train import _report

    def no_training(*args, **kwargs):
        raise AssertionError("trained before checking the output folder")

    monkeypatch.setattr(_report, "train", no_training)
    a_file = tmp_path / "taken"
    a_file.write_text("")
    assert cli(["train", PDM, "--steps", "1", "--out", str(a_file)]) == 1
    assert f"cannot write the run into '{a_file}': it is a file" in capsys.readouterr().err
    below_a_file = a_file / "run"
    assert cli(["train", PDM, "--steps", "1", "--out", str(below_a_file)]) == 1
    assert f"cannot create the run folder '{below_a_file}'" in capsys.readouterr().err
    monkeypatch.undo()
    roitman = "perceptualdecisionmaking.roitman02"
    assert cli(["train", roitman, "--steps", "1", "--out", str(tmp_path / "r")]) == 1
    err = capsys.readouterr().err
    assert "cannot be trained on supervised batches: ReactionTime acts on steps" in err
    assert "reinforcement learning instead (neurogym_apps.rl.as_sb3_vec_env, docs/rl.md)" in err


def test_a_seconds_budget_always_trains_at_least_one_step():
    model = train(PDM, TrainConfig(seconds=1e-9), progress=False)
    assert model.history["step"] == [1]


def test_the_tutorial_runs(tmp_path, monkeypatch):
    text = (ROOT / "docs" / "training.md").read_text(encoding="utf-8")
    for old, new in (("steps=2000, seed=0)", "steps=20, seed=0)"), ("trials=1000", "trials=50")):
        assert old in text, f"docs/training.md no longer contains {old!r}"
        text = text.replace(old, new)
    fence = r'```python(?: title="continues the block above")?\n(.*?)```'
    blocks = re.findall(fence, text, re.DOTALL)
    # the tutorial (sections 1-3), then training across trials and a curriculum
    assert len(blocks) == 5
    blocks = blocks[:3]  # section 5's blocks run in tests/test_docs_examples.py
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for index, block in enumerate(blocks):
        exec(compile(block, f"training.md, block {index + 1}", "exec"), namespace)
    assert (tmp_path / "pdm-run" / "model.pt").is_file()
    assert (tmp_path / "trial.png").is_file()


def test_the_main_job_runs_every_installed_showcase_task(tmp_path, capsys):
    args = ["--out", str(tmp_path), "--scale", "0.02", "--eval-trials", "20", "--no-progress"]
    status = showcase.main(args)
    assert status == 0

    def refuse(name):  # strict JSON: NaN and Infinity are not JSON
        raise ValueError(f"not JSON: {name}")

    summary = json.loads((tmp_path / "summary.json").read_text(), parse_constant=refuse)
    names = showcase.installed([name for name, _ in showcase.SHOWCASE])
    assert set(summary) == set(names)
    assert PDM in summary
    assert (tmp_path / PDM / "trial.png").is_file()
    out, err = capsys.readouterr()
    assert "accuracy" in out
    for name in names:  # a line per finished task, even with --no-progress
        assert f"{name}: strict accuracy " in err


@pytest.mark.parametrize(
    ("floor", "message"),
    [
        ("Bandit=0.5", "--floor 'Bandit=0.5': the main job does not train it; it trains ["),
        ("Nope=0.5", "--floor 'Nope=0.5': unknown task 'Nope'"),
        ("ReadySetGo=high", "--floor 'ReadySetGo=high': could not convert string to float"),
    ],
)
def test_main_job_refuses_a_bad_floor_before_training(floor, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        showcase.main(["--out", str(tmp_path), "--floor", floor])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "summary.json").exists()


def test_main_job_floor_takes_a_task_id():
    assert showcase._parsed_floors(None, [f"neurogym/{PDM}-v0=0.85"], [PDM]) == {PDM: 0.85}


def test_main_job_full_budget_meets_the_floor(request, tmp_path):
    """The README's main job as a user runs it: PerceptualDecisionMaking >= 0.85 (slow)."""
    if not request.config.getoption("--run-main-job"):
        pytest.skip("slow: run with --run-main-job (nox -s mainjob)")
    assert showcase.main(["--out", str(tmp_path), "--floor", f"{PDM}=0.85"]) == 0


def test_learnability_rows_merge_per_plugin(tmp_path):
    from neurogym_apps.train import learnability

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
    args = ["--out", str(out), "--steps", "5", "--eval-trials", "20", "--plugin", "core"]
    assert learnability.main(args) == 0
    rows = {row["task"]: row for row in json.loads(out.with_suffix(".json").read_text())}
    assert rows["Null"]["status"] == "RL-only (no ground truth)"
    assert rows["Other"] == stored[0]  # another plugin's row is kept
    text = out.read_text()
    assert "| Null | core |" in text
    row = "| Other | lab | 0.900 |  | 0.500 | 1.000 |  |  |  | 7 |  | 9 s | 2026-01-01 | learned |"
    assert row in text


def test_a_callback_that_returns_true_ends_training():
    from neurogym_apps.train import train

    seen = []

    def stop_at_three(model, step):
        seen.append(step)
        return step == 3

    model = train("PerceptualDecisionMaking", steps=50, progress=False, callback=stop_at_three)
    assert seen == [1, 2, 3]
    assert model.history["step"] == [1, 2, 3]


@pytest.mark.parametrize(
    ("option", "name", "message"),
    [
        (
            "--task",
            "PerceptualDecisionMakin",
            "is not an installed task; did you mean 'PerceptualDecisionMaking'?",
        ),
        ("--plugin", "perceptul", "is not an installed plugin; did you mean 'perceptual'?"),
    ],
)
def test_learnability_refuses_a_task_or_plugin_that_is_not_installed(
    option, name, message, tmp_path, capsys
):
    # it used to train nothing and rewrite the table as if the run had covered the name
    from neurogym_apps.train import learnability

    out = tmp_path / "table.md"
    with pytest.raises(SystemExit) as caught:
        learnability.main(["--out", str(out), option, name])
    assert caught.value.code == 2
    assert f"{option} {name!r} {message}" in capsys.readouterr().err
    assert not out.exists()


def test_the_learnability_check_stops_training_once_the_bar_is_cleared(monkeypatch):
    from types import SimpleNamespace

    from neurogym_apps.train import learnability

    # chance 0.2, ceiling 0.9: the bar is 0.83; a check must clear it by one standard error
    # (0.85 - 0.025 does not; 0.95 - 0.015 does)
    scores = iter([0.5, 0.85, 0.95])
    calls = []

    def fake_evaluate(model, trials, seed, chance):
        calls.append((trials, seed, chance))
        return SimpleNamespace(accuracy=next(scores), chance_level=0.2)

    monkeypatch.setattr(learnability, "evaluate", fake_evaluate)
    check = learnability._StopWhenLearned(ceiling=0.9, every=1000)
    model = SimpleNamespace(history={"step": []})
    stops = []
    for step in range(1, 3001):
        model.history["step"].append(step)
        stops.append(check(model, step))
    # checks at steps 1000 (0.5), 2000 (0.85) and 3000 (0.95: stop); none in between
    assert [step for step, stop in enumerate(stops, 1) if stop] == [3000]
    n = learnability.CHECK_TRIALS
    assert calls == [(n, 2, True), (n, 2, False), (n, 2, False)]
    assert check.learned_at == 3000


@pytest.mark.parametrize(
    ("accuracy", "chance", "oracle", "status"),
    [
        (0.94, 0.3, 1.0, "learned"),
        (0.9, 0.3, 1.0, "not learned within the budget"),  # 0.857 of the gap
        (0.80, 0.0, 0.9, "not learned within the budget"),
        (0.81, 0.0, 0.9, "learned"),  # a ceiling below the oracle: PDM's zero coherence
        (1.0, 1.0, 1.0, "no gap: a baseline already scores as well as the ceiling"),
        (0.0, 0.0, 0.0, "no score: the task reports no performance (info['performance'] stays 0)"),
    ],
)
def test_learnability_status(accuracy, chance, oracle, status):
    from neurogym_apps.train.learnability import _status

    assert _status(accuracy, chance, oracle) == status


SUPERVISED = [s.id for s in neurogym.tasks() if neurogym.make(s.id).unwrapped.has_groundtruth]


@pytest.mark.parametrize("task_id", SUPERVISED)
def test_the_ground_truth_agent_scores_the_ceiling_of_every_task(task_id):
    # the learnability table's oracle, scored strictly (fixation held, then correct; or the
    # task's own criterion): 1.0 on every trial of every supervised task
    from neurogym_apps.train.learnability import TASK_KWARGS, oracle_performance

    name = neurogym.spec(task_id).name
    assert oracle_performance(task_id, trials=64, env_kwargs=TASK_KWARGS.get(name)) == 1.0


def test_yang19_task_weights_set_the_task_set_s_draws_and_refuse_bad_ones(capsys):
    from neurogym_apps.train import yang19

    names = yang19.task_names()
    p = yang19._sampling({"dm1": 3.0})["p"]
    assert p[names.index("dm1")] == pytest.approx(3 / 22)
    assert p[names.index("go")] == pytest.approx(1 / 22)
    assert yang19._sampling({}) == {}  # uniform: the task set's default
    for bad, message in [("dm9=2", "'dm9' is not one of"), ("dm1=x", "must be a number"),
                         ("dm1=0", "must be above 0")]:  # fmt: skip
        with pytest.raises(SystemExit):
            yang19.main(["--task-weight", bad])
        assert message in capsys.readouterr().err


def test_yang19_rewrite_and_rescore_without_a_record_say_what_is_missing(tmp_path, capsys):
    from neurogym_apps.train import yang19

    for option in ("--rewrite", "--rescore"):
        with pytest.raises(SystemExit):
            yang19.main([option, "--docs", str(tmp_path)])
        err = capsys.readouterr().err
        assert f"{option} reads a page's record, and {tmp_path / 'yang19.json'} does not" in err


def test_the_yang19_reproduction_writes_its_table_curves_and_figure(tmp_path):
    from neurogym_apps.train import yang19

    args = ["--steps", "6", "--every", "3", "--eval-trials", "8", "--hidden", "16"]
    small = ["--final-trials", "8", "--ceiling-trials", "2000", "--analysis-trials", "4"]
    where = ["--docs", str(tmp_path), "--save", str(tmp_path / "run")]
    weights = ["--task-weight", "dm1=2"]
    status = yang19.main([*args, *small, "--threads", "1", *where, *weights])
    assert status == 1  # a second of training reaches 0.90 on no task
    text = (tmp_path / "yang19.md").read_text()
    assert all(f"| {name} |" in text for name in yang19.task_names())
    assert "0 of 20 tasks reach their target" in text
    record = json.loads((tmp_path / "yang19.json").read_text())
    assert record["ceiling"]["go"] == 1.0  # no observer: the inputs decide every answer
    assert 0.85 < record["ceiling"]["multidm"] < 0.95  # ties broken by a hidden jitter
    assert yang19.targets(record["ceiling"])["multidm"] == record["ceiling"]["multidm"] - 0.02
    assert "| 1.000 | 0.900 | no |" in text  # go: ceiling, target, not met
    (tmp_path / "yang19.md").unlink()
    assert yang19.main(["--rewrite", "--docs", str(tmp_path)]) == 0
    assert (tmp_path / "yang19.md").read_text() == text
    assert record["final"]["go"]["paired_ceiling"] == 1.0  # no observer
    assert 0 <= record["final"]["multidm"]["paired_ceiling"] <= 1  # its 8 trials' observer
    final = dict(record["final"], multidm={**record["final"]["multidm"], "paired_ceiling": 0})
    tampered = {**record, "ceiling": {**record["ceiling"], "multidm": 0.5}, "final": final}
    (tmp_path / "yang19.json").write_text(json.dumps(tampered))
    rescore = ["--rescore", "--ceiling-trials", "2000", "--docs", str(tmp_path)]
    assert yang19.main([*rescore, "--save", str(tmp_path / "run")]) == 0  # no training
    assert json.loads((tmp_path / "yang19.json").read_text()) == record  # all measured again
    assert (tmp_path / "yang19.md").read_text() == text
    final = dict(record["final"], go={**record["final"]["go"], "accuracy": 0.5})
    (tmp_path / "yang19.json").write_text(json.dumps({**record, "final": final}))
    with pytest.raises(ValueError, match=r"scores 0\.000 on go, the page 0\.500: it is not"):
        yang19.main([*rescore, "--save", str(tmp_path / "run")])
    points = json.loads((tmp_path / "yang19.json").read_text())["points"]
    assert len(points) >= 2
    assert set(points[-1]) >= {"step", "trials", "minutes", "dm1", "dnmc"}
    assert set(points[-1]["dm1"]) == {"accuracy", "fixation_breaks"}  # curves: unpaired
    assert (tmp_path / "figures" / "yang19_learning.png").stat().st_size > 10_000
    saved = TrainedModel.load(tmp_path / "run")  # the network, for neurogym analyze
    assert (saved.config.hidden_size, saved.config.lr_schedule) == (16, "cosine")
    assert saved.env_kwargs["p"][yang19.task_names().index("dm1")] == pytest.approx(2 / 21)
    assert "(drawn uniformly but dm1 2x)" in text
    assert record["analysis"]["trials_per_task"] == 4  # its task variance, on the page:
    assert "## What the network learned" in text
    assert (tmp_path / "figures" / "yang19_variance_map.png").stat().st_size > 5_000


def test_a_row_stopped_early_by_the_check_but_below_the_bar_says_so():
    from neurogym_apps.train.learnability import _status, _stopped_at

    row = {"task": "PerceptualDecisionMaking", "steps": 2000, "budget_steps": 20_000}
    assert _stopped_at(row) == 2000
    assert _stopped_at({**row, "steps": 20_000}) is None  # the whole budget
    assert _stopped_at({**row, "rl": "PPO"}) is None
    # chance 0.488, ceiling 0.899: the bar is 0.858
    stopped = "not learned: the check stopped training at 2,000 steps, below the bar"
    assert _status(0.856, 0.488, 0.899, 2000) == stopped
    assert _status(0.856, 0.488, 0.899) == "not learned within the budget"
    assert _status(0.866, 0.488, 0.899, 2000) == "learned"


def test_ideal_ceilings_and_rescoring_the_stored_rows():
    from neurogym_apps.train import learnability

    # a fifth of PDM's trials have coherence 0 (half right), 6.4 % is right ~0.98 of the time
    pdm = learnability.ideal_ceiling(PDM, trials=10_000)
    assert pdm == pytest.approx((0.5 + 0.978 + 3) / 5, abs=0.01)
    assert learnability.ideal_ceiling("DelayMatchSample", trials=100) is None
    stored = {"task": "PerceptualDecisionMaking", "plugin": "perceptual", "env_kwargs": {}}
    row = {**stored, "accuracy": 0.87, "chance": 0.0, "oracle": 1.0, "ceiling": 1.0}
    (rescored,) = learnability.rescore([{**row, "status": "not learned within the budget"}], 200)
    assert rescored["ceiling"] == rescored["ideal"] == pytest.approx(pdm, abs=0.01)
    assert rescored["chance"] == pytest.approx(0.5, abs=0.1)  # the guess, measured again
    assert rescored["status"] == "learned"  # 0.87 >= 0.5 + 0.9 * (0.9 - 0.5)
    untrained = {**stored, "status": "RL-only (no ground truth)"}
    assert learnability.rescore([untrained]) == [untrained]


def test_a_fresh_row_reads_in_the_table_as_it_will_once_stored():
    from neurogym_apps.train import _learn_table
    from neurogym_apps.train.learnability import RECIPES

    fresh = {
        "task": "HierarchicalReasoning",
        "plugin": "perceptual",
        "date": "2026-11-30",
        "status": "learned",
        "env_kwargs": {"timing": (1, 2)},
        "recipe": RECIPES["HierarchicalReasoning"],
    }
    stored = json.loads(json.dumps(fresh))  # tuples come back as lists
    assert _learn_table._table_row(fresh) == _learn_table._table_row(stored)
    assert "curriculum=[[1500, {'rule_cue': 1.0}]," in _learn_table._table_row(fresh)


def test_rescoring_from_the_command_line_touches_only_the_named_rows(tmp_path):
    from neurogym_apps.train import learnability

    published = json.loads((ROOT / "docs" / "learnability.json").read_text())
    rows = [row for row in published if row["task"] in (PDM, "GoNogo")]
    tampered = [{**row, "chance": 0.0, "status": "tampered"} for row in rows]
    (tmp_path / "learn.json").write_text(json.dumps(tampered))
    out = ["--out", str(tmp_path / "learn.md"), "--eval-trials", "100"]
    assert learnability.main([*out, "--rescore", "--task", PDM]) == 0
    after = {row["task"]: row for row in json.loads((tmp_path / "learn.json").read_text())}
    assert after[PDM]["chance"] > 0.3  # rescored
    assert after[PDM]["status"] != "tampered"
    assert after["GoNogo"] == tampered[[row["task"] for row in rows].index("GoNogo")]  # kept
    assert "| tampered |" in (tmp_path / "learn.md").read_text()


def test_an_rl_row_s_scripted_agent_is_rescored_on_the_agent_s_trials():
    """Reaching1D's gap from chance to its scripted agent (0.045) is below one trial's SD
    (0.34): on 200 trials the agent scored 0.228, on the 500 evaluation trials 0.214."""
    from neurogym_apps.train import learnability
    from neurogym_apps.train._rl_rows import rl_oracle

    row = {
        "task": "Reaching1D", "plugin": "motor", "rl": "PPO", "accuracy": 0.213,
        "chance": 0.169, "oracle": 0.228, "ideal": None, "ceiling": 0.228,
        "status": "not learned within the budget",
    }  # fmt: skip
    (rescored,) = learnability.rescore([row], 500)
    paired, _ = rl_oracle("Reaching1D", 500)
    assert rescored["oracle"] == rescored["ceiling"] == paired
    assert paired == pytest.approx(0.2143, abs=1e-3)
    assert rl_oracle("Reaching1D", 200)[0] == pytest.approx(0.2279, abs=1e-3)  # the old row's
    assert rescored["status"] == "learned"  # 0.213 >= 0.169 + 0.9 * (0.214 - 0.169)


def test_a_task_sets_ceiling_averages_its_tasks_ceilings():
    from neurogym_apps.train import learnability, yang19

    singles = [learnability.ideal_ceiling(f"yang19.{n}", 4000) for n in yang19.task_names()]
    expected = np.mean([1.0 if value is None else value for value in singles])
    assert 0.95 < expected < 1  # the dm tasks are noise-limited
    both = learnability.ideal_ceiling("yang19.all", trials=20 * 4000)
    assert both == pytest.approx(expected, abs=0.005)


def test_rl_oracles_score_what_their_tasks_allow():
    from neurogym_apps.train._rl_rows import RL_RECIPES, rl_oracle

    # knowing the better arm / predicting the opponent / the ground truth: every trial
    for name in ("Bandit", "MatchingPenny", "perceptualdecisionmaking.roitman02"):
        assert rl_oracle(name)[0] == 1.0, name
    # DawTwoStep: the paying state switches with p 0.025 per trial, and a learner from rewards
    # (0.9 against 0.1) needs about two trials to notice: about 0.025 * 2 = 5 % lost
    assert 0.9 < rl_oracle("DawTwoStep", trials=2000)[0] < 0.98
    # Reaching1D: the pointer starts at pi and turns 0.05 rad per step in the 5 reach steps
    # towards a uniform target; each step pays max(1 - distance, -0.1), rescaled to [0, 1]
    distance = np.linspace(0, np.pi, 100_001)
    moved = np.minimum(0.05 * np.arange(1, 6)[:, None], np.round(distance / 0.05) * 0.05)
    left = np.abs(distance - moved)
    expected = ((np.maximum(1 - left, -0.1) + 0.1) / 1.1).mean()
    assert rl_oracle("Reaching1D", trials=4000)[0] == pytest.approx(expected, abs=0.02)
    assert set(RL_RECIPES) == {
        "Bandit", "MatchingPenny", "DawTwoStep", "Reaching1D", "Reaching1DWithSelfDistraction",
        "AngleReproduction", "perceptualdecisionmaking.roitman02",
    }  # fmt: skip


def test_a_wrapper_can_declare_the_strict_criterion():
    from neurogym_apps.train._closed_loop import strict_criterion

    # ReactionTime: the response may start at stimulus onset; its first step is ignored by
    # the rule (upstream's one-step latency), so the trial is scored by its performance
    assert strict_criterion(neurogym.make("perceptualdecisionmaking.roitman02")) == (
        "performance",
        None,
    )
    assert strict_criterion(neurogym.make(PDM)) == ("fixate-then-respond", 0)


def test_a_tasks_observer_of_the_stream_is_its_ceiling():
    from neurogym_apps.train._ceilings import row_ceiling as _ceiling

    assert _ceiling(1.0, 0.502, 0.94) == 0.94  # HierarchicalReasoning: memory, not 0.502
    assert _ceiling(1.0, 0.9, None) == 0.9  # the lower of oracle and the memoryless observer
    assert _ceiling(0.95, None, None) == 0.95
