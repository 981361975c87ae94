"""Whether a task can be stepped natively by the vector env (``neurogym.vector``, §9.4).

In the env layer, below both the vector env and the registry: ``TaskSpec.vectorized`` (the
registry layer) and ``gymnasium.make_vec`` (the vector layer) ask the same question here.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from neurogym._env.env import TrialEnv
from neurogym.rules import StandardDecision

__all__ = ["native_obstacle"]


def native_obstacle(env: gym.Env[Any, Any]) -> str | None:
    """Why ``env`` cannot be stepped natively by :class:`TrialVectorEnv` (None if it can)."""
    if env is not env.unwrapped:
        return f"it is wrapped ({env}); wrappers are applied per env by the loop"
    if not isinstance(env, TrialEnv):
        return f"{type(env).__name__} is not a neurogym TrialEnv"
    cls = type(env)
    if not isinstance(env.rule, StandardDecision):
        return f"{cls.__name__} declares no StandardDecision rule"
    for name in TrialEnv.TRACKED:
        if name != "_new_trials" and name in cls._overrides:
            return f"{cls.__name__} overrides {name}()"
    if not env.batch_native:
        return f"{cls.__name__} generates trials with _new_trial (per trial)"
    if env.cross_trial_state:  # one task object would carry that state for every sub-env
        return f"{cls.__name__} keeps state across trials (cross_trial_state)"
    space = env.action_space
    if not isinstance(space, gym.spaces.Discrete) or int(space.start) != 0:
        return f"its action space {space} is not Discrete(n) starting at 0"
    if not isinstance(env.observation_space, gym.spaces.Box):
        return f"its observation space {env.observation_space} is not a Box"
    for key in env.timing:
        if env.timing.spec(key).kind == "callable":
            return f"timing[{key!r}] is a callable (drawn outside the env's generator)"
    return None
