"""TrainConfig.curriculum: stages of a task with other arguments, trained before the task."""

from __future__ import annotations

import re

import pytest

torch = pytest.importorskip("torch", reason="neurogym_apps.train needs the torch extra")

from neurogym_apps.train import TrainConfig, TrainedModel, _across, _steps, train  # noqa: E402

PDM = "PerceptualDecisionMaking"


def test_stages_train_in_order_then_the_task_for_the_rest(monkeypatch):
    sigmas: list[float] = []
    batch = _steps.neurogym.batch

    def recording_batch(env, *args, **kwargs):
        sigmas.append(env.unwrapped.sigma)
        return batch(env, *args, **kwargs)

    monkeypatch.setattr(_steps.neurogym, "batch", recording_batch)
    stages = ((2, {"sigma": 0.0}), (1, {"sigma": 0.5}))
    config = TrainConfig(steps=6, hidden_size=8, batch_size=4, curriculum=stages)
    model = train(PDM, config, env_kwargs={"sigma": 1.0, "dt": 100}, progress=False)
    # the env holds sigma / sqrt(dt)
    assert sigmas == pytest.approx([0.0, 0.0, 0.05, 0.1, 0.1, 0.1])
    assert model.env_kwargs == {"sigma": 1.0, "dt": 100}  # the model is the task's
    assert len(model.history["loss"]) == 6


def test_across_trials_each_stage_has_its_own_streams(monkeypatch):
    cues: list[float] = []
    chunk = _across.Streams.chunk

    def recording_chunk(self, *args, **kwargs):
        cues.append(self.envs[0].unwrapped.rule_cue)
        return chunk(self, *args, **kwargs)

    monkeypatch.setattr(_across.Streams, "chunk", recording_chunk)
    config = TrainConfig(
        steps=4, hidden_size=8, batch_size=2, across_trials=True, chunk_steps=5,
        curriculum=((2, {"rule_cue": 1.0}), (1, {"rule_cue": 0.5})),
    )  # fmt: skip
    train("HierarchicalReasoning", config, progress=False)
    assert cues == [1.0, 1.0, 0.5, 0.0]


def test_a_curriculum_run_is_repeatable_and_differs_from_the_task_alone():
    def final_loss(curriculum: tuple) -> float:
        config = TrainConfig(steps=12, hidden_size=8, batch_size=4, curriculum=curriculum)
        return train(PDM, config, progress=False).history["loss"][-1]

    staged = final_loss(((6, {"sigma": 0.0}),))
    assert staged == final_loss(((6, {"sigma": 0.0}),))
    assert staged != final_loss(())


def test_the_curriculum_is_saved_and_loaded(tmp_path):
    config = TrainConfig(steps=3, hidden_size=8, batch_size=2, curriculum=[[1, {"sigma": 0.0}]])
    assert config.curriculum == ((1, {"sigma": 0.0}),)  # lists (JSON) read as stages
    train(PDM, config, progress=False).save(tmp_path)
    assert TrainedModel.load(tmp_path).config.curriculum == ((1, {"sigma": 0.0}),)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"curriculum": ((5, {"sigma": 0}),)}, "needs steps= and no seconds= (got steps=None"),
        ({"curriculum": ((5, {}),), "steps": 9, "seconds": 2.0}, "it needs steps= and no"),
        ({"curriculum": ((5, {}), (4, {})), "steps": 9}, "take 9 steps of the budget of 9"),
        ({"curriculum": {"sigma": 0}, "steps": 9}, "curriculum must be a sequence of (steps"),
        ({"curriculum": ((5, "sigma"),), "steps": 9}, "curriculum stage 0 must be (steps, env"),
        ({"curriculum": ((5, {1: 0}),), "steps": 9}, "curriculum stage 0 must be (steps, env"),
        ({"curriculum": ((5,),), "steps": 9}, "curriculum stage 0 must be (steps, env_kwargs)"),
        ({"curriculum": ((0, {}),), "steps": 9}, "curriculum stage 0's steps"),
        ({"curriculum": ((1.5, {}),), "steps": 9}, "curriculum stage 0's steps"),
    ],
)
def test_bad_curricula_are_refused(kwargs, message):
    with pytest.raises((TypeError, ValueError), match=re.escape(message)):
        TrainConfig(**kwargs)


def test_a_bad_stage_fails_before_any_training(monkeypatch):
    steps: list[int] = []
    config = TrainConfig(steps=5, hidden_size=8, curriculum=((2, {}), (1, {"sigmaa": 1.0})))
    with pytest.raises(ValueError, match=re.escape("curriculum stage {'sigmaa': 1.0}")):
        train(PDM, config, progress=False, callback=lambda model, step: steps.append(step))
    assert steps == []
    spaces = TrainConfig(steps=5, hidden_size=8, curriculum=((2, {"dim_ring": 4}),))
    with pytest.raises(ValueError, match="changes the network's inputs or outputs"):
        train(PDM, spaces, progress=False)


def test_the_command_line_takes_stages_as_json(tmp_path, capsys):
    from neurogym.cli import main as cli

    out = tmp_path / "run"
    argv = ["train", PDM, "--steps", "4", "--stage", "2", '{"sigma": 0.0}', "--no-figures"]
    assert cli([*argv, "--eval-trials", "10", "--out", str(out)]) == 0
    assert TrainedModel.load(out).config.curriculum == ((2, {"sigma": 0.0}),)
    capsys.readouterr()
    for stage, message in (
        (["2", "sigma=0"], "--stage 2 'sigma=0': KWARGS is not JSON"),
        (["2", "[1]"], "KWARGS must be a JSON object"),
        (["x", "{}"], "--stage 'x' {}: STEPS must be a positive integer"),
    ):
        assert cli(["train", PDM, "--steps", "4", "--stage", *stage]) != 0
        assert message in capsys.readouterr().err
