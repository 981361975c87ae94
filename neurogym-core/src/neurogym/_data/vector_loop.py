"""Vector-env support: the loop env (checked ``set_attr``), attribute and action checks."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import SyncVectorEnv

from neurogym.errors import InvalidActionError
from neurogym.validate import closest

__all__ = ["LoopVectorEnv", "check_actions", "check_attribute", "reset_mask"]


def check_attribute(env: Any, name: str) -> None:
    """Raise unless ``env`` (or its task) has attribute ``name``, naming the closest one.

    ``set_attr`` on a vector env changes a configuration attribute; a misspelt name would
    otherwise create a new attribute nobody reads.
    """
    task = getattr(env, "unwrapped", env)
    if hasattr(env, name) or hasattr(task, name):
        return
    names = sorted({*dir(task)} - {n for n in dir(task) if n.startswith("_")})
    raise AttributeError(
        f"{type(task).__name__} has no attribute {name!r} (set_attr changes an existing "
        f"attribute of every sub-env){closest(name, names)}"
    )


class LoopVectorEnv(SyncVectorEnv):
    """gymnasium's SyncVectorEnv that checks what it is given.

    ``set_attr`` refuses unknown attribute names, and ``step`` a batch of actions whose
    length is not the number of envs (gymnasium reports that as a ``zip()`` error); each
    env's own ``step`` then checks its action.
    """

    def step(self, actions: Any) -> Any:
        """Steps every sub-env with its action (see ``SyncVectorEnv.step``).

        Raises:
            InvalidActionError: If there is not one action per env.
        """
        shape = np.shape(actions)
        if not shape or shape[0] != self.num_envs:
            raise InvalidActionError(
                f"expected {self.num_envs} actions, one per env (batch shape "
                f"{self.action_space.shape}), got shape {shape}"
            )
        return super().step(actions)

    def set_attr(self, name: str, values: Any) -> None:
        """Sets attribute ``name`` of every sub-env (see ``SyncVectorEnv.set_attr``).

        Raises:
            AttributeError: If the sub-envs have no attribute ``name``.
        """
        check_attribute(self.envs[0], name)
        super().set_attr(name, values)


def check_actions(act: np.ndarray, n: int, n_actions: int) -> np.ndarray:
    """``act`` as ``n`` integer actions in ``[0, n_actions)``; InvalidActionError otherwise."""
    if act.shape != (n,):
        raise InvalidActionError(f"expected {n} actions (shape ({n},)), got shape {act.shape}")
    as_int = act.astype(np.intp)
    if not np.array_equal(as_int, act):
        raise InvalidActionError(f"actions must be integers in [0, {n_actions}), got {act}")
    if as_int.min() < 0 or as_int.max() >= n_actions:
        raise InvalidActionError(f"actions must be integers in [0, {n_actions}), got {act}")
    return as_int


def reset_mask(options: dict[str, Any] | None, n: int) -> np.ndarray:
    """The sub-envs a vector reset resets: ``options["reset_mask"]`` (checked), else all."""
    if not options or "reset_mask" not in options:
        return np.ones(n, dtype=bool)
    mask = options["reset_mask"]
    if not isinstance(mask, np.ndarray) or mask.shape != (n,) or mask.dtype != np.bool_:
        raise TypeError(f"options['reset_mask'] must be a bool array of shape ({n},)")
    if not mask.any():
        raise ValueError("options['reset_mask'] must select at least one sub-env")
    return mask
