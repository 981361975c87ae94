"""Multi-armed bandit: every step is a trial; each arm pays with its own probability."""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Any

import numpy as np

import neurogym as ngym
from neurogym import spaces, validate

from ._common import no_timing, per_arm, reward_dict

__all__ = ["Bandit"]


class Bandit(ngym.TrialEnv):
    """Multi-armed bandit: pull one of ``n`` arms; arm ``k`` pays with probability ``p[k]``.

    ## Description
    Each step is a whole trial: the agent pulls an arm and is paid ``arm_rewards[k]`` with
    probability ``p[k]``, else nothing. The observation carries no information (it is always
    0), so the agent must learn the arms' values from the rewards (Wang et al. 2018 train a
    recurrent meta-RL agent on such bandits).

    ## Trial structure (periods)
    One step, without timed periods (there is no timing to set).

    ## Observation space (named dims)
    ``Box(-inf, inf, (1,), float32)``, always 0; no names.

    ## Action space
    ``Discrete(n)``: the arm to pull.

    ## Reward
    ``arm_rewards[a]`` with probability ``p[a]`` (drawn from the env's generator when the arm
    is pulled), else ``rewards["fail"]`` (0). ``performance`` is 1 when the pulled arm has
    the highest expected reward ``p[k] * arm_rewards[k]``. There is no correct action: the
    task declares ``has_groundtruth = False`` and supervised batches refuse it (train it
    with reinforcement learning).

    ## Arguments
    dt: Step size in ms (100).
    n: Number of arms (2).
    p: Reward probability of each arm, one per arm ((0.5, 0.5)).
    rewards: Overrides of the dict of named outcomes: ``fail``, what a pull that does not
        pay earns (0). (Upstream passed the per-arm magnitudes here: use ``arm_rewards``.)
    timing: Must be None: the task has no timed periods.
    arm_rewards: Reward magnitude of each arm when it pays (all 1).

    ``env.p`` and ``env.arm_rewards`` are read-only ``(n,)`` arrays: assign new values to
    change them (``env.p = (0.2, 0.8)``, checked like the arguments).

    Trial dict: ``p`` and ``arm_rewards``, tuples of one float per arm; both can be forced per
    trial, e.g. ``env.new_trial(p=(0.2, 0.8))``.

    ## References
    Wang, Kurth-Nelson, Kumaran, Tirumala, Soyer, Leibo, Hassabis & Botvinick (2018),
    "Prefrontal cortex as a meta-reinforcement learning system", Nature Neuroscience
    21:860-868.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 with these differences: observations are float32 (the
    space's dtype; upstream returned float64); ``timing=`` raises (upstream logged a warning);
    the per-arm magnitudes are the public ``arm_rewards`` (upstream's private ``_rewards``, set
    through ``rewards=``), and ``rewards`` is the dict of named outcomes like in every task
    (``fail``: 0, what upstream paid for a pull that did not pay); ``p`` and ``arm_rewards``
    (also forced ones) must hold one value per arm, ``env.p``/``env.arm_rewards`` are
    read-only arrays changed by (checked) assignment, and the trial dict holds tuples (upstream:
    lists); ``performance`` is 1 for a pull of a best arm (upstream left it 0).
    """

    has_groundtruth = False  # the reward depends on chance, not on a target action

    def __init__(
        self,
        dt: float = 100,
        n: int = 2,
        p: Any = (0.5, 0.5),
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        arm_rewards: Any = None,
    ) -> None:
        super().__init__(dt=dt)
        no_timing(timing, "Bandit", "each step is a whole trial")
        named = reward_dict(rewards, "Bandit", "; the per-arm magnitudes are arm_rewards=")
        self.n = validate.positive_int(n, "n")
        self.p = p
        self.arm_rewards = np.ones(self.n) if arm_rewards is None else arm_rewards
        self.rewards = {"fail": 0.0}
        self.rewards.update(named)
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(1,), dtype=np.float32)
        self.action_space = spaces.Discrete(self.n)

    @property
    def p(self) -> np.ndarray:
        """Reward probability of each arm, ``(n,)``, read-only (assign to change it)."""
        return self._p

    @p.setter
    def p(self, value: Any) -> None:
        self._p, self._p_tuple = _per_arm(value, "p", self.n, probabilities=True)

    @property
    def arm_rewards(self) -> np.ndarray:
        """Reward magnitude of each arm when it pays, ``(n,)``, read-only (assign to change)."""
        return self._arm_rewards

    @arm_rewards.setter
    def arm_rewards(self, value: Any) -> None:
        self._arm_rewards, self._arm_tuple = _per_arm(
            value, "arm_rewards", self.n, probabilities=False
        )

    def _new_trial(self, **kwargs: Any) -> dict[str, Any]:
        # tuples: immutable, so every trial can share them (no copy per one-step trial)
        trial = {"p": self._p_tuple, "arm_rewards": self._arm_tuple}
        for name, value in kwargs.items():
            if name in trial:  # forced per-arm values, checked like the arguments
                value = _per_arm(value, f"forced {name}", self.n, probabilities=name == "p")[1]
            trial[name] = value
        return trial

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        trial = self.trial
        assert trial is not None
        # Python floats throughout: a one-step trial cannot amortise numpy call overheads
        p, magnitudes = trial["p"], trial["arm_rewards"]
        paid = self.rng.random() < p[action]
        expected = list(map(operator.mul, p, magnitudes))  # one per arm (checked when set)
        self.performance = int(expected[action] == max(expected))
        reward = magnitudes[action] if paid else self.rewards["fail"]
        return _ZERO.copy(), reward, False, False, {"new_trial": True}


_ZERO = np.zeros(1, dtype=np.float32)  # the observation, copied for every step


def _per_arm(
    value: Any, name: str, n: int, *, probabilities: bool
) -> tuple[np.ndarray, tuple[float, ...]]:
    """Checked per-arm values as a read-only array and as a tuple of floats."""
    array = per_arm(value, name, n, probabilities=probabilities)
    array.flags.writeable = False
    return array, tuple(array.tolist())
