"""Matching pennies: match the choice of an opponent that plays against the agent's habits."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import spaces, validate

from ._common import no_timing

__all__ = ["MatchingPenny"]

OPPONENTS = ("mean_action", "random")


class MatchingPenny(ngym.TrialEnv):
    """Matching pennies against a computer opponent; every step is a trial.

    ## Description
    Each trial the agent and an opponent each pick one of two targets; the agent is paid
    ``correct`` when it picks the opponent's target, else ``fail`` (Barraclough, Conroy & Lee
    2004). The ``"mean_action"`` opponent tracks an exponential moving average of the agent's
    choices (rate ``learning_rate``) and plays the target the agent has picked less often, so
    any bias of the agent is exploited; the ``"random"`` opponent flips a fair coin.

    ## Trial structure (periods)
    One step, without timed periods (there is no timing to set).

    ## Observation space (named dims)
    ``Box(-inf, inf, (2,), float32)``: ``previous_opponent`` (0, 1) is the one-hot choice of
    the opponent in the previous trial (drawn at random for the first trial of an episode).

    ## Action space
    ``Discrete(2)``: the two targets.

    ## Reward
    ``correct`` (1) if the action equals the opponent's choice (``performance`` 1), else
    ``fail`` (0). ``info["gt"]`` is the opponent's choice. The opponent's choices depend on the
    agent's (or are coin flips), so there is no target for supervised learning
    (``has_groundtruth = False``): train it with reinforcement learning.

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict (``correct``, ``fail``).
    timing: Must be None: each step is a whole trial.
    opponent_type: ``"mean_action"`` (exploits the agent's bias) or ``"random"``.
    learning_rate: Rate of the mean_action opponent's moving average of the agent's choices,
        in ``[0, 1]`` (0.2).

    Trial dict: ``opponent_action`` (0 or 1) and ``previous_opponent``. The opponent's state
    (``mean_action``, 0 after ``reset``, and the previous choice) runs on across trials
    (``cross_trial_state``). A forced ``opponent_action`` is used for that trial.

    ## References
    Barraclough, Conroy & Lee (2004), "Prefrontal cortex and decision making in a
    mixed-strategy game", Nature Neuroscience 7:404-410.

    ## Version history
    v0: repaired from upstream NeuroGym 2.3.1's unregistered contrib task, which could not be
    built (empty timing): the opponent's state restarts on ``reset`` and the first trial's
    "previous" choice is drawn from the seeded generator (upstream drew it at construction
    from an unseeded one and never reset the opponent); observations are float32 (upstream
    float64); an unknown ``opponent_type`` or a ``learning_rate`` outside ``[0, 1]`` raises at
    construction (upstream raised at the first trial, or not at all); ``timing=`` raises
    (upstream printed a warning).
    """

    default_rewards: ClassVar[dict[str, float]] = {"correct": +1.0, "fail": 0.0}

    cross_trial_state = True  # the opponent learns from the agent across trials
    has_groundtruth = False  # the opponent's choice is not a learnable target

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        opponent_type: str = "mean_action",
        learning_rate: float = 0.2,
    ) -> None:
        super().__init__(dt=dt, rewards=rewards)
        no_timing(timing, "MatchingPenny", "each step is a whole trial")
        self.opponent_type = validate.choice(opponent_type, "opponent_type", OPPONENTS)
        self.lr = validate.number(learning_rate, "learning_rate", minimum=0, maximum=1)
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(2,), dtype=np.float32, name={"previous_opponent": [0, 1]}
        )
        self.action_space = spaces.Discrete(2)
        self._restart_opponent()

    def _restart_opponent(self) -> None:
        self.mean_action = 0.0
        self.prev_opp_action: int | None = None  # drawn with the episode's first trial

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts a new episode against a fresh opponent (see ``TrialEnv.reset``)."""
        self._restart_opponent()
        return super().reset(seed=seed, options=options)

    def _new_trial(self, **kwargs: Any) -> dict[str, Any]:
        if self.prev_opp_action is None:  # the episode's first trial
            self.prev_opp_action = int(self.rng.random() > 0.5)
        if "opponent_action" in kwargs:
            forced = validate.integers_in_range(kwargs["opponent_action"], "opponent_action", 0, 1)
            opponent = int(forced)
        elif self.opponent_type == "random":
            opponent = int(self.rng.random() > 0.5)
        else:  # plays the target the agent picked less often (ties: 1, as numpy rounds 0.5)
            opponent = int(not np.round(self.mean_action))
        trial = {**kwargs, "opponent_action": opponent, "previous_opponent": self.prev_opp_action}
        self.prev_opp_action = opponent
        return trial

    def initial_observation(self) -> np.ndarray:
        """The first trial's observation: the opponent's "previous" choice, one-hot."""
        assert self.trial is not None
        ob: np.ndarray = _ONE_HOT[self.trial["previous_opponent"]].copy()
        return ob

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        trial = self.trial
        assert trial is not None
        opponent = int(trial["opponent_action"])
        if self.opponent_type == "mean_action":
            self.mean_action += self.lr * (action - self.mean_action)
        if action == opponent:
            reward = self.rewards["correct"]
            self.performance = 1
        else:
            reward = self.rewards["fail"]
        # The next trial shows this trial's choice of the opponent.
        return _ONE_HOT[opponent].copy(), reward, False, False, {"new_trial": True, "gt": opponent}


_ONE_HOT = np.eye(2, dtype=np.float32)
