"""Population trajectories: PCA (scikit-learn) of condition-averaged activity, per task."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from neurogym import validate
from neurogym_apps.analysis._activity import Activity
from neurogym_apps.analysis._deps import require

__all__ = ["Trajectories", "condition_labels", "natural_key", "population_trajectories"]


@dataclasses.dataclass(frozen=True, repr=False)
class Trajectories:
    """One task's condition-averaged activity in its top principal components.

    Attributes:
        task: The task name.
        by: The trial variables that define a condition.
        conditions: One label per condition (e.g. ``"ground_truth=1, coh=12.8"``).
        counts: Trials averaged per condition.
        projected: ``(conditions, T, components)``: the averages projected (NaN after the
            condition's longest trial).
        explained: Fraction of the averages' variance each component explains.
        pca: The fitted ``sklearn.decomposition.PCA`` (project other states with it).
    """

    task: str
    by: tuple[str, ...]
    conditions: list[str]
    counts: np.ndarray
    projected: np.ndarray
    explained: np.ndarray
    pca: Any

    def __repr__(self) -> str:
        """One line: the task, conditions and explained variance."""
        shares = ", ".join(f"{value:.2f}" for value in self.explained)
        return (
            f"Trajectories(task={self.task!r}, conditions={len(self.conditions)}, "
            f"explained=[{shares}])"
        )


def condition_labels(activity: Activity, by: Sequence[str]) -> np.ndarray:
    """``(B,)`` str: each trial's condition, ``"name=value, ..."`` over ``by``.

    Raises:
        ValueError: A name of ``by`` is not a trial variable.
    """
    parts = []
    for key in by:
        validate.choice(key, "by", tuple(activity.trial))
        parts.append([f"{key}={_short(value)}" for value in activity.trial[key]])
    return np.asarray([", ".join(row) for row in zip(*parts, strict=True)], dtype=object)


def _short(value: Any) -> str:
    if isinstance(value, float | np.floating):
        return f"{float(value):g}"
    return str(value)


def _averages(activity: Activity, labels: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Conditions (sorted), trials per condition and ``(C, T, N)`` mean activity (NaN: none)."""
    names = sorted(set(labels.tolist()), key=natural_key)
    counts = np.asarray([int((labels == name).sum()) for name in names])
    means = np.full((len(names), *activity.hidden.shape[0:1], activity.hidden.shape[2]), np.nan)
    for c, name in enumerate(names):
        chosen = activity.hidden[:, labels == name]  # (T, b, N), NaN on padding
        present = np.isfinite(chosen[..., 0]).any(1)
        means[c, present] = np.nanmean(chosen[present], axis=1)
    return names, counts, means


def natural_key(label: str) -> tuple[Any, ...]:
    """Sort key: numbers in a label compare as numbers."""
    out: list[Any] = []
    for part in label.split(", "):
        key, _, value = part.partition("=")
        try:
            out += [key, 0, float(value), ""]
        except ValueError:
            out += [key, 1, 0.0, value]
    return tuple(out)


def population_trajectories(
    activity: Activity,
    task: str | None = None,
    *,
    by: Sequence[str] = ("ground_truth",),
    components: int = 3,
) -> Trajectories:
    """PCA of one task's activity averaged per condition, and the averages projected.

    The principal components are those of the condition averages (every step of every
    condition a sample), as in population-trajectory figures: they show how the conditions'
    mean activity separates, not the trial-to-trial noise.

    Args:
        activity: From :func:`record_activity`.
        task: One of ``activity.tasks`` (None: the only one).
        by: Trial variables that define a condition (PerceptualDecisionMaking:
            ``("ground_truth", "coh")``).
        components: Principal components kept.

    Raises:
        ValueError: An unknown task or variable, or more components than the data have.
        ImportError: scikit-learn is missing (``pip install "neurogym[analysis]"``).
    """
    if task is None:
        if len(activity.tasks) != 1:
            raise ValueError(f"activity holds tasks {list(activity.tasks)}: name one with task=")
        task = activity.tasks[0]
    one = activity.of_task(task)
    validate.positive_int(components, "components")
    names, counts, means = _averages(one, condition_labels(one, by))
    rows = means.reshape(-1, means.shape[2])
    finite = np.isfinite(rows).all(1)
    if components > min(int(finite.sum()), rows.shape[1]):
        raise ValueError(
            f"components={components} exceeds what {int(finite.sum())} averaged steps of "
            f"{rows.shape[1]} units hold"
        )
    pca = require("sklearn.decomposition").PCA(n_components=components).fit(rows[finite])
    projected = np.full((*means.shape[:2], components), np.nan)
    flat = projected.reshape(-1, components)
    flat[finite] = pca.transform(rows[finite])
    return Trajectories(
        task=task,
        by=tuple(by),
        conditions=names,
        counts=counts,
        projected=flat.reshape(projected.shape),
        explained=np.asarray(pca.explained_variance_ratio_),
        pca=pca,
    )
