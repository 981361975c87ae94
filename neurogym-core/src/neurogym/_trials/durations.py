"""The duration draw of one period, for the batch builder (``timing[period]`` -> ms per trial)."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, TypeAlias

import numpy as np

from neurogym.timing import _floor_to_dt, check_drawn, trunc_exp

if TYPE_CHECKING:
    from neurogym._env.env import TrialEnv
    from neurogym._trials.builder import BatchBuilder

__all__ = ["Bound", "sample_duration", "trial_length_stats"]

Bound: TypeAlias = float | np.ndarray
"""A period bound in ms: a float when all trials share it, else a ``(B,)`` array."""


def sample_duration(builder: BatchBuilder, period: str) -> Bound:
    """Draws the duration of ``period`` (ms, floored to ``dt``) for the builder's ``n`` trials.

    ``timing[period]`` decides the draw; a batch of one takes the same draws as
    ``spec.sample(rng, 1)``, as Python floats. Warns when a positive duration floors to an
    empty period, and refuses an ``until`` time the trial has already passed.
    """
    env = builder.env
    spec = env._timing._parsed.get(period)  # (env.timing: a property; spec(): a method)
    if spec is None:
        raise KeyError(
            f"period {period!r} has no timing and no explicit duration; "
            f"timing has {sorted(env.timing)}"
        )
    dt = builder.dt
    kind = spec.kind
    if kind == "constant":
        raw: Bound = spec.args[0]
        if raw >= 0:  # the common case: floor once, no warning check needed unless empty
            constant = _floor_to_dt(float(raw), dt)
            if constant == 0 and raw > 0:
                env._warn_empty_period(period, spec.raw)
            return constant
    elif builder.n == 1 and kind == "choice":
        # Same draw as ``spec.sample(rng, 1)`` (one uniform), as a Python float.
        args = spec.args
        raw = args[0] if len(args) == 1 else args[int(builder.rng.random() * len(args))]
    elif builder.n == 1 and kind == "truncated_exponential":  # the draw of sample(rng, 1)
        raw = float(trunc_exp(builder.rng, *spec.args))
    elif builder.n == 1 and kind == "uniform":
        low, high = spec.args
        raw = low + builder.rng.random() * (high - low)
    elif kind == "until":
        so_far = _floor_to_dt(builder.tmax_ms, dt)
        raw = spec.args[0] - so_far
        if np.any(np.asarray(raw) < 0):
            raise ValueError(
                f"timing[{period!r}] = {spec.raw!r}: the trial already lasts "
                f"{float(np.max(so_far))} ms, past the 'until' time {spec.args[0]} ms"
            )
    else:
        sample = spec.sample(builder.rng, builder.n)
        if kind == "callable":
            check_drawn(sample, spec, f"timing[{period!r}]")
        raw = float(sample[0]) if builder.n == 1 else sample
    floored = _floor_to_dt(raw, dt)
    if isinstance(raw, float):
        empty = floored == 0 and raw > 0
    else:
        zeroed = (floored == 0) & (raw > 0)  # an array: its method skips np.any's wrapper
        empty = bool(zeroed.any() if type(zeroed) is np.ndarray else zeroed)
    if empty:
        env._warn_empty_period(period, spec.raw)
    return floored


def trial_length_stats(env: TrialEnv, num_trials: int) -> dict[str, float]:
    """``env.trial_length_stats``: trial lengths in steps of ``num_trials`` trials of a copy."""
    clone = copy.deepcopy(env)
    # Callable timing specs may close over *this* env's generator (upstream's lambdas):
    # put its state back afterwards, whatever the clone drew from it.
    saved_rng = copy.deepcopy(env.np_random.bit_generator.state)
    lengths = []
    remaining = num_trials
    while remaining > 0:
        n = min(remaining, 2048)
        lengths.append(clone.new_trials(n).lengths)
        remaining -= n
    env.np_random.bit_generator.state = saved_rng
    values = np.concatenate(lengths)
    return {
        "mean": float(values.mean()),
        "std": float(values.std()),
        "percentile_95": float(np.percentile(values, 95)),
        "max": float(values.max()),
    }
