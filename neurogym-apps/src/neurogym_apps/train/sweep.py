"""Sweeps: one training run per (task, seed), in this process or fanned out on Ray.

``neurogym sweep TASK... --seeds 0 1 2 --steps 500 [--ray [ADDRESS]]`` on the command line.
Each run trains with :func:`neurogym_apps.train.train` (the seed replaced) on the config's torch
threads (``TrainConfig.threads``, default 1; ``--threads``) and is scored closed loop by
:func:`neurogym_apps.train.evaluate`; a run is a pure function of its task, seed and config, so
the Ray results equal the sequential ones (tested). ``neurogym sweep`` writes a line per
finished run to stderr, and the table of all runs to stdout at the end.

Why Ray tasks rather than Ray Tune: a sweep over tasks x seeds is a fixed grid of independent
runs whose results are small dicts. One remote function is all it needs (results come back in
grid order, nothing is written on the workers). Tune adds what searches need (schedulers that
stop bad trials early, search algorithms, per-trial checkpoints and experiment directories);
:func:`run_one` is a plain function a Tune trainable can call when that is wanted.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import sys
from collections.abc import Callable, Sequence
from typing import Any

from neurogym import validate
from neurogym_apps import _json
from neurogym_apps.train._evaluate import evaluate
from neurogym_apps.train._progress import torch_threads
from neurogym_apps.train._trainer import TrainConfig, train

__all__ = ["main", "on_ray", "run_one", "sweep"]


def run_one(task: str, seed: int, config: TrainConfig, eval_trials: int = 200) -> dict[str, Any]:
    """One run of a sweep: train ``task`` with ``config`` and ``seed``, evaluate it.

    Training and evaluation use ``config.threads`` torch threads (restored afterwards), so a
    run does the same arithmetic here and on a Ray worker.

    Returns:
        ``task``, ``seed``, ``steps``, ``final_loss``, ``accuracy`` (closed-loop strict
        accuracy), ``performance`` (the env's own), ``chance`` (the best of the random and
        fixation baselines, strict).
    """
    with torch_threads(config.threads):
        model = train(task, dataclasses.replace(config, seed=seed), progress=False)
        result = evaluate(model, eval_trials, seed=seed + 1)
    return {
        "task": task,
        "seed": seed,
        "steps": len(model.history["step"]),
        "final_loss": float(model.history["loss"][-1]),
        "accuracy": result.accuracy,
        "performance": result.performance,
        "chance": result.chance_level,
    }


def sweep(
    tasks: Sequence[str],
    seeds: Sequence[int],
    config: TrainConfig | None = None,
    *,
    eval_trials: int = 200,
    ray: bool = False,
    address: str | None = None,
    num_cpus: int | None = None,
    progress: bool = False,
) -> list[dict[str, Any]]:
    """Runs :func:`run_one` for every task x seed, in grid order (tasks outer).

    Args:
        tasks: Task ids or names.
        seeds: Seeds (each run uses its own; ``config.seed`` is ignored).
        config: The training recipe (default ``TrainConfig(steps=1000)``); use a step budget:
            a time budget makes results depend on the machine.
        eval_trials: Closed-loop trials per run.
        ray: Fan the runs out as Ray tasks (one CPU each) instead of running them here.
        address: A running Ray cluster (``"auto"``, ``"ray://host:10001"``, ...); default: the
            one this process is connected to, else a new local instance.
        num_cpus: CPUs of a new local instance (default: all).
        progress: Write a line per finished run to stderr (run i of n, task, seed, strict
            accuracy, steps).

    Returns:
        One dict per run (see :func:`run_one`).

    Raises:
        ValueError: No tasks or no seeds.
        ImportError: ``ray=True`` without Ray installed (the ray extra).
    """
    if not tasks or not seeds:
        raise ValueError(f"a sweep needs tasks and seeds, got tasks={tasks!r} seeds={seeds!r}")
    config = config if config is not None else TrainConfig(steps=1000)
    eval_trials = validate.positive_int(eval_trials, "eval_trials")
    grid = [(task, int(seed)) for task, seed in itertools.product(tasks, seeds)]
    calls = [(task, seed, config, eval_trials) for task, seed in grid]
    report = _report_run if progress else None
    if not ray:
        return [_reported(run_one(*call), i, len(calls), report) for i, call in enumerate(calls)]
    return on_ray(run_one, calls, address=address, num_cpus=num_cpus, report=report)


def _report_run(run: dict[str, Any], index: int, total: int) -> None:
    print(
        f"sweep run {index + 1}/{total}: {run['task']} seed {run['seed']}  strict accuracy "
        f"{run['accuracy']:.3f}  chance {run['chance']:.3f}  {run['steps']} steps",
        file=sys.stderr,
        flush=True,
    )


def _reported(
    result: Any, index: int, total: int, report: Callable[[Any, int, int], None] | None
) -> Any:
    if report is not None:
        report(result, index, total)
    return result


def on_ray(
    function: Callable[..., Any],
    calls: Sequence[tuple[Any, ...]],
    *,
    address: str | None = None,
    num_cpus: int | None = None,
    report: Callable[[Any, int, int], None] | None = None,
) -> list[Any]:
    """``[function(*args) for args in calls]``, each call a Ray task with one CPU.

    Connects to ``address`` (or starts a local instance with ``num_cpus``) unless this
    process is already connected. Results come back in the order of ``calls``; ``report``,
    if given, is called as ``report(result, index, len(calls))`` as each is collected.

    Raises:
        ImportError: Ray is not installed (the ray extra).
    """
    try:
        import ray
    except ImportError as exc:
        raise ImportError(
            'running on Ray needs the ray extra: pip install "neurogym[ray]"'
        ) from exc
    if not ray.is_initialized():
        ray.init(address=address, num_cpus=num_cpus, include_dashboard=False)
    remote = ray.remote(num_cpus=1)(function)
    refs = [remote.remote(*args) for args in calls]
    return [_reported(ray.get(ref), i, len(refs), report) for i, ref in enumerate(refs)]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m neurogym_apps.train.sweep``: the same as ``neurogym sweep``.

    The same parser (``neurogym_apps._cli.configure_sweep``), output and exit statuses, without
    the ``neurogym`` command line.

    Args:
        argv: The arguments, without the program name; ``sys.argv[1:]`` if None.

    Returns:
        The exit status: 0 success, 1 failure, 2 usage error.
    """
    from neurogym.commands import run_command
    from neurogym_apps._cli import configure_sweep

    parser = argparse.ArgumentParser(prog="neurogym sweep")
    run = configure_sweep(parser)
    return run_command("sweep", run, parser.parse_args(sys.argv[1:] if argv is None else argv))


def run_cli(args: argparse.Namespace) -> int:
    """Runs the sweep ``args`` describe; prints one line per run."""
    import neurogym

    tasks = [neurogym.spec(task).id for task in args.tasks]
    config = TrainConfig(steps=args.steps, threads=args.threads)
    on_ray = args.ray is not None
    runs = sweep(
        tasks,
        args.seeds,
        config,
        eval_trials=args.eval_trials,
        ray=on_ray,
        address=args.ray or None,
        progress=True,
    )
    for run in runs:
        print(
            f"{run['task']}  seed {run['seed']}  accuracy {run['accuracy']:.3f}  "
            f"chance {run['chance']:.3f}  loss {run['final_loss']:.4f}  steps {run['steps']}"
        )
    if args.out is not None:
        _json.write(args.out, runs, indent=1)
        print(f"wrote {len(runs)} runs to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
