"""Context-dependent perceptual decisions: report one of two simultaneous stimuli."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, StandardDecision, spaces, validate
from neurogym_perceptual.tasks.perceptualdecisionmaking import ring_input, ring_scores

__all__ = ["ContextDecisionMaking"]

COHS = (5, 15, 50)
"""Coherences in percent (fixed, as upstream: not a constructor argument)."""


class ContextDecisionMaking(ngym.TrialEnv):
    """Two stimuli in two modalities; the context says which one to report.

    ## Description
    A model of the colour/motion task of Mante et al. (2013). Two ring stimuli are shown at
    once, one per modality; each points to a choice with its own coherence. The agent must
    report the direction of the modality selected by the context and ignore the other. The
    context is either implicit (fixed for the env by ``impl_context_modality``, to be learned)
    or explicit (drawn per trial and shown on two context inputs).

    ## Trial structure (periods)
    ``fixation`` (300 ms) → ``stimulus`` (750 ms) → ``delay`` (truncated exponential: mean
    600 ms, within [300, 3000) ms) → ``decision`` (100 ms). Sampled durations are floored to a
    multiple of ``dt``: 14 to 40 steps per trial at ``dt=100``.

    ## Observation space (named dims)
    ``Box(-inf, inf, (1 + 2 * dim_ring [+ 2],), float32)``: ``fixation`` (0) is 1 in every
    period before ``decision`` (fixation, stimulus and delay): its offset is the go cue, as
    the fixation point's in Mante et al. (2013). Upstream 2.3.1 shows it in ``fixation``
    only, so the decision step (after a random delay) had no cue and a network could not hold
    fixation and still answer in time; a declared difference. ``stim{i}_mod1`` (``i`` =
    1..dim_ring, dims 1..dim_ring) and ``stim{i}_mod2`` (the next ``dim_ring`` dims) carry
    ``cos(theta_i - theta_choice) * coh / 200 + 0.5`` of their modality plus Gaussian noise
    of std ``sigma / sqrt(dt)`` during the stimulus, and are 0 elsewhere. With
    ``use_expl_context``, ``context1`` / ``context2`` (the last two dims) are 1 for the whole
    trial when the context is 0 / 1.

    ## Action space
    ``Discrete(1 + dim_ring)``: ``fixation`` (0), ``choice`` (1..dim_ring).

    ## Reward
    ``abort`` (-0.1) for breaking fixation during the fixation period (ends the trial only when
    ``abort=True``). In the decision period any choice ends the trial with ``correct`` (+1,
    performance 1), else with ``rewards.get("fail", 0)``: the default rewards have no ``fail``
    key, so a wrong choice pays 0. No penalty for responding during stimulus or delay.

    ## Arguments
    dt: Step size in ms (100).
    use_expl_context: Whether the context is drawn per trial and shown as an input (False).
    impl_context_modality: The fixed context (0 or 1) when ``use_expl_context`` is False (0).
    dim_ring: Number of choices / ring units per modality (2).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).
    sigma: Input noise, scaled by ``1 / sqrt(dt)`` (1.0).
    abort: Whether breaking fixation ends the trial (False).

    Trial dict: ``ground_truth`` (the correct action, 1..dim_ring), ``other_choice`` (the
    direction, 1..dim_ring, of the modality to ignore), ``context`` (0: modality 1 is
    relevant, 1: modality 2 is relevant), ``coh_1`` and ``coh_2`` (coherence in percent of
    modality 1 and 2, each drawn from 5, 15, 50).

    ## References
    Mante, Sussillo, Shenoy & Newsome (2013), "Context-dependent computation by recurrent
    dynamics in prefrontal cortex", Nature 503:78-84.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, names, periods, rewards, trial-dict
    keys), with these differences: the fixation input stays on until the decision period
    (the paper's go cue); a ``fail`` reward passed in ``rewards`` is paid for a wrong
    choice (upstream paid 0 whatever the rewards said); invalid ``dim_ring`` raises
    ``ValueError``; ``paper_name`` has single spaces. Trials are generated batch-natively and
    drawn from the env's seeded generator (upstream's delay had its own generator).
    """

    default_rewards: ClassVar[dict[str, float]] = {"abort": -0.1, "correct": +1.0}
    default_timing: ClassVar[dict[str, Any]] = {
        "fixation": 300,
        "stimulus": 750,
        "delay": ngym.TruncExp(600, 300, 3000),
        "decision": 100,
    }

    rule = StandardDecision(fixation_periods=("fixation",), decision_periods=("decision",))
    optional_rewards = ("fail",)  # paid for a wrong choice if given (default: 0)

    def __init__(
        self,
        dt: float = 100,
        use_expl_context: bool = False,
        impl_context_modality: int = 0,
        dim_ring: int = 2,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        sigma: float = 1.0,
        abort: bool = False,
    ) -> None:
        super().__init__()
        if not use_expl_context and impl_context_modality not in (0, 1):
            raise ValueError(
                f"impl_context_modality must be 0 or 1 when use_expl_context is False, "
                f"got {impl_context_modality!r}"
            )
        self.use_expl_context = bool(use_expl_context)
        self.dim_ring = validate.integer(
            dim_ring, "dim_ring", minimum=2, maximum=validate.MAX_RING
        )
        self.sigma = validate.number(sigma, "sigma", minimum=0) / np.sqrt(self.dt)
        self.cohs = list(COHS)
        self.contexts = [0, 1] if self.use_expl_context else [int(impl_context_modality)]
        self.abort = abort
        self.theta = np.linspace(0, 2 * np.pi, self.dim_ring + 1)[:-1]
        self.choices = np.arange(1, self.dim_ring + 1)
        self._setup_spaces()

    def _setup_spaces(self) -> None:
        """Named observation and action spaces (context inputs only when explicit)."""
        n = self.dim_ring
        name: dict[str, int] = {"fixation": 0}
        name.update({f"stim{i + 1}_mod1": i + 1 for i in range(n)})
        name.update({f"stim{i + 1}_mod2": i + 1 + n for i in range(n)})
        if self.use_expl_context:
            name.update({"context1": 1 + 2 * n, "context2": 2 + 2 * n})
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(len(name),), dtype=np.float32, name=name
        )
        self.action_space = spaces.Discrete(
            1 + n, name={"fixation": 0, "choice": list(range(1, n + 1))}
        )
        self._mod1 = range(1, n + 1)
        self._mod2 = range(n + 1, 2 * n + 1)
        self._context = range(2 * n + 1, 2 * n + 3)

    def ideal_observer(self, batch: Any) -> np.ndarray:
        """Correct when the relevant modality's summed evidence favours the answer.

        The observer knows the context; the low coherence (5 %) is noise-limited.
        """
        n = self.dim_ring
        first = ring_scores(batch.period_sum("stimulus", slice(1, n + 1)), self.theta)
        second = ring_scores(batch.period_sum("stimulus", slice(n + 1, 2 * n + 1)), self.theta)
        relevant = np.where(np.asarray(batch.trial["context"])[:, None] == 1, second, first)
        choice = self.choices[relevant.argmax(1)]
        correct: np.ndarray = (choice == batch.trial["ground_truth"]).astype(float)
        return correct

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        ground_truth = b.choice("ground_truth", self.choices)
        other_choice = b.choice("other_choice", self.choices)
        context = b.choice("context", self.contexts)
        coh_1 = b.choice("coh_1", self.cohs)
        coh_2 = b.choice("coh_2", self.cohs)
        second = context == 1  # context 1: modality 2 carries the ground truth
        choice_1 = np.where(second, other_choice, ground_truth)
        choice_2 = np.where(second, ground_truth, other_choice)
        b.add_period(["fixation", "stimulus", "delay", "decision"])
        # on until the go cue (Mante et al. 2013), not in `fixation` only (upstream)
        b.add_input(1, ["fixation", "stimulus", "delay"], where="fixation")
        theta = self.theta
        b.add_input(ring_input(theta, choice_1 - 1, coh_1), "stimulus", self._mod1)
        b.add_input(ring_input(theta, choice_2 - 1, coh_2), "stimulus", self._mod2)
        b.add_noise(0, self.sigma, "stimulus", where=range(1, 1 + 2 * self.dim_ring))
        if self.use_expl_context:
            b.add_input(1, None, where=self._context, index=context)
        b.set_target(ground_truth, "decision")
        return {}
