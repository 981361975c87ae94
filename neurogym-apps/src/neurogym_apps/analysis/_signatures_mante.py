"""Mante et al. (2013)'s signature: choices follow the cued modality and ignore the other.

On ``ContextDecisionMaking`` with ``use_expl_context=True`` two stimuli, one per modality,
point to a choice each with their own coherence, and the context input says which to report.
Mante et al.'s monkeys (Fig. 1) chose by the motion coherence in the motion context and by
the colour coherence in the colour context: each psychometric curve is steep against the
relevant modality and nearly flat against the irrelevant one.

:func:`context_slopes` measures it as the logistic regression of the choice on both signed
coherences, per context, with bootstrap intervals; :func:`plot_context_psychometrics` draws
the four psychometric curves (context x modality) like the paper's Fig. 1.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from neurogym_apps.analysis._signatures import (
    Estimate,
    bootstrap,
    column,
    logistic_coefficients,
    proportion_points,
)

__all__ = [
    "IRRELEVANT_FRACTION",
    "ContextSlopes",
    "context_choices",
    "context_slopes",
    "plot_context_psychometrics",
]

#: The irrelevant slope's interval must stay below this fraction of the relevant slope.
IRRELEVANT_FRACTION = 0.2
_CONTEXTS = (0, 1)  # 0: modality 1 is relevant, 1: modality 2 is relevant


@dataclasses.dataclass(frozen=True)
class ContextSlopes:
    """Logistic slopes of P(choice 2) on each modality's signed coherence, in one context.

    Slopes are in log odds per unit coherence (coherence 1.0 = 100 %).

    Attributes:
        context: 0 (modality 1 relevant) or 1 (modality 2 relevant).
        relevant: The slope on the relevant modality's coherence.
        irrelevant: The slope on the other modality's coherence.
        trials: Trials with a choice in this context.
    """

    context: int
    relevant: Estimate
    irrelevant: Estimate
    trials: int

    @property
    def holds(self) -> bool:
        """Whether the signature holds: relevant above 0 and above irrelevant, which is small.

        The relevant slope's interval lies above 0 and above the irrelevant slope's, whose
        largest magnitude stays below :data:`IRRELEVANT_FRACTION` of the relevant slope.
        """
        small = max(abs(self.irrelevant.low), abs(self.irrelevant.high))
        return (
            self.relevant.low > 0
            and self.relevant.low > self.irrelevant.high
            and small < IRRELEVANT_FRACTION * self.relevant.value
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with ``holds``."""
        return {
            "context": self.context,
            "relevant": self.relevant.to_dict(),
            "irrelevant": self.irrelevant.to_dict(),
            "trials": self.trials,
            "holds": self.holds,
        }


def context_choices(trials: Sequence[dict[str, Any]]) -> dict[str, np.ndarray]:
    """Per trial with a choice: context, both signed coherences and the choice.

    A modality's signed coherence is its coherence (a fraction) with the sign of the choice
    it points to: + for choice 2, - for choice 1 (``dim_ring=2``). Trials whose last action is
    not a choice (1 or 2: no answer) are left out.

    Returns:
        ``context``, ``coh_1``, ``coh_2`` (signed) and ``choice`` (1 for choice 2, else 0).
    """
    last = np.array([trial["actions"][-1] for trial in trials])
    keep = np.isin(last, (1, 2))
    kept = [trial for trial, k in zip(trials, keep, strict=True) if k]
    context = column(kept, "context", int)
    truth, other = column(kept, "ground_truth", int), column(kept, "other_choice", int)
    direction_1 = np.where(context == 0, truth, other)
    direction_2 = np.where(context == 0, other, truth)
    return {
        "context": context,
        "coh_1": np.where(direction_1 == 2, 1, -1) * column(kept, "coh_1") / 100,
        "coh_2": np.where(direction_2 == 2, 1, -1) * column(kept, "coh_2") / 100,
        "choice": (last[keep] == 2).astype(int),
    }


def context_slopes(
    trials: Sequence[dict[str, Any]], *, resamples: int = 1000, seed: int = 0
) -> list[ContextSlopes]:
    """The relevant and irrelevant slopes of each context, with bootstrap intervals.

    Per context, P(choice 2) is regressed (logistic) on both modalities' signed coherences
    at once; the trials are resampled with replacement for the intervals.

    Args:
        trials: Closed-loop trials (:func:`~neurogym_apps.analysis.record_trials`) of
            ``ContextDecisionMaking`` with ``use_expl_context=True``.
        resamples: Bootstrap resamples.
        seed: Seeds the resampling.

    Returns:
        One :class:`ContextSlopes` per context present (0, then 1).

    Raises:
        ValueError: In a context, the agent's choices are all the same.
    """
    data = context_choices(trials)
    out = []
    for context in _CONTEXTS:
        rows = data["context"] == context
        if not rows.any():
            continue
        if np.unique(data["choice"][rows]).size < 2:
            raise ValueError(
                f"in context {context} the agent chose only one side ({int(rows.sum())} "
                "trials with a choice): no slope can be fitted (train it longer)"
            )
        x = np.column_stack([data["coh_1"][rows], data["coh_2"][rows]])
        y = data["choice"][rows]
        _, slope_1, slope_2 = bootstrap(
            lambda r, x=x, y=y: logistic_coefficients(x[r], y[r]),
            len(y),
            resamples=resamples,
            seed=seed,
        )
        relevant, irrelevant = (slope_1, slope_2) if context == 0 else (slope_2, slope_1)
        out.append(ContextSlopes(context, relevant, irrelevant, int(rows.sum())))
    return out


def plot_context_psychometrics(
    trials: Sequence[dict[str, Any]], slopes: Sequence[ContextSlopes] | None = None
) -> Figure:
    """Four psychometric curves, context (rows) by modality (columns), as Mante et al. Fig. 1.

    Each panel shows P(choice 2) against one modality's signed coherence, pooled over the
    other's, with 95 % Wilson intervals, and the logistic fit of the context (averaged over
    the other modality's trials); the title gives the slope with its interval.

    Args:
        trials: As for :func:`context_slopes`.
        slopes: :func:`context_slopes`'s result, to print in the titles (computed if None).
    """
    data = context_choices(trials)
    slopes = context_slopes(trials) if slopes is None else slopes
    fig = Figure(figsize=(7.5, 6.5), layout="constrained")
    axes = fig.subplots(2, 2, sharex=True, sharey=True)
    for row, context in enumerate(_CONTEXTS):
        rows = data["context"] == context
        x = np.column_stack([data["coh_1"][rows], data["coh_2"][rows]])
        coefs = logistic_coefficients(x, data["choice"][rows])
        found = {s.context: s for s in slopes}.get(context)
        for col in range(2):
            order = [col, 1 - col]  # the plotted modality first
            _panel(axes[row, col], x[:, order], data["choice"][rows], coefs[[0, 1 + col, 2 - col]])
            if found is not None:
                slope = found.relevant if col == context else found.irrelevant
                kind = "relevant" if col == context else "irrelevant"
                axes[row, col].set_title(f"{kind}: slope {slope}", fontsize=9)
        axes[row, 0].set_ylabel(
            f"context {context + 1} (modality {context + 1} cued)\nP(choice 2)"
        )
    for col in range(2):
        axes[1, col].set_xlabel(f"modality {col + 1} signed coherence (%)")
    fig.suptitle("ContextDecisionMaking: choices follow the cued modality (Mante et al. 2013)")
    return fig


def _panel(ax: Any, x: np.ndarray, choice: np.ndarray, coefs: np.ndarray) -> None:
    """Points with Wilson intervals per coherence of modality ``col``, and the fit.

    ``x`` holds both modalities' coherences, the plotted one first; the curve is the fit's
    P(choice 2) averaged over the other modality's trials, as the points pool them.
    """
    levels, means, err = proportion_points(x[:, 0], choice)
    ax.errorbar(100 * levels, means, yerr=err, fmt="o", color="k", ms=4, capsize=2)
    grid = np.linspace(levels.min(), levels.max(), 200)
    eta = coefs[0] + coefs[1] * grid[:, None] + coefs[2] * x[None, :, 1]
    ax.plot(100 * grid, (1 / (1 + np.exp(-eta))).mean(1), color="C0")
    ax.axhline(0.5, color="0.85", lw=0.8, zorder=0)
    ax.axvline(0, color="0.85", lw=0.8, zorder=0)
    ax.set_ylim(-0.03, 1.03)
