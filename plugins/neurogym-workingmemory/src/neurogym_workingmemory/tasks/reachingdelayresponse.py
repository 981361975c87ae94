"""Reaching with a delayed response: remember a target position, reach to it on the go cue."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, spaces, validate

__all__ = ["ReachingDelayResponse"]


class ReachingDelayResponse(ngym.TrialEnv):
    """Hold a target position over a variable delay, then report it with a continuous action.

    ## Description
    A target position in ``[lowbound, highbound)`` is shown, then hidden for a delay of 0, 1
    or 2 s. When the go cue comes on, the agent reaches: its action is continuous, a go signal
    and a position, and the reward falls off with the distance to the target.

    ## Trial structure (periods)
    ``stimulus`` (500 ms) → ``delay`` (0, 1000 or 2000 ms) → ``decision`` (500 ms): 10, 20 or
    30 steps at ``dt=100``.

    ## Observation space (named dims)
    ``Box([0, -2], [1, 2], (2,), float32)``: ``go`` (0) is 1 in the decision period;
    ``stimulus`` (1) is the target during the stimulus and -0.5 in the delay and decision.

    ## Action space
    ``Box([-1, -1], [1, 2], (2,), float32)``, continuous: dim 0 is the go signal (reach when
    > 0, hold when < 0), dim 1 the reported position. The ground truth is ``[-1, -0.5]`` before
    the decision and ``[1, target]`` in it.

    ## Reward
    ``abort`` (-0.1) when the go signal is not negative during the stimulus (the trial goes
    on). In the decision period a go (> 0) ends the trial with ``correct / (1 + |position -
    target|)^2`` (performance: that fraction of ``correct``). A trial that times out without a
    reach pays ``miss`` (-0.5). It needs ``_step``: the action is continuous.

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).
    lowbound: Smallest target position (0.0).
    highbound: Largest target position (1.0), exclusive.

    Trial dict: ``ground_truth`` (the target position); it can be forced.

    ## References
    An oculomotor delayed-response (memory-guided saccade) design: Funahashi, Bruce &
    Goldman-Rakic (1989), "Mnemonic coding of visual space in the monkey's dorsolateral
    prefrontal cortex", J. Neurophysiol. 61(2):331-349.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, names, periods, rewards, trial-dict
    keys); ``lowbound < highbound`` is validated; trials are generated batch-natively from the
    env's seeded generator.
    """

    default_rewards: ClassVar[dict[str, float]] = {
        "abort": -0.1,
        "correct": +1.0,
        "fail": -0.0,
        "miss": -0.5,
    }
    default_timing: ClassVar[dict[str, Any]] = {
        "stimulus": 500,
        "delay": (0, 1000, 2000),
        "decision": 500,
    }

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        lowbound: float = 0.0,
        highbound: float = 1.0,
    ) -> None:
        super().__init__()
        self.lowbound = validate.number(lowbound, "lowbound")
        self.highbound = validate.number(highbound, "highbound")
        if not self.lowbound < self.highbound:
            raise ValueError(
                f"lowbound must be smaller than highbound, got {lowbound!r} and {highbound!r}"
            )
        self.r_tmax = self.rewards["miss"]
        self.abort = False
        self.observation_space = spaces.Box(
            low=np.array([0.0, -2.0], dtype=np.float32),
            high=np.array([1.0, 2.0], dtype=np.float32),
            dtype=np.float32,
            name={"go": 0, "stimulus": 1},
        )
        self.action_space = spaces.Box(
            low=np.array([-1.0, -1.0], dtype=np.float32),
            high=np.array([1.0, 2.0], dtype=np.float32),
            dtype=np.float32,
        )

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        target = b.uniform("ground_truth", self.lowbound, self.highbound)
        b.add_period(["stimulus", "delay", "decision"])
        b.add_input(target, "stimulus", where="stimulus")
        b.set_input(np.array([0.0, -0.5]), "delay")
        b.set_input(np.array([1.0, -0.5]), "decision")
        b.set_target(np.array([-1.0, -0.5]), ["stimulus", "delay"])
        b.set_target(np.stack([np.ones(b.n), target], axis=1), "decision")
        return {}

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        reward, new_trial = 0.0, False
        # Python floats (an array's tolist is cheaper than two numpy reads; a list passes too)
        go, position = action.tolist() if type(action) is np.ndarray else map(float, action)
        if self.in_period("stimulus"):
            if not go < 0:
                new_trial = self.abort
                reward = self.rewards["abort"]
        elif self.in_period("decision") and go > 0:
            new_trial = True
            target = float(self.gt_now[1])
            reward = self.rewards["correct"] / (1 + abs(position - target)) ** 2
            self.performance = reward / self.rewards["correct"]
        return self.ob_now, reward, False, False, {"new_trial": new_trial}
