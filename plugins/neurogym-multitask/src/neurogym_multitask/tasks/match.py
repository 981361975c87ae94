"""The delayed-match family of Yang et al. 2019: dms, dnms, dmc, dnmc.

One batch-native generator (:class:`MatchTask`) builds all four; the subclasses fix what
matches (the sample itself or its category) and whether a match or a non-match is answered.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, validate
from neurogym_multitask.tasks._ring import RingTask, gaussian_bump

__all__ = ["DMC", "DMS", "DNMC", "DNMS", "MatchTask", "category_of"]

MATCH, NON_MATCH = 1, 2


def category_of(index: np.ndarray, dim_ring: int) -> np.ndarray:
    """Category of ring directions: 0 for ``[0, pi)``, 1 for ``[pi, 2 pi)``.

    Upstream put the sample at ``pi`` (index ``dim_ring / 2``) in category 0 while a test at
    ``pi`` is in category 1; here both are in category 1.
    """
    out: np.ndarray = (np.asarray(index) >= dim_ring // 2).astype(np.int64)
    return out


class MatchTask(RingTask):
    """Delayed match to sample or to category, answered by a saccade or by withholding.

    ## Description
    A sample direction is shown on one modality's ring (a Gaussian bump), then after a delay a
    test direction. With ``matchto="sample"`` the test matches when it is the sample (a
    non-matching test is the opposite direction); with ``"category"`` it matches when it lies in
    the same half of the ring (category 0: ``[0, pi)``, category 1: ``[pi, 2 pi)``), the test
    being drawn at random in the right half. On *go* trials (a match with ``matchgo``, a
    non-match without) the agent saccades to the test direction in the decision period; on the
    other trials it keeps fixating. The modality is drawn per trial, independently.

    ## Trial structure (periods)
    ``fixation`` (300 ms) -> ``sample`` (500 ms) -> ``delay`` (1000 ms) -> ``test`` (500 ms)
    -> ``decision`` (900 ms): 32 steps at ``dt=100``.

    ## Observation space (named dims)
    ``Box(-inf, inf, (1 + 2 * dim_ring,), float32)``: ``fixation`` (0) is 1 in every period
    before ``decision`` (sample, delay and test included); ``stimulus_mod1``/``stimulus_mod2``:
    the bump of the sample (sample period) and of the test (test period) in the trial's
    modality, plus Gaussian noise of std ``sigma / sqrt(dt)`` on that modality's dims during
    both, as upstream 2.3.1.

    The fixation input follows the authors' rule, not upstream 2.3.1's match family (which
    shows it in ``fixation`` only): in github.com/gyyang/multitask ``task.py`` the match tasks
    (``dms_``, ``dmc_``) call ``trial.add('fix_in')``, on for the whole trial, because there the
    test onset is the go signal; with upstream's separate ``decision`` period the input goes
    off when the response is due, as in every other task. A declared difference (the plugin's
    differences file).

    ## Action space
    ``Discrete(1 + dim_ring)``: ``fixation`` (0), ``choice`` (1..dim_ring).

    ## Reward
    ``abort`` (-0.1) for a non-zero action in the fixation period (the trial goes on). In the
    decision period a response ends the trial: ``correct`` (+1, performance 1) for the test
    direction on a go trial, else ``fail`` (0). A no-go trial withheld to its end is correct
    (performance 1, reward 0: :class:`neurogym.GoNoGoDecision`); upstream scored it 0, so a
    perfect agent scored about 0.5 (a declared difference: Yang et al. count a correctly kept
    fixation as correct). A go trial that times out earns 0.

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).
    sigma: Input noise, scaled by ``1 / sqrt(dt)`` (1.0).
    dim_ring: Units per modality ring; even (16).

    Trial dict: ``ground_truth`` (1 match, 2 non-match), ``modality`` (0 or 1) and
    ``sample_theta`` (radians), which can be forced; ``test_theta`` (radians), derived.

    ## References
    Yang, Joglekar, Song, Newsome & Wang (2019), "Task representations in neural networks
    trained to perform many cognitive tasks", Nat. Neurosci. 22:297-306.

    ## Version history
    v0: upstream NeuroGym 2.3.1's ``_DelayMatch1DResponse`` in its two-modality
    ``ScheduleEnvs`` (timing, stimuli, noise, targets; checked by the differential fidelity
    test), as one batch-native task with the modality as a trial variable, the fixation input
    of the authors' code, and the category boundary putting the sample at pi in category 1,
    as the tests.
    """

    matchto = "sample"
    matchgo = True
    rule = ngym.GoNoGoDecision(fixation_periods=("fixation",), decision_periods=("decision",))

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        sigma: float = 1.0,
        dim_ring: int = 16,
    ) -> None:
        if validate.integer(dim_ring, "dim_ring", minimum=2, maximum=validate.MAX_RING) % 2:
            raise ValueError(f"dim_ring must be an even int >= 2, got {dim_ring!r}")
        default = {"fixation": 300, "sample": 500, "delay": 1000, "test": 500, "decision": 900}
        super().__init__(dt, rewards, timing, dim_ring, default)
        self.sigma = validate.number(sigma, "sigma", minimum=0) / np.sqrt(self.dt)
        self.half_ring = self.dim_ring // 2
        self.choices = np.array([MATCH, NON_MATCH])

    def _test_index(self, b: BatchBuilder, sample: np.ndarray, match: np.ndarray) -> np.ndarray:
        if self.matchto == "category":
            same = category_of(sample, self.dim_ring)
            category = np.where(match, same, 1 - same)
            offset = (b.rng.random(b.n) * self.half_ring).astype(np.int64)
            out: np.ndarray = offset + category * self.half_ring
            return out
        return np.where(match, sample, (sample + self.half_ring) % self.dim_ring)

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        b.not_forceable("test_theta", "ground_truth, sample_theta and the match rule")
        if "ground_truth" in b.kwargs:
            validate.integers_in_range(b.kwargs["ground_truth"], "ground_truth", 1, 2)
        match = b.choice("ground_truth", self.choices) == MATCH
        modality = self.draw_modality(b)
        sample = self.ring_angle(b, "sample_theta")
        test = self._test_index(b, sample, match)
        b.set_param("test_theta", self.theta[test])
        b.add_period(["fixation", "sample", "delay", "test", "decision"])
        b.add_input(1, ["fixation", "sample", "delay", "test"], where="fixation")
        for period, index in (("sample", sample), ("test", test)):
            bump = gaussian_bump(self.theta[index], self.theta)
            b.add_input(self.in_modality(bump, modality), period, where=self.stimulus_dims)
        for m in range(2):  # noise on the trial's modality only (std 0 elsewhere)
            sigma = self.sigma * (modality == m)
            b.add_noise(0, sigma, ["sample", "test"], where=f"stimulus_mod{m + 1}")
        go = match == self.matchgo
        b.set_target(np.where(go, test + 1, 0), "decision")
        return {}


class DMS(MatchTask):
    """yang19.dms: saccade to the test if it matches the sample (see :class:`MatchTask`)."""


class DNMS(MatchTask):
    """yang19.dnms: saccade to the test if it does not match the sample (see MatchTask)."""

    matchgo = False


class DMC(MatchTask):
    """yang19.dmc: saccade to the test if it is in the sample's category (see MatchTask)."""

    matchto = "category"


class DNMC(MatchTask):
    """yang19.dnmc: saccade to the test if its category differs from the sample's."""

    matchto = "category"
    matchgo = False
