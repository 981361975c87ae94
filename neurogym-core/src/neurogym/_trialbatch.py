"""``TrialBatch`` (what the builder returns) and array helpers of the builder."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from neurogym._trial import WhereArg

__all__ = ["EPS", "TrialBatch", "action_table"]

EPS = 1e-9
"""Tolerance of ``floor(t / dt)`` (times in ms that are multiples of dt up to rounding)."""


@dataclass
class TrialBatch:
    """A batch of ``B`` complete trials, padded to the longest.

    Attributes:
        ob: Observations, ``(B, T, *obs_shape)``, padded with the default ob value.
        gt: Ground truth, ``(B, T, *act_shape)``, 0 where unset; ``None`` if the task sets none.
        lengths: Number of steps of each trial, ``(B,)``.
        mask: ``(B, T)`` bool, True where ``set_groundtruth`` wrote.
        periods: Period name to ``(start, end)`` step indices (end exclusive), each ``(B,)``.
        start_t: Period name to start time in ms, ``(B,)``.
        end_t: Period name to end time in ms, ``(B,)``.
        trial: Trial parameters, one row per trial (``(B, ...)`` arrays).
        dt: Step size in ms.
    """

    ob: np.ndarray | None
    gt: np.ndarray | None
    lengths: np.ndarray
    mask: np.ndarray
    periods: dict[str, tuple[np.ndarray, np.ndarray]]
    start_t: dict[str, np.ndarray]
    end_t: dict[str, np.ndarray]
    trial: dict[str, np.ndarray] = field(default_factory=dict)
    dt: float = 100.0

    @property
    def size(self) -> int:
        """The number of trials ``B``."""
        return int(self.lengths.shape[0])

    @property
    def valid(self) -> np.ndarray:
        """``(B, T)`` bool, True on the steps that belong to a trial (not padding)."""
        steps = self.mask.shape[1]
        return np.arange(steps)[None, :] < self.lengths[:, None]

    def trial_dict(self, i: int) -> dict[str, Any]:
        """Trial ``i``'s parameters as a dict of scalars/arrays."""
        return {key: value[i] for key, value in self.trial.items()}


def _apply(sub: np.ndarray, val: Any, reset: bool) -> None:
    """``sub[...] = val`` or ``sub += val``, channel by channel for large, narrow 3-D views.

    numpy iterates an interleaved ``(B, L, k)`` view with ``k`` in the inner loop; for small
    ``k`` one operation per channel (inner loop over ``B x L``) is about 3x faster.
    """
    if (
        sub.ndim == 3
        and 1 < sub.shape[2] <= 8
        and sub.shape[0] * sub.shape[1] >= 64
        and isinstance(val, np.ndarray)
        and val.ndim == 3
    ):
        last = val.shape[2]
        for c in range(sub.shape[2]):
            channel = sub[:, :, c]
            part = val[:, :, c if last > 1 else 0]
            if reset:
                channel[...] = part
            else:
                channel += part
    elif reset:
        sub[...] = val
    else:
        sub += val


def _column(value: Any, n: int, dtype: Any) -> np.ndarray:
    """``value`` (a scalar or an ``(n,)`` array) as a fresh ``(n,)`` array of ``dtype``."""
    if isinstance(value, np.ndarray):
        return value.astype(dtype)
    return np.full(n, value, dtype=dtype)


def _floor_to_dt(value: float | np.ndarray, dt: float) -> float | np.ndarray:
    if isinstance(value, float):
        return math.floor(value / dt + EPS) * dt
    out: np.ndarray = np.floor(value / dt + EPS) * dt
    return out


def _to_steps(value: float | np.ndarray, dt: float) -> Any:
    """Step index of a time in ms: ``floor(t / dt)`` (an int, or an int array)."""
    if isinstance(value, float):
        return math.floor(value / dt + EPS)
    return np.floor(value / dt + EPS).astype(np.intp)


def action_table(where: WhereArg, space: Any) -> np.ndarray:
    """The action values named ``where`` in a Discrete space, as an array."""
    names = getattr(space, "name", None) or {}
    if not isinstance(where, str) or where not in names:
        raise KeyError(f"where={where!r} is not an action name; action names: {sorted(names)}")
    return np.atleast_1d(np.asarray(names[where]))
