"""The analysis figures (matplotlib ``Figure`` objects, no pyplot state)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from neurogym_apps.analysis._activity import Activity
from neurogym_apps.analysis._deps import require
from neurogym_apps.analysis._fixed_points import FixedPoints
from neurogym_apps.analysis._pca import Trajectories, condition_labels, natural_key
from neurogym_apps.analysis._variance import Clusters, TaskVariance

__all__ = [
    "condition_colors",
    "fixed_points_figure",
    "ftv_figure",
    "silhouette_figure",
    "trajectories_figure",
    "variance_map_figure",
]


def _figure(size: tuple[float, float]) -> Any:
    figure = require("matplotlib.figure")
    return figure.Figure(figsize=size, layout="constrained")


def variance_map_figure(variance: TaskVariance, clusters: Clusters, title: str = "") -> Any:
    """Normalised task variance, units (rows) sorted by cluster, tasks (columns)."""
    fig = _figure((max(5.0, 0.35 * len(variance.tasks) + 2.5), 5.0))
    ax = fig.subplots()
    data = variance.normalized[clusters.order]
    image = ax.imshow(data, aspect="auto", cmap="magma", vmin=0, vmax=1, interpolation="nearest")
    labels = clusters.labels[clusters.order]
    for edge in np.flatnonzero(np.diff(labels)) + 0.5:
        ax.axhline(edge, color="white", lw=0.8)
    ax.set_xticks(range(len(variance.tasks)), variance.tasks, rotation=90)
    ax.set(ylabel=f"units (kept {data.shape[0]} of {variance.raw.shape[0]}), by cluster")
    fig.colorbar(image, ax=ax, label="normalised task variance")
    ax.set_title(title or f"task variance: {clusters.n_clusters} clusters")
    return fig


def silhouette_figure(clusters: Clusters, shuffled: float | None = None) -> Any:
    """Silhouette score against the number of clusters, the chosen one marked."""
    fig = _figure((5.0, 3.5))
    ax = fig.subplots()
    ks = sorted(clusters.scores)
    ax.plot(ks, [clusters.scores[k] for k in ks], "o-", color="C0", label="network")
    ax.plot(clusters.n_clusters, clusters.silhouette, "o", color="C3", ms=10, mfc="none",
            label=f"chosen: {clusters.n_clusters}")  # fmt: skip
    if shuffled is not None:
        ax.axhline(shuffled, color="0.5", ls="--", label=f"shuffled (best {shuffled:.2f})")
    ax.set(xlabel="number of clusters", ylabel="silhouette score")
    ax.legend(frameon=False)
    return fig


def ftv_figure(values: dict[str, np.ndarray], bins: int = 20) -> Any:
    """One histogram of fractional task variance per task pair (``"a vs b"`` -> values)."""
    fig = _figure((3.2 * max(1, len(values)), 3.0))
    axes = np.atleast_1d(fig.subplots(1, max(1, len(values)), sharey=False))
    for ax, (pair, ftv) in zip(axes, values.items(), strict=False):
        ax.hist(ftv, bins=np.linspace(-1, 1, bins + 1), color="0.3")
        first, _, second = pair.partition(" vs ")
        ax.set(xlim=(-1, 1), xlabel=f"FTV ({second} only -1, {first} only +1)", title=pair)
    axes[0].set_ylabel("units")
    return fig


def condition_colors(conditions: Sequence[str]) -> list[Any]:
    """A colour per condition label (as :func:`condition_labels` writes them).

    Blues and reds by the first variable when it has two values (e.g. the correct choice),
    darker for later labels of the same value; else a sequential map.
    """
    cm = require("matplotlib.cm")
    first = [label.split(", ")[0] for label in conditions]
    groups = list(dict.fromkeys(first))
    if len(groups) != 2:
        return [cm.viridis(x) for x in np.linspace(0, 0.9, len(conditions))]
    colors = []
    for label, group in zip(conditions, first, strict=True):
        members = [c for c, g in zip(conditions, first, strict=True) if g == group]
        shade = 0.35 + 0.6 * (members.index(label) + 1) / len(members)
        colors.append((cm.Blues if group == groups[0] else cm.Reds)(shade))
    return colors


def trajectories_figure(trajectories: Trajectories, title: str = "") -> Any:
    """Condition averages in PC1 x PC2, and each PC over time."""
    fig = _figure((10.0, 4.0))
    plane, time = fig.subplots(1, 2, width_ratios=(1, 1.3))
    colors = condition_colors(trajectories.conditions)
    steps = np.arange(trajectories.projected.shape[1])
    for c, label in enumerate(trajectories.conditions):
        path = trajectories.projected[c]
        plane.plot(path[:, 0], path[:, 1], color=colors[c], lw=1.5, label=label)
        plane.plot(path[0, 0], path[0, 1], "o", color=colors[c], ms=3)
        for k, style in zip(range(min(3, path.shape[1])), ("-", "--", ":"), strict=False):
            time.plot(steps, path[:, k], style, color=colors[c], lw=1)
    share = trajectories.explained
    plane.set(xlabel=f"PC1 ({share[0]:.0%})", ylabel=f"PC2 ({share[1]:.0%})" if len(share) > 1
              else "", title="condition averages (dot: trial start)")  # fmt: skip
    time.set(xlabel="step", ylabel="projection", title="PC1 solid, PC2 dashed, PC3 dotted")
    if len(trajectories.conditions) <= 12:
        plane.legend(fontsize=7, frameon=False)
    fig.suptitle(title or f"{trajectories.task}: population trajectories")
    return fig


def _draw_points(ax: Any, pca: Any, points: FixedPoints, color: Any, scale: float) -> None:
    """Points (filled: stable) with a line along each one's largest-modulus eigenvector."""
    if not len(points):
        return
    units = pca.components_.shape[1]
    where = pca.transform(points.points[:, :units])
    for m, (x, y) in enumerate(where):
        stable = bool(points.stable[m])
        ax.plot(x, y, "o", ms=9, color=color, mfc=color if stable else "white", zorder=5)
        direction = pca.components_ @ np.real(points.eigenvectors[m][:units, 0])
        direction *= scale / max(float(np.linalg.norm(direction)), 1e-12)
        unstable = abs(points.eigenvalues[m, 0]) > 1 + points.tolerance
        ax.plot([x - direction[0], x + direction[0]], [y - direction[1], y + direction[1]],
                color="C3" if unstable else color, lw=2, zorder=4)  # fmt: skip
        if not stable:
            ax.annotate(str(int(points.unstable_dims[m])), (x, y), xytext=(6, 6),
                        textcoords="offset points", fontsize=8)  # fmt: skip


def fixed_points_figure(
    activity: Activity, points: dict[str, FixedPoints], by: Sequence[str], title: str = ""
) -> Any:
    """Trajectories per condition and fixed points in the top 2 PCs of the activity.

    ``points`` maps a label (the period whose mean input was held constant) to the points
    found under that input, each label in its own colour. Filled markers: stable points;
    open: unstable (their number of unstable dimensions beside them). Each point has a line
    along its largest-modulus eigenvector, red where that direction is unstable.
    """
    pca = require("sklearn.decomposition").PCA(n_components=2)
    visited = activity.hidden[activity.valid]
    pca.fit(visited)
    labels = condition_labels(activity, by)
    names = sorted(set(labels.tolist()), key=natural_key)
    fig = _figure((9.0, 5.5))
    ax = fig.subplots()
    for color, name in zip(condition_colors(names), names, strict=True):
        mean = np.nanmean(activity.hidden[:, labels == name], axis=1)
        path = pca.transform(mean[np.isfinite(mean).all(1)])
        ax.plot(path[:, 0], path[:, 1], color=color, lw=1.2, label=name)
        ax.plot(path[0, 0], path[0, 1], ".", color=color)
    scale = 0.08 * float(np.ptp(pca.transform(visited), axis=0).max())
    counts = []
    for k, (label, found) in enumerate(points.items()):
        color = ("k", "C2", "C4", "C1", "C5")[k % 5]
        _draw_points(ax, pca, found, color, scale)
        ax.plot([], [], "o", color=color, label=f"{label} input: {len(found)} point(s)")
        counts.append(f"{label} {len(found)} ({int(found.stable.sum())} stable)")
    share = pca.explained_variance_ratio_
    ax.set(xlabel=f"PC1 ({share[0]:.0%})", ylabel=f"PC2 ({share[1]:.0%})")
    fig.legend(fontsize=7, frameon=False, loc="outside right center")
    ax.set_title(title or "fixed points under each period's input: " + ", ".join(counts),
                 fontsize=9)  # fmt: skip
    return fig
