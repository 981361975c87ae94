"""Argument checks shared by the value-based tasks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from neurogym import validate

__all__ = ["no_timing", "per_arm", "reward_dict"]


def no_timing(timing: Any, task: str, why: str) -> None:
    """Refuse a ``timing=`` argument for a task that has no timed periods.

    Raises:
        ValueError: If ``timing`` is neither None nor empty, naming the task and why.
    """
    if timing is not None and (not isinstance(timing, Mapping) or timing):
        raise ValueError(
            f"{task} has no timed periods ({why}), so timing= has nothing to set; "
            f"got timing={timing!r} (leave it out)"
        )


def reward_dict(rewards: Any, task: str, hint: str = "") -> Mapping[str, float]:
    """``rewards`` as a mapping of named outcomes (None gives an empty one).

    Raises:
        TypeError: If ``rewards`` is not a mapping, with ``hint`` appended.
    """
    if rewards is None:
        return {}
    if not isinstance(rewards, Mapping):
        raise TypeError(
            f"{task}: rewards must be a dict of named outcomes (e.g. {{'correct': 1.0}}), "
            f"got {rewards!r}{hint}"
        )
    return rewards


def per_arm(values: Any, name: str, n: int, *, probabilities: bool) -> np.ndarray:
    """One finite number per arm (each in ``[0, 1]`` if ``probabilities``), as float64.

    Raises:
        ValueError: If there is not exactly one value per arm, or a value is out of range.
        TypeError: If a value is not a real number.
    """
    arr = np.asarray(values, dtype=object)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(
            f"{name} must hold one value per arm (n={n}), got {values!r} with shape {arr.shape}"
        )
    check = validate.probability if probabilities else validate.number
    return np.array([check(v, f"{name}[{i}]") for i, v in enumerate(arr)], dtype=np.float64)
