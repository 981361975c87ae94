"""``neurogym analyze RUN_DIR``: the analyses of a saved run (declared in ``_plugin``).

The ``neurogym`` command line imports this module only when ``analyze`` runs; torch,
scikit-learn and matplotlib are imported once the arguments were accepted.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from neurogym.commands import CommandError, Run, positive_int, seed

__all__ = ["configure_analyze", "run_analyze"]

_ANALYSES = ("variance", "fixed-points", "pca")  # neurogym_apps.analysis.ANALYSES, torch-free


def analyses(text: str) -> list[str]:
    """``--what``: a comma-separated list of analyses."""
    chosen = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [part for part in chosen if part not in _ANALYSES]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(
            f"choose from {','.join(_ANALYSES)} (comma-separated), got {text!r}"
        )
    return chosen


def configure_analyze(parser: argparse.ArgumentParser) -> Run:
    """``neurogym analyze RUN_DIR [--what variance,fixed-points,pca]``."""
    parser.description = (
        "Analyse a trained run (neurogym_apps.analysis): Yang et al. (2019)'s task variance "
        "and clusters (runs trained on a task set), Sussillo & Barak (2013)'s fixed points, and "
        "PCA of condition-averaged activity. Writes figures and analysis.json into "
        "RUN_DIR/analysis/."
    )
    parser.add_argument(
        "run_dir", type=Path, metavar="RUN_DIR", help="a folder written by neurogym train"
    )
    parser.add_argument(
        "--what",
        type=analyses,
        default=None,
        help=f"analyses, comma-separated ({','.join(_ANALYSES)}; default: all that apply, "
        "variance only for a task set)",
    )
    parser.add_argument("--trials", type=positive_int, default=64, help="trials per task (64)")
    parser.add_argument("--seed", type=seed, default=0, help="seed of trials and k-means (0)")
    parser.add_argument(
        "--task", default=None, help="the task of a task set whose fixed points are searched"
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace an earlier analysis in RUN_DIR/analysis"
    )
    return run_analyze


def run_analyze(args: argparse.Namespace) -> int:
    """Run :func:`neurogym_apps.analysis.analyze`; errors become one line, not a traceback."""
    if not (args.run_dir / "config.json").is_file():
        raise CommandError(f"{str(args.run_dir)!r} is not a run folder: it has no config.json")
    try:
        from neurogym_apps.analysis import analyze
    except ImportError as exc:
        raise CommandError(str(exc)) from None
    try:
        result = analyze(
            args.run_dir,
            args.what,
            trials=args.trials,
            seed=args.seed,
            fixed_point_task=args.task,
            overwrite=args.overwrite,
        )
    except (ValueError, ImportError) as exc:
        raise CommandError(str(exc)) from None
    print(f"wrote {', '.join(result['files'])} into {args.run_dir / 'analysis'}")
    return 0
