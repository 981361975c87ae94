"""A failure at a trial boundary never replays a trial (issue #46, architecture §5).

The rule: when generating the next trial or a ``post_step`` hook raises at a trial boundary,
the env is left without a current trial, so every later ``step`` raises a precise error
until ``reset``; ``reset`` starts again.
"""

from __future__ import annotations

from typing import Any

import pytest
from data_tasks import OneAtATime, PrefetchTask, VarTask

from neurogym.wrappers import RandomGroundTruth, SideBias, TrialWrapper


class BoomError(Exception):
    """The failure every case injects."""


def _failing_post_step(base: type) -> type:
    class FailsAtBoundary(base):  # type: ignore[misc,valid-type]
        armed = False
        choices = (0, 1)  # the values of ground_truth (for RandomGroundTruth and SideBias)

        def post_step(self, ob: Any, reward: Any, terminated: bool, truncated: bool, info: Any):
            if info["new_trial"] and self.armed:
                raise BoomError
            return ob, reward, terminated, truncated, info

    return FailsAtBoundary


def _failing_generation(base: type) -> type:
    class FailsToGenerate(base):  # type: ignore[misc,valid-type]
        armed = False

        def _new_trials(self, b: Any, **kwargs: Any) -> dict[str, Any]:
            if self.armed:
                raise BoomError
            return super()._new_trials(b, **kwargs)

    return FailsToGenerate


class FailingWrapper(TrialWrapper):
    """A custom trial wrapper whose next trial fails."""

    armed = False

    def new_trial(self, **kwargs: Any) -> dict[str, Any]:
        if self.armed:
            raise BoomError
        return super().new_trial(**kwargs)


CASES = {
    "post_step": (lambda: _failing_post_step(VarTask)(), None),
    "post_step, pooled": (lambda: _failing_post_step(PrefetchTask)(), None),
    "post_step under RandomGroundTruth": (
        lambda: _failing_post_step(VarTask)(),
        RandomGroundTruth,
    ),
    "post_step under SideBias": (
        lambda: _failing_post_step(VarTask)(),
        lambda env: SideBias(env, probs=[[0.8, 0.2], [0.2, 0.8]], block_dur=5),
    ),
    "post_step under a custom wrapper": (lambda: _failing_post_step(VarTask)(), FailingWrapper),
    "next trial of a cross-trial task": (lambda: _failing_generation(OneAtATime)(), None),
    "next trial of a custom wrapper": (VarTask, FailingWrapper),
}


def _steps(env: Any, n: int) -> None:
    for _ in range(n):
        env.step(0)


def _armed(target: Any) -> None:
    for obj in (target, getattr(target, "unwrapped", None)):
        if obj is not None and hasattr(type(obj), "armed"):
            obj.armed = True


@pytest.mark.parametrize("case", list(CASES))
def test_a_failed_boundary_raises_at_every_later_step_until_reset(case):
    make, wrap = CASES[case]
    task = make()
    env = task if wrap is None else wrap(task)
    env.reset(seed=0)
    ended = task.num_tr
    _armed(env)
    with pytest.raises(BoomError):  # fixating: the trial times out or ends at its decision
        _steps(env, 200)
    for _ in range(3):  # never the ended trial again, never silently
        with pytest.raises(RuntimeError, match=r"last trial boundary failed.*call reset"):
            env.step(0)
    assert task.num_tr <= ended + 1  # a trial made before the hook failed is never served
    for obj in (env, task):
        if hasattr(type(obj), "armed"):
            obj.armed = False
    env.reset(seed=1)
    env.step(0)  # a new episode starts as usual
    assert task.num_tr >= 1
