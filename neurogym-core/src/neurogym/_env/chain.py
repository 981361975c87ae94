"""Walking a wrapper chain: the one loop over ``env``, ``env.env``, ... that neurogym uses."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import gymnasium as gym

__all__ = ["iter_chain"]


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
