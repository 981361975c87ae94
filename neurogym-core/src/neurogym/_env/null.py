"""Null: a placeholder task for tests and examples."""

from __future__ import annotations

from sys import getrefcount
from typing import Any

import numpy as np

from neurogym import spaces
from neurogym._env.current import end_step
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
        self._spare_rows: list[np.ndarray] | None = None  # the last trial's (_zero_rows)

    def _new_trial(self, **kwargs: Any) -> dict[str, Any]:
        self._rows: list[np.ndarray] | None = None  # made at the trial's first step
        return kwargs  # the forced values, if any: a new dict on every call

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        # One zero row per step of the trial (up to _MAX_ROWS): a step returns its own row
        # (a fresh array that shares no memory with another step's, as gymnasium requires),
        # made with the others by one list() over the rows, which costs less than a copy
        # or an index per step.
        rows = self._rows
        if rows is None:
            rows = self._rows = self._zero_rows(min(end_step(self.tmax, self.dt), _MAX_ROWS))
        try:
            ob = rows[self.t_ind]
        except IndexError:  # a trial longer than its rows (a raised or infinite tmax)
            ob = np.zeros(1, dtype=np.float32)
        return ob, 0.0, False, False, {}

    def _zero_rows(self, steps: int) -> list[np.ndarray]:
        """``steps`` zero rows: the last trial's again if nobody holds one of them.

        A row only this list references (reference count 2, the list's and the call's) was
        dropped by whoever received it, so no one can see it served again; zeroing their
        base undoes any write made to one before it was dropped. Rows that lost their
        common base (a pickled or copied env) are made anew.
        """
        steps = max(steps, 1)
        spare = self._spare_rows
        if spare is not None and len(spare) == steps and max(map(getrefcount, spare)) == 2:
            base = spare[0].base
            if base is not None and base.shape == (steps, 1):
                base.fill(0)
                return spare
        rows = self._spare_rows = list(np.zeros((steps, 1), dtype=np.float32))
        return rows


_MAX_ROWS = 4096  # steps of a trial served from its rows; later steps make a fresh array
