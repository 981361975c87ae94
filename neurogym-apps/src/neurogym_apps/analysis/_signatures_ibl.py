"""The International Brain Laboratory (2021)'s signature: psychometric curves shift with the block.

In the IBL task the side of the stimulus is drawn from a prior that changes in unsignalled
blocks (P(right) = 0.2 or 0.8; ``IBLBlock`` adds unbiased blocks). Mice learn the block from
the stream of trials: at zero or low contrast they choose the side the block favours, so the
psychometric curve of the right-biased block lies above the left-biased block's (The
International Brain Laboratory 2021, eLife 10:e63711, Fig. 3).

:func:`block_bias` measures it on ``IBLBlock`` trials as the difference, between right- and
left-biased blocks, of the fitted P(right) at zero contrast (a logistic regression per block
type), with a bootstrap interval; :func:`block_psychometrics` fits each block type's curve
with psignifit (lapse rates, the threshold's credible interval) and
:func:`plot_block_psychometrics` draws them.
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
    "BLOCK_NAMES",
    "BlockBias",
    "block_bias",
    "block_choices",
    "block_psychometrics",
    "plot_block_psychometrics",
]

#: ``IBLBlock``'s block types by their ``p_right``.
BLOCK_NAMES = {0.8: "right-biased (P(right) 0.8)", 0.2: "left-biased (0.2)", 0.5: "unbiased (0.5)"}
_COLORS = {0.8: "C3", 0.2: "C0", 0.5: "0.4"}


@dataclasses.dataclass(frozen=True)
class BlockBias:
    """P(right) at zero contrast per block type, and the right-minus-left difference.

    Attributes:
        p_right_at_zero: ``p_right`` of the block -> the fitted P(right choice) at contrast
            0 (logistic fit of the choice on the signed contrast within the block).
        shift: P(right) at zero contrast in right-biased blocks minus in left-biased ones.
        trials: ``p_right`` -> trials of that block type.
    """

    p_right_at_zero: dict[float, Estimate]
    shift: Estimate
    trials: dict[float, int]

    @property
    def holds(self) -> bool:
        """The signature: the shift's interval lies above 0."""
        return self.shift.low > 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with ``holds``."""
        return {
            "p_right_at_zero": {str(p): e.to_dict() for p, e in self.p_right_at_zero.items()},
            "shift": self.shift.to_dict(),
            "trials": {str(p): n for p, n in self.trials.items()},
            "holds": self.holds,
        }


def block_choices(trials: Sequence[dict[str, Any]]) -> dict[str, np.ndarray]:
    """Per trial: the block's ``p_right``, the signed contrast and the choice.

    Returns:
        ``p_right``, ``contrast`` (percent, + for a stimulus on the right, - on the left) and
        ``choice`` (1: right, 0: left; the trial's action).
    """
    side = column(trials, "ground_truth", int)
    return {
        "p_right": np.round(column(trials, "p_right"), 3),
        "contrast": np.where(side == 1, 1, -1) * column(trials, "coh"),
        "choice": np.array([trial["actions"][-1] for trial in trials], dtype=int),
    }


def _p_at_zero(contrast: np.ndarray, choice: np.ndarray) -> float:
    """The logistic fit's P(choice 1) at contrast 0."""
    intercept = logistic_coefficients(contrast / 100, choice)[0]
    return float(1 / (1 + np.exp(-intercept)))


def block_bias(
    trials: Sequence[dict[str, Any]], *, resamples: int = 1000, seed: int = 0
) -> BlockBias:
    """P(right) at zero contrast per block type and its shift between the biased blocks.

    Every trial counts, the first ones of a block too (the network must find the block from
    the stream, as a mouse must). The trials are resampled with replacement within each
    block type for the intervals (the shift's two block types each on their own).

    Args:
        trials: Closed-loop trials (:func:`~neurogym_apps.analysis.record_trials`) of
            ``IBLBlock``, from a network that carries its state across trials.
        resamples: Bootstrap resamples.
        seed: Seeds the resampling.

    Raises:
        ValueError: The trials lack a right-biased or a left-biased block.
    """
    data = block_choices(trials)
    found = sorted(set(data["p_right"].tolist()))
    if 0.8 not in found or 0.2 not in found:
        raise ValueError(f"need trials of both biased blocks (p_right 0.8, 0.2), got {found}")
    rows = [np.flatnonzero(data["p_right"] == p) for p in found]
    right, left = found.index(0.8), found.index(0.2)

    def statistic(*picked: np.ndarray) -> list[float]:
        at_zero = [_p_at_zero(*_pick(data, idx[r])) for idx, r in zip(rows, picked, strict=True)]
        return [*at_zero, at_zero[right] - at_zero[left]]

    *at_zero, shift = bootstrap(
        statistic, *(idx.size for idx in rows), resamples=resamples, seed=seed
    )
    return BlockBias(
        dict(zip(found, at_zero, strict=True)),
        shift,
        {p: int(idx.size) for p, idx in zip(found, rows, strict=True)},
    )


def _pick(data: dict[str, np.ndarray], rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The signed contrasts and choices of trials ``rows``."""
    return data["contrast"][rows], data["choice"][rows]


def block_psychometrics(trials: Sequence[dict[str, Any]]) -> dict[float, Any]:
    """The psychometric fit of each block type by psignifit (lapses, credible intervals).

    The IBL papers fit a psychometric function with lapse rates per block and compare its
    bias (the threshold: the contrast where the curve is halfway): it moves toward the
    block's unlikely side, as the choices at low contrast move toward its likely side.

    Returns:
        ``p_right`` -> :class:`~neurogym_apps.plot.PsignifitFit` of P(right) against the
        signed contrast (percent).
    """
    from neurogym_apps.plot import fit_psignifit

    data = block_choices(trials)
    return {
        p: fit_psignifit(*_pick(data, np.flatnonzero(data["p_right"] == p)))
        for p in sorted(set(data["p_right"].tolist()), reverse=True)
    }


def plot_block_psychometrics(
    trials: Sequence[dict[str, Any]],
    bias: BlockBias | None = None,
    fits: dict[float, Any] | None = None,
) -> Figure:
    """P(right) against signed contrast, one curve per block type (IBL 2021, Fig. 3).

    Points: the fraction of right choices per contrast with 95 % Wilson intervals; lines:
    psignifit's fit of each block type (:func:`block_psychometrics`), its threshold and
    credible interval in the legend; the title gives the shift of P(right) at zero contrast
    (:func:`block_bias`).
    """
    data = block_choices(trials)
    bias = block_bias(trials) if bias is None else bias
    fits = block_psychometrics(trials) if fits is None else fits
    fig = Figure(figsize=(6.0, 5.0), layout="constrained")
    ax = fig.subplots()
    for p, fit in fits.items():
        rows = data["p_right"] == p
        levels, means, err = proportion_points(data["contrast"][rows], data["choice"][rows])
        color = _COLORS.get(p, "k")
        ax.errorbar(levels, means, yerr=err, fmt="o", ms=4, capsize=2, color=color)
        grid = np.linspace(levels.min(), levels.max(), 400)
        low, high = fit.threshold_ci
        label = f"{BLOCK_NAMES.get(p, p)}: {fit.threshold:.1f} [{low:.1f}, {high:.1f}]"
        ax.plot(grid, fit.predict(grid), color=color, label=label)
    ax.axhline(0.5, color="0.85", lw=0.8, zorder=0)
    ax.axvline(0, color="0.85", lw=0.8, zorder=0)
    ax.set_xscale("symlog", linthresh=1.6, linscale=0.5)
    ticks = [-51.2, -12.8, -3.2, 0, 3.2, 12.8, 51.2]
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ax.set_xlabel("signed contrast (%, + right)")
    ax.set_ylabel("P(right choice)")
    ax.set_ylim(-0.03, 1.03)
    fig.legend(fontsize=7, loc="outside lower center", title="block: psignifit fit, threshold")
    ax.set_title(
        f"IBLBlock: P(right) at 0 contrast, right- minus left-biased {bias.shift}", fontsize=9
    )
    return fig
