"""What the papers' signatures share: closed-loop trials with choices, and bootstrap intervals.

:func:`record_trials` runs a trained agent (a :class:`~neurogym_apps.train.TrainedModel` or a
stable-baselines3 model) in closed loop, as :func:`~neurogym_apps.train.evaluate` does, and
returns each trial's dict with what the agent did in it: its actions, the stream (env) it
came from and its place in that stream, so a statistic can follow a block or a rule from
trial to trial. :func:`bootstrap` gives a statistic's percentile interval over resampled
trials (``scipy.stats.bootstrap``); :class:`Estimate` holds a number with its interval.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from neurogym import validate
from neurogym_apps.analysis._deps import require

__all__ = [
    "CONFIDENCE",
    "Estimate",
    "Recorder",
    "bootstrap",
    "column",
    "logistic_coefficients",
    "proportion_points",
    "record_trials",
]

#: The confidence level of every interval the signatures report.
CONFIDENCE = 0.95


@dataclasses.dataclass(frozen=True)
class Estimate:
    """A statistic with its confidence interval.

    Attributes:
        value: The statistic on all the data.
        low: The interval's lower end.
        high: The interval's upper end.
    """

    value: float
    low: float
    high: float

    def to_dict(self) -> dict[str, float]:
        """``{"value", "low", "high"}`` for JSON."""
        return dataclasses.asdict(self)

    def __str__(self) -> str:
        """``0.52 [0.41, 0.63]``."""
        return f"{self.value:.3g} [{self.low:.3g}, {self.high:.3g}]"


def bootstrap(
    statistic: Callable[..., Any],
    *sizes: int,
    resamples: int = 1000,
    seed: int = 0,
) -> list[Estimate]:
    """Percentile bootstrap intervals of a vector statistic of one or more groups of units.

    Each group (trials of one block type, switches, ...) is resampled with replacement on
    its own (``scipy.stats.bootstrap``, ``paired=False``).

    Args:
        statistic: ``statistic(rows_1, rows_2, ...) -> (k,)``: the statistic of the units
            ``rows_g`` of each group (indices into ``0..sizes[g]-1``, with repeats in a
            resample).
        *sizes: The number of units of each group.
        resamples: Bootstrap resamples.
        seed: Seeds the resampling.

    Returns:
        One :class:`Estimate` per entry of the statistic: its value on all units and its
        :data:`CONFIDENCE` percentile interval.
    """
    groups = [np.arange(validate.positive_int(n, "sizes[]")) for n in sizes]
    value = np.atleast_1d(np.asarray(statistic(*groups), dtype=float))
    result = require("scipy.stats").bootstrap(
        groups,
        lambda *rows: np.asarray(statistic(*(r.astype(np.int64) for r in rows)), dtype=float),
        n_resamples=validate.positive_int(resamples, "resamples"),
        confidence_level=CONFIDENCE,
        method="percentile",
        vectorized=False,
        rng=np.random.default_rng(seed),
    )
    lows = np.atleast_1d(result.confidence_interval.low)
    highs = np.atleast_1d(result.confidence_interval.high)
    return [
        Estimate(float(v), float(lo), float(hi))
        for v, lo, hi in zip(value, lows, highs, strict=True)
    ]


def proportion_points(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The fraction of ``y == 1`` at each value of ``x``, with 95 % Wilson intervals.

    Returns:
        ``levels``, ``fractions`` and ``err`` (``(2, levels)``: below and above, for
        ``errorbar``).
    """
    binomtest = require("scipy.stats").binomtest
    levels = np.unique(x)
    means, bounds = np.empty(levels.size), np.empty((2, levels.size))
    for i, level in enumerate(levels):
        picked = y[x == level]
        ci = binomtest(int(picked.sum()), picked.size).proportion_ci(method="wilson")
        means[i], bounds[:, i] = picked.mean(), (ci.low, ci.high)
    return levels, means, np.abs(bounds - means)


def logistic_coefficients(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Unpenalised logistic regression of 0/1 ``y`` on the columns of ``x``.

    Returns:
        ``(1 + k,)``: the intercept, then one slope per column (scikit-learn's
        ``LogisticRegression(C=inf)``, Newton-Cholesky: about 10 ms for 2,000 trials, 8 times
        faster than its default solver, which a bootstrap of 1,000 fits feels); NaN when
        ``y`` holds only one class.
    """
    x = np.asarray(x, dtype=float).reshape(len(y), -1)
    if np.unique(y).size < 2:
        return np.full(1 + x.shape[1], np.nan)
    fit = (
        require("sklearn.linear_model")
        .LogisticRegression(C=np.inf, solver="newton-cholesky", max_iter=1000)
        .fit(x, np.asarray(y, dtype=int))
    )
    return np.concatenate([fit.intercept_, fit.coef_[0]])


class Recorder(gym.Wrapper[Any, Any, Any, Any]):
    """Adds what the agent did to each ended trial's dict (``info["trial"]``, a copy).

    Keys added: ``actions`` (the trial's actions, in order), ``stream`` (this env's number)
    and ``index`` (the trial's place in the stream, from 0), ``performance`` (the env's).
    """

    def __init__(self, env: gym.Env[Any, Any], stream: int) -> None:
        super().__init__(env)
        self.stream = stream
        self._actions: list[int] = []
        self._index = 0

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        """Steps the env; on a trial's end, its dict gains the keys above."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._actions.append(int(np.asarray(action).item()))
        if info.get("new_trial"):
            trial = dict(info.get("trial") or {})
            trial.update(
                actions=tuple(self._actions),
                stream=self.stream,
                index=self._index,
                performance=float(info.get("performance", 0.0)),
            )
            info = {**info, "trial": trial}
            self._actions, self._index = [], self._index + 1
        return obs, reward, terminated, truncated, info


def record_trials(
    model: Any,
    trials: int,
    *,
    seed: int = 1,
    env_kwargs: dict[str, Any] | None = None,
    carry_state: bool | None = None,
    task: str | None = None,
) -> list[dict[str, Any]]:
    """Closed-loop trials of a trained agent, each trial's dict with the agent's actions.

    The agent steps envs of its task together, seeded from ``seed``, as
    :func:`~neurogym_apps.train.evaluate` steps them (up to 64; streams of at least 250 trials
    for a task whose trials depend on earlier ones; feedback inputs and the state carried
    across trials for a model trained across trials, the state restarting per trial
    otherwise, unless ``carry_state``).

    Args:
        model: A :class:`~neurogym_apps.train.TrainedModel`, or a stable-baselines3 model made
            on :func:`neurogym_apps.rl.as_sb3_vec_env` envs (their wrappers are reused).
        trials: Trials to record.
        seed: Seeds the envs.
        env_kwargs: Task arguments (default: those it was trained with).
        carry_state: Keep the recurrent state across trials (default: as trained; True for
            a stable-baselines3 model, whose episodes span trials).
        task: The task of a stable-baselines3 model loaded without its env (then
            ``env_kwargs`` must repeat its arguments and wrappers).

    Returns:
        The trials in the order they ended; see :class:`Recorder` for the added keys.
    """
    from neurogym_apps.train import torch_threads
    from neurogym_apps.train._closed_loop import run_closed_loop
    from neurogym_apps.train._evaluate import closed_loop_agent
    from neurogym_apps.train._sb3 import is_predict_model

    make, act, reset_state = closed_loop_agent(model, task, env_kwargs)
    if carry_state is None:  # an sb3 model's episodes span trials
        carry_state = is_predict_model(model) or model.config.across_trials
    streams = itertools.count()
    with torch_threads(1):
        run = run_closed_loop(
            lambda: Recorder(make(), next(streams)), act, trials, seed=seed,
            carry_state=bool(carry_state), reset_state=reset_state,
        )  # fmt: skip
    return run.trials


def column(trials: Sequence[dict[str, Any]], key: str, dtype: Any = float) -> np.ndarray:
    """One trial-dict key of every trial as an array.

    Raises:
        KeyError: A trial lacks ``key`` (the message names the keys it has).
    """
    missing = [i for i, trial in enumerate(trials) if key not in trial]
    if missing:
        raise KeyError(f"trial {missing[0]} has no {key!r}; it has {sorted(trials[missing[0]])}")
    return np.array([np.asarray(trial[key]).item() for trial in trials], dtype=dtype)
