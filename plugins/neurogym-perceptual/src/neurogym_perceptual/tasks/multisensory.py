"""Multisensory integration: one direction shown in two modalities that share the evidence."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, StandardDecision, spaces, validate
from neurogym_perceptual.tasks.perceptualdecisionmaking import ring_scores, ring_stimulus

__all__ = ["MultiSensoryIntegration"]

COHS = (5, 15, 50)
"""Total coherences in percent (fixed, as upstream: not a constructor argument)."""


class MultiSensoryIntegration(ngym.TrialEnv):
    """Two modalities point to the same choice; their coherences add up to the trial's.

    ## Description
    Two noisy ring stimuli, one per modality, point to the same direction. The trial's
    coherence is split between them at random (a share ``coh_prop`` in modality 1, the rest in
    modality 2), so the agent does best by integrating both modalities, as rats and humans do
    with visual and auditory clicks (Raposo et al. 2012).

    ## Trial structure (periods)
    ``fixation`` (300 ms) → ``stimulus`` (750 ms) → ``decision`` (100 ms): 11 steps at
    ``dt=100`` (the stimulus is floored to 700 ms).

    ## Observation space (named dims)
    ``Box(-inf, inf, (1 + 2 * dim_ring,), float32)``: ``fixation`` (0) is 1 in the fixation and
    stimulus periods. ``stimulus_mod1`` (1..dim_ring) carries ``cos(theta - theta_gt) * coh *
    coh_prop / 200 + 0.5`` and ``stimulus_mod2`` (the next ``dim_ring`` dims) the same with
    ``coh * (1 - coh_prop)``, during the stimulus. Gaussian noise of std ``sigma / sqrt(dt)`` is
    added to every dim during the stimulus, the fixation input included (as upstream). Every
    dim is 0 in the decision period.

    ## Action space
    ``Discrete(1 + dim_ring)``: ``fixation`` (0), ``choice`` (1..dim_ring).

    ## Reward
    ``abort`` (-0.1) for breaking fixation during the fixation period (the trial goes on:
    ``abort`` is False). In the decision period any choice ends the trial with ``correct`` (+1,
    performance 1), else with ``rewards.get("fail", 0)``: the default rewards have no ``fail``
    key, so a wrong choice pays 0. No penalty for responding during the stimulus.

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).
    sigma: Input noise, scaled by ``1 / sqrt(dt)`` (1.0).
    dim_ring: Number of choices / ring units per modality (2).

    Trial dict: ``ground_truth`` (choice index 0..dim_ring-1; action ``ground_truth + 1``),
    ``coh`` (total coherence in percent, from 5, 15, 50), ``coh_prop`` (share of the coherence
    in modality 1, uniform on [0, 1)).

    ## References
    Raposo, Sheppard, Schrater & Churchland (2012), "Multisensory decision-making in rats and
    humans", J. Neurosci. 32(11):3726-3735.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, names, periods, rewards, trial-dict
    keys), with these differences: the metadata cites Raposo et al. (2012) (upstream had no
    paper); a ``fail`` reward passed in ``rewards`` is paid for a wrong choice (upstream paid 0
    whatever the rewards said); invalid ``dim_ring`` raises ``ValueError``. Trials are
    generated batch-natively and drawn from the env's seeded generator.
    """

    default_rewards: ClassVar[dict[str, float]] = {"abort": -0.1, "correct": +1.0}
    default_timing: ClassVar[dict[str, Any]] = {"fixation": 300, "stimulus": 750, "decision": 100}

    rule = StandardDecision(fixation_periods=("fixation",), decision_periods=("decision",))
    optional_rewards = ("fail",)  # paid for a wrong choice if given (default: 0)

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        sigma: float = 1.0,
        dim_ring: int = 2,
    ) -> None:
        super().__init__()
        self.dim_ring = validate.integer(
            dim_ring, "dim_ring", minimum=2, maximum=validate.MAX_RING
        )
        self.cohs = list(COHS)
        self.sigma = validate.number(sigma, "sigma", minimum=0) / np.sqrt(self.dt)
        self.abort = False
        self.theta = np.linspace(0, 2 * np.pi, self.dim_ring + 1)[:-1]
        self.choices = np.arange(self.dim_ring)
        n = self.dim_ring
        self.observation_space = spaces.Box(
            -np.inf,
            np.inf,
            shape=(1 + 2 * n,),
            dtype=np.float32,
            name={
                "fixation": 0,
                "stimulus_mod1": range(1, n + 1),
                "stimulus_mod2": range(n + 1, 2 * n + 1),
            },
        )
        self.action_space = spaces.Discrete(1 + n, name={"fixation": 0, "choice": range(1, n + 1)})

    def ideal_observer(self, batch: Any) -> np.ndarray:
        """Correct when both modalities' summed evidence favours the answer.

        Each modality is weighted by its share of the coherence, known to the observer.
        """
        n = self.dim_ring
        share = np.asarray(batch.trial["coh_prop"], dtype=float)[:, None]
        first = ring_scores(batch.period_sum("stimulus", slice(1, n + 1)), self.theta)
        second = ring_scores(batch.period_sum("stimulus", slice(n + 1, 2 * n + 1)), self.theta)
        choice = (share * first + (1 - share) * second).argmax(1)
        correct: np.ndarray = (choice == batch.trial["ground_truth"]).astype(float)
        return correct

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        ground_truth = b.choice("ground_truth", self.choices)
        coh = b.choice("coh", self.cohs)
        coh_prop = b.forced("coh_prop", number=True, minimum=0.0, maximum=1.0)  # a share
        if coh_prop is None:
            coh_prop = b.uniform("coh_prop", 0.0, 1.0)
        target = self.theta[ground_truth]
        b.add_period(["fixation", "stimulus", "decision"])
        b.add_input(1, ["fixation", "stimulus"], where="fixation")
        share_1 = coh * coh_prop
        share_2 = coh * (1 - coh_prop)
        b.add_input(ring_stimulus(self.theta, target, share_1), "stimulus", "stimulus_mod1")
        b.add_input(ring_stimulus(self.theta, target, share_2), "stimulus", "stimulus_mod2")
        b.add_noise(0, self.sigma, "stimulus")
        b.set_target(ground_truth, "decision", where="choice")
        return {}
