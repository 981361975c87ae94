"""This repo's figures against a baseline run of an earlier commit, in the same session.

``python bench/compare.py --upstream UP --baseline BASELINE_PYTHON`` runs ``run.py`` a third
time per repetition with ``BASELINE_PYTHON`` (a venv, or a wrapper script putting an earlier
checkout's sources first on ``PYTHONPATH``). A figure is *worse than the baseline* when the
median of ours is below the baseline's median by more than the run-to-run spread (the larger
of the two sides' max - min over repetitions). Figures measured in pairs (bench/paired.py:
single-env steps and trials, and Dataset timesteps/s) are compared by their per-round ratios
instead (:func:`paired_rows`), and their unpaired repetitions (``dataset/...``) are left out.
"""

from __future__ import annotations

import statistics
from typing import Any

# Figures that are not rates of ours (higher is not better, or not our speed: the bound and
# the hand-written batch of bench/lean_pdm.py are the same code on both sides).
_SKIPPED = ("errors", "trial_len", "has_periods", "bound", "by_hand", "by_hand_fraction")


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


def compared(
    ours: list[dict[str, Any]],
    baseline: list[dict[str, Any]],
    paired: frozenset[str] = frozenset(),
) -> list[tuple[Any, ...]]:
    """``(path, ours, baseline, spread, worse)`` for every figure both sides have.

    Paths under a top-level key in ``paired`` (measured in pairs as well) are left out.
    """
    mine = [leaves(rep) for rep in ours]
    base = [leaves(rep) for rep in baseline]
    paths = sorted(set.intersection(*(set(r) for r in mine + base))) if mine and base else []
    paths = [path for path in paths if path.split("/", 1)[0] not in paired]
    rows = []
    for path in paths:
        a, b = [r[path] for r in mine], [r[path] for r in base]
        spread = max(max(a) - min(a), max(b) - min(b))
        med_a, med_b = statistics.median(a), statistics.median(b)
        rows.append((path, med_a, med_b, spread, med_a < med_b - spread))
    return rows


def paired_rows(single: dict[str, Any]) -> list[tuple[Any, ...]]:
    """``(path, ours, baseline, spread, worse)`` of the paired figures (bench/paired.py).

    Ours and the baseline ran back to back in every round (bench/paired.py): a figure is
    worse when ours was slower than the baseline in every round (the median ratio below 1 by
    more than its spread would say the same thing less strictly for 7 rounds). ``spread`` is
    the max - min of the per-round ratios.
    """
    rows = []
    for task, figures in sorted(single.get("ratios", {}).get("baseline", {}).items()):
        for figure, rounds in figures.items():
            kept = [r for r in rounds if r == r]
            if not kept:
                continue
            ours = single["rates"]["ours"][task][figure]
            base = single["rates"]["baseline"][task][figure]
            worse = max(kept) < 1
            rows.append((f"single/{task}/{figure}", ours, base, max(kept) - min(kept), worse))
    return rows


def section(
    ours: list[dict[str, Any]], baseline: list[dict[str, Any]], fmt: Any, single: dict[str, Any]
) -> list[str]:
    """The report's markdown section: the worse figures first, then the count of the rest."""
    rows = _rows(ours, baseline, single)
    worse = [row for row in rows if row[4]]
    lines = [
        "## Against the baseline",
        "",
        f"{len(rows)} figures compared; {len(worse)} worse than the baseline beyond the "
        "run-to-run spread.",
        "",
    ]
    if worse:
        lines += [
            "Figures measured in pairs (single/..., Dataset timesteps/s included) count as "
            "worse when ours was slower in every round; their spread is that of the "
            "per-round ratios.",
            "",
            "| figure | ours | baseline | spread |",
            "|---|---:|---:|---:|",
        ]
        lines += [f"| {p} | {fmt(a)} | {fmt(b)} | {fmt(s)} |" for p, a, b, s, _ in worse]
        lines.append("")
    return lines


def worse_count(
    ours: list[dict[str, Any]], baseline: list[dict[str, Any]], single: dict[str, Any]
) -> int:
    """How many figures are worse than the baseline beyond the spread."""
    return sum(1 for row in _rows(ours, baseline, single) if row[4])


def _rows(
    ours: list[dict[str, Any]], baseline: list[dict[str, Any]], single: dict[str, Any]
) -> list[tuple[Any, ...]]:
    """Every compared figure: the paired ones, and the unpaired ones not also paired."""
    rates = single.get("rates", {}).get("baseline", {})
    paired = frozenset(
        {"dataset"} if any("dataset_timesteps_per_s" in f for f in rates.values()) else ()
    )
    return compared(ours, baseline, paired) + paired_rows(single)
