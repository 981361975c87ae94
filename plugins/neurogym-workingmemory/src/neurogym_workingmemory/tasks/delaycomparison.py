"""Delayed comparison of two vibration frequencies (parametric working memory)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, StandardDecision, spaces, validate
from neurogym.rules import STANDARD_REWARDS

__all__ = ["DEFAULT_VPAIRS", "DelayComparison"]

DEFAULT_VPAIRS = ((18, 10), (22, 14), (26, 18), (30, 22), (34, 26))
"""The five frequency pairs (Hz) of Romo et al. 1999."""


class DelayComparison(ngym.TrialEnv):
    """Compare two scalar stimuli separated by a delay: was the first one larger?

    ## Description
    Two vibrotactile frequencies ``f1`` and ``f2`` are presented one after the other, with a
    delay in between; the agent reports whether ``f1 > f2`` (Romo et al. 1999). Each trial
    draws a pair from ``vpairs`` and the order: ``ground_truth`` 1 shows the pair as given
    (its first value is the larger in the default pairs), 2 swaps it.

    ## Trial structure (periods)
    ``fixation`` (500 ms) → ``stimulus1`` (500 ms) → ``delay`` (1000 ms) → ``stimulus2``
    (500 ms) → ``decision`` (100 ms): 26 steps at ``dt=100``.

    ## Observation space (named dims)
    ``Box(-inf, inf, (2,), float32)``: ``fixation`` (0) is 1 in every period but the decision;
    ``stimulus`` (1) is ``(1 + (f - fmin) / (fmax - fmin)) / 2`` for ``f1`` in stimulus1 and
    ``f2`` in stimulus2 (``fmin``/``fmax``: the extremes of ``vpairs``). Gaussian noise of std
    ``sigma / sqrt(dt)`` is added to **both** dims during stimulus1 and stimulus2 (as upstream).

    ## Action space
    ``Discrete(3)``: ``fixation`` (0), ``choice`` (1: f1 was larger, 2: f2 was larger).

    ## Reward
    ``abort`` (-0.1) for a non-zero action in the fixation period (the trial goes on). In the
    decision period any response ends the trial with ``correct`` (+1, performance 1) or
    ``fail`` (0).

    ## Arguments
    dt: Step size in ms (100).
    vpairs: Frequency pairs to draw from (``DEFAULT_VPAIRS``).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).
    sigma: Input noise, scaled by ``1 / sqrt(dt)`` (1.0).

    Trial dict: ``ground_truth`` (1 or 2: the correct action), ``vpair`` (the drawn pair),
    ``v1`` and ``v2`` (the frequencies in the order shown). ``ground_truth`` and ``vpair``
    can be forced.

    ## References
    Romo, Brody, Hernández & Lemus (1999), "Neuronal correlates of parametric working memory
    in the prefrontal cortex", Nature 399:470-473.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, names, periods, rewards, trial-dict
    keys); ``vpairs`` is validated (pairs of finite numbers, not all equal); trials are
    generated batch-natively from the env's seeded generator, and the decision rule is
    declared, so vector envs step the task natively.
    """

    default_rewards: ClassVar[Mapping[str, float]] = STANDARD_REWARDS
    default_timing: ClassVar[dict[str, Any]] = {
        "fixation": 500,
        "stimulus1": 500,
        "delay": 1000,
        "stimulus2": 500,
        "decision": 100,
    }

    rule = StandardDecision(fixation_periods=("fixation",), decision_periods=("decision",))

    def __init__(
        self,
        dt: float = 100,
        vpairs: Sequence[tuple[float, float]] | None = None,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        sigma: float = 1.0,
    ) -> None:
        super().__init__()
        self.vpairs = _checked_pairs(DEFAULT_VPAIRS if vpairs is None else vpairs)
        self.sigma = validate.number(sigma, "sigma", minimum=0) / np.sqrt(self.dt)
        self.abort = False
        self.vall = self.vpairs.ravel()
        self.vmin, self.vmax = float(self.vall.min()), float(self.vall.max())
        self.choices = np.array([1, 2])
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(2,), dtype=np.float32, name={"fixation": 0, "stimulus": 1}
        )
        self.action_space = spaces.Discrete(3, name={"fixation": 0, "choice": [1, 2]})

    def represent(self, v: Any) -> np.ndarray:
        """Input representation ``(1 + (v - vmin) / (vmax - vmin)) / 2`` of frequencies."""
        value: np.ndarray = (
            1 + (np.asarray(v, dtype=float) - self.vmin) / (self.vmax - self.vmin)
        ) / 2
        return value

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        ground_truth = b.choice("ground_truth", self.choices)
        pair = b.choice("vpair", self.vpairs).astype(float)
        swap = ground_truth == 2
        v1 = b.set_param("v1", np.where(swap, pair[:, 1], pair[:, 0]))
        v2 = b.set_param("v2", np.where(swap, pair[:, 0], pair[:, 1]))
        b.add_period(["fixation", "stimulus1", "delay", "stimulus2", "decision"])
        b.add_input(1, ["fixation", "stimulus1", "delay", "stimulus2"], where="fixation")
        b.add_input(self.represent(v1), "stimulus1", where="stimulus")
        b.add_input(self.represent(v2), "stimulus2", where="stimulus")
        b.add_noise(0, self.sigma, ["stimulus1", "stimulus2"])
        b.set_target(ground_truth, "decision")
        return {}


def _checked_pairs(vpairs: Any) -> np.ndarray:
    try:
        pairs = np.asarray(vpairs, dtype=float)
    except (TypeError, ValueError):
        pairs = np.empty(0)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or pairs.shape[0] == 0:
        raise ValueError(f"vpairs must be a non-empty sequence of (f1, f2) pairs, got {vpairs!r}")
    if not np.all(np.isfinite(pairs)) or pairs.min() == pairs.max():
        raise ValueError(f"vpairs must hold finite numbers, not all equal, got {vpairs!r}")
    return pairs
