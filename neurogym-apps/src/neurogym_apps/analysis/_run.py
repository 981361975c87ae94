"""``analyze``: every analysis of a saved run, its figures and ``analysis.json``."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from neurogym_apps import _json
from neurogym_apps.analysis._activity import (
    DEFAULT_MAX_BYTES,
    Activity,
    record_activity,
    task_names,
)
from neurogym_apps.analysis._figures import (
    fixed_points_figure,
    ftv_figure,
    silhouette_figure,
    trajectories_figure,
    variance_map_figure,
)
from neurogym_apps.analysis._fixed_points import FixedPoints, find_fixed_points
from neurogym_apps.analysis._pca import population_trajectories
from neurogym_apps.analysis._variance import (
    FTV_PAIRS,
    cluster_units,
    fractional_task_variance,
    shuffled_silhouette,
    task_variance,
)
from neurogym_apps.train import TrainedModel, torch_threads

__all__ = ["ANALYSES", "FOLDER", "MAX_SPEED", "analyze", "condition_variables", "constant_input"]

#: What :func:`analyze` can do (``--what``).
ANALYSES = ("variance", "fixed-points", "pca")
#: The folder inside the run that :func:`analyze` writes.
FOLDER = "analysis"
_RESULT = "analysis.json"
_MAX_CONDITION_VALUES = 8  # a trial variable with more distinct values is not a condition
#: Points kept by the fixed-point search of :func:`analyze`: ``q <= 1e-4``, so fixed points and
#: slow points (the state moves by at most ~0.014 a step).
MAX_SPEED = 1e-4


def _say(message: str, progress: bool, start: float) -> None:
    if progress:
        print(f"analyze [{time.perf_counter() - start:5.1f} s] {message}", file=sys.stderr,
              flush=True)  # fmt: skip


def condition_variables(activity: Activity) -> tuple[str, ...]:
    """The trial variables that define conditions (PerceptualDecisionMaking: choice x coh).

    ``ground_truth`` and ``coh``, each where present with at most 8 distinct values.
    """
    chosen = []
    for key in ("ground_truth", "coh"):
        values = activity.trial.get(key)
        if values is not None and len(set(np.asarray(values).tolist())) <= _MAX_CONDITION_VALUES:
            chosen.append(key)
    return tuple(chosen)


def constant_input(activity: Activity, period: str = "stimulus") -> np.ndarray:
    """The mean input over ``period``'s steps of all trials (the whole trials if none has it).

    For a task whose trials are balanced over the two directions (PerceptualDecisionMaking),
    this is the input of zero evidence: the fixation cue and equal stimuli.
    """
    steps = np.arange(activity.valid.shape[0])[:, None]
    mask = activity.valid
    if period in activity.periods:
        start, end = activity.periods[period]
        inside = mask & (steps >= start[None]) & (steps < end[None])
        mask = inside if inside.any() else mask
    return np.asarray(activity.inputs[mask].mean(0))


def _fixed_points(
    model: TrainedModel, activity: Activity, starts: int, seed: int
) -> tuple[dict[str, FixedPoints], dict[str, Any]]:
    """Fixed and slow points under the mean input of each period, from visited states."""
    states = activity.states[activity.valid]  # an LSTM's h and c side by side
    # GRU and tanh RNN states never leave (-1, 1); an LSTM's c has no such bound, so its
    # search keeps points within twice the largest state visited (beyond, saturated gates
    # make every state a fixed point that no trial reaches)
    bound = 1.0 if activity.cell is None else 2.0 * max(1.0, float(np.abs(states).max()))
    rng = np.random.default_rng(seed)
    initial = states[rng.choice(len(states), size=min(starts, len(states)), replace=False)]
    found, summary = {}, {}
    for period in _periods(activity):
        x = constant_input(activity, period)
        points = find_fixed_points(
            model.network, initial, x, noise=0.01, max_speed=MAX_SPEED, unique_distance=0.05,
            bound=bound, seed=seed,
        )  # fmt: skip
        found[period] = points
        summary[period] = {
            "input": x,
            "found": len(points),
            "slowest_speed": points.slowest,
            "speeds": points.speeds,
            "stable": points.stable,
            "unstable_dims": points.unstable_dims,
            "largest_eigenvalue_modulus": np.abs(points.eigenvalues[:, 0]),
        }
    return found, {
        "task": activity.tasks[0],
        "starts": len(initial),
        "bound": bound,
        "by_period": summary,
    }


def _periods(activity: Activity) -> list[str]:
    """The periods that some trial has, in the order they start."""
    present = [k for k, (s, e) in activity.periods.items() if (np.asarray(e) > s).any()]
    return sorted(present, key=lambda k: float(np.mean(activity.periods[k][0])))


def _variance(activity: Activity, seed: int, figures: dict[str, Any]) -> dict[str, Any]:
    variance = task_variance(activity)
    clusters = cluster_units(variance.normalized, seed=seed)
    shuffled = shuffled_silhouette(variance.normalized, seed=seed)
    ftv = {
        f"{a} vs {b}": fractional_task_variance(variance, a, b)
        for a, b in FTV_PAIRS
        if a in variance.tasks and b in variance.tasks
    }
    figures["variance_map.png"] = variance_map_figure(variance, clusters)
    figures["silhouette.png"] = silhouette_figure(clusters, shuffled)
    if ftv:
        figures["ftv.png"] = ftv_figure(ftv)
    return {
        "tasks": variance.tasks,
        "task_variance": variance.raw,
        "units_kept": variance.units,
        "n_clusters": clusters.n_clusters,
        "silhouette": clusters.scores,
        "shuffled_silhouette": shuffled,
        "cluster_of_kept_unit": clusters.labels,
        "ftv": {pair: np.histogram(v, bins=np.linspace(-1, 1, 21))[0] for pair, v in ftv.items()},
        "ftv_bins": np.linspace(-1, 1, 21),
    }


def _pca(activity: Activity, figures: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for name in activity.tasks:
        one = activity.of_task(name)
        by = condition_variables(one) or ("ground_truth",)
        trajectories = population_trajectories(one, name, by=by)
        short = name.removeprefix("neurogym/").removesuffix("-v0")
        figures[f"pca_{short}.png"] = trajectories_figure(trajectories)
        out[name] = {
            "by": by,
            "conditions": trajectories.conditions,
            "trials": trajectories.counts,
            "explained": trajectories.explained,
        }
    return out


def _earlier(out: Path, overwrite: bool) -> list[Path]:
    """The files of an earlier analysis in ``out``; refused unless ``overwrite``."""
    earlier = sorted([*out.glob("*.png"), *out.glob(_RESULT)]) if out.is_dir() else []
    if earlier and not overwrite:
        raise ValueError(
            f"{str(out)!r} already holds an analysis ({', '.join(p.name for p in earlier)}): "
            "pass overwrite=True (neurogym analyze --overwrite) to replace it"
        )
    return earlier


def _chosen(what: Sequence[str] | None, tasks: int) -> tuple[str, ...]:
    if what is None:
        return tuple(a for a in ANALYSES if a != "variance" or tasks > 1)
    unknown = [a for a in what if a not in ANALYSES]
    if unknown:
        raise ValueError(f"unknown analysis {unknown[0]!r}; choose from {list(ANALYSES)}")
    if "variance" in what and tasks < 2:
        raise ValueError(
            "task variance compares tasks: the run was trained on one task; analyse a run "
            "trained on a task set (e.g. yang19.all), or leave variance out of --what"
        )
    return tuple(dict.fromkeys(what))


def analyze(
    run: str | Path,
    what: Sequence[str] | None = None,
    *,
    trials: int = 64,
    seed: int = 0,
    fixed_point_task: str | None = None,
    starts: int = 128,
    overwrite: bool = False,
    progress: bool = True,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> dict[str, Any]:
    """Analyses a saved run; writes figures and ``analysis.json`` into ``run/analysis/``.

    Args:
        run: A run folder (``neurogym train``'s, or any ``TrainedModel.save`` folder).
        what: Analyses among :data:`ANALYSES` (None: all that apply; variance needs a task
            set).
        trials: Trials per task recorded (:func:`record_activity`).
        seed: Seed of the trials, k-means and the fixed-point starts.
        fixed_point_task: The task whose fixed points are searched (None: the first).
        starts: Initial states of the fixed-point search.
        overwrite: Replace an earlier analysis in ``run/analysis/``.
        progress: Progress lines on stderr.
        max_bytes: Memory limit of the recorded activity.

    Returns:
        The numbers written to ``analysis.json`` (with ``"files"``: what was written).

    Raises:
        ValueError: An earlier analysis and not ``overwrite``; an unknown analysis or task;
            variance asked for a single-task run; activity above ``max_bytes``.
        FileNotFoundError: ``run`` is not a saved model folder.
    """
    start = time.perf_counter()
    model = TrainedModel.load(run)
    chosen = _chosen(what, len(task_names(model)))
    out = Path(run) / FOLDER
    _earlier(out, overwrite)  # refused before any work
    with torch_threads(1):
        activity = record_activity(model, trials, seed=seed, max_bytes=max_bytes)
        _say(f"recorded {activity!r}", progress, start)
        result: dict[str, Any] = {"run": str(run), "trials_per_task": trials, "seed": seed}
        figures: dict[str, Any] = {}
        if "variance" in chosen:
            result["variance"] = _variance(activity, seed, figures)
            _say(f"task variance: {result['variance']['n_clusters']} clusters", progress, start)
        if "fixed-points" in chosen:
            task = activity.of_task(fixed_point_task or activity.tasks[0])
            points, result["fixed_points"] = _fixed_points(model, task, starts, seed)
            by = condition_variables(task) or ("ground_truth",)
            figures["fixed_points.png"] = fixed_points_figure(task, points, by)
            _say(f"fixed points: {points}", progress, start)
        if "pca" in chosen:
            result["pca"] = _pca(activity, figures)
            _say(f"population trajectories of {len(activity.tasks)} task(s)", progress, start)
    for path in _earlier(out, overwrite):  # the old analysis goes once the new one is done
        path.unlink()
    out.mkdir(exist_ok=True)
    result["files"] = [_RESULT]
    for name, figure in figures.items():
        figure.savefig(out / name, dpi=110)
        result["files"].append(name)
    _json.write(out / _RESULT, result)
    _say(f"wrote {len(result['files'])} files into {out}", progress, start)
    return result
