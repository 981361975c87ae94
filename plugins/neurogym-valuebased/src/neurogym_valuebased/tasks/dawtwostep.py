"""Daw two-step task: a first choice leads, by a common or rare transition, to a second state."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import spaces, validate

from ._common import no_timing

__all__ = ["DawTwoStep"]


class DawTwoStep(ngym.TrialEnv):
    """Two-step task: choose at stage 1; a common or rare transition leads to a rewarded state.

    ## Description
    At stage 1 the agent picks action 1 or 2. Action 1 leads to state 1 with probability
    ``p1`` (0.8, the common transition) and to state 2 otherwise (rare); action 2 leads to
    state 2 with probability ``p2`` (0.8). One of the two states pays ``correct`` with
    probability ``high_reward_p`` (0.9), the other with ``low_reward_p`` (0.1); which one is
    the high state switches with probability ``p_switch`` (0.025) at the start of each trial
    (Daw et al. 2011). A model-based agent uses the transition structure to credit rewards.

    ## Trial structure (periods)
    Two steps, stage 1 then stage 2, without timed periods (there is no timing to set); the
    observations are built as the agent acts (there is no stored observation array).

    ## Observation space (named dims)
    ``Box(-inf, inf, (3,), float32)``: ``stage1`` (0) is 1 at stage 1 (the first step of every
    trial); ``stage2`` (1, 2) is the one-hot second-stage state the agent's choice reached,
    shown after stage 1 (it depends on the agent's action).

    ## Action space
    ``Discrete(3)``: 0 (fixate), 1 and 2 (the two first-stage options).

    ## Reward
    At stage 1, action 0 pays ``abort`` (-0.1) and ends the trial; action 1 or 2 moves to its
    second-stage state and pays that state's reward for this trial (``correct`` or 0, drawn
    when the trial is generated). ``performance`` is 1 when the action's common transition
    leads to the high state. At stage 2 any action other than 0 pays ``abort``; the trial
    ends after stage 2. There is no target action for supervised learning
    (``has_groundtruth = False``): train it with reinforcement learning.

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict (``abort``, ``correct``).
    timing: Must be None: the task has no timed periods.

    Attributes ``p1``, ``p2``, ``p_switch``, ``high_reward_p``, ``low_reward_p`` hold the
    probabilities above. Trial dict: ``transition`` (``(3,)`` ints: the state each action leads
    to, 0 for action 0, which aborts), ``reward`` (``(2,)``: what states 1 and 2 pay in this
    trial), ``hi_state`` (0 or 1: the index of the high state). Forced values (e.g.
    ``env.new_trial(transition=np.array([0, 2, 1]))``) are used as given. The high state starts
    at state 1 after ``reset`` and runs on across trials (``cross_trial_state``): a batch is
    consecutive trials.

    ## References
    Daw, Gershman, Seymour, Dayan & Dolan (2011), "Model-Based Influences on Humans' Choices
    and Striatal Prediction Errors", Neuron 69(6):1204-1215.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 with these differences: observations are float32 (the
    space's dtype; upstream returned float64); ``trial["transition"][0]`` is 0 (upstream left
    it uninitialised, ``np.empty``, so it depended on the process, not the seed); ``reset``
    returns the stage-1 observation (upstream took a hidden random step) and after an abort the
    next trial's stage-1 observation is shown (upstream showed zeros); the high state restarts
    at state 1 on ``reset`` (upstream set it at construction); ``timing=`` raises (upstream
    logged a warning).
    """

    default_rewards: ClassVar[dict[str, float]] = {"abort": -0.1, "correct": +1.0}

    cross_trial_state = True  # which state pays more runs on across trials
    has_groundtruth = False  # the reward depends on chance and on the agent's choices
    agent_dependent_dims = ("stage2",)

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(dt=dt, rewards=rewards)
        no_timing(timing, "DawTwoStep", "each of its two stages lasts one step")
        self.actions = [0, 1, 2]
        self.p1 = 0.8  # action 1 -> state 1 (common transition)
        self.p2 = 0.8  # action 2 -> state 2 (common transition)
        self.p_switch = 0.025
        self.high_reward_p = 0.9
        self.low_reward_p = 0.1
        self.state1_high_reward = True
        self._draws = np.empty(5)  # each trial's five uniform draws (overwritten per trial)
        self.tmax = 3 * self.dt  # as upstream; every trial ends after its two steps
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(3,), dtype=np.float32, name={"stage1": 0, "stage2": [1, 2]}
        )
        self.action_space = spaces.Discrete(3)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts a new episode with state 1 as the high state (see ``TrialEnv.reset``)."""
        self.state1_high_reward = True
        return super().reset(seed=seed, options=options)

    def _new_trial(self, **kwargs: Any) -> dict[str, Any]:
        # One call for the trial's five draws: two transitions, the switch, two payouts
        # (into a buffer: the same numbers as random(5), without allocating an array).
        t1, t2, switch, high, low = self.rng.random(out=self._draws).tolist()
        if switch < self.p_switch:
            self.state1_high_reward = not self.state1_high_reward
        hi_state = 0 if self.state1_high_reward else 1
        correct = float(self.rewards["correct"])
        high_pay, low_pay = (
            correct * (high < self.high_reward_p),
            correct * (low < self.low_reward_p),
        )
        trial = {
            "transition": _TRANSITIONS[t1 < self.p1, t2 < self.p2].copy(),
            "reward": np.array((high_pay, low_pay) if hi_state == 0 else (low_pay, high_pay)),
            "hi_state": hi_state,
        }
        trial.update(kwargs)  # forced values (e.g. transition=, reward=) are used as given
        if kwargs:
            self._check_forced(trial)
        return trial

    @staticmethod
    def _check_forced(trial: dict[str, Any]) -> None:
        """Refuses forced values outside their domains (they would index or score wrongly)."""
        validate.integers_in_range(trial["hi_state"], "hi_state", 0, 1)
        transition = validate.integers_in_range(trial["transition"], "transition", 0, 2)
        if transition.shape != (3,) or transition[0] != 0 or 0 in transition[1:]:
            raise ValueError(
                "forced transition must be [0, s1, s2], the stage-2 state (1 or 2) each action "
                f"leads to, got {np.asarray(trial['transition']).tolist()!r}"
            )
        if np.shape(trial["reward"]) != (2,):
            raise ValueError(
                "forced reward must hold the payout of stage-2 states 1 and 2, got "
                f"{trial['reward']!r}"
            )

    def initial_observation(self) -> np.ndarray:
        """The stage-1 observation, what every trial starts with (a copy)."""
        return _STAGE1.copy()

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        trial = self.trial
        assert trial is not None
        if self.t_ind == 0:  # stage 1
            if action == 0:  # the next trial starts at stage 1
                return _STAGE1.copy(), self.rewards["abort"], False, False, {"new_trial": True}
            state = trial["transition"].item(action)  # Python numbers: cheaper than [i]
            self.performance = int(action == trial["hi_state"] + 1)
            reward = float(trial["reward"].item(state - 1))
            return _STAGE2[state].copy(), reward, False, False, {"new_trial": False}
        reward = self.rewards["abort"] if action != 0 else 0.0
        return _STAGE1.copy(), reward, False, False, {"new_trial": True}


# trial["transition"] by (action 1 leads to state 1, action 2 leads to state 2), copied.
_TRANSITIONS = {
    (c1, c2): np.array([0, 1 if c1 else 2, 2 if c2 else 1])
    for c1 in (True, False)
    for c2 in (True, False)
}
# The observations, copied for every step (gymnasium: no two steps may share an array).
_STAGE1 = np.array([1.0, 0.0, 0.0], dtype=np.float32)
_STAGE2 = {  # by stage-2 state
    1: np.array([0.0, 1.0, 0.0], dtype=np.float32),
    2: np.array([0.0, 0.0, 1.0], dtype=np.float32),
}
