"""Delayed match-to-category: do the sample and the test fall in the same category?"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, StandardDecision, spaces, validate
from neurogym.rules import STANDARD_REWARDS
from neurogym_workingmemory.tasks.delaymatchsample import ring

__all__ = ["DelayMatchCategory"]

CHOICES = ("match", "non-match")


class DelayMatchCategory(ngym.TrialEnv):
    """Report whether a test direction belongs to the same category as a remembered sample.

    ## Description
    Directions on a ring fall into two categories split by the boundary through ``pi/2`` and
    ``3 pi/2``: ``[-pi/2, pi/2)`` (category 0, mod ``2 pi``) and ``[pi/2, 3 pi/2)`` (category
    1). A sample direction is shown, then a delay, then a test direction; the agent reports,
    while the test is on, whether both belong to the same category (Freedman & Assad 2006,
    whose boundary was also an arbitrary axis of the ring). Each direction is drawn uniformly
    within its category.

    Upstream 2.3.1 splits at ``0``/``pi`` instead. On its default two-unit ring (units at 0
    and pi, inputs ``0.5 +- 0.5 cos(theta)``) a direction and its mirror image across that
    boundary give the same input, so no agent can tell the categories apart and every
    network stays at chance (0.52 after 5 minutes in the learnability table). The boundary
    here lies across the axis that the ring shows, for every ``dim_ring``; a declared
    difference.

    ## Trial structure (periods)
    ``fixation`` (500 ms) → ``sample`` (650 ms) → ``first_delay`` (1000 ms) → ``test``
    (650 ms). Durations are floored to ``dt``: 27 steps at ``dt=100`` (650 ms lasts 6 steps).

    ## Observation space (named dims)
    ``Box(-inf, inf, (1 + dim_ring,), float32)``: ``fixation`` (0) is 1 until the test starts;
    ``stimulus`` (1..dim_ring) carries ``cos(theta - sample_theta) * 0.5 + 0.5`` during the
    sample and the same for the test direction during the test, plus Gaussian noise of std
    ``sigma / sqrt(dt)`` in both.

    ## Action space
    ``Discrete(3)``: ``fixation`` (0), ``match`` (1), ``non-match`` (2).

    ## Reward
    ``abort`` (-0.1) for a non-zero action in the fixation period (the trial goes on). The
    response is given during the **test** period (there is no decision period): any response
    ends the trial with ``correct`` (+1, performance 1) or ``fail`` (0).

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).
    sigma: Input noise, scaled by ``1 / sqrt(dt)`` (1.0).
    dim_ring: Ring units (2).

    Trial dict: ``ground_truth`` (``"match"`` or ``"non-match"``, as upstream) and
    ``sample_category`` (0 or 1); both can be forced.

    ## References
    Freedman & Assad (2006), "Experience-dependent representation of visual categories in
    parietal cortex", Nature 443:85-88.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, names, periods, rewards, trial-dict
    keys), except the category boundary (see above) and that ``trial_length_stats`` reports
    the true 27 steps (upstream said 28);
    trials are generated batch-natively from the env's seeded generator, and the decision
    rule is declared, so vector envs step the task natively.
    """

    default_rewards: ClassVar[Mapping[str, float]] = STANDARD_REWARDS
    default_timing: ClassVar[dict[str, Any]] = {
        "fixation": 500,
        "sample": 650,
        "first_delay": 1000,
        "test": 650,
    }

    rule = StandardDecision(fixation_periods=("fixation",), decision_periods=("test",))
    response_period = "test"  # the answer is given while the test is shown

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
        self.choices = np.array(CHOICES)
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

    def ideal_observer(self, batch: Any) -> np.ndarray:
        """Says match when sample and test fall on the same side of the category boundary.

        Each is categorised by its summed input's projection on the category axis (``cos
        theta``: category 0 is ``cos > 0``); directions near the boundary are noise-limited.
        """
        axis = np.cos(self.theta)
        stimulus = slice(1, 1 + len(self.theta))
        sample = batch.period_sum("sample", stimulus) @ axis < 0
        test = batch.period_sum("test", stimulus) @ axis < 0
        said_match = sample == test
        correct: np.ndarray = (said_match == (batch.trial["ground_truth"] == "match")).astype(
            float
        )
        return correct

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        ground_truth = b.choice("ground_truth", self.choices)
        match = ground_truth == "match"
        sample_category = b.choice("sample_category", np.array([0, 1]))
        test_category = np.where(match, sample_category, 1 - sample_category)
        # each category spans half the ring from its start, -pi/2 (category 0) or pi/2 (1)
        sample_theta = np.mod((sample_category + b.rng.random(b.n) - 0.5) * np.pi, 2 * np.pi)
        test_theta = np.mod((test_category + b.rng.random(b.n) - 0.5) * np.pi, 2 * np.pi)
        b.add_period(["fixation", "sample", "first_delay", "test"])
        b.add_input(1, ["fixation", "sample", "first_delay"], where="fixation")
        b.add_input(ring(self.theta, sample_theta), "sample", where="stimulus")
        b.add_input(ring(self.theta, test_theta), "test", where="stimulus")
        b.add_noise(0, self.sigma, ["sample", "test"], where="stimulus")
        b.set_target(np.where(match, 1, 2), "test")
        return {}
