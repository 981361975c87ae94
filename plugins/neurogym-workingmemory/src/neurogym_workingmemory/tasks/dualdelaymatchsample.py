"""Dual delayed match-to-sample: two samples held at once, each tested after a cue."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, spaces, validate
from neurogym.rules import STANDARD_REWARDS

__all__ = ["DualDelayMatchSample"]

PERIODS = ("fixation", "sample", "delay1", "cue1", "test1", "delay2", "cue2", "test2")


def _direction(value: np.ndarray) -> np.ndarray:
    """``(cos, sin)`` of ``value * pi``: the two-dim input of a sample or test, ``(B, 2)``."""
    theta = value * np.pi
    return np.stack([np.cos(theta), np.sin(theta)], axis=1)


class DualDelayMatchSample(ngym.TrialEnv):
    """Hold two samples in memory; a cue says which one the next test is compared with.

    ## Description
    Two samples (each one of two directions, 0 or pi/2) are shown together on two input
    pairs. Then, twice, a cue (``cue1`` or ``cue2`` input) says which sample the following test
    stimulus belongs to, and the agent reports match or non-match for that sample. Which
    sample is tested first is random (``test_order``), as in the dual-retrocue paradigm of Lewis-
    Peacock et al. 2012 (upstream's choice of reference).

    ## Trial structure (periods)
    ``fixation`` → ``sample`` → ``delay1`` → ``cue1`` → ``test1`` → ``delay2`` → ``cue2`` →
    ``test2``, 500 ms each: 40 steps at ``dt=100``. The periods ``cue1``/``test1`` always come
    first in time; with ``test_order`` 1, sample 2 is cued and tested there.

    ## Observation space (named dims)
    ``Box(-inf, inf, (7,), float32)``: ``fixation`` (0) is 1 for the whole trial;
    ``stimulus1`` (1, 2) and ``stimulus2`` (3, 4) hold ``(cos, sin)`` of the samples during
    the sample period and of each test in its test period; ``cue1`` (5) and ``cue2`` (6) are 1
    while the cue for sample 1 or 2 is shown. Gaussian noise of std ``sigma / sqrt(dt)`` is
    added to **every** dim during the sample and both test periods (as upstream).

    ## Action space
    ``Discrete(3)``: ``fixation`` (0), ``match`` (1), ``non-match`` (2).

    ## Reward
    A response in the first test period is scored (``correct`` +1 or ``fail`` 0) but the
    trial goes on; a response in the second test period is scored and ends the trial. A
    non-zero action anywhere else costs ``abort`` (-0.1). It needs ``_step``: the first
    response does not end the trial.

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).
    sigma: Input noise, scaled by ``1 / sqrt(dt)`` (1.0).

    Trial dict: ``ground_truth1``/``ground_truth2`` (1 match, 2 non-match, for each sample),
    ``sample1``/``sample2`` (0 or 0.5: the direction in units of pi), ``test_order`` (0: sample
    1 tested first), ``test1``/``test2`` (the test directions). All but the tests can be forced.

    ## References
    Lewis-Peacock, Drysdale, Oberauer & Postle (2012), "Neural evidence for a distinction
    between short-term memory and the focus of attention", J. Cogn. Neurosci. 24(1):61-79.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, names, periods, rewards, trial-dict
    keys), except that the task has no ``choices`` attribute (the answers are ``answers``):
    ground-truth wrappers (SideBias, RandomGroundTruth, ...) force a single ``ground_truth``,
    which upstream recorded and ignored; here they refuse the task. Trials are generated
    batch-natively from the env's seeded generator.
    """

    default_rewards: ClassVar[Mapping[str, float]] = STANDARD_REWARDS

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        sigma: float = 1.0,
    ) -> None:
        super().__init__(dt=dt, rewards=rewards)
        # Not `choices`: ground-truth wrappers force one `ground_truth`, and this task has two.
        self.answers = np.array([1, 2])
        self.cues = np.array([0, 1])
        self.sigma = validate.number(sigma, "sigma", minimum=0) / np.sqrt(self.dt)
        self.timing = dict.fromkeys(PERIODS, 500)
        if timing:
            self.timing.update(timing)
        self.abort = False
        self.observation_space = spaces.Box(
            -np.inf,
            np.inf,
            shape=(7,),
            dtype=np.float32,
            name={
                "fixation": 0,
                "stimulus1": range(1, 3),
                "stimulus2": range(3, 5),
                "cue1": 5,
                "cue2": 6,
            },
        )
        self.action_space = spaces.Discrete(3, name={"fixation": 0, "match": 1, "non-match": 2})

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        truths = [b.choice(f"ground_truth{i}", self.answers) for i in (1, 2)]
        samples = [b.choice(f"sample{i}", np.array([0.0, 0.5])) for i in (1, 2)]
        order = b.choice("test_order", self.cues)
        tests = [
            b.set_param(f"test{i}", np.where(truth == 1, sample, 0.5 - sample))
            for i, truth, sample in zip((1, 2), truths, samples, strict=True)
        ]
        b.add_period(list(PERIODS))
        b.add_input(1, None, where="fixation")
        for i in (1, 2):
            b.add_input(_direction(samples[i - 1]), "sample", where=f"stimulus{i}")
        first = order == 0  # sample 1 is cued and tested in the first cue/test periods
        for i in (1, 2):
            in_first = first if i == 1 else ~first  # trials testing sample i first
            for slot in (1, 2):
                rows = in_first if slot == 1 else ~in_first
                cue = np.zeros((b.n, 2))
                cue[:, i - 1] = rows
                b.add_input(cue, f"cue{slot}", where=[5, 6])  # the dims cue1, cue2
                shown = _direction(tests[i - 1]) * rows[:, None]
                b.add_input(shown, f"test{slot}", where=f"stimulus{i}")
        b.add_noise(0, self.sigma, ["sample", "test1", "test2"])
        b.set_target(np.where(first, truths[0], truths[1]), "test1")
        b.set_target(np.where(first, truths[1], truths[0]), "test2")
        return {}

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        reward, new_trial = 0.0, False
        if action != 0:
            in_test2 = self.in_period("test2")
            if in_test2 or self.in_period("test1"):
                new_trial = in_test2
                if action == self.gt_now:
                    reward = self.rewards["correct"]
                    self.performance = 1
                else:
                    reward = self.rewards["fail"]
            else:
                new_trial = self.abort
                reward = self.rewards["abort"]
        return self.ob_now, reward, False, False, {"new_trial": new_trial}
