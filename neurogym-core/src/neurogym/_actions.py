"""Action checks of the single env: exactly what ``action_space.contains`` accepts.

``TrialEnv.step`` takes a fast path for a plain integer inside a ``Discrete`` space's bounds
(one type lookup and a chained comparison); everything else comes here, which converts
accepted forms (numpy integer scalars, 0-d integer arrays, a ``Box`` action of the right shape
and bounds) and raises for the rest, naming the action and the space.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from neurogym.errors import InvalidActionError

__all__ = ["checked_action", "discrete_bounds"]

#: Integer types whose values the fast path compares directly with the Discrete bounds.
_INT_TYPES = frozenset(
    {int, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64}
)


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
    try:
        contained = space.contains(action)
    except Exception:  # a space that cannot even compare the value does not contain it
        contained = False
    if not contained:
        raise InvalidActionError(f"action {action!r} is not in the action space {space}")
    return action


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
