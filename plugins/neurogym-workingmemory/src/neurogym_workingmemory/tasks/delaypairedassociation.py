"""Delayed paired association: go if the two stimuli shown in sequence form a learned pair."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, spaces, validate

__all__ = ["PAIRS", "DelayPairedAssociation"]

PAIRS = ((1, 3), (1, 4), (2, 3), (2, 4))
"""The stimulus pairs (observation dims); (1, 3) and (2, 4) are the associated (go) pairs."""


class DelayPairedAssociation(ngym.TrialEnv):
    """Respond (go) after two stimuli that form an associated pair; withhold otherwise.

    ## Description
    One of stimuli 1 and 2 is shown, then a delay, then one of stimuli 3 and 4, then a second
    delay. The agent must go in the decision period if the pair is associated, (1, 3) or
    (2, 4), and withhold otherwise (Sakai & Miyashita 1991; Kawasaki et al.).

    ## Trial structure (periods)
    ``fixation`` (0 ms) → ``stim1`` (1000 ms) → ``delay_btw_stim`` (1000 ms) → ``stim2``
    (1000 ms) → ``delay_aft_stim`` (1000 ms) → ``decision`` (500 ms): 45 steps at ``dt=100``.

    ## Observation space (named dims)
    ``Box(-inf, inf, (5,), float32)``: ``fixation`` (0) is 1 in every period but the
    decision; ``stimulus`` (1..4): dim ``pair[0]`` is 1 during stim1 and dim ``pair[1]``
    during stim2, plus Gaussian noise of std ``sigma / sqrt(dt)`` on the stimulus dims during
    both stimuli.

    ## Action space
    ``Discrete(2)``: ``fixation`` (0), ``go`` (1).

    ## Reward
    ``abort`` (-0.1) for going in the fixation period (the trial goes on). In the decision
    period going ends the trial: ``correct`` (+1) on an associated pair, ``fail`` (-1)
    otherwise. A go trial that ends without a response pays ``miss`` (0); a no-go trial ended
    by withholding has performance 1: the declarative :class:`neurogym.GoNoGoDecision` rule,
    so vector envs step the task natively.

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).
    sigma: Input noise on the stimulus dims, scaled by ``1 / sqrt(dt)`` (1.0).

    Trial dict: ``pair`` (the two stimulus dims) and ``ground_truth`` (1 go, 0 no-go); ``pair``
    can be forced (the ground truth follows from it), and so can ``ground_truth`` (a random
    pair of that kind is drawn).

    ## References
    Sakai & Miyashita (1991), "Neural organization for the long-term memory of paired
    associates", Nature 354:152-155.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, names, periods, rewards, trial-dict
    keys; checked against upstream's trials by the differential fidelity test), except that
    ``sigma`` adds noise (upstream accepted it and added none) and that every no-go trial
    withheld to its end reports performance 1 (upstream's core reset performance right after
    generating the next trial, so only the first trial after a reset scored 1); both are
    declared differences. Trials are generated batch-natively from the env's seeded generator.
    """

    default_rewards: ClassVar[dict[str, float]] = {
        "abort": -0.1,
        "correct": +1.0,
        "fail": -1.0,
        "miss": 0.0,
    }
    default_timing: ClassVar[dict[str, Any]] = {
        "fixation": 0,
        "stim1": 1000,
        "delay_btw_stim": 1000,
        "stim2": 1000,
        "delay_aft_stim": 1000,
        "decision": 500,
    }

    rule = ngym.GoNoGoDecision()  # withholding on a no-go trial is correct; a go miss pays "miss"

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        sigma: float = 1.0,
    ) -> None:
        super().__init__()
        self.choices = np.array([0, 1])
        self.pairs = np.array(PAIRS)
        self.association = 0  # go if the pair's difference is even
        self.sigma = validate.number(sigma, "sigma", minimum=0) / np.sqrt(self.dt)
        self.abort = False
        self.observation_space = spaces.Box(
            -np.inf,
            np.inf,
            shape=(5,),
            dtype=np.float32,
            name={"fixation": 0, "stimulus": range(1, 5)},
        )
        self.action_space = spaces.Discrete(2, name={"fixation": 0, "go": 1})

    def _pairs_of_forced_kind(self, b: BatchBuilder) -> None:
        """A forced ``ground_truth`` (1 go, 0 no-go) picks a random pair of that kind.

        Trial wrappers (RandomGroundTruth, SideBias, ...) force it; a forced ``pair`` must agree.
        """
        forced = b.forced("ground_truth")
        if forced is None:
            return
        validate.integers_in_range(forced, "ground_truth", 0, 1)
        kind = ((self.pairs[:, 1] - self.pairs[:, 0]) % 2 == self.association).astype(np.int64)
        if "pair" in b.kwargs:
            return  # the pair decides; checked against the forced ground truth below
        chosen = np.empty((b.n, 2), dtype=self.pairs.dtype)
        for value in (0, 1):
            rows = np.flatnonzero(forced == value)
            options = self.pairs[kind == value]
            chosen[rows] = options[(b.rng.random(rows.size) * len(options)).astype(np.intp)]
        b.kwargs["pair"] = chosen

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        self._pairs_of_forced_kind(b)
        pair = b.choice("pair", self.pairs)
        validate.integers_in_range(pair, "pair", 1, 4)
        go = ((pair[:, 1] - pair[:, 0]) % 2 == self.association).astype(np.int64)
        forced = b.forced("ground_truth")
        if forced is not None and np.any(forced != go):
            raise ValueError(
                f"forced ground_truth {forced.tolist()!r} disagrees with the forced pair "
                f"{pair.tolist()!r} (go {go.tolist()!r}); force one of them"
            )
        b.set_param("ground_truth", go)
        b.add_period(
            ["fixation", "stim1", "delay_btw_stim", "stim2", "delay_aft_stim", "decision"]
        )
        b.add_input(
            1, ["fixation", "stim1", "delay_btw_stim", "stim2", "delay_aft_stim"], "fixation"
        )
        for period, column in (("stim1", 0), ("stim2", 1)):
            b.add_input(1, period, where="stimulus", index=pair[:, column] - 1)
        b.add_noise(0, self.sigma, ["stim1", "stim2"], where="stimulus")
        b.set_target(go, "decision")
        return {}
