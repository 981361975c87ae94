"""The main job: train a small network on one showcase task of each installed family.

``python -m neurogym_apps.train.showcase`` (what ``python3 run.py train`` runs) trains a GRU on
each task below whose family is installed, for a fixed number of training steps (so the same
command gives the same numbers on any machine, loaded or not; the wall time is measured and
printed beside them), evaluates it closed loop (strict accuracy: fixation held, then the
correct response) against chance, prints a table and writes every run (``<task>/``: model,
``metrics.json``, figures) and ``summary.json`` (every task's scores) under one folder, named
at the end.
Progress goes to stderr: each task's training (a bar on a terminal, plain lines otherwise) and
a line per finished task.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import neurogym
from neurogym.commands import positive_int
from neurogym_apps import _json
from neurogym_apps._cli import add_threads_argument
from neurogym_apps.train._cli import format_table
from neurogym_apps.train._progress import torch_threads
from neurogym_apps.train._report import _run_files, train_and_report
from neurogym_apps.train._trainer import TrainConfig

__all__ = ["SHOWCASE", "main"]

#: (task, training steps): one task per first-party family, the classic one of each. Each
#: budget is at least twice the steps at which seed 0 reaches its final score (strict accuracy
#: of 300 trials every 250 steps, one torch thread): PerceptualDecisionMaking plateaus at
#: 0.87 from 1,500 steps, DelayMatchSample jumps from 0.52 (a guess) to 1.0 between 1,500 and
#: 2,000, EconomicDecisionMaking is at 1.0 by 250, ReadySetGo by 750, and yang19.dm1 climbs
#: slowly (0.83 at 1,500, 0.87 at 3,000): its budget is a cost choice, not a plateau.
SHOWCASE: tuple[tuple[str, int], ...] = (
    ("PerceptualDecisionMaking", 5000),  # perceptual: the random-dot motion task
    ("DelayMatchSample", 4500),  # workingmemory
    ("EconomicDecisionMaking", 1000),  # valuebased
    ("ReadySetGo", 2000),  # motor
    ("yang19.dm1", 3000),  # multitask
)


def installed(names: Sequence[str]) -> list[str]:
    """The names whose task is registered (its family's plugin is installed)."""
    known = {spec.name for spec in neurogym.tasks()}
    return [name for name in names if name in known]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the showcase; returns 0 (1 if a floor given with ``--floor`` was missed)."""
    parser = argparse.ArgumentParser(
        prog="python -m neurogym_apps.train.showcase", description=__doc__
    )
    parser.add_argument("--out", type=Path, default=Path("runs/showcase"), help="(runs/showcase)")
    parser.add_argument(
        "--scale", type=float, default=1.0, help="multiply every step budget (1.0)"
    )
    parser.add_argument(
        "--eval-trials", type=positive_int, default=1000, help="closed-loop trials (1000)"
    )
    parser.add_argument(
        "--floor",
        action="append",
        default=[],
        metavar="TASK=ACC",
        help="exit 1 if TASK's accuracy is below ACC (repeatable)",
    )
    add_threads_argument(parser)
    parser.add_argument(
        "--no-progress",
        dest="progress",
        action="store_false",
        help="no training progress (the line per finished task stays)",
    )
    parser.add_argument("--no-figures", action="store_true", help="skip the figures")
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the runs already under --out (without it, they are refused)",
    )
    args = parser.parse_args(argv)
    tasks = dict(SHOWCASE)
    chosen = installed(list(tasks))
    skipped = [name for name in tasks if name not in chosen]
    if skipped:
        print(f"skipped (family not installed): {', '.join(skipped)}", file=sys.stderr)
    floors = _parsed_floors(parser, args.floor, chosen)  # refused before any training
    taken = [name for name in chosen if _run_files(args.out / name)]
    if taken and not args.overwrite:
        parser.error(
            f"{args.out} already holds the runs of {', '.join(taken)}: give another --out, or "
            "--overwrite to replace them"
        )
    rows, summary = [], {}
    start = time.perf_counter()
    for name in chosen:
        steps = max(1, round(tasks[name] * args.scale))
        config = TrainConfig(steps=steps, seed=0, threads=args.threads)
        with torch_threads(args.threads):  # the evaluation too
            result = train_and_report(
                name,
                args.out / name,
                config,
                eval_trials=args.eval_trials,
                figures=not args.no_figures,
                progress=args.progress,
                overwrite=args.overwrite,
            )
        history = result.model.history
        rows.append((name, result.evaluation, len(history["step"]), history["seconds"][-1]))
        summary[name] = {
            "accuracy": result.evaluation.accuracy,
            "fixation_breaks": result.evaluation.fixation_breaks,
            "performance": result.evaluation.performance,
            "chance": result.evaluation.chance,
            "steps": len(history["step"]),
            "train_seconds": history["seconds"][-1],
        }
        print(
            f"{name}: strict accuracy {result.evaluation.accuracy:.3f} after "
            f"{len(history['step'])} steps ({time.perf_counter() - start:.0f} s so far)",
            file=sys.stderr,
            flush=True,
        )
    table = format_table(rows)
    print(table)
    args.out.mkdir(parents=True, exist_ok=True)
    _json.write(args.out / "summary.json", summary)
    elapsed = time.perf_counter() - start
    print(f"\n{len(rows)} task(s) in {elapsed:.0f} s; models, metrics and figures in {args.out}/")
    return _check_floors(floors, summary)


def _parsed_floors(
    parser: argparse.ArgumentParser, floors: Sequence[str], chosen: Sequence[str]
) -> dict[str, float]:
    """``TASK=ACC`` items as {showcase name: accuracy}, checked before any training.

    A task id or name the job does not train, or an accuracy that is not a number, is a usage
    error (exit 2) naming the valid ones.
    """
    parsed = {}
    for item in floors:
        task, _, value = item.partition("=")
        try:
            name = neurogym.spec(task).name if task not in chosen else task
            accuracy = float(value)
        except (LookupError, ValueError) as exc:
            parser.error(f"--floor {item!r}: {exc}")
        if name not in chosen:
            parser.error(f"--floor {item!r}: the main job does not train it; it trains {chosen}")
        parsed[name] = accuracy
    return parsed


def _check_floors(floors: dict[str, float], summary: dict[str, dict[str, object]]) -> int:
    status = 0
    for name, floor in floors.items():
        accuracy = summary[name]["accuracy"]
        if not isinstance(accuracy, float) or accuracy < floor:
            print(f"floor missed: {name} accuracy {accuracy} < {floor}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
