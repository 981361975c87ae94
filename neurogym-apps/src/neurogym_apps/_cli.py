"""``neurogym train``, ``neurogym plot`` and ``neurogym sweep``: the applications' commands.

neurogym-apps declares them through the ``neurogym_commands`` hook (``neurogym_apps._plugin``);
the ``neurogym`` command line imports this module only when one of them runs, and each
command imports torch, matplotlib or Ray only once its arguments were accepted. Like any
plugin's command, it takes its errors and argument types from ``neurogym.commands``, never
from the command line (``neurogym.cli``) that loads it.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

from neurogym.commands import (
    CommandError,
    Run,
    positive_float,
    positive_int,
    resolve_task,
    seed,
)

__all__ = [
    "MAX_PLOT",
    "add_ray_argument",
    "add_sweep_arguments",
    "add_threads_argument",
    "configure_plot",
    "configure_sweep",
    "configure_train",
    "plot_trials",
]

MAX_PLOT = 50  # trials in one figure: more are unreadable (and take minutes to draw)


def plot_trials(text: str) -> int:
    """Trials in one figure: 1 to :data:`MAX_PLOT`."""
    value = positive_int(text)
    if value > MAX_PLOT:
        raise argparse.ArgumentTypeError(
            f"must be at most {MAX_PLOT} (one figure; more trials are unreadable), got {text!r}"
        )
    return value


# --------------------------------------------------------------------------------------- plot
def configure_plot(parser: argparse.ArgumentParser) -> Run:
    """``neurogym plot ID``: draw a run of a task with plot_env's default policy."""
    parser.description = (
        "Draw plot_env of a task into an image file, acting with the task's ground truth "
        "(random actions for a task without one, e.g. a bandit)."
    )
    parser.add_argument("task_id", metavar="ID", help="a task id, e.g. PerceptualDecisionMaking")
    parser.add_argument(
        "--trials", type=plot_trials, default=2, help=f"trials to run (2; at most {MAX_PLOT})"
    )
    parser.add_argument("--seed", type=seed, default=0, help="seed of env.reset (0)")
    parser.add_argument(
        "--out", "-o", type=Path, default=None, metavar="FILE", help="image file (<task>.png)"
    )
    return run_plot


def run_plot(args: argparse.Namespace) -> int:
    """Draw ``plot_env`` of a task (its default policy) into an image file; say what acted."""
    spec = resolve_task(args.task_id)
    try:
        plot = importlib.import_module("neurogym_apps.plot")
    except ImportError:
        raise CommandError(
            'needs matplotlib, which comes with the plot extra: pip install "neurogym[plot]"'
        ) from None
    from neurogym_apps.plot._run import describe_policy, resolve_env

    out = args.out or Path(f"{spec.name}.png")
    env = resolve_env(spec.id)
    figure = plot.plot_env(env, num_trials=args.trials, seed=args.seed)
    try:
        figure.savefig(out, dpi=100)
    except (OSError, ValueError) as exc:
        raise CommandError(f"cannot write {str(out)!r}: {exc}") from exc
    print(f"wrote {out}: {args.trials} trial(s) of {spec.id} with {describe_policy(env)}")
    return 0


# -------------------------------------------------------------------------------------- train
def configure_train(parser: argparse.ArgumentParser) -> Run:
    """``neurogym train TASK``: train a recurrent network, evaluate it and write the run."""
    parser.description = (
        "Train a GRU/LSTM/RNN on a task's ground truth (neurogym_apps.train), evaluate it closed "
        "loop against chance, and write the model, metrics.json and figures."
    )
    parser.add_argument("task_id", metavar="TASK", help="a task id, e.g. PerceptualDecisionMaking")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--minutes", type=positive_float, help="wall-clock budget in minutes")
    budget.add_argument("--steps", type=positive_int, help="training steps (default 1000)")
    parser.add_argument(
        "--out",
        "-o",
        type=Path,
        default=None,
        metavar="DIR",
        help="output folder (runs/<task>); refused if it holds a run, unless --overwrite",
    )
    parser.add_argument("--seed", type=seed, default=0, help="seed of weights and trials (0)")
    parser.add_argument("--model", choices=("gru", "lstm", "rnn"), default="gru", help="(gru)")
    parser.add_argument("--hidden", type=positive_int, default=64, help="hidden units (64)")
    parser.add_argument("--lr", type=positive_float, default=3e-3, help="learning rate (0.003)")
    parser.add_argument(
        "--lr-schedule",
        choices=("constant", "cosine"),
        default="constant",
        help="constant (default), or cosine: anneal the learning rate to 0 over --steps",
    )
    parser.add_argument("--batch-size", type=positive_int, default=32, help="trials per step (32)")
    parser.add_argument(
        "--response-weight",
        type=positive_float,
        default=1.0,
        metavar="W",
        help="the loss's weight on response steps against the fixation before them (1; "
        "TrainConfig.response_weight)",
    )
    parser.add_argument(
        "--eval-trials", type=positive_int, default=500, help="closed-loop trials (500)"
    )
    parser.add_argument(
        "--across-trials",
        action="store_true",
        help="train on seeded streams of consecutive trials, the state carried across trials "
        "and the previous action and reward as inputs (docs/training.md)",
    )
    parser.add_argument(
        "--chunk-steps",
        type=positive_int,
        default=50,
        help="with --across-trials, steps per stream and training step (50)",
    )
    parser.add_argument(
        "--random-actions",
        type=float,
        default=0.0,
        metavar="P",
        help="with --across-trials, the fraction of steps the streams are stepped with a "
        "random action instead of the network's (0; TrainConfig.random_actions)",
    )
    parser.add_argument(
        "--stage",
        nargs=2,
        action="append",
        metavar=("STEPS", "KWARGS"),
        help="first train STEPS steps on the task with the arguments KWARGS, a JSON object "
        """(e.g. '{"rule_cue": 1.0}'); repeatable, in order, counted in --steps """
        "(TrainConfig.curriculum)",
    )
    add_threads_argument(parser)
    parser.add_argument("--no-figures", action="store_true", help="skip the figures")
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace a run already in the output folder (its model, config, metrics and "
        "figures are deleted once the new run is trained); without it such a folder is refused",
    )
    return run_train


def run_train(args: argparse.Namespace) -> int:
    """Train, evaluate and report (the work is in ``neurogym_apps.train._cli``)."""
    spec = resolve_task(args.task_id)
    try:
        command = importlib.import_module("neurogym_apps.train._cli")
    except ImportError as exc:
        raise CommandError(str(exc)) from None
    status: int = command.run(spec, args)
    return status


# -------------------------------------------------------------------------------------- sweep
def add_sweep_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``neurogym sweep`` (also ``python -m neurogym_apps.train.sweep``)."""
    parser.add_argument("tasks", nargs="+", metavar="TASK", help="task ids or names")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0], help="seeds (0)")
    parser.add_argument("--steps", type=positive_int, default=1000, help="steps per run (1000)")
    parser.add_argument(
        "--eval-trials", type=positive_int, default=200, help="closed-loop trials (200)"
    )
    add_threads_argument(parser)
    add_ray_argument(parser, "run on Ray: a new local instance, or the cluster at ADDRESS")
    parser.add_argument(
        "--out",
        "-o",
        type=Path,
        default=None,
        metavar="FILE",
        help="write the runs as JSON; refused if FILE exists, unless --overwrite",
    )
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --out file")


def add_threads_argument(parser: argparse.ArgumentParser, default: int = 1) -> None:
    """``--threads N``: torch CPU threads of training and evaluation (``TrainConfig.threads``)."""
    parser.add_argument(
        "--threads",
        type=positive_int,
        default=default,
        help=f"torch CPU threads ({default}; 1 is the fastest for small networks)",
    )


def add_ray_argument(parser: argparse.ArgumentParser, help_text: str) -> None:
    """``--ray [ADDRESS]``: None when absent, ``""`` for a new local instance, else ADDRESS."""
    parser.add_argument(
        "--ray", nargs="?", const="", default=None, metavar="ADDRESS", help=help_text
    )


def refuse_existing_output(out: Path | None, overwrite: bool) -> None:
    """Refuse, before any training, an output file that exists, unless ``overwrite``.

    The same rule as ``neurogym train --out``: a finished run is never replaced unasked.

    Raises:
        CommandError: ``out`` exists and ``overwrite`` is False, or ``out`` is a directory.
    """
    if out is None:
        return
    if out.is_dir():
        raise CommandError(f"--out {str(out)!r} is a directory; give a file name, e.g. runs.json")
    if out.exists() and not overwrite:
        raise CommandError(
            f"--out {str(out)!r} exists (an earlier sweep's runs); choose another file, "
            "or add --overwrite to replace it"
        )


def configure_sweep(parser: argparse.ArgumentParser) -> Run:
    """``neurogym sweep TASK... --seeds S...``: one training run per task x seed."""
    parser.description = (
        "One training run per task x seed (neurogym_apps.train.sweep): here, one after the "
        "other, or as Ray tasks on a local instance or a cluster (docs/scale.md)."
    )
    add_sweep_arguments(parser)
    return run_sweep


def run_sweep(args: argparse.Namespace) -> int:
    """One training run per task x seed (the work is in ``neurogym_apps.train.sweep``)."""
    for task in args.tasks:
        resolve_task(task)
    refuse_existing_output(args.out, args.overwrite)
    try:
        command = importlib.import_module("neurogym_apps.train.sweep")
    except ImportError as exc:
        raise CommandError(str(exc)) from None
    try:
        status: int = command.run_cli(args)
    except ImportError as exc:  # --ray without ray
        raise CommandError(str(exc)) from None
    return status
