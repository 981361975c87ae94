"""Helpers for task tests: seeded envs, scripted agents, batch statistics and exact timing laws.

Public (docs/architecture.md §10): plugin test suites use them to check what a task does, e.g.
that a scripted agent answering the ground truth at the right time earns ``correct``, that the
stimulus encodes the ground truth, and that trial lengths follow the exact distribution the
timing specs imply (:func:`assert_lengths_follow`).

Example:
    >>> from neurogym.testing.trials import correct, respond, run_trial, seeded
    >>> env = seeded(MyTask, seed=0)  # doctest: +SKIP
    >>> rewards, info, steps = run_trial(env, respond(correct))  # doctest: +SKIP
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from neurogym import TrialBatch
from neurogym.timing import _to_steps

Policy = Callable[[Any], int]
EnvT = TypeVar("EnvT")

# ------------------------------------------------------------------------------- envs and agents


def seeded(task: Callable[..., EnvT], seed: int = 0, **kwargs: object) -> EnvT:
    """``task(**kwargs)``, reset with ``seed``."""
    env = task(**kwargs)
    env.reset(seed=seed)  # type: ignore[attr-defined]
    return env


def step_trial(
    env: Any, policy: Policy, limit: int = 1000
) -> tuple[list[float], list[dict[str, Any]], int]:
    """Steps the current trial to its end with ``policy(env)``: (rewards, infos, steps taken).

    The env must neither terminate nor truncate on the way.
    """
    rewards: list[float] = []
    infos: list[dict[str, Any]] = []
    for steps in range(1, limit + 1):
        _, reward, terminated, truncated, info = env.step(policy(env))
        assert not terminated
        assert not truncated
        rewards.append(float(reward))
        infos.append(info)
        if info["new_trial"]:
            return rewards, infos, steps
    raise AssertionError(f"no trial end within {limit} steps")


def run_trial(
    env: Any, policy: Policy, limit: int = 1000
) -> tuple[list[float], dict[str, Any], int]:
    """Like :func:`step_trial`, but returns only the last info: (rewards, info, steps taken)."""
    rewards, infos, steps = step_trial(env, policy, limit)
    return rewards, infos[-1], steps


def in_period(env: Any, name: str) -> bool:
    """Whether the env's current step lies in period ``name`` (by step index)."""
    return bool(env.start_ind[name] <= env.t_ind < env.end_ind[name])


def respond(choice: Policy, period: str = "decision") -> Policy:
    """Fixates (action 0), then plays ``choice(env)`` while in ``period``."""
    return lambda env: choice(env) if in_period(env, period) else 0


def correct(env: Any) -> int:
    """The ground-truth action of the current step."""
    return int(env.gt_now)


def other_of_two(env: Any) -> int:
    """The wrong one of two choices 1 and 2."""
    return 3 - int(env.gt_now)


# ----------------------------------------------------------------------------- batch statistics


def period_mask(batch: TrialBatch, period: str) -> np.ndarray:
    """``(B, T)`` bool: the steps of ``period`` in each trial of the batch."""
    start, end = batch.periods[period]
    steps = np.arange(_ob(batch).shape[1])
    mask: np.ndarray = (steps >= start[:, None]) & (steps < end[:, None])
    return mask


def period_mean(batch: TrialBatch, period: str, dims: int | range | list[int]) -> np.ndarray:
    """Per-trial mean over ``period`` of observation dim(s) ``dims``: ``(B,)`` or ``(B, len)``."""
    inside = period_mask(batch, period)
    ob = _ob(batch)
    if isinstance(dims, int):
        mean: np.ndarray = (ob[:, :, dims] * inside).sum(1) / inside.sum(1)
        return mean
    picked = ob[:, :, list(dims)] * inside[:, :, None]
    means: np.ndarray = picked.sum(1) / inside.sum(1)[:, None]
    return means


def _ob(batch: TrialBatch) -> np.ndarray:
    if batch.ob is None:
        raise ValueError("the batch has no observation array (the task builds none)")
    return batch.ob


# ------------------------------------------------------------------------ exact timing laws (pmfs)


def trunc_exp_steps(mean: float, low: float, high: float, dt: float) -> dict[int, float]:
    """Exact pmf of floor(X / dt), X ~ Exp(mean) conditioned on [low, high)."""

    def cdf(x: float) -> float:
        x = min(max(x, low), high)
        return (math.exp(-low / mean) - math.exp(-x / mean)) / (
            math.exp(-low / mean) - math.exp(-high / mean)
        )

    first, last = math.floor(low / dt), math.floor(high / dt)
    pmf = {k: cdf((k + 1) * dt) - cdf(k * dt) for k in range(first, last + 1)}
    return {k: p for k, p in pmf.items() if p > 0}


def choice_steps(values: tuple[float, ...], dt: float) -> dict[int, float]:
    """Exact pmf of floor(V / dt), V uniform over ``values``."""
    pmf: dict[int, float] = {}
    for value in values:
        k = _to_steps(value, dt)
        pmf[k] = pmf.get(k, 0.0) + 1 / len(values)
    return pmf


def const_steps(value: float, dt: float) -> dict[int, float]:
    """The pmf of a constant duration ``value`` in steps of ``dt``."""
    return choice_steps((value,), dt)


def convolve(*pmfs: dict[int, float]) -> dict[int, float]:
    """The pmf of the sum of independent variables with these pmfs."""
    out = {0: 1.0}
    for pmf in pmfs:
        nxt: dict[int, float] = {}
        for a, pa in out.items():
            for b, pb in pmf.items():
                nxt[a + b] = nxt.get(a + b, 0.0) + pa * pb
        out = nxt
    return out


def pmf_stats(pmf: dict[int, float]) -> tuple[float, float, float]:
    """Mean, std and 95th percentile (numpy's linear rule is within 1 of the exact one)."""
    ks = np.array(sorted(pmf))
    ps = np.array([pmf[k] for k in ks])
    mean = float(ks @ ps)
    std = float(np.sqrt(((ks - mean) ** 2) @ ps))
    p95 = float(ks[np.searchsorted(np.cumsum(ps), 0.95)])
    return mean, std, p95


def assert_lengths_follow(lengths: np.ndarray, pmf: dict[int, float]) -> None:
    """Support, Kolmogorov distance (< 2 / sqrt(n)) and mean (< 4 SE) against the exact pmf."""
    n = lengths.size
    assert set(np.unique(lengths).tolist()) <= set(pmf)
    ks = np.array(sorted(pmf))
    exact_cdf = np.cumsum([pmf[k] for k in ks])
    empirical_cdf = np.searchsorted(np.sort(lengths), ks, side="right") / n
    assert np.max(np.abs(empirical_cdf - exact_cdf)) < 2 / math.sqrt(n)
    mean, std, _ = pmf_stats(pmf)
    assert abs(lengths.mean() - mean) < 4 * std / math.sqrt(n)
