"""Training history: reward and performance per trial from a ``Monitor``'s log."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from neurogym import validate
from neurogym.wrappers import Monitor

__all__ = ["moving_average", "plot_training"]


def moving_average(values: Any, window: int) -> np.ndarray:
    """The mean of the last ``window`` values at each position (fewer at the start)."""
    window = validate.positive_int(window, "window")
    data = np.asarray(values, dtype=float)
    sums = np.cumsum(np.insert(data, 0, 0.0))
    counts = np.minimum(np.arange(1, data.size + 1), window)
    out: np.ndarray = (
        sums[1:] - sums[np.maximum(np.arange(1, data.size + 1) - window, 0)]
    ) / counts
    return out


def monitor_files(folder: str | Path) -> list[Path]:
    """A Monitor's saved logs in ``folder`` (``trial_<n>.npz``), in the order of ``n``."""
    files = [
        p for p in Path(folder).glob("trial_*.npz") if re.fullmatch(r"trial_\d+\.npz", p.name)
    ]
    return sorted(files, key=lambda p: int(p.stem.removeprefix("trial_")))


def _load(folder: str | Path) -> dict[str, Any]:
    """A Monitor's saved logs (``trial_<n>.npz``), concatenated in the order of ``n``.

    Only ``reward`` and ``performance`` are read, without pickle (``Monitor.load``): a file
    whose arrays need pickle to read them is refused, never unpickled.
    """
    files = monitor_files(folder)
    if not files:
        raise ValueError(f"no Monitor logs (trial_<n>.npz) in {str(folder)!r}")
    parts = [Monitor.load(path, ("reward", "performance")) for path in files]
    return {
        key: np.concatenate([part[key] for part in parts]) for key in ("reward", "performance")
    }


def plot_training(
    log: Any,
    *,
    window: int = 100,
    title: str | None = None,
    figsize: tuple[float, float] = (8.0, 5.0),
) -> Figure:
    """Reward and performance over trials, each with a moving average.

    Args:
        log: A ``neurogym.wrappers.Monitor`` (its ``data``), a dict with ``reward`` and
            ``performance`` lists (one entry per trial), or a Monitor's ``save_dir`` (its
            ``trial_<n>.npz`` files, concatenated in trial order).
        window: Trials in the moving average.
        title: Figure title.
        figsize: Figure size in inches.

    Returns:
        The figure.

    Raises:
        ValueError: If the log has no trials; for a ``save_dir``, if a ``trial_<n>.npz`` is
            not an ``.npz`` file, lacks ``reward`` or ``performance``, or holds them as
            pickled objects (never unpickled: a crafted file could run code).
    """
    data = _load(log) if isinstance(log, str | Path) else getattr(log, "data", log)
    if not isinstance(data, dict) or not len(data.get("reward", ())):
        raise ValueError("the log has no trials yet: step the monitored env first")
    fig = Figure(figsize=figsize, layout="constrained")
    axes = fig.subplots(2, 1, sharex=True)
    for ax, key, label in ((axes[0], "reward", "reward"), (axes[1], "performance", "performance")):
        values = np.asarray(data[key], dtype=float)
        trials = np.arange(1, values.size + 1)
        ax.plot(trials, values, ".", color="0.7", markersize=3, label="per trial")
        ax.plot(trials, moving_average(values, window), color="C0", linewidth=2,
                label=f"mean of last {window}")  # fmt: skip
        ax.set_ylabel(label)
        ax.legend(loc="lower right", frameon=False, fontsize=8)
    axes[-1].set_xlabel("trial")
    fig.suptitle(title or "training history")
    return fig
