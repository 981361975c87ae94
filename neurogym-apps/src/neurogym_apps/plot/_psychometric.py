"""Psychometric curves: collect (signed strength, choice) pairs, fit a logistic or probit."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, overload

import gymnasium as gym
import numpy as np
from matplotlib.figure import Figure

from neurogym import validate
from neurogym_apps.plot._run import Policy, run_env

if TYPE_CHECKING:
    from neurogym_apps.plot._psignifit import PsignifitFit

__all__ = ["PsychometricFit", "collect_choices", "fit_psychometric", "plot_psychometric"]

Kind = Literal["logistic", "probit"]
_erf = np.frompyfunc(math.erf, 1, 1)


def _cdf(eta: np.ndarray, kind: Kind) -> np.ndarray:
    if kind == "logistic":
        out: np.ndarray = 1 / (1 + np.exp(-np.clip(eta, -500, 500)))
        return out
    erf = np.asarray(_erf(eta / math.sqrt(2)), dtype=float)
    return 0.5 * (1 + erf)


def _pdf(eta: np.ndarray, kind: Kind) -> np.ndarray:
    if kind == "logistic":
        p = _cdf(eta, kind)
        slope: np.ndarray = p * (1 - p)
        return slope
    density: np.ndarray = np.exp(-0.5 * eta**2) / math.sqrt(2 * math.pi)
    return density


@dataclasses.dataclass(frozen=True)
class PsychometricFit:
    """A fitted psychometric function ``P(choice) = F((x - bias) / scale)``.

    Attributes:
        kind: ``"logistic"`` or ``"probit"`` (F is the logistic or normal CDF).
        bias: The point of subjective equality: the strength where P = 0.5.
        scale: The width (the slope at ``bias`` is ``F'(0) / scale``).
        n: Number of choices fitted.
        method: ``"ml"`` (maximum likelihood) or ``"firth"`` (Firth's bias-reduced fit, used
            when the strengths separate the choices perfectly and the ML slope is infinite).
    """

    kind: Kind
    bias: float
    scale: float
    n: int
    method: str = "ml"

    def predict(self, x: Any) -> np.ndarray:
        """P(choice = 1) at strengths ``x``."""
        return _cdf((np.asarray(x, dtype=float) - self.bias) / self.scale, self.kind)


def fit_psychometric(x: Any, choices: Any, kind: Kind = "logistic") -> PsychometricFit:
    """Fit of ``P(choice = 1 | x)`` (a binomial GLM, Fisher scoring).

    Maximum likelihood, unless the strengths separate the choices perfectly (a network that
    never errs; also when the choices mix only at one strength, as a perfect network's
    coherence-0 trials do): the ML slope is then infinite, and the logistic fit is Firth's
    bias-reduced estimate (Firth 1993, Biometrika 80:27-38: the likelihood penalised by the
    Jeffreys prior), which is finite and steep; ``method`` says which was used.

    It has no lapse rates and no intervals: :func:`~neurogym_apps.plot.fit_psignifit` (psignifit
    4) gives both and is the fit of ``neurogym train``'s figures. This one stays where psignifit
    cannot serve: many distinct strengths (psignifit takes 0.15 s per strength, 47 s for 300
    continuous ones, measured; this fit 1.4 ms), an install without psignifit, and the
    NeuroGym 2.3.1 wrappers and earlier figures (``plot_psychometric``'s default).

    Args:
        x: Signed stimulus strengths, one per trial.
        choices: 0/1 (or bool) choices, one per trial.
        kind: ``"logistic"`` or ``"probit"``.

    Returns:
        The :class:`PsychometricFit`.

    Raises:
        ValueError: On mismatched or non-binary inputs, fewer than 2 distinct strengths, only
            one choice made, a probit fit of separated choices (use the logistic), choices
            that do not depend on strength, or a fit that does not converge.
    """
    validate.choice(kind, "kind", ("logistic", "probit"))
    xs, ys = checked_trials(x, choices)
    ones, zeros = xs[ys == 1], xs[ys == 0]
    # (quasi-)complete separation: a threshold with only one choice on either side, the
    # choices mixed at most at the threshold itself (a network that never errs, answering
    # coherence 0 at chance): the ML slope is infinite in both cases
    separated = ones.min() >= zeros.max() or zeros.min() >= ones.max()
    if separated and kind != "logistic":
        raise ValueError(
            "strength separates the choices perfectly: the probit slope is infinite; "
            "kind='logistic' gives Firth's bias-reduced (finite) fit"
        )
    width = np.abs(xs).max() or 1.0
    design = np.column_stack([np.ones_like(xs), xs / width])
    beta = _scoring(design, ys, kind, firth=separated)
    slope = beta[1] / width
    if slope == 0:
        raise ValueError("the fitted slope is 0: choices do not depend on strength")
    method = "firth" if separated else "ml"
    return PsychometricFit(kind, float(-beta[0] / slope), float(1 / slope), int(xs.size), method)


def checked_trials(x: Any, choices: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(strengths, choices)`` as flat float arrays, checked for any psychometric fit.

    Raises:
        ValueError: On mismatched or non-binary inputs, fewer than 2 distinct strengths or
            only one choice made.
    """
    xs = np.asarray(x, dtype=float).ravel()
    ys = np.asarray(choices, dtype=float).ravel()
    if xs.shape != ys.shape or xs.size == 0:
        raise ValueError(f"x and choices need one value per trial, got {xs.size} and {ys.size}")
    if not np.all(np.isin(ys, (0.0, 1.0))) or not np.all(np.isfinite(xs)):
        raise ValueError("choices must be 0 or 1 and strengths finite numbers")
    if np.unique(xs).size < 2:
        raise ValueError("a psychometric fit needs at least 2 distinct strengths")
    if ys.min() == ys.max():
        raise ValueError("only one choice occurs: no psychometric function can be fitted")
    return xs, ys


def _scoring(design: np.ndarray, ys: np.ndarray, kind: Kind, *, firth: bool) -> np.ndarray:
    """Fisher scoring of the GLM coefficients; with ``firth``, Firth's modified score.

    Firth's logistic score adds ``h * (1/2 - p)`` to the residual ``y - p``, where ``h`` are
    the hat values of the weighted design.
    """
    beta = np.zeros(design.shape[1])
    for _ in range(200):
        eta = design @ beta
        p = np.clip(_cdf(eta, kind), 1e-10, 1 - 1e-10)
        d = np.maximum(_pdf(eta, kind), 1e-12)
        weights = d**2 / (p * (1 - p))
        information = design.T @ (design * weights[:, None])
        residual = ys - p
        if firth:
            root = np.sqrt(weights)[:, None] * design
            hat = np.einsum("ij,jk,ik->i", root, np.linalg.inv(information), root)
            residual = residual + hat * (0.5 - p)
        step = np.linalg.solve(information, design.T @ (weights * (eta + residual / d)))
        if not firth and np.abs(step[1]) > 1e4:
            raise ValueError("strength separates the choices perfectly: the slope is infinite")
        # damped: Firth's iterations overshoot on separated data without it
        change = np.clip(step - beta, -5.0, 5.0)
        beta = beta + change
        if np.max(np.abs(change)) < 1e-9:
            return beta
    raise ValueError(
        f"the {kind} fit did not converge in 200 iterations (coefficients {beta.tolist()}): "
        "the choices may be too few for a fit"
    )


def collect_choices(
    env_or_id: str | gym.Env[Any, Any],
    policy: Policy,
    num_trials: int = 500,
    *,
    strength: str | Callable[[dict[str, Any]], float] = "coh",
    seed: int = 0,
    **kwargs: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """(signed strength, choice) pairs from a run of a two-choice task.

    The strength of a trial is ``trial[strength]`` signed by its ground truth (positive when
    the second choice is correct), or whatever a callable ``strength(trial)`` returns. The
    choice is 1 if the trial's last action was the task's second choice, 0 if the first;
    trials ended without a choice are left out.

    Args:
        env_or_id: A two-choice task (``action_space.name["choice"]`` has two actions).
        policy: ``policy(ob)`` or ``policy(ob, state) -> (action, state)``.
        num_trials: Trials to run.
        strength: Trial-dict key of the unsigned strength (``"coh"``), or a callable.
        seed: Seed of ``env.reset``.
        **kwargs: Constructor arguments when ``env_or_id`` is an id.

    Returns:
        ``(strengths, choices)``, float and int arrays of equal length.

    Raises:
        ValueError: If the task is not a two-choice task or lacks the strength key.
    """
    from neurogym_apps.plot._run import resolve_env

    env = resolve_env(env_or_id, **kwargs)
    names = getattr(env.action_space, "name", None) or {}
    options = names.get("choice")
    if options is None or len(np.atleast_1d(options)) != 2:
        raise ValueError(
            f"collect_choices needs a two-choice task (action dims named 'choice' with 2 "
            f"actions); {type(env.unwrapped).__name__} has action names {dict(names)}"
        )
    first, second = (int(a) for a in np.atleast_1d(options))
    run = run_env(env, validate.positive_int(num_trials, "num_trials"), None, policy, seed=seed)
    strengths, picked = [], []
    for end, trial in zip(run.trial_ends, run.trials, strict=True):
        action = int(np.asarray(run.actions[end]))
        if action not in (first, second):
            continue
        strengths.append(_signed(trial, strength, getattr(env.unwrapped, "choices", None), second))
        picked.append(int(action == second))
    return np.asarray(strengths, dtype=float), np.asarray(picked, dtype=int)


def _signed(trial: dict[str, Any], strength: Any, choices: Any, second: int) -> float:
    """The trial's strength, positive when the second choice is the correct one."""
    if callable(strength):
        return float(strength(trial))
    if strength not in trial:
        raise ValueError(
            f"the trial has no {strength!r}; its keys are {sorted(trial)}: pass strength= "
            "with the key of the stimulus strength, or a callable"
        )
    correct = np.asarray(trial["ground_truth"]).item()
    if choices is not None and len(choices) == 2:  # ground truth is one of the task's choices
        second_correct = correct == np.asarray(choices)[1]
    else:  # ground truth is the correct action itself
        second_correct = correct == second
    return float(trial[strength]) * (1.0 if second_correct else -1.0)


@overload
def plot_psychometric(
    strengths: Any,
    choices: Any,
    *,
    kind: Kind | None = ...,
    fit: Literal["glm"] = ...,
    xlabel: str = ...,
    ylabel: str = ...,
    title: str | None = ...,
    figsize: tuple[float, float] = ...,
) -> tuple[Figure, PsychometricFit | None]: ...


@overload
def plot_psychometric(
    strengths: Any,
    choices: Any,
    *,
    kind: Kind | None = ...,
    fit: Literal["psignifit"],
    xlabel: str = ...,
    ylabel: str = ...,
    title: str | None = ...,
    figsize: tuple[float, float] = ...,
) -> tuple[Figure, PsignifitFit | None]: ...


def plot_psychometric(
    strengths: Any,
    choices: Any,
    *,
    kind: Kind | None = "logistic",
    fit: Literal["glm", "psignifit"] = "glm",
    xlabel: str = "signed stimulus strength",
    ylabel: str = "P(second choice)",
    title: str | None = None,
    figsize: tuple[float, float] = (5.0, 4.0),
) -> tuple[Figure, PsychometricFit | PsignifitFit | None]:
    """Binned choice probability (mean ± SEM per distinct strength) and the fitted curve.

    Args:
        strengths: Signed strengths, one per trial (the x-axis spans their range).
        choices: 0/1 choices, one per trial.
        kind: ``"logistic"``, ``"probit"`` or None (no fit).
        fit: ``"psignifit"``: :func:`fit_psignifit` (lapse rates and credible intervals,
            drawn: the threshold's interval as a bar at the curve's midpoint, the guess and
            lapse rates' as bands at the asymptotes; needs psignifit, the plot extra).
            ``"glm"`` (the default, kept for the figures and fits of earlier releases):
            :func:`fit_psychometric`, which takes any number of distinct strengths.
        xlabel: Label of the x-axis.
        ylabel: Label of the y-axis.
        title: Figure title; default the fitted parameters.
        figsize: Figure size in inches.

    Returns:
        The figure and the fit: a :class:`PsychometricFit` (``fit="glm"``), a
        :class:`~neurogym_apps.plot.PsignifitFit` (``fit="psignifit"``), or None if ``kind``
        is None.
    """
    validate.choice(fit, "fit", ("glm", "psignifit"))
    xs = np.asarray(strengths, dtype=float)
    ys = np.asarray(choices, dtype=float)
    fig = Figure(figsize=figsize, layout="constrained")
    ax = fig.subplots()
    levels = np.unique(xs)
    means = np.array([ys[xs == level].mean() for level in levels])
    counts = np.array([(xs == level).sum() for level in levels])
    sems = np.sqrt(means * (1 - means) / np.maximum(counts - 1, 1))
    ax.errorbar(levels, means, yerr=sems, fmt="o", color="k", capsize=3, label="data ± SEM")
    grid = np.linspace(xs.min(), xs.max(), 200) if xs.size else np.zeros(0)
    result: PsychometricFit | PsignifitFit | None = None
    if kind is None:
        default = f"n = {xs.size}"
    elif fit == "psignifit":
        from neurogym_apps.plot._psignifit import draw_psignifit, fit_psignifit

        result = bayes = fit_psignifit(xs, ys, kind)
        default = draw_psignifit(ax, bayes, grid)
    else:
        result = glm = fit_psychometric(xs, ys, kind)
        how = " (bias-reduced: perfect separation)" if glm.method == "firth" else ""
        ax.plot(grid, glm.predict(grid), color="C0", linewidth=2, label=f"{kind} fit{how}")
        default = f"bias {glm.bias:.3g}, scale {glm.scale:.3g} (n = {glm.n})"
    ax.axhline(0.5, color="0.7", linewidth=0.8, linestyle=":")
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    fig.legend(loc="outside lower center", ncols=2, frameon=False, fontsize=8)
    ax.set_title(title or default, fontsize=10)
    return fig, result
