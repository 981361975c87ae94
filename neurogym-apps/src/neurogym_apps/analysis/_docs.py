"""Redraws docs/analysis.md's figures from fresh training runs (the ``analysis`` nox session).

``python -m neurogym_apps.analysis._docs --docs docs --runs runs/analysis`` trains (or reuses,
when a folder already holds it) three runs, analyses them and writes
``docs/figures/analysis_*.png``, printing the numbers the page quotes:

* ``pdm_gru``: PerceptualDecisionMaking, GRU, 64 units, 3000 steps: population trajectories;
* ``pdm_rnn``: the same with a vanilla tanh RNN (Sussillo & Barak's kind of network): fixed
  points;
* ``yang19``: yang19.all (20 tasks), GRU, 64 units, 4000 steps: task variance, clusters, FTV.

About 7 minutes on one core.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from neurogym_apps import _json
from neurogym_apps.analysis._run import FOLDER, analyze
from neurogym_apps.train import train_and_report

__all__ = ["RUNS", "main"]

#: name: (task, train_and_report overrides, analyses, {written figure: docs figure}).
RUNS: dict[str, tuple[str, dict[str, Any], list[str], dict[str, str]]] = {
    "pdm_gru": (
        "PerceptualDecisionMaking",
        {"steps": 3000},
        ["pca"],
        {"pca_PerceptualDecisionMaking.png": "analysis_pca_pdm.png"},
    ),
    "pdm_rnn": (
        "PerceptualDecisionMaking",
        {"steps": 3000, "model": "rnn"},
        ["fixed-points"],
        {"fixed_points.png": "analysis_fixed_points_pdm.png"},
    ),
    "yang19": (
        "yang19.all",
        {"steps": 4000, "eval_trials": 100},
        ["variance", "pca"],
        {
            "variance_map.png": "analysis_variance_map.png",
            "silhouette.png": "analysis_silhouette.png",
            "ftv.png": "analysis_ftv.png",
            "pca_dm1.png": "analysis_pca_dm1.png",
        },
    ),
}


def main(argv: Sequence[str] | None = None) -> int:
    """Train or reuse the runs, analyse them, copy the figures into ``DOCS/figures``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=Path, default=Path("docs"), help="docs folder (docs)")
    parser.add_argument("--runs", type=Path, default=Path("runs/analysis"), help="run folders")
    args = parser.parse_args(argv)
    numbers = {}
    for name, (task, overrides, what, figures) in RUNS.items():
        run = args.runs / name
        if not (run / "model.pt").is_file():
            train_and_report(task, run, figures=False, **overrides)
        result = analyze(run, what, trials=128, overwrite=True)
        for written, docs_name in figures.items():
            shutil.copyfile(run / FOLDER / written, args.docs / "figures" / docs_name)
        numbers[name] = result
    print(_json.dumps(_headline(numbers)), file=sys.stdout)
    return 0


def _headline(numbers: dict[str, Any]) -> dict[str, Any]:
    """The numbers docs/analysis.md quotes."""
    variance = numbers["yang19"]["variance"]
    return {
        "n_clusters": variance["n_clusters"],
        "silhouette": variance["silhouette"][variance["n_clusters"]],
        "shuffled_silhouette": variance["shuffled_silhouette"],
        "ftv_histograms": variance["ftv"],
        "fixed_points": {
            period: (found["found"], int(sum(found["stable"])))
            for period, found in numbers["pdm_rnn"]["fixed_points"]["by_period"].items()
        },
        "pca_pdm_explained": numbers["pdm_gru"]["pca"],
    }


if __name__ == "__main__":
    raise SystemExit(main())
