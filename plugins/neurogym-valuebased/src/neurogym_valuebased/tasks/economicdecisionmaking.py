"""Economic decision making: choose between two offers of different juices and amounts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, spaces

__all__ = ["EconomicDecisionMaking"]

JUICES = (("a", "b"), ("b", "a"))
"""Which juice each offer is: (offer 1, offer 2)."""
OFFERS = ((0, 1), (1, 3), (1, 2), (1, 1), (2, 1), (3, 1), (4, 1), (6, 1), (2, 0))
"""Offered amounts as (drops of juice B, drops of juice A)."""


class EconomicDecisionMaking(ngym.TrialEnv):
    """Choose between two offers of different juices; each drop of A is worth 2.2 drops of B.

    ## Description
    Two offers are shown together: each names a juice (A or B) and an amount. The agent holds
    fixation while they are shown, then picks one and is paid its value: ``amount * R_A`` for
    juice A and ``amount * R_B`` for juice B, with ``R_A = rewards["correct"]`` (0.22) and
    ``R_B = R_A / 2.2`` (Padoa-Schioppa & Assad 2006). Juice A is preferred, so the agent must
    trade amount against juice type.

    ## Trial structure (periods)
    ``fixation`` (1500 ms) → ``offer_on`` (uniform 1000-2000 ms) → ``decision`` (750 ms,
    700 ms at ``dt=100``): 32-41 steps.

    ## Observation space (named dims)
    ``Box(-inf, inf, (7,), float32)``: ``fixation`` (0) is 1 in fixation and offer_on;
    ``a1`` (1) / ``b1`` (2) is 1 in offer_on for the juice of offer 1, ``a2`` (3) / ``b2`` (4)
    for offer 2; ``n1`` (5) and ``n2`` (6) are the two amounts divided by 5 in offer_on.

    ## Action space
    ``Discrete(3)``: ``fixation`` (0), ``choice1`` (1), ``choice2`` (2).

    ## Reward
    In fixation and offer_on, any action other than 0 pays ``abort`` (-0.1) and ends the trial
    only if ``abort`` is True (False by default). In the decision period, choice1 or choice2
    ends the trial and pays the chosen offer's value; ``performance`` is 1 when the chosen
    value is at least the other one. It needs ``_step``: the reward is the chosen value, not
    correct/fail.

    Ground truth: in the decision period, the choice of the offer of higher value. When both
    offers are worth the same (no default offer pair is, but forced or edited ones can be)
    either choice is correct: the trial sets no target there (its loss mask is False) and its
    ``ground_truth`` is 0.

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict (``abort``, ``correct`` = R_A).
    timing: Overrides of the timing dict (any timing spec form).

    Trial dict: ``juice`` (``("a", "b")`` or ``("b", "a")``: the juices of offers 1 and 2),
    ``offer`` (``(drops of B, drops of A)``, one of ``OFFERS``), both drawn uniformly and both
    can be forced, e.g. ``env.new_trial(offer=(1, 1))``; ``value1``, ``value2`` and
    ``ground_truth`` (1, 2, or 0 for a tie).

    ## References
    Padoa-Schioppa & Assad (2006), "Neurons in the orbitofrontal cortex encode economic value",
    Nature 441:223-226.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, periods, rewards) with these
    differences: the task has a ground truth, the higher-value offer in the decision period
    (upstream reported ``gt`` 0 at every step and had none for supervised training); a tie
    counts as correct for either choice (upstream scored neither); the random offer duration
    is the declarative spec ``("uniform", (1000, 2000))``, equal in distribution to upstream's
    lambda.
    """

    default_rewards: ClassVar[dict[str, float]] = {"abort": -0.1, "correct": +0.22}
    default_timing: ClassVar[dict[str, Any]] = {
        "fixation": 1500,
        "offer_on": ("uniform", (1000, 2000)),
        "decision": 750,
    }

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.B_to_A = 1 / 2.2
        self.juices = np.array(JUICES)
        self.offers = np.array(OFFERS)
        self.R_A = float(self.rewards["correct"])
        self.R_B = self.B_to_A * self.R_A
        self.abort = False
        name = {"fixation": 0, "a1": 1, "b1": 2, "a2": 3, "b2": 4, "n1": 5, "n2": 6}
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(7,), dtype=np.float32, name=name
        )
        self.action_space = spaces.Discrete(3, name={"fixation": 0, "choice1": 1, "choice2": 2})

    def _offers(self, b: BatchBuilder) -> np.ndarray:
        """Drawn from ``offers``; a forced offer may be any pair of non-negative drop counts."""
        forced = b.forced("offer", (2,))
        if forced is None:
            return b.choice("offer", self.offers)
        if forced.dtype.kind not in "iuf" or np.any(forced < 0):
            raise ValueError(
                "forced offer must be pairs of non-negative drop counts (B, A), got "
                f"{forced.tolist()!r}"
            )
        return forced

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        b.not_forceable("ground_truth", "the offers (force offer= instead)")
        juice = b.choice("juice", self.juices)  # (B, 2)
        offer = self._offers(b)  # (B, 2): drops of B, drops of A
        first_is_a = juice[:, 0] == "a"
        n1 = np.where(first_is_a, offer[:, 1], offer[:, 0]).astype(float)
        n2 = np.where(first_is_a, offer[:, 0], offer[:, 1]).astype(float)
        value1 = n1 * np.where(first_is_a, self.R_A, self.R_B)
        value2 = n2 * np.where(first_is_a, self.R_B, self.R_A)
        better = np.where(value1 > value2, 1, np.where(value2 > value1, 2, 0))

        b.add_period(["fixation", "offer_on", "decision"])
        b.add_input(1, ["fixation", "offer_on"], where="fixation")
        # a1, b1, a2, b2: the juice of each offer; n1, n2: the amounts / 5 (dims 1-6)
        offer_dims = np.stack(
            [first_is_a, ~first_is_a, ~first_is_a, first_is_a, n1 / 5.0, n2 / 5.0], axis=1
        )
        b.add_input(offer_dims.astype(float), "offer_on", where=range(1, 7))
        ties = better == 0  # either choice is correct: no target, no loss there
        b.set_target(better, "decision", rows=~ties if ties.any() else None)
        return {"value1": value1, "value2": value2, "ground_truth": better}

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        reward, new_trial = 0.0, False
        if self.in_period("fixation") or self.in_period("offer_on"):
            if action != 0:
                new_trial = self.abort
                reward = self.rewards["abort"]
        elif action != 0 and self.in_period("decision"):
            new_trial = True
            trial = self.trial
            assert trial is not None
            value1, value2 = trial["value1"], trial["value2"]
            chosen, other = (value1, value2) if action == 1 else (value2, value1)
            reward = float(chosen)
            self.performance = int(chosen >= other)
        return self.ob_now, reward, False, False, {"new_trial": new_trial}
