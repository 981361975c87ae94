"""Recovery after an unsignalled switch: accuracy against trials since the rule changed.

In ``HierarchicalReasoning`` (Sarafyazd & Jazayeri 2019) a rule flips every 10 to 20 trials
and in ``ChangingEnvironment`` (Purcell & Kiani 2016) the response mapping's context flips at
random; neither is shown. An agent that infers it from its outcomes errs on the first trial
after a switch (it cannot know) and recovers within a few trials, as the monkeys did.

:func:`switch_recovery` lines up every switch of every stream and measures the accuracy on
the first trial after it, on trials 5 to 10 after it, and the number of trials it takes to
recover, with intervals from resampling the switches; :func:`plot_switch_recovery` draws
accuracy against trials since the switch.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from neurogym_apps.analysis._signatures import Estimate, bootstrap, column

__all__ = [
    "LAGS",
    "LATE",
    "RECOVERED_FRACTION",
    "SwitchRecovery",
    "plot_switch_recovery",
    "switch_accuracy",
    "switch_recovery",
]

#: Trials since the switch: -3..-1 are the last trials before it, 1 the first after it.
LAGS = np.array([-3, -2, -1, *range(1, 11)])
#: The trials after the switch whose accuracy is the recovered level.
LATE = (5, 10)
#: Recovered: the accuracy has come this fraction of the way from trial 1 to the late level.
RECOVERED_FRACTION = 0.9
#: The signature asks for recovery within this many trials after the switch.
FEW_TRIALS = 5


@dataclasses.dataclass(frozen=True)
class SwitchRecovery:
    """Accuracy around the switches of a hidden rule or context.

    Attributes:
        key: The trial-dict key that switched (``"rule"``, ``"context"``).
        curve: Accuracy at each of :data:`LAGS`, with its interval.
        first: Accuracy on the first trial after a switch.
        late: Accuracy on trials :data:`LATE` after a switch (pooled).
        recovery: Trials after the switch until the accuracy has come
            :data:`RECOVERED_FRACTION` of the way from ``first`` to ``late`` (``LAGS[-1] + 1``
            when it never does).
        switches: The switches counted.
    """

    key: str
    curve: list[Estimate]
    first: Estimate
    late: Estimate
    recovery: Estimate
    switches: int

    @property
    def holds(self) -> bool:
        """Whether the signature holds: a dip on trial 1, then a quick recovery.

        The first trial's interval lies below the late level's, and the accuracy recovers
        within :data:`FEW_TRIALS` trials.
        """
        return self.first.high < self.late.low and self.recovery.value <= FEW_TRIALS

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with ``holds``."""
        return {
            "key": self.key,
            "lags": LAGS.tolist(),
            "curve": [e.to_dict() for e in self.curve],
            "first": self.first.to_dict(),
            "late": self.late.to_dict(),
            "recovery": self.recovery.to_dict(),
            "switches": self.switches,
            "holds": self.holds,
        }


def switch_accuracy(trials: Sequence[dict[str, Any]], key: str) -> np.ndarray:
    """Per switch of ``key`` in a stream, the performance at each of :data:`LAGS`.

    A stream's trials are put back in order (``stream``, ``index``); a switch is a trial
    whose ``key`` differs from the previous trial's. Lags that fall outside the stream or
    past another switch are NaN.

    Returns:
        ``(switches, len(LAGS))``.
    """
    rows = []
    for stream in sorted({trial["stream"] for trial in trials}):
        mine = sorted((t for t in trials if t["stream"] == stream), key=lambda t: t["index"])
        values = column(mine, key)
        correct = column(mine, "performance")
        starts = np.flatnonzero(np.diff(values) != 0) + 1  # first trial of each new block
        bounds = np.concatenate([[0], starts, [len(mine)]])
        for i, start in enumerate(starts):
            rows.append(_around(correct, int(start), int(bounds[i]), int(bounds[i + 2])))
    return np.array(rows).reshape(-1, len(LAGS))


def _around(correct: np.ndarray, start: int, previous: int, end: int) -> np.ndarray:
    """Performance at :data:`LAGS` of the switch at ``start``, within ``previous..end``."""
    where = start + np.where(LAGS > 0, LAGS - 1, LAGS)
    inside = (where >= previous) & (where < end)
    out = np.full(len(LAGS), np.nan)
    out[inside] = correct[where[inside]]
    return out


def _summary(acc: np.ndarray) -> np.ndarray:
    """The curve, first, late and recovery of the switches ``acc`` (rows)."""
    curve = _nanmean(acc)
    first = curve[LAGS == 1][0]
    late_lags = np.isin(LAGS, np.arange(LATE[0], LATE[1] + 1))
    late = _nanmean(acc[:, late_lags].ravel()[:, None])[0]
    after = LAGS[LAGS > 0]
    target = first + RECOVERED_FRACTION * (late - first)
    reached = np.flatnonzero(curve[LAGS > 0] >= target)
    recovery = after[reached[0]] if reached.size else after[-1] + 1
    return np.concatenate([curve, [first, late, recovery]])


def _nanmean(acc: np.ndarray) -> np.ndarray:
    """Column means over the finite entries (NaN for an empty column)."""
    counts = np.isfinite(acc).sum(0)
    sums = np.nansum(acc, 0)
    return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def switch_recovery(
    trials: Sequence[dict[str, Any]], key: str, *, resamples: int = 1000, seed: int = 0
) -> SwitchRecovery:
    """Accuracy after the switches of ``key``, with intervals from resampling the switches.

    Args:
        trials: Closed-loop trials (:func:`~neurogym_apps.analysis.record_trials`) of a
            network that carries its state across trials.
        key: The hidden variable: ``"rule"`` (``HierarchicalReasoning``) or ``"context"``
            (``ChangingEnvironment``).
        resamples: Bootstrap resamples.
        seed: Seeds the resampling.

    Raises:
        ValueError: Fewer than 2 switches in the trials.
    """
    acc = switch_accuracy(trials, key)
    if len(acc) < 2:
        raise ValueError(f"need at least 2 switches of {key!r} to resample, got {len(acc)}")
    estimates = bootstrap(
        lambda rows: _summary(acc[rows]), len(acc), resamples=resamples, seed=seed
    )
    curve, (first, late, recovery) = estimates[: len(LAGS)], estimates[len(LAGS) :]
    return SwitchRecovery(key, curve, first, late, recovery, len(acc))


def plot_switch_recovery(results: dict[str, SwitchRecovery]) -> Figure:
    """Accuracy against trials since the switch, one curve per task, with 95 % intervals.

    Args:
        results: Task name -> its :class:`SwitchRecovery`.
    """
    fig = Figure(figsize=(6.0, 4.0), layout="constrained")
    ax = fig.subplots()
    for i, (name, result) in enumerate(results.items()):
        value = np.array([e.value for e in result.curve])
        low = np.array([e.low for e in result.curve])
        high = np.array([e.high for e in result.curve])
        x = LAGS + 0.08 * (i - (len(results) - 1) / 2)
        dip = result.first.high < result.late.low
        after = f"recovers in {result.recovery.value:.0f}" if dip else "no dip on trial 1"
        label = f"{name} ({result.switches} switches; {after})"
        ax.errorbar(
            x, value, yerr=[value - low, high - value], fmt="o-", ms=4, capsize=2, label=label
        )
    ax.axvline(0, color="0.6", lw=1, ls="--")
    ax.set_xticks(LAGS)
    ax.set_xlabel("trials since the unsignalled switch (negative: before it)")
    ax.set_ylabel("accuracy (env performance)")
    ax.set_ylim(-0.03, 1.03)
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title("Recovery after a hidden rule or context switch", fontsize=10)
    return fig
