"""Random-dot motion style two-alternative (or N-alternative) perceptual decisions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, StandardDecision, spaces, validate
from neurogym.rules import STANDARD_REWARDS

__all__ = [
    "PerceptualDecisionMaking",
    "PerceptualDecisionMakingDelayResponse",
    "PulseDecisionMaking",
]

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
    stimulus: np.ndarray = np.cos(theta[None, :] - target[:, None]) * (coh[:, None] / 200) + 0.5
    return stimulus


def ring_input(theta: np.ndarray, index: np.ndarray, coh: np.ndarray) -> np.ndarray:
    """:func:`ring_stimulus` for stimuli that point at ring units: ``target = theta[index]``.

    The same values: the cosine of each difference ``theta[i] - theta[j]`` is taken once
    in a ``(k, k)`` table and each trial picks its row. The product runs over trials in
    the inner loop, so the result is the transpose of a ``(k, B)`` array.

    Args:
        theta: Preferred directions of the ring units, ``(k,)``.
        index: The unit each trial's stimulus points at, ``(B,)`` ints.
        coh: Coherence per trial in percent, ``(B,)``.

    Returns:
        ``(B, k)`` float array.
    """
    cosines = np.cos(theta[None, :] - theta[:, None])  # [j, i]: cos(theta[i] - theta[j])
    by_unit = cosines.T.take(index, axis=1)  # (k, B): column b is unit index[b]'s row
    by_unit *= coh / 200
    by_unit += 0.5
    stimulus: np.ndarray = by_unit.T
    return stimulus


def ring_scores(evidence: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Matched-filter scores of each ring direction for summed ring evidence ``(B, k)``.

    ``ring_stimulus`` adds ``cos(theta - target) * coh / 200`` to a constant, so under
    Gaussian noise the log-likelihood of target ``j`` grows with ``evidence @ cos(theta -
    theta_j)`` (the constant cancels over a full ring): the arg-max is the ideal choice.
    """
    scores: np.ndarray = evidence @ np.cos(theta[:, None] - theta[None, :])
    return scores


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

    default_rewards: ClassVar[Mapping[str, float]] = STANDARD_REWARDS
    default_timing: ClassVar[dict[str, Any]] = {
        "fixation": 100,
        "stimulus": 2000,
        "delay": 0,
        "decision": 100,
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
        super().__init__()
        dim_ring = validate.integer(dim_ring, "dim_ring", minimum=2, maximum=validate.MAX_RING)
        cohs = DEFAULT_COHS if cohs is None else cohs
        self.cohs = np.array([validate.number(coh, "cohs[]") for coh in cohs])
        self.sigma = validate.number(sigma, "sigma", minimum=0) / np.sqrt(self.dt)
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

    def ideal_observer(self, batch: Any) -> np.ndarray:
        """Correct when the stimulus evidence, summed over the period, favours the answer.

        Zero-coherence trials are right half of the time; low coherences are noise-limited.
        """
        evidence = batch.period_sum("stimulus", slice(1, 1 + len(self.theta)))
        choice = ring_scores(evidence, self.theta).argmax(1)
        correct: np.ndarray = (choice == batch.trial["ground_truth"]).astype(float)
        return correct

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        ground_truth = b.choice("ground_truth", self.choices)
        coh = b.choice("coh", self.cohs, minimum=0)
        b.add_period(["fixation", "stimulus", "delay", "decision"])
        b.add_input(1, "fixation", where="fixation")
        b.add_input(ring_input(self.theta, ground_truth, coh), "stimulus", "stimulus")
        b.add_noise(0, self.sigma, "stimulus", where="stimulus")
        b.set_target(ground_truth, "decision", where="choice")
        return {}


DELAY_CHOICES = (300, 500, 700, 900, 1200, 2000, 3200, 4000)
"""Delay durations (ms) of PerceptualDecisionMakingDelayResponse, drawn uniformly."""


class PerceptualDecisionMakingDelayResponse(ngym.TrialEnv):
    """Two-alternative forced choice with the response given after a variable delay.

    ## Description
    After a stimulus in which two noisy channels differ by the coherence, the agent must hold
    the decision through a delay of variable length and report the stronger channel in the
    response window (the delayed-response design of Inagaki et al. 2019).

    ## Trial structure (periods)
    ``fixation`` (0 ms) → ``stimulus`` (1150 ms) → ``delay`` (one of 300, 500, 700, 900, 1200,
    2000, 3200 or 4000 ms, uniformly) → ``decision`` (1500 ms). Sampled durations are floored to
    a multiple of ``dt`` (the stimulus lasts 11 steps at ``dt=100``): 29 to 66 steps per trial.

    ## Observation space (named dims)
    ``Box(-inf, inf, (3,), float32)`` with unnamed dims, as upstream. Dim 0 (fixation cue) is
    1 in the fixation, stimulus and delay periods. Dims 1 and 2 carry ``(1 + coh/100) / 2`` on the
    channel of the ground truth and ``(1 - coh/100) / 2`` on the other one during the stimulus,
    plus Gaussian noise of std ``sigma / sqrt(dt)``. Every dim is 0 in the decision period.

    ## Action space
    ``Discrete(3)`` with unnamed actions: 0 fixates, 1 and 2 choose channel 1 or 2.

    ## Reward
    ``abort`` (-0.1) for a non-zero action in the fixation period (empty by default; the trial
    goes on). In the decision period any choice ends the trial with ``correct`` (+1,
    performance 1) or ``fail`` (0). Responding during the stimulus or the delay costs nothing.

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).
    stim_scale: Multiplies the coherences (0, 6.4, 12.8, 25.6, 51.2): the difficulty (1.0).
    sigma: Input noise, scaled by ``1 / sqrt(dt)`` (1.0).

    Trial dict: ``ground_truth`` (the correct action, 1 or 2), ``coh`` (percent, already scaled
    by ``stim_scale``), ``sigma`` (the per-step noise std ``sigma / sqrt(dt)``; forcing
    ``sigma=`` sets that std directly).

    ## References
    Inagaki, Fontolan, Romani & Svoboda (2019), "Discrete attractor dynamics underlies
    persistent activity in the frontal cortex", Nature 566:212-217.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, periods, rewards, trial-dict keys);
    trials are generated batch-natively and drawn from the env's seeded generator; invalid
    ``stim_scale`` or ``sigma`` raise ``ValueError``.
    """

    default_rewards: ClassVar[Mapping[str, float]] = STANDARD_REWARDS
    default_timing: ClassVar[dict[str, Any]] = {
        "fixation": 0,
        "stimulus": 1150,
        "delay": DELAY_CHOICES,
        "decision": 1500,
    }

    rule = StandardDecision(fixation_periods=("fixation",), decision_periods=("decision",))

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        stim_scale: float = 1.0,
        sigma: float = 1.0,
    ) -> None:
        super().__init__()
        self.stim_scale = validate.number(stim_scale, "stim_scale")
        self.choices = np.array([1, 2])
        self.cohs = np.asarray(DEFAULT_COHS, dtype=float) * self.stim_scale
        self.sigma = validate.number(sigma, "sigma", minimum=0) / np.sqrt(self.dt)
        self.abort = False
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(3,), dtype=np.float32)
        self.action_space = spaces.Discrete(3)

    def ideal_observer(self, batch: Any) -> np.ndarray:
        """Correct when the stronger summed stimulus input (dims 1, 2) is the answer's."""
        choice = self.choices[batch.period_sum("stimulus", [1, 2]).argmax(1)]
        correct: np.ndarray = (choice == batch.trial["ground_truth"]).astype(float)
        return correct

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        ground_truth = b.choice("ground_truth", self.choices)
        coh = b.choice("coh", self.cohs, minimum=0)
        forced = b.forced("sigma", number=True)
        if forced is not None and np.any(forced < 0):
            raise ValueError(f"forced sigma must be >= 0 (the noise std), got {kwargs['sigma']!r}")
        sigma = b.set_param("sigma", self.sigma if forced is None else forced).astype(float)
        b.add_period(["fixation", "stimulus", "delay", "decision"])
        cue = np.array([1.0, 0.0, 0.0])
        b.set_input(cue, "fixation")
        b.set_input(cue, "delay")
        signed = np.where(ground_truth[:, None] == self.choices[None, :], 1.0, -1.0)
        evidence = (1 + signed * (coh[:, None] / 100)) / 2
        b.set_input(np.concatenate([np.ones((b.n, 1)), evidence], axis=1), "stimulus")
        b.add_noise(0, sigma, "stimulus", where=[1, 2])
        b.set_target(ground_truth, "decision")
        return {}


class PulseDecisionMaking(ngym.TrialEnv):
    """Count brief pulses on two channels and report the channel that pulsed more often.

    ## Description
    A Poisson-clicks style accumulation task (Scott et al. 2015). Each trial has ``n_bin``
    bins; at the start of each bin, each channel pulses for one brief cue with its own
    probability. One channel pulses with probability ``p_pulse[0]``, the other with
    ``p_pulse[1]`` (which one is random). The correct choice is the channel with more pulses;
    ties are broken at random.

    ## Trial structure (periods)
    ``fixation`` (500 ms) → ``cue0`` (10 ms) → ``bin0`` (240 ms) → ... → ``cue{n_bin-1}`` →
    ``bin{n_bin-1}`` → ``decision`` (500 ms): 250 steps at the default ``dt=10`` and ``n_bin=6``.
    Cues shorter than ``dt`` vanish (with a warning), so keep ``dt <= 10``.

    ## Observation space (named dims)
    ``Box(-inf, inf, (3,), float32)``: ``fixation`` (0) is 1 in every period but the decision;
    ``stimulus`` (1, 2) is 1 on a channel during ``cue{i}`` if that channel pulses in bin ``i``,
    else 0. Every dim is 0 in the decision period. There is no noise.

    ## Action space
    ``Discrete(3)``: ``fixation`` (0), ``choice`` (1, 2).

    ## Reward
    ``abort`` (-0.1) for any non-zero action outside the decision period (the trial goes on
    unless ``abort`` is set on the env; it is False). In the decision period any choice ends
    the trial with ``correct`` (+1, performance 1) or ``fail`` (0).

    ## Arguments
    dt: Step size in ms (10).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form; keys ``fixation``,
        ``decision``, ``cue{i}``, ``bin{i}``).
    p_pulse: Pulse probabilities of the two channels, assigned to channels at random each
        trial ((0.3, 0.7)).
    n_bin: Number of bins, i.e. of potential pulses per channel (6).

    Trial dict: ``ground_truth`` (choice index 0 or 1; action ``ground_truth + 1``),
    ``pulse1`` and ``pulse2`` (``(n_bin,)`` arrays of 0.0/1.0). Forced ``pulse1``/``pulse2``
    (``(n_bin,)`` or ``(B, n_bin)``) are shown and scored. A forced ``ground_truth`` without
    forced pulses swaps the two channels' drawn pulses where needed, which gives exactly the
    pulse distribution conditioned on that ground truth; with forced pulses it is used as is.

    ## References
    Scott, Constantinople, Erlich, Tank & Brody (2015), "Sources of noise during accumulation
    of evidence in unrestrained and voluntarily head-restrained rats", eLife 4:e11308.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, periods, rewards, trial-dict keys), with
    these differences: a forced ``ground_truth`` is honoured (upstream overwrote it with the
    one computed from its own pulses); forced ``pulse1``/``pulse2`` drive the observations and
    the ground truth (upstream recorded them in the trial dict but showed and scored freshly
    drawn pulses); the env has ``choices = [0, 1]`` so ground-truth wrappers work; invalid
    ``p_pulse``/``n_bin`` raise ``ValueError``; ``paper_name`` has single spaces. Trials are
    generated batch-natively and drawn from the env's seeded generator.
    """

    default_rewards: ClassVar[Mapping[str, float]] = STANDARD_REWARDS

    def __init__(
        self,
        dt: float = 10,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        p_pulse: tuple[float, float] = (0.3, 0.7),
        n_bin: int = 6,
    ) -> None:
        super().__init__(dt=dt, rewards=rewards)
        self.p_pulse = _pulse_probabilities(p_pulse)
        self.n_bin = validate.positive_int(n_bin, "n_bin")
        self.choices = np.arange(2)
        self.timing = {"fixation": 500, "decision": 500}
        for i in range(self.n_bin):
            self.timing[f"cue{i}"] = 10
            self.timing[f"bin{i}"] = 240
        if timing:
            self.timing.update(timing)
        self.abort = False
        self.periods = ["fixation"]
        for i in range(self.n_bin):
            self.periods += [f"cue{i}", f"bin{i}"]
        self.periods.append("decision")
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(3,), dtype=np.float32, name={"fixation": 0, "stimulus": [1, 2]}
        )
        self.action_space = spaces.Discrete(3, name={"fixation": 0, "choice": [1, 2]})

    def ideal_observer(self, batch: Any) -> np.ndarray:
        """Right when the channels pulsed unequally often, half of the time on a tie.

        A tie is broken by a jitter the observation never shows, so no observer can do better.
        """
        counts = [np.asarray(batch.trial[name]).sum(axis=-1) for name in ("pulse1", "pulse2")]
        correct: np.ndarray = np.where(counts[0] == counts[1], 0.5, 1.0)
        return correct

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        swap = b.rng.random(b.n) < 0.5  # which channel gets which pulse probability
        probs = np.where(swap[:, None], self.p_pulse[::-1], self.p_pulse)
        pulses = (b.rng.random((b.n, 2, self.n_bin)) < probs[:, :, None]).astype(float)
        trains = [b.forced(name, (self.n_bin,)) for name in ("pulse1", "pulse2")]
        for channel, train in enumerate(trains):
            if train is not None:
                pulses[:, channel] = train
        counts = pulses.sum(axis=2)
        jitter = -0.1 + 0.2 * b.rng.random(b.n)  # U(-0.1, 0.1): breaks ties at random
        ground_truth = (counts[:, 0] < counts[:, 1] + jitter).astype(np.int64)
        forced = b.forced("ground_truth")
        if forced is not None:
            forced = validate.integers_in_range(forced, "ground_truth", 0, 1)
            if all(train is None for train in trains):  # a swap flips the answer, unless tied
                pulses = np.where((forced != ground_truth)[:, None, None], pulses[:, ::-1], pulses)
            ground_truth = forced
        b.set_param("ground_truth", ground_truth)
        b.set_param("pulse1", pulses[:, 0])
        b.set_param("pulse2", pulses[:, 1])
        b.add_period(self.periods)
        b.add_input(1, None, where="fixation")
        for i in range(self.n_bin):
            b.add_input(pulses[:, :, i], f"cue{i}", where="stimulus")
        b.set_input(0, "decision")
        b.set_target(ground_truth, "decision", where="choice")
        return {}

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        reward = 0.0
        new_trial = False
        if action != 0:
            if self.in_period("decision"):
                new_trial = True
                if action == self.gt_now:
                    reward = self.rewards["correct"]
                    self.performance = 1
                else:
                    reward = self.rewards["fail"]
            else:
                new_trial = self.abort
                reward = self.rewards["abort"]
        return self.ob_now, reward, False, False, {"new_trial": new_trial}


def _pulse_probabilities(p_pulse: Any) -> tuple[float, float]:
    """Validates ``p_pulse``: two probabilities."""
    values = tuple(p_pulse) if isinstance(p_pulse, (list, tuple, np.ndarray)) else ()
    if len(values) != 2:
        raise ValueError(f"p_pulse must be two probabilities (p1, p2), got {p_pulse!r}")
    first, second = (validate.probability(v, f"p_pulse[{i}]") for i, v in enumerate(values))
    return first, second
