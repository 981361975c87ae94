"""``neurogym train TASK``: the command's work, imported only when it runs (it needs torch)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from neurogym.commands import CommandError
from neurogym_apps.train._evaluate import Evaluation
from neurogym_apps.train._progress import torch_threads
from neurogym_apps.train._report import train_and_report
from neurogym_apps.train._trainer import TrainConfig

__all__ = ["format_table", "run"]


def _config(args: argparse.Namespace) -> TrainConfig:
    return TrainConfig(
        model=args.model,
        hidden_size=args.hidden,
        lr=args.lr,
        lr_schedule=args.lr_schedule,
        batch_size=args.batch_size,
        response_weight=args.response_weight,
        steps=args.steps,
        seconds=None if args.minutes is None else 60.0 * args.minutes,
        seed=args.seed,
        threads=args.threads,
        across_trials=args.across_trials,
        chunk_steps=args.chunk_steps,
        random_actions=args.random_actions,
        curriculum=tuple(_stage(steps, kwargs) for steps, kwargs in args.stage or ()),
    )


def _stage(steps: str, kwargs: str) -> tuple[int, Any]:
    """A ``--stage STEPS KWARGS`` pair: KWARGS is read as JSON (data, never code)."""
    try:
        value = json.loads(kwargs)
    except json.JSONDecodeError as exc:
        raise ValueError(f"--stage {steps} {kwargs!r}: KWARGS is not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise ValueError(f"--stage {steps} {kwargs!r}: KWARGS must be a JSON object")
    if not steps.isdigit():
        raise ValueError(f"--stage {steps!r} {kwargs}: STEPS must be a positive integer")
    return int(steps), value


def format_table(rows: list[tuple[str, Evaluation, int, float]]) -> str:
    """A plain-text table: task, strict accuracy, fixation breaks, env performance, chance.

    Chance is each baseline's strict accuracy: random actions, always fixating, and a guess
    (fixate, then one answer drawn uniformly; "-" where it does not apply).
    """
    header = (
        "task", "accuracy", "fixation breaks", "env perf.", "chance (guess)",
        "chance (random)", "chance (fixation)", "steps", "seconds",
    )  # fmt: skip

    def num(value: float) -> str:
        return "-" if value != value else f"{value:.3f}"  # NaN: not measured

    lines = [
        (
            task,
            num(ev.accuracy),
            num(ev.fixation_breaks),
            num(ev.performance),
            num(ev.chance.get("guess", float("nan"))),
            num(ev.chance.get("random", float("nan"))),
            num(ev.chance.get("fixation", float("nan"))),
            str(steps),
            f"{seconds:.0f}",
        )
        for task, ev, steps, seconds in rows
    ]
    widths = [
        max(len(str(cell)) for cell in column) for column in zip(header, *lines, strict=True)
    ]
    out = [
        "  ".join(str(cell).ljust(width) for cell, width in zip(line, widths, strict=True))
        for line in (header, *lines)
    ]
    return "\n".join(line.rstrip() for line in out)


def run(spec: Any, args: argparse.Namespace) -> int:
    """Trains ``spec``'s task as ``args`` say, prints the result and where it was written.

    Training and evaluation use ``--threads`` torch threads (as ``TrainConfig.threads``); the
    progress goes to stderr (a bar on a terminal, plain lines otherwise).
    """
    try:
        config = _config(args)
    except (TypeError, ValueError) as exc:
        raise CommandError(str(exc)) from None
    out = args.out or Path("runs") / spec.name
    try:
        with torch_threads(args.threads):  # the evaluation too
            result = train_and_report(
                spec.id,
                out,
                config,
                eval_trials=args.eval_trials,
                figures=not args.no_figures,
                overwrite=args.overwrite,
            )
    except ImportError as exc:  # figures need matplotlib
        raise CommandError(f"{exc} (or pass --no-figures)") from None
    except ValueError as exc:  # no ground truth, unsupported spaces
        raise CommandError(str(exc)) from None
    history = result.model.history
    print(
        format_table(
            [(spec.name, result.evaluation, len(history["step"]), history["seconds"][-1])]
        )
    )
    print(f"wrote the model, metrics.json and {len(result.figures)} figure(s) to {out}")
    return 0
