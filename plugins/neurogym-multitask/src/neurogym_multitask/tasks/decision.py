"""The decision-making family of Yang et al. 2019: dm1 ... multidm and their delayed versions.

dm1, dm2, ctxdm1, ctxdm2, multidm, dlydm1, dlydm2, ctxdlydm1, ctxdlydm2, multidlydm: one
batch-native generator (:class:`DecisionTask`) builds all ten; the subclasses fix the
coherences, the weights and presence of the two modalities and the delay, as upstream's
factories did.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from neurogym import BatchBuilder, validate
from neurogym_multitask.tasks._ring import (
    N_MODALITIES,
    RingTask,
    gaussian_bump,
    indices_of,
)

__all__ = [
    "DM1",
    "DM2",
    "CtxDM1",
    "CtxDM2",
    "CtxDlyDM1",
    "CtxDlyDM2",
    "DecisionTask",
    "DlyDM1",
    "DlyDM2",
    "MultiDM",
    "MultiDlyDM",
]

_DM_COHS = (0.08, 0.16, 0.32, 0.64)
_DLY_COHS = (0.3, 0.6, 1.0)


def _pair_weights(value: Any, name: str) -> tuple[float, float]:
    values = tuple(value) if isinstance(value, (tuple, list)) else ()
    if len(values) != N_MODALITIES:
        raise ValueError(f"{name} must be a pair (one per modality), got {value!r}")
    return validate.number(values[0], f"{name}[0]"), validate.number(values[1], f"{name}[1]")


def _pair_flags(value: Any) -> tuple[bool, bool]:
    values = tuple(value) if isinstance(value, (tuple, list)) else ()
    if len(values) != N_MODALITIES or not all(isinstance(v, (bool, np.bool_)) for v in values):
        raise ValueError(f"stim_mod must be a pair of bools (one per modality), got {value!r}")
    if not any(values):
        raise ValueError(f"stim_mod must show at least one modality, got {value!r}")
    return bool(values[0]), bool(values[1])


class DecisionTask(RingTask):
    """Choose the direction of the stronger of two stimuli, in one or two modalities.

    ## Description
    Two Gaussian bumps at distinct random directions ``theta1`` and ``theta2`` appear in each
    modality that ``stim_mod`` shows, with strengths ``coh1_modX`` and ``coh2_modX``. The agent
    saccades to the direction whose ``w_mod``-weighted strength summed over modalities is larger
    (ties broken by a uniform jitter of 1e-6). Without a delay (dm tasks) both bumps are shown
    together, with strengths ``0.5 +- c / 2`` for a coherence ``c`` drawn from ``cohs`` with a
    random sign; with a delay (dly tasks) ``theta1`` is shown in ``stim1`` and ``theta2`` in
    ``stim2``, with two different strengths drawn from ``cohs``. ``ctx`` tasks show both
    modalities and weight only one; ``multi`` tasks weight both.

    ## Trial structure (periods)
    ``fixation`` (uniform 200-500 ms) -> ``stimulus`` (500 ms) -> ``decision`` (200 ms); with
    ``delaycomparison``: ``fixation`` -> ``stim1`` (500 ms) -> ``delay`` (1000 ms) -> ``stim2``
    (500 ms) -> ``decision`` (200 ms).

    ## Observation space (named dims)
    ``Box(-inf, inf, (1 + 2 * dim_ring,), float32)``: ``fixation`` (0) is 1 in every period
    before ``decision`` (stimuli and delay included) and carries no noise; ``stimulus_mod1`` and
    ``stimulus_mod2`` carry the bumps. Gaussian noise of std ``sigma / sqrt(dt)`` is added to
    both stimulus rings (shown or not) during the stimulus periods, as upstream 2.3.1; every dim
    is 0 in the decision period.

    The fixation input follows the authors' code, not upstream 2.3.1's DM family (which shows
    it in ``fixation`` only): in github.com/gyyang/multitask ``task.py`` every decision task
    calls ``trial.add('fix_in', offs=fix_offs)``, the fixation input on until ``fix_offs``, the
    start of the response period; upstream's own go family does the same. The authors' input
    noise (``Trial.add_x_noise``: every input unit at every step, std ``sigma_x * sqrt(2 /
    alpha)``) is not followed. Both are declared differences (the plugin's differences file).

    ## Action space
    ``Discrete(1 + dim_ring)``: ``fixation`` (0), ``choice`` (1..dim_ring).

    ## Reward
    ``abort`` (-0.1) for a non-zero action in the fixation period (the trial goes on). The first
    response in the decision period ends the trial with ``correct`` (+1, performance 1) or
    ``fail`` (0).

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).
    sigma: Input noise, scaled by ``1 / sqrt(dt)`` (1.0).
    cohs: Coherences (the subclass sets the default).
    dim_ring: Units per modality ring (16).
    w_mod: Weight of each modality in the decision (a pair).
    stim_mod: Whether each modality shows the stimuli (a pair of bools).
    delaycomparison: Show the two stimuli one after the other, with a delay.

    Trial dict: ``theta1``, ``theta2`` (radians; can be forced), ``coh1_modX``, ``coh2_modX``
    for each shown modality X (can be forced), ``ground_truth`` (the target direction index,
    derived from the others) and, without a delay, ``stim_period`` (the stimulus duration in
    ms, as upstream).

    ## References
    Yang, Joglekar, Song, Newsome & Wang (2019), "Task representations in neural networks
    trained to perform many cognitive tasks", Nat. Neurosci. 22:297-306.

    ## Version history
    v0: upstream NeuroGym 2.3.1's ``_DMFamily`` (dt, ring, timing, coherences, noise, target
    rule; checked by the differential fidelity test) with the fixation input of the authors'
    code, declarative timing and the decision rule declared, so batches and vector envs are
    native.
    """

    default_cohs: tuple[float, ...] = _DM_COHS
    default_w_mod: tuple[float, float] = (1, 1)
    default_stim_mod: tuple[bool, bool] = (True, True)
    default_delaycomparison = False
    default_stimulus: Any = 500

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        sigma: float = 1.0,
        cohs: Sequence[float] | None = None,
        dim_ring: int = 16,
        w_mod: Sequence[float] | None = None,
        stim_mod: Sequence[bool] | None = None,
        delaycomparison: bool | None = None,
    ) -> None:
        delay = self.default_delaycomparison if delaycomparison is None else delaycomparison
        self.delaycomparison = bool(delay)
        super().__init__(dt, rewards, timing, dim_ring, self._default_timing())
        self.sigma = validate.number(sigma, "sigma", minimum=0) / np.sqrt(self.dt)
        cohs = self.default_cohs if cohs is None else cohs
        self.cohs = np.array([validate.number(c, "cohs[]") for c in cohs], dtype=float)
        if self.cohs.size < (2 if self.delaycomparison else 1):
            raise ValueError(
                f"cohs must hold {'two' if self.delaycomparison else 'one'} or more values "
                f"(two differ per trial with delaycomparison), got {cohs!r}"
            )
        self.w_mod = _pair_weights(self.default_w_mod if w_mod is None else w_mod, "w_mod")
        self.stim_mod = _pair_flags(self.default_stim_mod if stim_mod is None else stim_mod)

    def _default_timing(self) -> dict[str, Any]:
        if self.delaycomparison:
            return {
                "fixation": ("uniform", (200, 500)),
                "stim1": 500,
                "delay": 1000,
                "stim2": 500,
                "decision": 200,
            }
        return {
            "fixation": ("uniform", (200, 500)),
            "stimulus": self.default_stimulus,
            "decision": 200,
        }

    @property
    def stimulus_periods(self) -> tuple[str, str]:
        """The periods showing ``theta1`` and ``theta2``."""
        return ("stim1", "stim2") if self.delaycomparison else ("stimulus", "stimulus")

    def _cohs(self, b: BatchBuilder, mod: int) -> tuple[np.ndarray, np.ndarray]:
        """Strengths of the two stimuli in modality ``mod`` (1 or 2), forced values first."""
        n, k = b.n, self.cohs.size
        if self.delaycomparison:  # two different coherences
            i = (b.rng.random(n) * k).astype(np.intp)
            j = (i + 1 + (b.rng.random(n) * (k - 1)).astype(np.intp)) % k
            coh1, coh2 = self.cohs[i], self.cohs[j]
        else:
            c = self.cohs[(b.rng.random(n) * k).astype(np.intp)]
            c = c * np.where(b.rng.random(n) < 0.5, -1.0, 1.0)
            coh1, coh2 = 0.5 + c / 2, 0.5 - c / 2
        out = []
        for which, drawn in ((1, coh1), (2, coh2)):
            name = f"coh{which}_mod{mod}"
            forced = b.forced(name, number=True, minimum=0)  # a stimulus strength
            out.append(b.set_param(name, drawn if forced is None else forced.astype(float)))
        return out[0], out[1]

    def _directions(self, b: BatchBuilder) -> tuple[np.ndarray, np.ndarray]:
        """Indices of ``theta1`` and a different ``theta2``, forced values first."""
        n, k = b.n, self.dim_ring
        i1 = self.ring_angle(b, "theta1")
        others = (b.rng.random(n) * (k - 1)).astype(np.intp)
        if "theta2" in b.kwargs:
            i2 = self.ring_angle(b, "theta2")
        else:
            i2 = (i1 + 1 + others) % k
            b.set_param("theta2", self.theta[i2])
        if np.any(i1 == i2):
            raise ValueError("theta1 and theta2 must differ in every trial")
        return i1, i2

    def ideal_observer(self, batch: Any) -> np.ndarray:
        """The Bayesian observer of the stimulus strengths, knowing the two directions.

        What it knows: the generative process (the bumps' tuning curves, the coherence prior
        ``cohs``, the weights ``w_mod``, the Gaussian input noise of std ``sigma`` per step)
        and each trial's two directions ``theta1`` and ``theta2`` (not which is stronger).
        What it sees: each weighted modality's input summed over each stimulus period.

        Per weighted modality the sums give a sufficient statistic of the strengths: without a
        delay, the projection on the difference of the two tuning curves, an unbiased
        estimate of the signed coherence ``c`` (the strengths are ``0.5 +- c / 2``); with a
        delay, each period's projection on its own curve, an estimate of that stimulus's
        strength. Each has a Gaussian likelihood of known variance. The observer weighs every
        combination the prior allows (``+-c`` for each ``c`` in ``cohs``, independently per
        modality; with a delay, two different values of ``cohs``) by its likelihood and
        answers the direction whose ``w_mod``-weighted strength is larger in more of the
        posterior mass; combinations whose weighted strengths tie (the hidden 1e-6 jitter
        decides those trials) count for neither.

        With one weighted modality this is the sign of the estimate, the matched filter. With
        two it is not: multidlydm's observer scores 0.916 on 20,000 trials where the sum of the
        two modalities' estimates scores 0.903. Trials whose strengths were forced to values
        outside the prior are judged with the task's prior all the same.
        """
        first, second = self.stronger_posterior(batch)
        theta1, theta2 = batch.trial["theta1"], batch.trial["theta2"]
        n = self.dim_ring
        choice = np.where(first > second, indices_of(theta1, n), indices_of(theta2, n))
        correct: np.ndarray = (choice == batch.trial["ground_truth"]).astype(float)
        return correct

    def stronger_posterior(self, batch: Any) -> tuple[np.ndarray, np.ndarray]:
        """Per trial, the posterior probability that stimulus 1, and that stimulus 2, is stronger.

        The posterior of :meth:`ideal_observer` (see there), ``(B,)`` each; the rest of the
        mass, ``1 - first - second``, is on weighted strengths that tie.
        """
        theta1 = np.asarray(batch.trial["theta1"], dtype=float)
        theta2 = np.asarray(batch.trial["theta2"], dtype=float)
        f1, f2 = gaussian_bump(theta1, self.theta), gaussian_bump(theta2, self.theta)
        weighted = [m for m, shown in enumerate(self.stim_mod) if shown and self.w_mod[m]]
        likelihoods = [self._likelihood(batch, m, f1, f2) for m in weighted]
        margin, log_likelihood = _combine(likelihoods, len(theta1))
        mass = np.exp(log_likelihood - log_likelihood.max(axis=1, keepdims=True))
        mass /= mass.sum(axis=1, keepdims=True)
        return (mass * (margin > _TIE)).sum(1), (mass * (margin < -_TIE)).sum(1)

    def _likelihood(
        self, batch: Any, m: int, f1: np.ndarray, f2: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Modality ``m``'s hypotheses: their weighted margins and log-likelihoods.

        A hypothesis is one pair of strengths (stimulus 1, stimulus 2) the prior allows; its
        margin is their ``w_mod``-weighted difference, ``(K,)``; the log-likelihoods are
        ``(B, K)``.
        """
        dims = slice(1 + m * self.dim_ring, 1 + (m + 1) * self.dim_ring)
        first, second = self.stimulus_periods
        if self.delaycomparison:  # one bump per period: each strength estimated on its own
            i, j = np.nonzero(~np.eye(self.cohs.size, dtype=bool))
            strength1, strength2 = self.cohs[i], self.cohs[j]
            seen1 = _estimate(batch, first, dims, f1, self.sigma)
            seen2 = _estimate(batch, second, dims, f2, self.sigma)
            log_likelihood1 = _gaussian_log_likelihood(*seen1, strength1)
            log_likelihood2 = _gaussian_log_likelihood(*seen2, strength2)
            return self.w_mod[m] * (strength1 - strength2), log_likelihood1 + log_likelihood2
        # both bumps at once, strengths 0.5 +- c / 2: the half-sum is known, c is estimated
        steps = _period_steps(batch, first)
        centred = batch.period_sum(first, dims) - steps[:, None] * (f1 + f2) / 2
        estimate, variance = _estimate_from_sum(centred, (f1 - f2) / 2, steps, self.sigma)
        signed = np.concatenate([self.cohs, -self.cohs])
        return self.w_mod[m] * signed, _gaussian_log_likelihood(estimate, variance, signed)

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        b.not_forceable("ground_truth", "the stimuli (force theta1/theta2/cohs instead)")
        i1, i2 = self._directions(b)
        n = self.dim_ring
        # Whole observation rows of the two stimulus periods (fixation input included), so
        # each period is written once (fewer ragged writes: fixation durations vary).
        first = np.zeros((b.n, 1 + 2 * n))
        first[:, 0] = 1.0
        second = first.copy() if self.delaycomparison else first
        evidence1 = np.zeros(b.n)
        evidence2 = np.zeros(b.n)
        for m, shown in enumerate(self.stim_mod):
            if not shown:
                continue
            coh1, coh2 = self._cohs(b, m + 1)
            block = slice(1 + m * n, 1 + (m + 1) * n)
            first[:, block] += gaussian_bump(self.theta[i1], self.theta, coh1)
            second[:, block] += gaussian_bump(self.theta[i2], self.theta, coh2)
            evidence1 += self.w_mod[m] * coh1
            evidence2 += self.w_mod[m] * coh2
        # The fixation input stays 1 until the decision period (the authors' rule, see the
        # class docstring); noise goes on both stimulus rings during the stimuli (upstream's).
        if self.delaycomparison:
            b.add_period(["fixation", "stim1", "delay", "stim2", "decision"])
            b.add_input(1, ["fixation", "delay"], where="fixation")
            b.add_input(first, "stim1")
            b.add_input(second, "stim2")
            b.add_noise(0, self.sigma, ["stim1", "stim2"], where=self.stimulus_dims)
        else:
            b.add_period(["fixation", "stimulus", "decision"])
            b.add_input(1, "fixation", where="fixation")
            b.add_input(first, "stimulus")
            b.add_noise(0, self.sigma, "stimulus", where=self.stimulus_dims)
            b.set_param("stim_period", b.end_t["stimulus"] - b.start_t["stimulus"])
        jitter = b.rng.uniform(-1e-6, 1e-6, size=b.n)
        target = b.set_param("ground_truth", np.where(evidence1 + jitter > evidence2, i1, i2))
        b.set_target(target, "decision", where="choice")
        return {}


_TIE = 1e-6  # weighted strengths closer than this tie (the hidden jitter decides)
_MIN_VARIANCE = 1e-12  # sigma=0: the likelihood of the exact strengths dominates


def _period_steps(batch: Any, period: str) -> np.ndarray:
    """Per trial, the steps of ``period``."""
    start, end = batch.periods[period]
    steps: np.ndarray = (np.asarray(end) - np.asarray(start)).astype(float)
    return steps


def _estimate_from_sum(
    summed: np.ndarray, curve: np.ndarray, steps: np.ndarray, sigma: float
) -> tuple[np.ndarray, np.ndarray]:
    """The strength of ``curve`` (per step) in an input summed over ``steps``, and its variance.

    The least-squares estimate under noise of std ``sigma`` per unit and step: unbiased,
    Gaussian, of variance ``sigma^2 / (steps |curve|^2)``.
    """
    norm = (curve * curve).sum(1) * steps
    estimate = (summed * curve).sum(1) / norm
    variance = np.maximum(sigma**2 / norm, _MIN_VARIANCE)
    return estimate, variance


def _estimate(
    batch: Any, period: str, dims: slice, curve: np.ndarray, sigma: float
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_estimate_from_sum` of one bump shown alone in ``period``."""
    steps = _period_steps(batch, period)
    return _estimate_from_sum(batch.period_sum(period, dims), curve, steps, sigma)


def _gaussian_log_likelihood(
    estimate: np.ndarray, variance: np.ndarray, values: np.ndarray
) -> np.ndarray:
    """``(B, K)``: log-likelihood of each true value (up to a per-trial constant)."""
    out: np.ndarray = -((estimate[:, None] - values[None, :]) ** 2) / (2 * variance[:, None])
    return out


def _combine(
    hypotheses: Sequence[tuple[np.ndarray, np.ndarray]], n_trials: int
) -> tuple[np.ndarray, np.ndarray]:
    """Independent modalities' hypotheses joined: summed margins, summed log-likelihoods.

    Without a weighted modality, one hypothesis: a tie.
    """
    margin, log_likelihood = np.zeros(1), np.zeros((n_trials, 1))
    for more_margin, more_log_likelihood in hypotheses:
        margin = (margin[:, None] + more_margin[None, :]).ravel()
        joint = log_likelihood[:, :, None] + more_log_likelihood[:, None, :]
        log_likelihood = joint.reshape(len(joint), -1)
    return margin, log_likelihood


class DM1(DecisionTask):
    """yang19.dm1: choose the stronger stimulus in modality 1 (see :class:`DecisionTask`).

    Its stimulus lasts 200, 400 or 600 ms (upstream 2.3.1's dm1 timing); dm2 and the context
    tasks show it for 500 ms.
    """

    default_stim_mod = (True, False)
    default_stimulus = ("choice", [200, 400, 600])


class DM2(DecisionTask):
    """yang19.dm2: choose the stronger stimulus in modality 2 (see :class:`DecisionTask`)."""

    default_stim_mod = (False, True)


class CtxDM1(DecisionTask):
    """yang19.ctxdm1: both modalities shown, only modality 1 counts (see DecisionTask)."""

    default_w_mod = (1, 0)


class CtxDM2(DecisionTask):
    """yang19.ctxdm2: both modalities shown, only modality 2 counts (see DecisionTask)."""

    default_w_mod = (0, 1)


class MultiDM(DecisionTask):
    """yang19.multidm: both modalities shown, their evidence summed (see DecisionTask)."""


class DlyDM1(DecisionTask):
    """yang19.dlydm1: two stimuli separated by a delay, modality 1 (see DecisionTask)."""

    default_cohs = _DLY_COHS
    default_delaycomparison = True
    default_stim_mod = (True, False)


class DlyDM2(DecisionTask):
    """yang19.dlydm2: two stimuli separated by a delay, modality 2 (see DecisionTask)."""

    default_cohs = _DLY_COHS
    default_delaycomparison = True
    default_stim_mod = (False, True)


class CtxDlyDM1(DecisionTask):
    """yang19.ctxdlydm1: delayed, both modalities shown, modality 1 counts (see DecisionTask)."""

    default_cohs = _DLY_COHS
    default_delaycomparison = True
    default_w_mod = (1, 0)


class CtxDlyDM2(DecisionTask):
    """yang19.ctxdlydm2: delayed, both modalities shown, modality 2 counts (see DecisionTask)."""

    default_cohs = _DLY_COHS
    default_delaycomparison = True
    default_w_mod = (0, 1)


class MultiDlyDM(DecisionTask):
    """yang19.multidlydm: delayed, both modalities shown and summed (see DecisionTask)."""

    default_cohs = _DLY_COHS
    default_delaycomparison = True
