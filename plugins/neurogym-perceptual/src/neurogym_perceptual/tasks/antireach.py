"""Anti-reach (anti-saccade): respond opposite to a stimulus on a ring, or towards it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, StandardDecision, spaces, validate
from neurogym.rules import STANDARD_REWARDS

__all__ = ["AntiReach"]


class AntiReach(ngym.TrialEnv):
    """Reach to the location opposite to a stimulus (anti) or to the stimulus itself (pro).

    ## Description
    The anti-saccade paradigm (Munoz & Everling 2004). While fixating, the agent sees a
    stimulus at one of ``dim_ring`` locations on a ring; after a delay it must respond at the
    diametrically opposite location (``anti=True``) or at the stimulus (``anti=False``).

    ## Trial structure (periods)
    ``fixation`` (500 ms) → ``stimulus`` (500 ms) → ``delay`` (0 ms) → ``decision`` (500 ms):
    15 steps at ``dt=100``.

    ## Observation space (named dims)
    ``Box(-inf, inf, (1 + dim_ring,), float32)``: ``fixation`` (0) is 1 in the fixation,
    stimulus and delay periods and 0 in the decision period. ``stimulus`` (1..dim_ring) carries
    ``cos(theta - theta_stim)`` during the stimulus only (no offset, no noise), where
    ``theta_stim`` is the ground truth's angle plus pi on anti trials and the ground truth's
    angle on pro trials.

    ## Action space
    ``Discrete(1 + dim_ring)``: ``fixation`` (0), ``choice`` (1..dim_ring), one per location.

    ## Reward
    ``abort`` (-0.1) for breaking fixation during the fixation period (the trial goes on:
    ``abort`` is False). In the decision period any choice ends the trial with ``correct`` (+1,
    performance 1) or ``fail`` (0). No penalty for responding during stimulus or delay.

    ## Arguments
    dt: Step size in ms (100).
    anti: Whether the response goes opposite to the stimulus (True) or towards it (False).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).
    dim_ring: Number of locations on the ring (32).

    Trial dict: ``ground_truth`` (location index 0..dim_ring-1 of the correct response; action
    ``ground_truth + 1``), ``anti`` (bool; may be forced per trial, e.g. ``anti=False``).

    ## References
    Munoz & Everling (2004), "Look away: the anti-saccade task and the voluntary control of eye
    movement", Nat. Rev. Neurosci. 5:218-228.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, names, periods, rewards, trial-dict
    keys), with these differences: the ring angles are ``linspace(0, 2 pi, dim_ring,
    endpoint=False)``, so every ``dim_ring`` works (upstream's float ``arange`` gave
    ``dim_ring + 1`` angles and failed for e.g. 61, 122 or 197); invalid ``dim_ring`` raises
    ``ValueError``; ``paper_name`` has single spaces. Trials are generated batch-natively and
    drawn from the env's seeded generator.
    """

    default_rewards: ClassVar[Mapping[str, float]] = STANDARD_REWARDS
    default_timing: ClassVar[dict[str, Any]] = {
        "fixation": 500,
        "stimulus": 500,
        "delay": 0,
        "decision": 500,
    }

    rule = StandardDecision(fixation_periods=("fixation",), decision_periods=("decision",))

    def __init__(
        self,
        dt: float = 100,
        anti: bool = True,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        dim_ring: int = 32,
    ) -> None:
        super().__init__()
        self.anti = anti
        self.abort = False
        self.dim_ring = n = validate.integer(
            dim_ring, "dim_ring", minimum=2, maximum=validate.MAX_RING
        )
        self.theta = np.linspace(0, 2 * np.pi, n, endpoint=False)
        self.choices = np.arange(n)
        self.observation_space = spaces.Box(
            -np.inf,
            np.inf,
            shape=(1 + n,),
            dtype=np.float32,
            name={"fixation": 0, "stimulus": range(1, n + 1)},
        )
        self.action_space = spaces.Discrete(1 + n, name={"fixation": 0, "choice": range(1, n + 1)})

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        ground_truth = b.choice("ground_truth", self.choices)
        forced = b.forced("anti")  # (a wrong shape is refused naming anti)
        if forced is not None and not (
            forced.dtype.kind in "biu" and np.all((forced == 0) | (forced == 1))
        ):
            raise ValueError(f"forced anti must be True or False (or 0/1), got {kwargs['anti']!r}")
        anti = b.set_param("anti", self.anti if forced is None else forced).astype(bool)
        # The stimulus depends only on (anti, ground_truth): gather its rows from a small table
        # (row a * n + g is the pro (a=0) or anti (a=1) stimulus for response g).
        theta, n = self.theta, len(self.theta)
        stim_theta = np.concatenate([theta, np.mod(theta + np.pi, 2 * np.pi)])
        table = np.cos(theta[None, :] - stim_theta[:, None])
        b.add_period(["fixation", "stimulus", "delay", "decision"])
        b.add_input(1, ["fixation", "stimulus", "delay"], where="fixation")
        b.add_input(table[anti * n + np.asarray(ground_truth)], "stimulus", "stimulus")
        b.set_target(ground_truth, "decision", where="choice")
        return {}
