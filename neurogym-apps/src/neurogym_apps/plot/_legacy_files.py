"""NeuroGym 2.3.1's training-file and psychometric functions, on today's ``neurogym_apps.plot``.

Part of :mod:`neurogym_apps.plot._legacy` (which re-exports every name here; see its
docstring). ``.npz`` files are read with ``allow_pickle=False`` only: arrays that need pickle,
such as a Monitor's trial dicts, are skipped, so a crafted file cannot run code.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from neurogym_apps.plot._psychometric import PsychometricFit, _cdf, fit_psychometric
from neurogym_apps.plot._training import monitor_files

__all__ = [
    "order_by_suffix",
    "plot_psychometric",
    "plot_rew_across_training",
    "plot_training_history",
    "probit",
    "put_together_files",
]

logger = logging.getLogger("neurogym_apps.plot")

# numpy's stubs type **kwds of savez loosely enough that mypy matches them to allow_pickle.
_savez: Callable[..., None] = np.savez


# ------------------------------------------------------------------------ files of a training run
def _arrays(path: Path, required: Sequence[str] = ()) -> dict[str, np.ndarray]:
    """The arrays of an ``.npz`` file that load without pickle (object arrays are skipped).

    Raises:
        ValueError: If a ``required`` array is an object array (it would need pickle).
    """
    out = {}
    with np.load(path, allow_pickle=False) as file:
        for key in file.files:
            try:
                out[key] = file[key]
            except ValueError:  # an object array: loading it would unpickle
                if key in required:
                    raise ValueError(
                        f"{str(path)!r}: {key!r} is a pickled object array; unpickling can run "
                        "any code, so it is not loaded (np.load(path, allow_pickle=True) only "
                        "if you trust the file)"
                    ) from None
                continue
    return out


def _suffix(name: str) -> int:
    match = re.search(r"_(\d+)\.[^.]*$", name)
    if match is None:
        raise ValueError(f"{name!r} has no number between its last '_' and its extension")
    return int(match.group(1))


def order_by_suffix(file_list: Sequence[str | Path]) -> list[str]:
    """Files ordered by the number ending their name, ``x_2.npz`` before ``x_10.npz``.

    2.3.1's signature; it needed natsort, this does not.

    Raises:
        ValueError: If a name has no ``_<number>`` before its extension.
    """
    names = [str(f) for f in file_list]
    return sorted(names, key=lambda name: (_suffix(Path(name).name), name))


def put_together_files(folder: str | Path) -> dict[str, np.ndarray]:
    """Concatenate the arrays of every ``*_bhvr_data*.npz`` in ``folder``, in suffix order.

    2.3.1's signature and result, including writing the concatenation to
    ``folder/bhvr_data_all.npz``. 2.3.1 raised ``NotImplementedError`` on Python 3.11 (its glob
    pattern was absolute); this works. Files load with ``allow_pickle=False``: arrays that need
    pickle are skipped.

    Returns:
        Each array name mapped to its concatenation over the files (empty if none matched).
    """
    files = order_by_suffix(sorted(Path(folder).glob("*_bhvr_data*.npz")))
    data: dict[str, np.ndarray] = {}
    for path in files:
        for key, values in _arrays(Path(path)).items():
            values = np.atleast_1d(values)
            data[key] = np.concatenate([data[key], values]) if key in data else values
    if data:
        _savez(Path(folder) / "bhvr_data_all.npz", **data)
    return data


def plot_rew_across_training(
    folder: str | Path,
    window: float = 500,
    ax: Axes | None = None,
    fkwargs: dict[str, Any] | None = None,
    ytitle: str = "",
    legend: bool = False,
    zline: bool = False,
    metric_name: str = "reward",
) -> Axes | None:
    """Running mean of a metric over the trials of :func:`put_together_files` (2.3.1's signature).

    As in 2.3.1: ``window`` below 1 is a fraction of the trials; without ``ax`` a new figure
    is saved as ``folder/mean_<metric_name>_across_training.png``; an empty folder draws
    nothing. Differences: the figure is built without pyplot, and the axes drawn on are
    returned (2.3.1 returned None).

    Returns:
        The axes drawn on, or None if ``folder`` holds no data.
    """
    data = put_together_files(folder)
    if not data:
        logger.info("no *_bhvr_data*.npz data in %s", folder)
        return None
    metric = np.asarray(data[metric_name], dtype=float)
    size = int(metric.size * window) if window < 1 else int(window)
    size = max(1, min(size, metric.size))
    running = np.convolve(metric, np.ones(size) / size, mode="valid")
    fig = None
    if ax is None:
        fig = Figure(figsize=(8, 8), layout="constrained")
        ax = fig.subplots()
    ax.plot(running, linewidth=1.0, **(fkwargs or {"color": "tab:blue"}))
    ax.set_xlabel("trials")
    ax.set_ylabel(ytitle or f"mean {metric_name} (running window of {size} trials)")
    if legend and ax.get_legend_handles_labels()[1]:
        ax.legend()
    if zline:
        ax.axhline(0, color="k", linestyle=":")
    if fig is not None:
        fig.savefig(Path(folder) / f"mean_{metric_name}_across_training.png")
    return ax


def plot_training_history(
    folder: str | Path,
    figsize: tuple[float, float] = (12, 6),
    save_fig: bool = True,
    plot_performance: bool = True,
    name: str | None = None,
) -> Figure:
    """Mean reward, summed reward and performance of each of a Monitor's ``trial_<n>.npz``.

    2.3.1's ``Monitor.plot_training_history`` as a function of the Monitor's ``save_dir``
    (plus ``name``, the task named in the title; default the folder's name). Each file is a
    point at the number of trials logged up to its end. Differences from 2.3.1: only
    ``trial_<n>.npz`` files are read, ordered by ``n`` (2.3.1 read every ``.npz``); the figure
    is saved as ``training_history.png`` (2.3.1: ``.pdf``); no point is invented at trial 0
    (2.3.1 drew every curve from 0 at trial 0); the y range grows beyond [0, 1] to show rewards
    outside it; NaN performances (trials without one) are left out of the means; without files,
    a figure saying so is returned (2.3.1 returned None) and nothing is saved.

    Args:
        folder: The Monitor's ``save_dir``.
        figsize: Figure size in inches.
        save_fig: Save the figure as ``folder/training_history.png``.
        plot_performance: Add the performance panel.
        name: Task named in the title.

    Returns:
        The figure.

    Raises:
        ValueError: If a file's ``reward``, ``cum_reward`` or ``performance`` is a pickled
            object array (never unpickled: a crafted file could run code). Other object
            arrays, such as an older Monitor's ``trial`` dicts, are skipped.
    """
    root = Path(folder)
    files = monitor_files(root)
    fig = Figure(figsize=figsize, layout="constrained")
    axes: list[Axes] = list(fig.subplots(1, 2 if plot_performance else 1, squeeze=False)[0])
    title = f"Training history for {name or root.name}"
    if not files:
        logger.warning("no Monitor data files (trial_<n>.npz) in %s", root)
        fig.suptitle(f"{title}\n(no trial_<n>.npz files in {root})", fontsize=12)
        return fig
    trials: list[int] = []
    means: dict[str, list[float]] = {"reward": [], "cum_reward": [], "performance": []}
    total = 0
    for path in files:
        arrays = _arrays(path, required=("reward", "cum_reward", "performance"))
        total += len(arrays.get("reward", ()))
        trials.append(total)
        for key, values in means.items():
            column = np.asarray(arrays.get(key, ()), dtype=float)
            values.append(float(np.nanmean(column)) if np.isfinite(column).any() else np.nan)
    reward_ax = axes[0]
    reward_ax.plot(trials, means["reward"], "o-", color="C0", linewidth=2, label="mean reward")
    reward_ax.plot(trials, means["cum_reward"], "s--", color="C3", linewidth=2,
                   label="mean summed reward per trial")  # fmt: skip
    reward_ax.set_ylabel("reward")
    reward_ax.set_title("Reward and summed reward per file")
    reward_ax.legend(loc="best", frameon=False, fontsize=9)
    if plot_performance:
        axes[1].plot(trials, means["performance"], "o-", color="C2", linewidth=2)
        axes[1].set_ylabel("mean performance (0-1)")
        axes[1].set_title("Performance per file")
    for ax in axes:
        low, high = ax.get_ylim()
        ax.set_ylim(min(low, -0.05), max(high, 1.05))
        ax.set_xlabel("trials")
        ax.grid(True, axis="y", linestyle="--", alpha=0.7)
        ax.spines[["top", "right"]].set_visible(False)
    fig.suptitle(f"{title}\n({len(files)} data files, {total} total trials)", fontsize=12)
    if save_fig:
        fig.savefig(root / "training_history.png")
    return fig


# ------------------------------------------------------------------------ psychometric curves
def probit(x: Any, beta: float, alpha: float) -> np.ndarray:
    """The normal CDF of ``beta * x + alpha`` (2.3.1's signature and result).

    Args:
        x: Signed stimulus strengths.
        beta: Slope (sensitivity).
        alpha: Offset (bias: the curve crosses 0.5 at ``x = -alpha / beta``).

    Returns:
        P(choice = 1) at each ``x``, float64.
    """
    return _cdf(beta * np.asarray(x, dtype=float) + alpha, "probit").astype(np.float64)


def plot_psychometric(
    sig_ev: Any,
    ch: Any,
    ax: Axes | None = None,
    title: str | None = None,
    legend: str | None = None,
) -> Axes:
    """Probit fit and mean choice ± SEM per strength (2.3.1's signature).

    The fit is :func:`fit_psychometric`'s maximum-likelihood probit (2.3.1: least squares with
    scipy's ``curve_fit``; the curves nearly coincide). As in 2.3.1 the x-axis spans ±52 with
    ticks -1, 0, 1 (coherences in %), widened if the data go further. Differences from 2.3.1:
    ``ax`` is optional (a new figure is made without it) and the axes are returned; choices
    coded 1/2 (the task's actions) are read as 0/1; input 2.3.1 could not fit (no trials: its
    "``ydata`` must not be empty"; one choice only; fewer than 2 strengths) draws what data
    there is without a curve and says why in the title (when no ``title`` is given); choices
    that strength separates perfectly, whose probit slope is infinite, get today's finite
    bias-reduced logistic curve.

    Args:
        sig_ev: Signed stimulus strength per trial.
        ch: Choice per trial: 0/1 (or 1/2).
        ax: Axes to draw on.
        title: Axes title.
        legend: Label of the fitted curve (a legend is drawn if given).

    Returns:
        The axes.

    Raises:
        ValueError: If ``sig_ev`` and ``ch`` differ in length.
    """
    xs = np.asarray(sig_ev, dtype=float).ravel()
    ys = np.asarray(ch, dtype=float).ravel()
    if xs.shape != ys.shape:
        raise ValueError(f"sig_ev and ch need one value per trial, got {xs.size} and {ys.size}")
    if ys.size and np.isin(ys, (1.0, 2.0)).all() and (ys == 2).any():
        ys = ys - 1  # the actions of a two-choice task: choice 1 and choice 2
    if ax is None:
        ax = Figure(figsize=(4, 4), layout="constrained").subplots()
    fit, reason = _probit_fit(xs, ys)
    color = None
    if fit is not None:
        grid = np.linspace(xs.min(), xs.max(), 300)
        (line,) = ax.plot(grid, fit.predict(grid), label=legend)
        color = line.get_color()
    if xs.size:
        levels = np.unique(xs)
        means = np.array([ys[xs == level].mean() for level in levels])
        sems = np.array([ys[xs == level].std() / np.sqrt((xs == level).sum()) for level in levels])
        ax.errorbar(levels, means, yerr=sems, fmt="o", color=color, capsize=3,
                    label=legend if fit is None else None)  # fmt: skip
    ax.axvline(0, linestyle="--", linewidth=0.5, color="gray")
    ax.axhline(0.5, linestyle="--", linewidth=0.5, color="gray")
    reach = max(52.0, float(np.abs(xs).max()) if xs.size else 0.0)
    ax.set_xlim(-reach, reach)
    ax.set_ylim(-0.05, 1.05)
    if reach == 52.0:
        ax.set_xticks([-52, 0, 52], ["-1", "0", "1"])
    ax.set_xlabel("Stimulus evidence")
    ax.set_ylabel("P(Right)")
    ax.set_title(title or (f"no fit: {reason}" if reason else ""))
    if legend and ax.get_legend_handles_labels()[1]:
        ax.legend()
    return ax


def _probit_fit(xs: np.ndarray, ys: np.ndarray) -> tuple[PsychometricFit | None, str]:
    """The probit fit, else the bias-reduced logistic if separated, else None and why."""
    if xs.size == 0:
        return None, "no trials"
    try:
        return fit_psychometric(xs, ys, kind="probit"), ""
    except ValueError as probit_error:
        if "separates" not in str(probit_error):
            return None, str(probit_error)
    try:
        return fit_psychometric(xs, ys, kind="logistic"), ""
    except ValueError as error:  # pragma: no cover - separated data always get Firth's fit
        return None, str(error)
