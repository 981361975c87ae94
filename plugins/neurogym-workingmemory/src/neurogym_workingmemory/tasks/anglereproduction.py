"""Angle reproduction: remember two angles, then steer a pointer to each in turn."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, spaces

__all__ = ["AngleReproduction", "circular_distance"]

STEP = 0.05
"""Radians the pointer turns per step of action 1 (+) or 2 (-)."""


def circular_distance(angle: Any) -> Any:
    """The absolute angular distance of ``angle`` from 0, in ``[0, pi]``."""
    return np.abs(np.mod(angle + np.pi, 2 * np.pi) - np.pi)


class AngleReproduction(ngym.TrialEnv):
    """Two angles are shown one after the other; reproduce each with a pointer, in order.

    ## Description
    Two directions are shown on a 16-unit ring, separated by delays. Then two go periods
    follow: during the first the agent must point at the first angle, during the second at the
    second. The agent steers a pointer that starts at pi each trial: action 1 turns it by
    +0.05 rad, action 2 by -0.05 rad, action 0 leaves it (Ding et al. 2017).

    ## Trial structure (periods)
    ``fixation`` → ``stim1`` → ``delay1`` → ``stim2`` → ``delay2`` → ``go1`` → ``go2``, 500 ms
    each: 35 steps at ``dt=100``.

    ## Observation space (named dims)
    ``Box(-inf, inf, (34,), float32)``: ``stimulus`` (0..15) is ``cos(theta - angle1)`` in
    stim1 and ``cos(theta - angle2)`` in stim2; ``self`` (16..31) is ``cos(theta - pointer)``
    at every step (written from the agent's actions: batches hold the pointer's start, pi);
    ``go1`` (32) and ``go2`` (33) are 1 in their go periods.

    ## Action space
    ``Discrete(3)``: 0 keeps the pointer, 1 turns it by +0.05 rad, 2 by -0.05 rad.

    ## Reward
    At every step of go1 (go2): ``max(correct - |pointer - angle1 (angle2)|, fail)``
    (circular distance; ``correct`` 1, ``fail`` -0.1); the trial ends by timeout, and its
    performance is the mean of the rewards rescaled to ``[0, 1]``. It needs ``_step``: the
    pointer is agent state.

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).

    Trial dict: ``ground_truth1`` and ``ground_truth2``, the two angles (uniform in
    ``[0, 2 pi)``); both can be forced.

    ## References
    Ding, Cueva, Tsodyks & Qian (2017), "Visual perception as retrospective Bayesian decoding
    from high- to low-level features", PNAS 114(43):E9115-E9124.

    ## Version history
    v0: repaired from upstream NeuroGym 2.3.1's unregistered contrib task, which crashed with
    ``TypeError``: the angles are trial variables, not a ground truth (the actions are pointer
    steps, so the task declares ``has_groundtruth = False``); the pointer is written into the
    returned observation, never into the stored trial; it restarts at pi when a trial starts
    (upstream reset it when a trial was generated).
    """

    default_rewards: ClassVar[dict[str, float]] = {"correct": +1.0, "fail": -0.1}

    has_groundtruth = False  # the target is an angle; the actions are pointer steps
    agent_dependent_dims = ("self",)

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(dt=dt, rewards=rewards)
        self.theta = np.arange(0, 2 * np.pi, 2 * np.pi / 16)
        # Private: prefetching keys its trials on the public attributes (configuration).
        self._pointer = np.pi
        self.timing = dict.fromkeys(
            ("fixation", "stim1", "delay1", "stim2", "delay2", "go1", "go2"), 500
        )
        if timing:
            self.timing.update(timing)
        self.observation_space = spaces.Box(
            -np.inf,
            np.inf,
            shape=(34,),
            dtype=np.float32,
            name={"stimulus": range(16), "self": range(16, 32), "go1": 32, "go2": 33},
        )
        self.action_space = spaces.Discrete(3)

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        angles = [b.uniform(f"ground_truth{i}", 0, 2 * np.pi) for i in (1, 2)]
        b.add_period(["fixation", "stim1", "delay1", "stim2", "delay2", "go1", "go2"])
        for i, angle in enumerate(angles, start=1):
            b.add_input(np.cos(self.theta[None, :] - angle[:, None]), f"stim{i}", "stimulus")
            b.add_input(1, f"go{i}", where=f"go{i}")
        b.add_input(np.cos(self.theta - np.pi), None, where="self")  # the pointer's start
        return {}

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self.t_ind == 0:  # a new trial: the pointer restarts
            self._pointer = np.pi
        self._pointer = float(
            np.mod(self._pointer + STEP * {0: 0, 1: 1, 2: -1}[action], 2 * np.pi)
        )
        reward = 0.0
        for i in (1, 2):
            if self.in_period(f"go{i}"):
                trial, start_ind, end_ind = self.trial, self.start_ind, self.end_ind
                assert trial is not None
                error = float(circular_distance(self._pointer - trial[f"ground_truth{i}"]))
                reward = max(self.rewards["correct"] - error, self.rewards["fail"])
                span = self.rewards["correct"] - self.rewards["fail"]
                steps = sum(end_ind[f"go{k}"] - start_ind[f"go{k}"] for k in (1, 2))
                self.performance += (reward - self.rewards["fail"]) / span / steps
        return self.ob_now, reward, False, False, {"new_trial": False}

    def post_step(
        self, ob: Any, reward: Any, terminated: bool, truncated: bool, info: dict[str, Any]
    ) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        """Shows the pointer on the ``self`` dims of the returned observation (a copy)."""
        ob = np.array(ob, dtype=np.float32)
        state = np.pi if info.get("new_trial") else self._pointer  # a new trial starts at pi
        ob[16:32] = np.cos(self.theta - state)
        return ob, reward, terminated, truncated, info

    @property
    def state(self) -> float:
        """The pointer's angle in radians (pi at each trial start)."""
        return self._pointer
