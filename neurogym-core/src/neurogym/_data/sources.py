"""Where batch generation gets its env and trials, shared by ``neurogym.data`` and its streams.

``batch_source`` finds the object whose ``new_trials`` honours an env's whole wrapper chain,
``resolve_env`` turns an id or an instance into an env, ``to_torch`` shares arrays with torch.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np

from neurogym._env.chain import iter_chain
from neurogym._env.env import TrialEnv

__all__ = ["UnsupportedWrapperError", "batch_source", "resolve_env", "to_torch"]

# gymnasium wrappers that never change trial data (added by gymnasium.make).
_TRANSPARENT = ("OrderEnforcing", "PassiveEnvChecker")


class UnsupportedWrapperError(TypeError):
    """A wrapper in the env's chain acts on steps, so batch generation cannot honour it."""


def batch_source(env: gym.Env[Any, Any]) -> Any:
    """The object whose ``new_trials(n, **kwargs)`` builds batches for ``env``'s whole chain.

    That is the outermost trial wrapper (it passes batch requests down its chain) or the task
    itself. Every other wrapper acts in ``step()``, which batch generation never calls, so it
    would be silently ignored: it is an error instead.

    Raises:
        UnsupportedWrapperError: Naming the first step-level wrapper of the chain.
        TypeError: The chain does not end in a neurogym ``TrialEnv``.
    """
    source: Any = None
    for current in iter_chain(env):
        if not isinstance(current, gym.Wrapper):
            break
        name = type(current).__name__
        if callable(getattr(type(current), "new_trials", None)):
            source = current if source is None else source
        elif name not in _TRANSPARENT:
            raise UnsupportedWrapperError(
                f"{name} acts on steps (step()/reset()), which batch generation never calls, "
                f"so Dataset/batch() cannot honour it; remove {name} from the chain (apply it "
                "to your model's inputs instead) or step the env (e.g. with "
                "gymnasium.make_vec) to use it"
            )
    if not isinstance(current, TrialEnv):
        raise TypeError(f"{env} does not end in a neurogym TrialEnv (found {current!r})")
    return current if source is None else source


def resolve_env(
    env: str | gym.Env[Any, Any], env_kwargs: dict[str, Any] | None, *, copy: bool
) -> gym.Env[Any, Any]:
    """An env from an id (made with ``env_kwargs``) or an instance (deep-copied if ``copy``)."""
    if env_kwargs is not None and not isinstance(env_kwargs, Mapping):
        raise TypeError(
            "env_kwargs must be a dict of the task's constructor arguments (e.g. "
            f"{{'dt': 50}}), got {type(env_kwargs).__name__}: {env_kwargs!r}"
        )
    if isinstance(env, str):
        from neurogym._registry.api import make
        from neurogym.errors import UnknownTaskError

        try:
            return make(env, **(env_kwargs or {}))
        except UnknownTaskError:
            # A task registered with gymnasium only (NeuroGym 2.3.1's tutorials:
            # gymnasium.register(id="MyTask-v0", entry_point=MyTask)), as 2.3.1's Dataset made it.
            if env not in gym.envs.registration.registry:
                raise
            return gym.make(env, disable_env_checker=True, **(env_kwargs or {}))
    if env_kwargs:
        raise TypeError("env_kwargs= applies to an env id, not to an env instance")
    if not isinstance(env, gym.Env):
        raise TypeError(f"env must be a task id or a gymnasium env, got {type(env).__name__}")
    if copy:
        import copy as _copy

        return _copy.deepcopy(env)
    return env


def to_torch(array: np.ndarray | None) -> Any:
    """``torch.from_numpy(array)`` (shares memory; None stays None)."""
    if array is None:
        return None
    try:
        torch = importlib.import_module("torch")
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("as_torch=True needs PyTorch: pip install torch") from exc
    return torch.from_numpy(np.ascontiguousarray(array))
