"""TrainConfig.lr_schedule: a cosine annealing over the step budget, checked step by step."""

from __future__ import annotations

import math
import re

import pytest

torch = pytest.importorskip("torch", reason="neurogym_apps.train needs the torch extra")

from neurogym.cli import main as cli  # noqa: E402
from neurogym_apps.train import LR_SCHEDULES, TrainConfig, TrainedModel, train  # noqa: E402

PDM = "PerceptualDecisionMaking"


def _lrs_seen(monkeypatch: pytest.MonkeyPatch, config: TrainConfig) -> list[float]:
    """The learning rate Adam used at each training step of ``train(PDM, config)``."""
    seen: list[float] = []
    step = torch.optim.Adam.step

    def recording_step(self, *args, **kwargs):
        seen.append(self.param_groups[0]["lr"])
        return step(self, *args, **kwargs)

    monkeypatch.setattr(torch.optim.Adam, "step", recording_step)
    train(PDM, config, progress=False)
    return seen


def test_cosine_falls_from_lr_to_zero_along_half_a_cosine(monkeypatch):
    steps, lr = 8, 0.01
    seen = _lrs_seen(monkeypatch, TrainConfig(steps=steps, lr=lr, lr_schedule="cosine"))
    expected = [lr * (1 + math.cos(math.pi * k / steps)) / 2 for k in range(steps)]
    assert seen == pytest.approx(expected, rel=1e-9)
    assert seen[0] == lr
    assert seen[-1] < lr / 20


def test_constant_keeps_lr(monkeypatch):
    seen = _lrs_seen(monkeypatch, TrainConfig(steps=4, lr=0.02))
    assert seen == [0.02] * 4


def test_a_cosine_run_differs_from_a_constant_one_and_is_repeatable():
    def final_loss(schedule: str) -> float:
        config = TrainConfig(steps=30, hidden_size=16, lr_schedule=schedule)
        return train(PDM, config, progress=False).history["loss"][-1]

    cosine = final_loss("cosine")
    assert cosine == final_loss("cosine")
    assert cosine != final_loss("constant")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"lr_schedule": "linear", "steps": 5}, "lr_schedule must be one of 'constant', 'cosine'"),
        ({"lr_schedule": "cosine"}, "needs steps= and no seconds= (got steps=None"),
        (
            {"lr_schedule": "cosine", "steps": 5, "seconds": 3.0},
            "(got steps=5, seconds=3.0)",
        ),
    ],
)
def test_a_schedule_without_a_step_budget_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        TrainConfig(**kwargs)


def test_the_schedule_is_saved_and_the_cli_sets_it(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["train", PDM, "--steps", "3", "--hidden", "8", "--eval-trials", "5"]
    assert cli([*args, "--lr-schedule", "cosine", "--out", str(out), "--threads", "1"]) == 0
    assert TrainedModel.load(out).config.lr_schedule == "cosine"
    assert LR_SCHEDULES == ("constant", "cosine")
