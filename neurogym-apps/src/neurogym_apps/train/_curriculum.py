"""A curriculum: stages of a task with other arguments, trained before the task itself.

See ``TrainConfig.curriculum``. The stages share the network and the optimiser; each draws
its data (a seeded env, or streams across trials) when it starts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from neurogym import validate
from neurogym_apps.train._steps import stepper

if TYPE_CHECKING:
    import torch

    from neurogym_apps.train._trainer import TrainedModel

__all__ = ["check_curriculum_budget", "curriculum_stages", "staged_stepper"]


def curriculum_stages(stages: Any) -> tuple[tuple[int, dict[str, Any]], ...]:
    """``TrainConfig.curriculum`` checked, as a tuple of ``(steps, env_kwargs)`` pairs.

    Raises:
        ValueError: Naming the stage, for one that is not a ``(positive int, dict with str
            keys)`` pair.
    """
    if not isinstance(stages, (list, tuple)):
        raise ValueError(
            f"curriculum must be a sequence of (steps, env_kwargs) stages, got {stages!r}"
        )
    checked = []
    for i, stage in enumerate(stages):
        pair = isinstance(stage, (list, tuple)) and len(stage) == 2
        if not (pair and isinstance(stage[1], Mapping) and all(map(_is_str, stage[1]))):
            raise ValueError(
                f"curriculum stage {i} must be (steps, env_kwargs), env_kwargs a dict of the "
                f"task's arguments, got {stage!r}"
            )
        steps = validate.positive_int(stage[0], f"curriculum stage {i}'s steps")
        checked.append((steps, dict(stage[1])))
    return tuple(checked)


def _is_str(key: object) -> bool:
    return isinstance(key, str)


def check_curriculum_budget(
    stages: tuple[tuple[int, Mapping[str, Any]], ...], steps: int | None, seconds: float | None
) -> None:
    """A curriculum needs a steps budget (and no seconds one) longer than its stages.

    Raises:
        ValueError: Naming the budget and what the stages take.
    """
    staged = sum(stage_steps for stage_steps, _ in stages)
    if steps is None or seconds is not None:
        raise ValueError(
            f"a curriculum's stages count in the steps budget: it needs steps= and no "
            f"seconds= (got steps={steps!r}, seconds={seconds!r})"
        )
    if staged >= steps:
        raise ValueError(
            f"the curriculum's stages take {staged} steps of the budget of {steps}: the "
            "task itself needs at least one (raise steps=)"
        )


class _Stages:
    """The training step of a curriculum: each stage's data for its steps, then the task's."""

    def __init__(
        self,
        model: TrainedModel,
        optimizer: torch.optim.Optimizer,
        stages: list[tuple[Any, int | None]],
        make_data: Callable[[Any], Any],
    ) -> None:
        self.model, self.optimizer, self.make_data = model, optimizer, make_data
        self.stages = list(stages)
        self.left: int | None = 0  # steps left in the current stage (None: no end)
        self.step: Callable[[], dict[str, float]] = lambda: {}

    def __call__(self) -> dict[str, float]:
        while self.left == 0:
            kwargs, self.left = self.stages.pop(0)
            self.step = stepper(self.model, self.make_data(kwargs), self.optimizer)
        if self.left is not None:
            self.left -= 1
        return self.step()


def staged_stepper(
    model: TrainedModel,
    optimizer: torch.optim.Optimizer,
    stages: list[tuple[Any, int | None]],
    make_data: Callable[[Any], Any],
) -> Callable[[], dict[str, float]]:
    """The training step of ``model`` through ``stages``, ``(env_kwargs, steps)`` each.

    Each stage draws its data from ``make_data(env_kwargs)`` (made when the stage starts)
    for its ``steps``; the last stage's ``steps`` is None (until the budget ends).
    """
    return _Stages(model, optimizer, stages, make_data)
