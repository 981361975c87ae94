"""Action checks of the single env: exactly what ``action_space.contains`` accepts.

``TrialEnv.step`` takes a fast path for an integer (Python or numpy, or a 0-d integer array:
whatever ``operator.index`` accepts) inside a ``Discrete`` space's bounds, and hands the task
a Python int; everything else comes here, which accepts a ``Box`` action of the space's shape
(values are not clipped to its bounds: continuous-action tasks score them as they are; NaN
and infinity are refused) and raises for the rest, naming the action and the space.
"""

from __future__ import annotations

import math
from typing import Any

import gymnasium as gym
import numpy as np

from neurogym.errors import InvalidActionError

__all__ = ["checked_action", "discrete_bounds", "small_box_shape"]


def discrete_bounds(space: gym.Space[Any]) -> tuple[int, int] | None:
    """``(start, start + n)`` of a ``Discrete`` space; None for any other space."""
    if isinstance(space, gym.spaces.Discrete):
        start = int(space.start)
        return start, start + int(space.n)
    return None


def checked_action(env: Any, action: Any) -> Any:
    """``action`` as the env's task code expects it, or an error naming what is wrong.

    Raises:
        gymnasium.error.ResetNeeded: If ``env`` was never reset.
        InvalidActionError: If the action space does not contain ``action``.
    """
    if not env._reset_done:
        raise gym.error.ResetNeeded(
            f"{type(env).__name__}.step() was called before reset(); call env.reset() first"
        )
    space = env.action_space
    if isinstance(space, gym.spaces.Discrete):
        return _discrete(action, space)
    if isinstance(space, gym.spaces.Box):
        return _box(action, space)
    try:
        contained = space.contains(action)
    except Exception:  # a space that cannot even compare the value does not contain it
        contained = False
    if not contained:
        raise InvalidActionError(f"action {action!r} is not in the action space {space}")
    return action


def small_box_shape(space: gym.Space[Any]) -> tuple[int, ...] | None:
    """The shape of a one-dimensional ``Box`` space of at most 16 values, else None.

    ``TrialEnv.step`` accepts a float array of this shape whose values have a finite sum
    inline, without a call (a continuous-action step checks one small array each time); any
    other action, including finite ones whose sum overflows, comes to :func:`checked_action`.
    """
    if isinstance(space, gym.spaces.Box) and len(space.shape) == 1 and space.shape[0] <= 16:
        return tuple(space.shape)
    return None


def _box(action: Any, space: gym.spaces.Box) -> Any:
    """A ``Box`` action needs the space's shape and a numeric dtype; values are not clipped."""
    if type(action) is np.ndarray and action.dtype.kind == "f" and action.shape == space.shape:
        if action.size <= 16:  # a continuous-action step checks one small array each time
            if all(map(math.isfinite, action.ravel().tolist())):
                return action
        elif np.isfinite(action).all():
            return action
    try:
        array = np.asarray(action)
    except (TypeError, ValueError):
        array = None
    if array is None or array.shape != space.shape or array.dtype.kind not in "biuf":
        raise InvalidActionError(
            f"action {action!r} is not in the action space {space}: actions are numeric arrays "
            f"of shape {space.shape}"
        )
    if array.dtype.kind == "f" and not _finite(array):
        raise InvalidActionError(
            f"action {action!r} is not in the action space {space}: it holds NaN or infinity "
            "(a continuous action must be finite; it is scored as it is, not clipped)"
        )
    return action


def _finite(array: np.ndarray) -> bool:
    """Whether every value is finite (small actions in Python: a step checks one each time)."""
    if array.size <= 16:
        return all(map(math.isfinite, array.ravel().tolist()))
    return bool(np.isfinite(array).all())


def _discrete(action: Any, space: gym.spaces.Discrete) -> int:
    start, stop = int(space.start), int(space.start) + int(space.n)
    integral = isinstance(action, int | np.integer) or (
        isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu"
    )
    value = int(action) if integral else None
    if value is None or not start <= value < stop:
        raise InvalidActionError(
            f"action {action!r} is not in the action space {space}: actions are integers in "
            f"[{start}, {stop}) (a Python int, a numpy integer or a 0-d integer array)"
        )
    return value
