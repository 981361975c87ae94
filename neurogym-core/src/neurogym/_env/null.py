"""Null: a placeholder task for tests and examples."""

from __future__ import annotations

from typing import Any

import numpy as np

from neurogym import spaces
from neurogym._env.env import TrialEnv

__all__ = ["Null"]


class Null(TrialEnv):
    """A task that does nothing.

    ## Description
    Observations are always 0 and every action earns 0. Useful for tests and examples.

    ## Trial structure (periods)
    No periods: a trial lasts ``tmax`` = 10000 ms (100 steps at the default dt) and ends by
    timeout.

    ## Observation space (named dims)
    ``Box(-inf, inf, (1,), float32)``, no names.

    ## Action space
    ``Discrete(1)``.

    ## Reward
    Always 0.

    ## Arguments
    dt: Step size in ms.

    ## References
    None (not a behavioural task).

    ## Version history
    v0: as upstream NeuroGym's Null, but the observation is a float32 array inside the
    observation space (upstream returned the int 0).
    """

    has_groundtruth = False  # nothing to learn: supervised batches raise

    def __init__(self, dt: float = 100) -> None:
        super().__init__(dt=dt)
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(1,), dtype=np.float32)
        self.action_space = spaces.Discrete(1)

    def _new_trial(self, **kwargs: Any) -> dict[str, Any]:
        return kwargs  # the forced values, if any: a new dict on every call

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        # a fresh array per step, as gymnasium requires (it shares memory with no other)
        return _ZERO.copy(), 0.0, False, False, {}


_ZERO = np.zeros(1, dtype=np.float32)
