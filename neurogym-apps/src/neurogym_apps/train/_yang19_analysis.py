"""Yang et al. (2019)'s task-variance analysis of the reproduction's network, for docs/yang19.md.

:func:`summarize` runs :func:`neurogym_apps.analysis.analyze` (``variance``) on the saved run
of ``python -m neurogym_apps.train.yang19``, copies its three figures into ``DOCS/figures``
(``yang19_variance_map.png``, ``yang19_silhouette.png``, ``yang19_ftv.png``) and returns the
numbers the page quotes; :func:`section` writes the page's section from them, each of the
paper's findings (as docs/analysis.md reads its Figs. 2-3) beside the measured number and a
verdict by a stated rule. Needs the ``analysis`` extra (scikit-learn).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["FIGURES", "section", "summarize"]

#: The analysis figures the page shows, by the name ``analyze`` writes them under.
FIGURES = ("variance_map", "silhouette", "ftv")
_SEPARATED = 0.5  # |FTV| above this: a unit that varies mostly in one task of the pair
_CLUSTERS_ABOVE_SHUFFLED = 0.05  # silhouette margin over shuffled data that counts as clusters
_DOZEN = (8, 20)  # "about a dozen clusters"


def summarize(run: Path, docs: Path, trials: int = 128) -> dict[str, Any]:
    """Analyses the saved network at ``run``; writes the figures; returns the page's numbers."""
    from neurogym_apps.analysis import analyze
    from neurogym_apps.analysis._run import FOLDER

    variance = analyze(run, ["variance"], trials=trials, overwrite=True)["variance"]
    (docs / "figures").mkdir(parents=True, exist_ok=True)
    for name in FIGURES:
        shutil.copyfile(run / FOLDER / f"{name}.png", docs / "figures" / f"yang19_{name}.png")
    best = int(variance["n_clusters"])
    centres = (variance["ftv_bins"][:-1] + variance["ftv_bins"][1:]) / 2
    ftv = {}
    for pair, counts in variance["ftv"].items():
        counts = np.asarray(counts, dtype=float)
        ftv[pair] = float(counts[np.abs(centres) > _SEPARATED].sum() / counts.sum())
    labels = np.asarray(variance["cluster_of_kept_unit"])
    return {
        "trials_per_task": trials,
        "units_kept": len(variance["units_kept"]),
        "n_clusters": best,
        "silhouette": float(variance["silhouette"][best]),
        "shuffled_silhouette": float(variance["shuffled_silhouette"]),
        "cluster_sizes": sorted((int(n) for n in np.bincount(labels)), reverse=True),
        "ftv_separated": ftv,
    }


def _verdicts(numbers: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(the paper's finding, the measured number, holds?) rows."""
    best, shuffled = numbers["silhouette"], numbers["shuffled_silhouette"]
    n = numbers["n_clusters"]
    rows = [
        (
            "units form clusters: the silhouette score is well above that of shuffled data",
            f"{best:.2f} ({n} clusters) against {shuffled:.2f} shuffled",
            "yes" if best > shuffled + _CLUSTERS_ABOVE_SHUFFLED else "no",
        ),
        (
            "about a dozen clusters (the silhouette curve peaks at a two-digit number)",
            f"{n} clusters, of {', '.join(map(str, numbers['cluster_sizes']))} units",
            "yes" if _DOZEN[0] <= n <= _DOZEN[1] else "no",
        ),
    ]
    ctx = numbers["ftv_separated"].get("ctxdm1 vs ctxdm2")
    if ctx is not None:
        rows.append(
            (
                "ctxdm1 vs ctxdm2: two groups of units, FTV peaks near -1 and +1",
                f"{ctx:.0%} of units with FTV below -{_SEPARATED} or above {_SEPARATED}",
                "yes" if ctx >= 0.5 else "no",
            )
        )
    return rows


def section(numbers: dict[str, Any]) -> list[str]:
    """The page's markdown lines on the analysis of the trained network."""
    rows = _verdicts(numbers)
    pairs = ", ".join(f"{pair} {share:.0%}" for pair, share in numbers["ftv_separated"].items())
    lines = [
        "## What the network learned: task variance and clusters",
        "",
        "The trained network above (saved by the run; `neurogym analyze RUN_DIR --what "
        f"variance`), analysed on {numbers['trials_per_task']} trials per task as in "
        "[the analysis guide](analysis.md): each unit's variance across a task's trials, "
        f"normalised per unit ({numbers['units_kept']} units active), units clustered by "
        "k-means with the number of clusters chosen by silhouette, and the fractional task "
        "variance (FTV) of task pairs. Units with |FTV| > 0.5 (varying mostly in one task "
        f"of the pair): {pairs}.",
        "",
        "![Normalised task variance per unit and task, units sorted by cluster]"
        "(figures/yang19_variance_map.png)",
        "",
        "![Silhouette score against the number of clusters, beside shuffled data]"
        "(figures/yang19_silhouette.png)",
        "",
        "![Fractional task variance histograms of task pairs](figures/yang19_ftv.png)",
        "",
        "| Yang et al. (2019), Figs. 2-3 | this network | holds? |",
        "|---|---|---|",
        *(f"| {finding} | {measured} | {holds} |" for finding, measured, holds in rows),
        "",
        f"Rules: clusters count when the best silhouette exceeds the shuffled data's by "
        f"{_CLUSTERS_ABOVE_SHUFFLED}; a dozen is {_DOZEN[0]}-{_DOZEN[1]}; two groups when at "
        f"least half the units have |FTV| > {_SEPARATED}. The paper's networks are leaky RNNs "
        "of softplus units trained for up to 1e7 trials; this one is a GRU.",
        "",
    ]
    return lines
