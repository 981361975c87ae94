"""Post-decision wagering: a perceptual choice with an optional sure-bet (confidence) option."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, spaces, validate
from neurogym.rules import STANDARD_REWARDS
from neurogym_perceptual.tasks.perceptualdecisionmaking import ring_input, ring_scores

__all__ = ["PostDecisionWager"]

DEFAULT_COHS = (0.0, 3.2, 6.4, 12.8, 25.6, 51.2)
SURE_FRACTION = 0.7
"""Default sure-bet reward as a fraction of ``rewards["correct"]``."""


class PostDecisionWager(ngym.TrialEnv):
    """Post-decision wagering: discriminate a noisy stimulus, or take a smaller sure reward.

    ## Description
    The agent performs a perceptual discrimination (as in PerceptualDecisionMaking). On a
    random half of the trials (wager trials) a sure-bet target appears during the delay; the
    agent may then choose it instead of a direction and get a smaller but certain reward, so a
    good agent chooses it when it is unsure of its perceptual decision (Kiani & Shadlen 2009).

    ## Trial structure (periods)
    ``fixation`` (100 ms) → ``stimulus`` (``TruncExp(180, 100, 900)``) → ``delay``
    (``TruncExp(1350, 1200, 1800)``) → ``decision`` (100 ms). ``pre_sure``
    (``("uniform", (500, 750))``) starts with the delay and overlaps its beginning; it has
    zero length on non-wager trials.

    ## Observation space (named dims)
    ``Box(-inf, inf, (2 + dim_ring,), float32)``: ``fixation`` (0) is 1 in fixation, stimulus
    and delay; ``stimulus`` (1..dim_ring) carries ``cos(theta - theta_gt) * coh / 200 + 0.5``
    during the stimulus; ``sure`` (dim_ring + 1) is 1 in delay and decision on wager trials,
    except during ``pre_sure``. Gaussian noise of std ``sigma / sqrt(dt)`` is added to **all**
    channels during the stimulus (as upstream).

    ## Action space
    ``Discrete(2 + dim_ring)``: ``fixation`` (0), ``choice`` (1..dim_ring), ``sure``
    (dim_ring + 1).

    ## Reward
    ``abort`` (-0.1) for breaking fixation during the fixation period (ends the trial only when
    ``abort`` is True). In the decision period any action other than 0 ends the trial: the
    choice that ``gt`` names pays ``correct`` (+1, performance 1), another choice ``fail`` (0),
    ``sure`` pays ``rewards["sure"]`` (default ``0.7 * correct``, performance
    ``(sure - fail) / (correct - fail)``) on wager trials and ``abort`` on non-wager trials.
    Responses during stimulus and delay are neither penalised nor scored.

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict (``abort``, ``correct``, ``fail``, ``sure``).
    timing: Overrides of the timing dict (any timing spec form).
    dim_ring: Number of choices / ring units (2).
    sigma: Input noise, scaled by ``1 / sqrt(dt)`` (1.0).

    Trial dict: ``wager`` (bool), ``ground_truth`` (choice index 0..dim_ring-1), ``coh``.
    Forcing any of them (``new_trial(wager=True)``) is honoured.

    ## References
    Kiani & Shadlen (2009), "Representation of confidence associated with a decision by
    neurons in the parietal cortex", Science 324(5928):759.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces at ``dim_ring=2``, periods, rewards) with
    these differences:

    * the choice rewarded as correct is the action that ``gt`` names (upstream compared the
      action with the 0-based ``ground_truth``, so it rewarded the wrong choice);
    * spaces grow with ``dim_ring`` (upstream hard-coded 4 dims and 4 actions, and the sure
      action 3, which broke every ``dim_ring != 2``);
    * an explicit ``rewards["sure"]`` is honoured (upstream always overwrote it with
      ``0.7 * correct``);
    * ``pre_sure`` is a zero-length period on non-wager trials instead of being absent, so
      every trial of a batch has the same period names;
    * ``rewards["correct"] == rewards["fail"]`` is rejected at construction (upstream divided
      by zero when the sure option was taken);
    * ``metadata["paper_name"]`` is one line (upstream's string held a line break and
      indentation);
    * trials are generated batch-natively and drawn from the env's seeded generator.
    """

    default_rewards: ClassVar[Mapping[str, float]] = STANDARD_REWARDS
    default_timing: ClassVar[dict[str, Any]] = {
        "fixation": 100,
        "stimulus": ngym.TruncExp(180, 100, 900),
        "delay": ngym.TruncExp(1350, 1200, 1800),
        "pre_sure": ("uniform", (500, 750)),
        "decision": 100,
    }

    optional_rewards = ("sure",)  # the sure bet's reward; default 0.7 x correct

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        dim_ring: int = 2,
        sigma: float = 1.0,
    ) -> None:
        super().__init__()
        dim_ring = validate.integer(dim_ring, "dim_ring", minimum=2, maximum=validate.MAX_RING)
        validate.number(sigma, "sigma", minimum=0)
        self.dim_ring = dim_ring
        self.wagers = (True, False)
        self.theta = np.linspace(0, 2 * np.pi, dim_ring + 1)[:-1]
        self.choices = np.arange(dim_ring)
        self.cohs = np.asarray(DEFAULT_COHS)
        self.sigma = sigma / math.sqrt(self.dt)
        _default_sure(self.rewards)
        self.abort = False
        self.sure_action = dim_ring + 1
        self.observation_space = spaces.Box(
            -np.inf,
            np.inf,
            shape=(2 + dim_ring,),
            dtype=np.float32,
            name={"fixation": 0, "stimulus": range(1, dim_ring + 1), "sure": dim_ring + 1},
        )
        self.action_space = spaces.Discrete(
            2 + dim_ring,
            name={"fixation": 0, "choice": range(1, dim_ring + 1), "sure": dim_ring + 1},
        )

    def ideal_observer(self, batch: Any) -> np.ndarray:
        """Correct when the summed stimulus evidence names the answer (never the sure bet).

        The strict criterion counts a correct choice only. The stimulus is short (a truncated
        exponential of mean 180 ms) and noisy, so most low-coherence trials are in doubt.
        """
        evidence = batch.period_sum("stimulus", slice(1, 1 + len(self.theta)))
        choice = ring_scores(evidence, self.theta).argmax(1)
        correct: np.ndarray = (choice == batch.trial["ground_truth"]).astype(float)
        return correct

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        wager = b.choice("wager", self.wagers).astype(bool)
        ground_truth = b.choice("ground_truth", self.choices)
        coh = b.choice("coh", self.cohs, minimum=0)
        b.add_period(["fixation", "stimulus", "delay"])
        b.add_period("pre_sure", duration=self._pre_sure_ms(b) * wager, after="stimulus")
        b.add_period("decision", after="delay")

        b.add_input(1, ["fixation", "stimulus", "delay"], where="fixation")
        b.add_input(ring_input(self.theta, ground_truth, coh), "stimulus", "stimulus")
        b.add_noise(0, self.sigma, "stimulus")
        b.add_input(wager.astype(float), ["delay", "decision"], where="sure")
        b.set_input(0, "pre_sure", where="sure")
        b.set_target(ground_truth, "decision", where="choice")
        return {}

    def _pre_sure_ms(self, b: BatchBuilder) -> np.ndarray:
        """``pre_sure`` durations sampled for the batch and floored to ``dt`` (as periods are)."""
        raw = self.timing.spec("pre_sure").sample(b.rng, b.n)
        return np.floor(raw / self.dt + 1e-9) * self.dt

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        reward = 0.0
        new_trial = False
        gt = self.gt_now
        if self.in_period("fixation"):
            if action != 0:
                reward = self.rewards["abort"]
                new_trial = self.abort
        elif action != 0 and self.in_period("decision"):
            new_trial = True
            if action == self.sure_action:
                reward = self._sure_outcome()
            elif action == gt:
                reward = self.rewards["correct"]
                self.performance = 1
            else:
                reward = self.rewards["fail"]
        return self.ob_now, reward, False, False, {"new_trial": new_trial, "gt": gt}

    def _sure_outcome(self) -> float:
        """Reward of the sure option; sets ``performance`` on wager trials."""
        trial = self.trial
        assert trial is not None
        if not trial["wager"]:
            return self.rewards["abort"]
        sure, fail = self.rewards["sure"], self.rewards["fail"]
        self.performance = (sure - fail) / (self.rewards["correct"] - fail)
        return sure


def _default_sure(rewards: dict[str, float]) -> None:
    """``sure`` defaults to 0.7 x ``correct``; ``correct`` and ``fail`` must differ."""
    rewards.setdefault("sure", SURE_FRACTION * rewards["correct"])
    if rewards["correct"] == rewards["fail"]:
        raise ValueError(
            f"rewards['correct'] and rewards['fail'] must differ (the sure option's performance "
            f"is normalised by their difference), got both = {rewards['correct']!r}"
        )
