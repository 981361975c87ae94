"""Yang et al. (2019): task variance per unit and task, clusters of units, fractional variance.

Yang, Joglekar, Song, Newsome & Wang (2019), "Task representations in neural networks trained
to perform many cognitive tasks", Nat. Neurosci. 22:297-306, Figs. 2-3.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from neurogym import validate
from neurogym_apps.analysis._activity import Activity
from neurogym_apps.analysis._deps import require

__all__ = [
    "FTV_PAIRS",
    "Clusters",
    "TaskVariance",
    "cluster_units",
    "fractional_task_variance",
    "shuffled_silhouette",
    "task_variance",
]

#: The task pairs whose fractional task variance Yang et al. show (those of a set that has both).
FTV_PAIRS = (("dm1", "dm2"), ("ctxdm1", "ctxdm2"), ("dms", "dmc"))
MIN_VARIANCE = (
    1e-3  # units whose variance summed over tasks is lower are left out (as Yang et al.)
)


@dataclasses.dataclass(frozen=True, repr=False)
class TaskVariance:
    """Each unit's variance across trials (stimulus conditions) per task.

    Attributes:
        tasks: The task names (columns).
        raw: ``(N, n_tasks)``: per unit and task, the variance across the task's trials at each
            step after fixation, averaged over those steps.
        units: Indices of the units kept (summed variance at least ``min_variance``).
        normalized: ``(len(units), n_tasks)``: the kept units' rows divided by their maximum
            (each kept unit's largest value is 1).
    """

    tasks: tuple[str, ...]
    raw: np.ndarray
    units: np.ndarray
    normalized: np.ndarray

    def __repr__(self) -> str:
        """One line: tasks, units kept."""
        return (
            f"TaskVariance(tasks={list(self.tasks)}, units={self.raw.shape[0]}, "
            f"kept={self.units.size})"
        )


def _after_fixation(activity: Activity) -> np.ndarray:
    """``(T, B)`` bool: valid steps at or after the end of each trial's fixation period."""
    steps = np.arange(activity.valid.shape[0])[:, None]
    if "fixation" not in activity.periods:
        return activity.valid
    end = activity.periods["fixation"][1]
    return activity.valid & (steps >= end[None])


def _variance_over_trials(activity: Activity) -> np.ndarray:
    """``(N,)``: variance across trials at each step (>= 2 trials there), averaged over steps."""
    steps = _after_fixation(activity)
    hidden = np.where(steps[..., None], activity.hidden, np.nan)
    enough = steps.sum(1) >= 2
    if not enough.any():
        raise ValueError(
            f"task {activity.tasks} has fewer than 2 trials at every step after fixation: "
            "record more trials"
        )
    per_step = np.nanvar(hidden[enough], axis=1)  # (steps, N)
    return np.asarray(per_step.mean(0))


def task_variance(activity: Activity, *, min_variance: float = MIN_VARIANCE) -> TaskVariance:
    """Per unit and task, the variance of the unit's state across the task's trials.

    Trials of a task differ in their stimulus conditions (and noise), so a unit that encodes
    a task's stimuli varies across its trials; one that is silent or constant in a task does
    not. At each step after the fixation period, the variance across the trials that last
    that long is taken; the task's value is its mean over steps. Units whose variance summed
    over tasks is below ``min_variance`` are left out of :attr:`TaskVariance.normalized` (each
    row divided by its maximum), as Yang et al. do.

    Raises:
        ValueError: A task has fewer than 2 trials, or no unit reaches ``min_variance``.
    """
    validate.number(min_variance, "min_variance", minimum=0)
    tasks = activity.tasks
    raw = np.stack([_variance_over_trials(activity.of_task(name)) for name in tasks], axis=1)
    units = np.flatnonzero(raw.sum(1) >= min_variance)
    if units.size == 0:
        raise ValueError(
            f"no unit has a task variance summed over tasks of at least min_variance="
            f"{min_variance:g} (largest {raw.sum(1).max():.3g}): the network is silent"
        )
    rows = raw[units]
    return TaskVariance(tasks, raw, units, rows / rows.max(1, keepdims=True))


@dataclasses.dataclass(frozen=True, repr=False)
class Clusters:
    """Units clustered on their normalised task variance.

    Attributes:
        labels: ``(n_units,)`` cluster of each row, numbered by the task each cluster prefers
            (clusters that prefer the first task first).
        n_clusters: The number chosen (the largest silhouette score).
        scores: Silhouette score of each number of clusters tried.
        order: Row order that groups units by cluster (for a sorted variance map).
    """

    labels: np.ndarray
    n_clusters: int
    scores: dict[int, float]
    order: np.ndarray

    def __repr__(self) -> str:
        """One line: the chosen number and its score."""
        return f"Clusters(n_clusters={self.n_clusters}, silhouette={self.silhouette:.3f})"

    @property
    def silhouette(self) -> float:
        """The silhouette score of the chosen number of clusters."""
        return self.scores[self.n_clusters]


def _cluster_range(n_units: int, k_range: Sequence[int] | None) -> list[int]:
    """The numbers of clusters to try: 2 to 30 by default, each fewer than the units."""
    ks = list(range(2, 31) if k_range is None else k_range)
    ks = [k for k in ks if 2 <= k < n_units]
    if not ks:
        raise ValueError(
            f"cannot cluster {n_units} unit(s) into any of k_range={k_range!r}: silhouette "
            "needs 2 <= k < units"
        )
    return ks


def _kmeans(data: np.ndarray, k: int, seed: int) -> np.ndarray:
    cluster = require("sklearn.cluster")
    labels: np.ndarray = cluster.KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(
        data
    )
    return labels


def _best(data: np.ndarray, ks: list[int], seed: int) -> tuple[dict[int, float], int, np.ndarray]:
    """Silhouette score per k (NaN where k-means found one cluster), and the best k's labels."""
    metrics = require("sklearn.metrics")
    scores: dict[int, float] = {}
    labels: dict[int, np.ndarray] = {}
    for k in ks:
        labels[k] = _kmeans(data, k, seed)
        several = np.unique(labels[k]).size >= 2  # identical rows give one cluster
        scores[k] = float(metrics.silhouette_score(data, labels[k])) if several else np.nan
    finite = [k for k in ks if np.isfinite(scores[k])]
    if not finite:
        raise ValueError("every unit has the same task variance profile: nothing to cluster")
    best = max(finite, key=lambda k: scores[k])
    return scores, best, labels[best]


def cluster_units(
    normalized: np.ndarray, *, k_range: Sequence[int] | None = None, seed: int = 0
) -> Clusters:
    """K-means (scikit-learn) of units on their normalised task variance, k by silhouette.

    As Yang et al.: for each number of clusters in ``k_range`` (default 2 to 30, below the
    number of units), k-means with 10 initialisations; the number with the largest mean
    silhouette coefficient is kept.

    Args:
        normalized: ``(units, tasks)``, e.g. :attr:`TaskVariance.normalized`.
        k_range: Numbers of clusters to try.
        seed: Seed of k-means' initialisations.

    Raises:
        ValueError: No number in ``k_range`` fits the units, or all rows are identical.
        ImportError: scikit-learn is missing (``pip install "neurogym[analysis]"``).
    """
    data = np.asarray(normalized, dtype=float)
    if data.ndim != 2:
        raise ValueError(f"normalized must be (units, tasks), got shape {data.shape}")
    scores, k, labels = _best(data, _cluster_range(data.shape[0], k_range), seed)
    # number clusters by the task they prefer most (their mean profile's arg max), then size
    means = np.stack([data[labels == c].mean(0) for c in range(k)])  # k-means leaves none empty
    rank = np.lexsort((-np.bincount(labels, minlength=k), means.argmax(1)))
    relabel = np.empty(k, dtype=int)
    relabel[rank] = np.arange(k)
    labels = relabel[labels]
    order = np.lexsort((-data[np.arange(data.shape[0]), data.argmax(1)], labels))
    return Clusters(labels, k, scores, order)


def shuffled_silhouette(
    normalized: np.ndarray, *, k_range: Sequence[int] | None = None, seed: int = 0
) -> float:
    """The best silhouette score of the same data with each task's column shuffled over units.

    The null Yang et al. compare against: every unit keeps a value from each task's
    distribution, but which values come together is random, so clusters reflect no structure.

    Raises:
        ValueError: As :func:`cluster_units`.
    """
    data = np.asarray(normalized, dtype=float)
    rng = np.random.default_rng(seed)
    shuffled = np.stack([rng.permutation(column) for column in data.T], axis=1)
    return cluster_units(shuffled, k_range=k_range, seed=seed).silhouette


def fractional_task_variance(
    variance: TaskVariance, first: str, second: str, *, min_variance: float = MIN_VARIANCE
) -> np.ndarray:
    """``(TV_first - TV_second) / (TV_first + TV_second)`` per unit, in ``[-1, 1]``.

    -1: the unit varies only in ``second``; 1: only in ``first``; 0: equally in both. Units
    whose summed variance over the two tasks is below ``min_variance`` are left out.

    Raises:
        ValueError: A task is not one of ``variance.tasks``.
    """
    i = variance.tasks.index(validate.choice(first, "first", variance.tasks))
    j = variance.tasks.index(validate.choice(second, "second", variance.tasks))
    a, b = variance.raw[:, i], variance.raw[:, j]
    kept = (a + b) >= min_variance
    return np.asarray((a[kept] - b[kept]) / (a[kept] + b[kept]))
