"""What the interval-production tasks share: the graded timing reward and the go target."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from neurogym import BatchBuilder

__all__ = [
    "MARGIN_FLOOR_MS",
    "go_target",
    "production_reward",
    "production_step",
    "refuse_derived",
    "sampled_duration",
]

MARGIN_FLOOR_MS = 25.0
"""The fixed part of the tolerance: ``prod_margin * target + 25`` ms."""


def production_reward(
    produced: float, target: float, prod_margin: float, rewards: Mapping[str, float]
) -> tuple[float, bool]:
    """The graded reward of producing ``produced`` ms when ``target`` ms was asked for.

    With ``eps = |produced - target|`` and the tolerance ``thr = prod_margin * target + 25``:
    ``rewards["fail"]`` if ``eps > thr``, else ``max((1 - eps / thr) ** 1.5, 0.1) *
    rewards["correct"]`` (upstream NeuroGym's rule).

    Args:
        produced: The interval the agent produced, in ms.
        target: The interval it had to produce, in ms.
        prod_margin: The tolerance as a fraction of ``target``.
        rewards: The task's reward dict (``correct`` and ``fail``).

    Returns:
        The reward and whether the response was within the tolerance (performance 1).
    """
    eps = abs(produced - target)
    threshold = prod_margin * target + MARGIN_FLOOR_MS
    if eps > threshold:
        return float(rewards["fail"]), False
    graded = max((1.0 - eps / threshold) ** 1.5, 0.1)
    return graded * float(rewards["correct"]), True


def go_target(b: BatchBuilder, production: np.ndarray, period: str) -> None:
    """Ground truth of ``period``: 0 (wait), and 1 (go) at step ``int(production / dt)`` of it.

    Upstream wrote a ``2 * production`` array with a single 1 at that index; here each trial
    of the batch gets its own go step (none if the period is shorter). The whole period is
    the loss mask.
    """
    b.set_target(0, period)  # the loss mask: the whole period, target 0 (wait)
    start, end = b.period_steps(period)
    go_step = np.floor(np.asarray(production, dtype=float) / b.env.dt + 1e-9).astype(np.intp)
    go = np.broadcast_to(start + go_step, (b.n,))  # bounds and durations: numbers or (B,)
    rows = np.flatnonzero(go < end)
    b.gt[rows, go[rows]] = 1  # inside the period, so inside the mask


def sampled_duration(b: BatchBuilder, name: str, period: str, dt: float) -> np.ndarray:
    """A duration in ms per trial, recorded as trial variable ``name``: ``(B,)``.

    A forced value is used as given; otherwise ``timing[period]`` is sampled for the batch and
    floored to ``dt`` (as upstream's ``sample_time`` did).

    Raises:
        ValueError: If a forced value is not finite or negative.
    """
    forced = b.forced(name, number=True)
    if forced is not None:
        values = np.asarray(forced, dtype=float)
        if not np.all(np.isfinite(values)) or np.any(values < 0):
            raise ValueError(f"forced {name} must be finite durations >= 0 ms, got {forced!r}")
        return b.set_param(name, values)
    raw: Any = b.env.timing.spec(period).sample(b.rng, b.n)
    return b.set_param(name, np.floor(np.asarray(raw, dtype=float) / dt + 1e-9) * dt)


def refuse_derived(kwargs: Mapping[str, Any], name: str, forced_instead: str) -> None:
    """Raise if the derived trial variable ``name`` was forced (it would be silently replaced).

    Raises:
        ValueError: Naming the variable and what to force instead.
    """
    if name in kwargs:
        raise ValueError(
            f"{name} cannot be forced: it is derived from {forced_instead}; force "
            f"{forced_instead} instead (got {name}={kwargs[name]!r})"
        )


def production_step(
    task: Any, action: Any, timed_from: str
) -> tuple[Any, float, bool, bool, dict[str, Any]]:
    """One step of a produce-the-interval task (MotorTiming, ReadySetGo).

    Going in the fixation period pays ``abort``; going in the production period ends the
    trial with :func:`production_reward` of the time since the end of period ``timed_from``.
    Waiting (action 0) is never scored.
    """
    reward, new_trial = 0.0, False
    if action == 0:  # waiting is never scored (action 1 is the only other one)
        return task.ob_now, reward, False, False, {"new_trial": new_trial}
    if task.in_period("fixation"):
        new_trial = task.abort
        reward = task.rewards["abort"]
    if task.in_period("production"):
        new_trial = True
        trial = task.trial
        assert trial is not None
        produced = task.t - task.end_t[timed_from]
        reward, within = production_reward(
            produced, float(trial["production"]), task.prod_margin, task.rewards
        )
        if within:
            task.performance = 1
    return task.ob_now, reward, False, False, {"new_trial": new_trial}
