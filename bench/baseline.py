"""This repo's figures against a baseline run of an earlier commit, in the same session.

``python bench/compare.py --upstream UP --baseline BASELINE_PYTHON`` runs ``run.py`` a third
time per repetition with ``BASELINE_PYTHON`` (a venv, or a wrapper script putting an earlier
checkout's sources first on ``PYTHONPATH``). A figure is *worse than the baseline* when the
median of ours is below the baseline's median by more than the run-to-run spread (the larger
of the two sides' max - min over repetitions).
"""

from __future__ import annotations

import statistics
from typing import Any

# Figures that are not rates of ours (higher is not better, or not our speed).
_SKIPPED = ("errors", "trial_len", "has_periods", "bound")


def leaves(rep: dict[str, Any], prefix: str = "") -> dict[str, float]:
    """Every numeric figure of one repetition, by its path (``single/PDM/steps_per_s``)."""
    out: dict[str, float] = {}
    for key, value in rep.items():
        if key in _SKIPPED:
            continue
        path = f"{prefix}/{key}" if prefix else key
        if isinstance(value, dict):
            out.update(leaves(value, path))
        elif isinstance(value, (int, float)) and not isinstance(value, bool) and value == value:
            out[path] = float(value)
    return out


def compared(ours: list[dict[str, Any]], baseline: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """``(path, ours, baseline, spread, worse)`` for every figure both sides have."""
    mine = [leaves(rep) for rep in ours]
    base = [leaves(rep) for rep in baseline]
    paths = sorted(set.intersection(*(set(r) for r in mine + base))) if mine and base else []
    rows = []
    for path in paths:
        a, b = [r[path] for r in mine], [r[path] for r in base]
        spread = max(max(a) - min(a), max(b) - min(b))
        med_a, med_b = statistics.median(a), statistics.median(b)
        rows.append((path, med_a, med_b, spread, med_a < med_b - spread))
    return rows


def section(ours: list[dict[str, Any]], baseline: list[dict[str, Any]], fmt: Any) -> list[str]:
    """The report's markdown section: the worse figures first, then the count of the rest."""
    rows = compared(ours, baseline)
    worse = [row for row in rows if row[4]]
    lines = [
        "## Against the baseline",
        "",
        f"{len(rows)} figures compared; {len(worse)} worse than the baseline beyond the "
        "run-to-run spread.",
        "",
    ]
    if worse:
        lines += ["| figure | ours | baseline | spread |", "|---|---:|---:|---:|"]
        lines += [f"| {p} | {fmt(a)} | {fmt(b)} | {fmt(s)} |" for p, a, b, s, _ in worse]
        lines.append("")
    return lines


def worse_count(ours: list[dict[str, Any]], baseline: list[dict[str, Any]]) -> int:
    """How many figures are worse than the baseline beyond the spread."""
    return sum(1 for row in compared(ours, baseline) if row[4])
