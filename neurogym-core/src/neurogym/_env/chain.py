"""Walking a wrapper chain, and the tasks it reaches (through env switchers like ``MultiEnvs``).

``iter_chain`` is the one loop over ``env``, ``env.env``, ... that neurogym uses.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import gymnasium as gym

from neurogym._env.env import TrialEnv

__all__ = ["iter_chain", "stepping_task", "tasks_below"]


def iter_chain(env: gym.Env[Any, Any]) -> Iterator[gym.Env[Any, Any]]:
    """Yields ``env``, then each wrapped env down the chain, ending with the innermost env.

    Every link but the last is a :class:`gymnasium.Wrapper`; the last is what its ``.env``
    chain ends in (normally ``env.unwrapped``).
    """
    current: gym.Env[Any, Any] = env
    while isinstance(current, gym.Wrapper):
        yield current
        current = current.env
    yield current


def stepping_task(env: gym.Env[Any, Any]) -> TrialEnv:
    """The task a ``step`` of ``env`` reaches (through env switchers, their active env's)."""
    link: Any = env
    while not isinstance(link, TrialEnv):
        link = link.active_env if getattr(type(link), "switches_envs", False) else link.env
    return link


def tasks_below(env: gym.Env[Any, Any]) -> list[TrialEnv]:
    """Every task of ``env``'s chain: through env switchers, all of their envs' tasks."""
    link: Any = env
    while not isinstance(link, TrialEnv):
        if getattr(type(link), "switches_envs", False):
            return [task for inner in link.envs for task in tasks_below(inner)]
        link = link.env
    return [link]
