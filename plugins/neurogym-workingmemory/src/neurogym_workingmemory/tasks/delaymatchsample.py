"""Delayed match-to-sample: is the test stimulus, shown after a delay, the sample?"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, StandardDecision, spaces, validate
from neurogym.rules import STANDARD_REWARDS

__all__ = ["DelayMatchSample", "DelayMatchSampleDistractor1D", "ring"]


def ring(theta: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """Ring input ``cos(theta - direction) * 0.5 + 0.5`` for a batch: ``(B, len(theta))``."""
    values: np.ndarray = np.cos(theta[None, :] - direction[:, None]) * 0.5 + 0.5
    return values


class DelayMatchSample(ngym.TrialEnv):
    """Report whether a test stimulus matches a sample held in memory over a delay.

    ## Description
    A sample direction is shown on a ring of ``dim_ring`` units, then removed for a delay;
    a test direction follows, either the sample itself (match) or the opposite direction
    (non-match). After the test the agent reports match or non-match (Miller, Erickson &
    Desimone 1996).

    ## Trial structure (periods)
    ``fixation`` (300 ms) → ``sample`` (500 ms) → ``delay`` (1000 ms) → ``test`` (500 ms) →
    ``decision`` (900 ms): 32 steps at ``dt=100``.

    ## Observation space (named dims)
    ``Box(-inf, inf, (1 + dim_ring,), float32)``: ``fixation`` (0) is 1 in every period but
    the decision; ``stimulus`` (1..dim_ring) carries ``cos(theta - sample_theta) * 0.5 + 0.5``
    in the sample period and the same for ``test_theta`` in the test period, plus Gaussian
    noise of std ``sigma / sqrt(dt)`` in both.

    ## Action space
    ``Discrete(3)``: ``fixation`` (0), ``match`` (1), ``non-match`` (2).

    ## Reward
    ``abort`` (-0.1) for a non-zero action in the fixation period (the trial goes on). In the
    decision period any response ends the trial with ``correct`` (+1, performance 1) or
    ``fail`` (0). Responses during the sample, delay and test cost nothing.

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).
    sigma: Input noise, scaled by ``1 / sqrt(dt)`` (1.0).
    dim_ring: Ring units, i.e. possible sample directions ``2 pi k / dim_ring`` (2).

    Trial dict: ``ground_truth`` (1 match, 2 non-match: the correct action),
    ``sample_theta`` and ``test_theta`` (radians; the test is the sample, or the sample + pi).
    ``ground_truth`` and ``sample_theta`` can be forced.

    ## References
    Miller, Erickson & Desimone (1996), "Neural mechanisms of visual working memory in
    prefrontal cortex of the macaque", J. Neurosci. 16(16):5154-5167.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, names, periods, rewards, trial-dict
    keys); trials are generated batch-natively from the env's seeded generator, and the
    decision rule is declared, so vector envs step the task natively.
    """

    default_rewards: ClassVar[Mapping[str, float]] = STANDARD_REWARDS
    default_timing: ClassVar[dict[str, Any]] = {
        "fixation": 300,
        "sample": 500,
        "delay": 1000,
        "test": 500,
        "decision": 900,
    }

    rule = StandardDecision(fixation_periods=("fixation",), decision_periods=("decision",))

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        sigma: float = 1.0,
        dim_ring: int = 2,
    ) -> None:
        super().__init__()
        dim_ring = validate.integer(dim_ring, "dim_ring", minimum=2, maximum=validate.MAX_RING)
        self.sigma = validate.number(sigma, "sigma", minimum=0) / np.sqrt(self.dt)
        self.choices = np.array([1, 2])
        self.abort = False
        self.theta = np.linspace(0, 2 * np.pi, dim_ring + 1)[:-1]
        self.observation_space = spaces.Box(
            -np.inf,
            np.inf,
            shape=(1 + dim_ring,),
            dtype=np.float32,
            name={"fixation": 0, "stimulus": range(1, dim_ring + 1)},
        )
        self.action_space = spaces.Discrete(3, name={"fixation": 0, "match": 1, "non-match": 2})

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        ground_truth = b.choice("ground_truth", self.choices)
        sample = b.choice("sample_theta", self.theta)
        test = b.set_param(
            "test_theta", np.where(ground_truth == 1, sample, np.mod(sample + np.pi, 2 * np.pi))
        )
        b.add_period(["fixation", "sample", "delay", "test", "decision"])
        b.add_input(1, ["fixation", "sample", "delay", "test"], where="fixation")
        b.add_input(ring(self.theta, sample), "sample", where="stimulus")
        b.add_input(ring(self.theta, test), "test", where="stimulus")
        b.add_noise(0, self.sigma, ["sample", "test"], where="stimulus")
        b.set_target(ground_truth, "decision")
        return {}


class DelayMatchSampleDistractor1D(ngym.TrialEnv):
    """Respond only to the test stimulus that matches the sample; the others are distractors.

    ## Description
    A sample direction is shown on a 32-unit ring, then three test directions, each after a
    delay. Exactly one test (``test{ground_truth}``) repeats the sample; the other two are
    random directions. The agent must respond (``match``) during the matching test and
    withhold during everything else.

    ## Trial structure (periods)
    ``fixation`` (300 ms) → ``sample`` (500 ms) → ``delay1`` (1000 ms) → ``test1`` (500 ms) →
    ``delay2`` (1000 ms) → ``test2`` (500 ms) → ``delay3`` (1000 ms) → ``test3`` (500 ms):
    53 steps at ``dt=100``.

    ## Observation space (named dims)
    ``Box(-inf, inf, (33,), float32)``: ``fixation`` (0) is 1 during the fixation period only;
    ``stimulus`` (1..32) carries ``cos(theta - direction)`` during the sample and each test,
    plus Gaussian noise of std ``sigma / sqrt(dt)`` on the stimulus dims in those periods.

    ## Action space
    ``Discrete(2)``: ``fixation`` (0), ``match`` (1).

    ## Reward
    ``abort`` (-0.1) for responding during the fixation or sample period (the trial goes on).
    Responding anywhere else but the matching test ends the trial with ``fail`` (-1); responding
    during the matching test ends it with ``correct`` (+1, performance 1). It needs ``_step``:
    a wrong response is scored outside any decision period.

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).
    sigma: Input noise on the stimulus dims, scaled by ``1 / sqrt(dt)`` (1.0).

    Trial dict: ``ground_truth`` (1, 2 or 3: the matching test), ``sample`` and ``test1``..
    ``test3`` (directions in radians); ``ground_truth`` and ``sample`` can be forced.

    ## References
    Miller, Erickson & Desimone (1996), "Neural mechanisms of visual working memory in
    prefrontal cortex of the macaque", J. Neurosci. 16(16):5154-5167.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, names, periods, rewards, trial-dict
    keys), except that ``sigma`` adds noise (upstream accepted it and added none); trials are
    generated batch-natively from the env's seeded generator.
    """

    default_rewards: ClassVar[dict[str, float]] = {"abort": -0.1, "correct": +1.0, "fail": -1.0}

    TESTS = ("test1", "test2", "test3")

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        sigma: float = 1.0,
    ) -> None:
        super().__init__(dt=dt, rewards=rewards)
        self.choices = np.array([1, 2, 3])
        self.sigma = validate.number(sigma, "sigma", minimum=0) / np.sqrt(self.dt)
        self.timing = {"fixation": 300, "sample": 500}
        for i in (1, 2, 3):
            self.timing[f"delay{i}"] = 1000
            self.timing[f"test{i}"] = 500
        if timing:
            self.timing.update(timing)
        self.abort = False
        self.theta = np.arange(0, 2 * np.pi, 2 * np.pi / 32)
        self.observation_space = spaces.Box(
            -np.inf,
            np.inf,
            shape=(33,),
            dtype=np.float32,
            name={"fixation": 0, "stimulus": range(1, 33)},
        )
        self.action_space = spaces.Discrete(2, name={"fixation": 0, "match": 1})

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        ground_truth = b.choice("ground_truth", self.choices)
        sample = b.uniform("sample", 0, 2 * np.pi)
        b.add_period(
            ["fixation", "sample", "delay1", "test1", "delay2", "test2", "delay3", "test3"]
        )
        b.add_input(1, "fixation", where="fixation")
        b.add_input(np.cos(self.theta[None, :] - sample[:, None]), "sample", where="stimulus")
        for i, period in enumerate(self.TESTS, start=1):
            distractor = 2 * np.pi * b.rng.random(b.n)
            test = b.set_param(period, np.where(ground_truth == i, sample, distractor))
            b.add_input(np.cos(self.theta[None, :] - test[:, None]), period, where="stimulus")
            b.set_target(np.where(ground_truth == i, 1, 0), period)
        b.add_noise(0, self.sigma, ["sample", *self.TESTS], where="stimulus")
        return {}

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        reward, new_trial = 0.0, False
        if action != 0:
            trial = self.trial
            assert trial is not None
            if self.in_period("fixation") or self.in_period("sample"):
                reward = self.rewards["abort"]
                new_trial = self.abort
            elif self.in_period(f"test{int(trial['ground_truth'])}"):
                reward = self.rewards["correct"]
                self.performance = 1
                new_trial = True
            else:
                reward = self.rewards["fail"]
                new_trial = True
        return self.ob_now, reward, False, False, {"new_trial": new_trial}
