"""Random-dot motion style two-alternative (or N-alternative) perceptual decisions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, StandardDecision, spaces

__all__ = ["PerceptualDecisionMaking"]

DEFAULT_COHS = (0.0, 6.4, 12.8, 25.6, 51.2)


def ring_stimulus(theta: np.ndarray, target: np.ndarray, coh: np.ndarray) -> np.ndarray:
    """Ring input ``cos(theta - theta_target) * coh / 200 + 0.5`` for a batch.

    Args:
        theta: Preferred directions of the ring units, ``(k,)``.
        target: Direction of the stimulus per trial, ``(B,)``.
        coh: Coherence per trial in percent, ``(B,)``.

    Returns:
        ``(B, k)`` float array.
    """
    return np.cos(theta[None, :] - target[:, None]) * (coh[:, None] / 200) + 0.5


class PerceptualDecisionMaking(ngym.TrialEnv):
    """Two-alternative forced choice: report which of two noisy stimuli is stronger on average.

    ## Description
    A random-dot motion analogue (Britten et al. 1992). After a fixation period, a noisy ring
    stimulus points to the correct choice with a strength set by the coherence; the agent
    integrates it and answers in the decision period.

    ## Trial structure (periods)
    ``fixation`` (100 ms) → ``stimulus`` (2000 ms) → ``delay`` (0 ms) → ``decision`` (100 ms).

    ## Observation space (named dims)
    ``Box(-inf, inf, (1 + dim_ring,), float32)``: ``fixation`` (0) is 1 during the fixation
    period only; ``stimulus`` (1..dim_ring) carries ``cos(theta - theta_gt) * coh / 200 + 0.5``
    plus Gaussian noise of std ``sigma / sqrt(dt)`` during the stimulus.

    ## Action space
    ``Discrete(1 + dim_ring)``: ``fixation`` (0), ``choice`` (1..dim_ring).

    ## Reward
    ``abort`` (-0.1) for breaking fixation during fixation (ends the trial only when
    ``abort=True``); in the decision period any choice ends the trial with ``correct`` (+1,
    performance 1) or ``fail`` (0). No penalty for responding during stimulus or delay.

    ## Arguments
    dt: Step size in ms (100).
    dim_ring: Number of choices / ring units (2).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).
    cohs: Coherences in percent (0, 6.4, 12.8, 25.6, 51.2).
    sigma: Input noise, scaled by ``1 / sqrt(dt)`` (1.0).
    abort: Whether breaking fixation ends the trial (False).

    Trial dict: ``ground_truth`` (choice index 0..dim_ring-1), ``coh``.

    ## References
    Britten, Shadlen, Newsome & Movshon (1992), "The analysis of visual motion: a comparison of
    neuronal and psychophysical performance", J. Neurosci. 12(12):4745.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, periods, rewards); trials are generated
    batch-natively and drawn from the env's seeded generator.
    """

    metadata = {  # noqa: RUF012
        "paper_link": "https://www.jneurosci.org/content/12/12/4745",
        "paper_name": (
            "The analysis of visual motion: a comparison of neuronal and psychophysical "
            "performance"
        ),
        "tags": ["perceptual", "two-alternative", "supervised"],
    }
    rule = StandardDecision(fixation_periods=("fixation",), decision_periods=("decision",))

    def __init__(
        self,
        dt: float = 100,
        dim_ring: int = 2,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        cohs: Any = None,
        sigma: float = 1.0,
        abort: bool = False,
    ) -> None:
        super().__init__(dt=dt)
        if int(dim_ring) < 2:
            raise ValueError(f"dim_ring must be an int >= 2, got {dim_ring!r}")
        self.cohs = np.asarray(DEFAULT_COHS if cohs is None else cohs, dtype=float)
        self.sigma = sigma / np.sqrt(self.dt)
        self.rewards = {"abort": -0.1, "correct": +1.0, "fail": 0.0}
        if rewards:
            self.rewards.update(rewards)
        self.timing = {"fixation": 100, "stimulus": 2000, "delay": 0, "decision": 100}
        if timing:
            self.timing.update(timing)
        self.abort = abort
        self.theta = np.linspace(0, 2 * np.pi, dim_ring + 1)[:-1]
        self.choices = np.arange(dim_ring)
        self.observation_space = spaces.Box(
            -np.inf,
            np.inf,
            shape=(1 + dim_ring,),
            dtype=np.float32,
            name={"fixation": 0, "stimulus": range(1, dim_ring + 1)},
        )
        self.action_space = spaces.Discrete(
            1 + dim_ring, name={"fixation": 0, "choice": range(1, dim_ring + 1)}
        )

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        ground_truth = b.choice("ground_truth", self.choices)
        coh = b.choice("coh", self.cohs)
        b.add_period(["fixation", "stimulus", "delay", "decision"])
        b.add_ob(1, "fixation", where="fixation")
        b.add_ob(ring_stimulus(self.theta, self.theta[ground_truth], coh), "stimulus", "stimulus")
        b.add_randn(0, self.sigma, "stimulus", where="stimulus")
        b.set_groundtruth(ground_truth, "decision", where="choice")
        return {}
