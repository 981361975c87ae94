"""Psychometric fits by psignifit 4: lapse rates and credible intervals.

psignifit 4 (Schütt, Harmeling, Macke & Wichmann 2016, Vision Research 122:105-123) fits the
threshold, width, guess and lapse rates of a psychometric function, each with its credible
interval, by integrating the posterior on a grid.

psignifit is optional (the ``plot`` extra) and imported only when a fit is made, never by
``import neurogym_apps.plot``.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import math
import re
import warnings
from importlib import metadata
from typing import Any

import numpy as np

from neurogym import validate
from neurogym_apps.plot._psychometric import Kind, _cdf, checked_trials

__all__ = ["PsignifitFit", "fit_psignifit"]

#: psignifit's name of each sigmoid.
_SIGMOIDS: dict[str, str] = {"logistic": "logistic", "probit": "norm"}
#: ``width`` spans the unscaled sigmoid from 5 % to 95 % (psignifit's ``width_alpha``): in
#: units of the sigmoid's standard scale that is 2 ln 19 (logistic) and 2 z(0.95) (normal).
_SPANS: dict[str, float] = {"logistic": 2 * math.log(19.0), "probit": 2 * 1.6448536269514722}
INSTALL = "pip install 'neurogym-apps[plot]' (or 'neurogym[plot]')"


@dataclasses.dataclass(frozen=True)
class PsignifitFit:
    """psignifit's fit ``P(choice = 1) = guess + (1 - guess - lapse) * S(x)``.

    ``S`` rises from 0 to 1: ``S(threshold) = 0.5`` and ``width`` is the distance from
    ``S = 0.05`` to ``S = 0.95`` (psignifit's parametrisation, the same for both sigmoids).
    Estimates are the posterior's maximum (MAP); each ``*_ci`` is the central credible
    interval of its marginal posterior holding ``credibility`` of it.

    Attributes:
        kind: ``"logistic"`` or ``"probit"`` (``S`` is the logistic or the normal CDF).
        threshold: Where ``S`` is 0.5: the point of subjective equality when
            ``guess == lapse``.
        width: Strength from ``S = 0.05`` to ``S = 0.95``.
        guess: The lower asymptote (psignifit's gamma): P(choice 1) far on the choice-0 side.
        lapse: 1 minus the upper asymptote (psignifit's lambda): P(choice 0) far on the
            choice-1 side.
        threshold_ci: ``(low, high)`` credible interval of ``threshold``.
        width_ci: Same for ``width``.
        guess_ci: Same for ``guess``.
        lapse_ci: Same for ``lapse``.
        credibility: The posterior mass each interval holds (0.95 by default).
        n: Number of choices fitted.
        levels: Number of distinct strengths.
        notes: psignifit's warnings about this fit, in short (e.g. a posterior cut by the
            edge of its grid, which makes that interval too narrow).
        version: The psignifit version that fitted.
    """

    kind: Kind
    threshold: float
    width: float
    guess: float
    lapse: float
    threshold_ci: tuple[float, float]
    width_ci: tuple[float, float]
    guess_ci: tuple[float, float]
    lapse_ci: tuple[float, float]
    credibility: float
    n: int
    levels: int
    notes: tuple[str, ...] = ()
    version: str = ""

    def predict(self, x: Any) -> np.ndarray:
        """P(choice = 1) at strengths ``x`` (the MAP curve)."""
        scale = self.width / _SPANS[self.kind]
        rising = _cdf((np.asarray(x, dtype=float) - self.threshold) / scale, self.kind)
        out: np.ndarray = self.guess + (1 - self.guess - self.lapse) * rising
        return out

    def to_dict(self) -> dict[str, Any]:
        """The fit as plain JSON values: each parameter's estimate and interval."""
        return {
            "method": f"psignifit {self.version}".strip(),
            "kind": self.kind,
            "estimate": "MAP",
            "credibility": self.credibility,
            "n": self.n,
            "levels": self.levels,
            **{
                name: {
                    "estimate": getattr(self, name),
                    "interval": list(getattr(self, f"{name}_ci")),
                }
                for name in ("threshold", "width", "guess", "lapse")
            },
            "notes": list(self.notes),
        }


def fit_psignifit(
    x: Any,
    choices: Any,
    kind: Kind = "logistic",
    *,
    credibility: float = 0.95,
    overdispersion: bool = False,
    max_levels: int = 25,
) -> PsignifitFit:
    """Fits ``P(choice = 1 | x)`` with psignifit 4: guess and lapse rates, credible intervals.

    The choices are pooled per distinct strength and fitted as a yes/no experiment (both
    asymptotes free, psignifit's default priors on them). With ``overdispersion=False`` (the
    default) psignifit's eta is fixed at 0: the choices at one strength are taken to be
    independent, as a frozen network's are on independent trials; ``True`` estimates it
    (for choices that drift, e.g. across blocks), at about 20 times the run time (measured
    on 600 choices at 9 strengths: 0.8 s against 17 s).

    Args:
        x: Signed stimulus strengths, one per trial.
        choices: 0/1 (or bool) choices, one per trial.
        kind: ``"logistic"`` or ``"probit"`` (psignifit's ``"norm"``).
        credibility: Posterior mass of each credible interval, in (0, 1).
        overdispersion: Estimate psignifit's eta instead of fixing it at 0.
        max_levels: Most distinct strengths accepted. psignifit's run time grows with them
            (measured: 0.15 s each, 47 s for 300) and it warns above 25: bin continuous
            strengths first, or use :func:`fit_psychometric`, which takes any number.

    Returns:
        The :class:`PsignifitFit`.

    Raises:
        ImportError: psignifit is not installed (the message says how to install it).
        ValueError: On the inputs :func:`fit_psychometric` refuses (mismatched or non-binary,
            fewer than 2 distinct strengths, only one choice made), a bad ``kind`` or
            ``credibility``, or more than ``max_levels`` distinct strengths.
    """
    validate.choice(kind, "kind", tuple(_SIGMOIDS))
    credibility = validate.number(credibility, "credibility", minimum=0, exclusive_minimum=True)
    if credibility >= 1:
        raise ValueError(f"credibility must be a number in (0, 1), got {credibility!r}")
    xs, ys = checked_trials(x, choices)
    levels, index = np.unique(xs, return_inverse=True)
    if levels.size > validate.positive_int(max_levels, "max_levels"):
        raise ValueError(
            f"x has {levels.size} distinct strengths, more than max_levels={max_levels}: "
            "psignifit's run time grows with them (0.15 s each) and it asks for at most 25; "
            "bin the strengths (e.g. np.round(x)), raise max_levels, or use fit_psychometric"
        )
    data = np.column_stack(
        [levels, np.bincount(index, weights=ys), np.bincount(index).astype(float)]
    )
    psignifit = _import_psignifit()
    options: dict[str, Any] = {
        "sigmoid": _SIGMOIDS[kind],
        "experiment_type": "yes/no",
        "confP": (credibility,),
    }
    if not overdispersion:
        options["fixed_parameters"] = {"eta": 0.0}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = psignifit.psignifit(data, **options)
    notes = _notes(caught)
    estimate = result.parameter_estimate_MAP
    intervals = {
        name: tuple(float(v) for v in bounds[str(credibility)])
        for name, bounds in result.confidence_intervals.items()
    }
    return PsignifitFit(
        kind=kind,
        threshold=float(estimate["threshold"]),
        width=float(estimate["width"]),
        guess=float(estimate["gamma"]),
        lapse=float(estimate["lambda"]),
        threshold_ci=intervals["threshold"],  # type: ignore[arg-type]
        width_ci=intervals["width"],  # type: ignore[arg-type]
        guess_ci=intervals["gamma"],  # type: ignore[arg-type]
        lapse_ci=intervals["lambda"],  # type: ignore[arg-type]
        credibility=credibility,
        n=int(xs.size),
        levels=int(levels.size),
        notes=notes,
        version=metadata.version("psignifit"),
    )


def installed() -> bool:
    """Whether psignifit can be imported (without importing it)."""
    try:
        return importlib.util.find_spec("psignifit") is not None
    except ValueError:  # a module named psignifit without a spec (set to None in sys.modules)
        return False


def _import_psignifit() -> Any:
    """The psignifit module, or an ImportError that says how to install it."""
    try:
        return importlib.import_module("psignifit")
    except ImportError as exc:
        raise ImportError(
            "fit_psignifit needs psignifit (Schütt et al. 2016), which comes with the plot "
            f"extra: {INSTALL}; fit_psychometric (no lapse rates, no intervals) needs no "
            "extra package"
        ) from exc


def _notes(caught: list[warnings.WarningMessage]) -> tuple[str, ...]:
    """The UserWarnings of psignifit in short; other warnings are re-issued as they were."""
    notes = []
    for item in caught:
        if not issubclass(item.category, UserWarning):
            warnings.warn_explicit(item.message, item.category, item.filename, item.lineno)
            continue
        text = str(item.message)
        bound = re.search(r"parameter <(\w+)>.*?the (lowest|highest) sampled value", text, re.S)
        if bound:
            side = "lower" if bound.group(2) == "lowest" else "upper"
            notes.append(
                f"the {bound.group(1)} posterior is cut at the {side} end of psignifit's grid: "
                "the data do not bound it there, and its interval is too narrow"
            )
        else:
            notes.append(" ".join(text.split()))
    return tuple(notes)


def draw_psignifit(ax: Any, fit: PsignifitFit, grid: np.ndarray) -> str:
    """Draws ``fit`` on ``ax`` over ``grid``; returns a title summarising it.

    The MAP curve; the threshold's credible interval as a horizontal bar at the height of the
    curve's midpoint; the guess and lapse rates' intervals as shaded bands at the asymptotes.
    """
    share = f"{fit.credibility:.0%}"
    ax.plot(grid, fit.predict(grid), color="C0", linewidth=2, label=f"psignifit {fit.kind} (MAP)")
    middle = fit.guess + (1 - fit.guess - fit.lapse) / 2
    low, high = fit.threshold_ci
    ax.errorbar(
        [fit.threshold], [middle], xerr=[[fit.threshold - low], [high - fit.threshold]],
        fmt="s", color="C3", markersize=5, capsize=4, zorder=4,
        label=f"threshold, {share} interval",
    )  # fmt: skip
    for band, label in (
        (fit.guess_ci, f"guess / lapse rates, {share} intervals"),
        ((1 - fit.lapse_ci[1], 1 - fit.lapse_ci[0]), None),
    ):
        ax.axhspan(*band, color="C1", alpha=0.25, linewidth=0, label=label)
    return (
        f"threshold {fit.threshold:.3g} [{low:.3g}, {high:.3g}], width {fit.width:.3g} "
        f"[{fit.width_ci[0]:.3g}, {fit.width_ci[1]:.3g}]\nguess {fit.guess:.2f} "
        f"[{fit.guess_ci[0]:.2f}, {fit.guess_ci[1]:.2f}], lapse {fit.lapse:.2f} "
        f"[{fit.lapse_ci[0]:.2f}, {fit.lapse_ci[1]:.2f}] (n = {fit.n})"
    )
