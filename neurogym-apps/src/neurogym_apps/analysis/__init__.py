"""What did the network learn: activity, task variance, fixed points and trajectories.

Extra ``neurogym[analysis]`` (scikit-learn, matplotlib, torch). ``import neurogym`` never
imports this package, and importing it imports nothing heavy: its names import torch on first
use, scikit-learn and matplotlib when a function needs them.

* :func:`record_activity`: runs a :class:`~neurogym_apps.train.TrainedModel` on seeded batches
  of its task (each task of a task set) and returns an :class:`Activity`: hidden states
  ``(time, trial, unit)`` aligned with the inputs, trial variables, periods and task labels,
  and a tidy table (:meth:`Activity.table`), refused above a stated memory estimate.
* :func:`task_variance`, :func:`cluster_units`, :func:`fractional_task_variance`: Yang et al.
  (2019)'s task variance per unit and task, units clustered on it (the number of clusters
  chosen by silhouette) and the fractional task variance of task pairs.
* :func:`find_fixed_points`: Sussillo & Barak (2013)'s fixed and slow points of the network's
  map under a constant input, with the Jacobian's eigenvalues and stability.
* :func:`population_trajectories`: PCA of condition-averaged activity per task.
* :func:`analyze`: all of them on a saved run, with figures and ``analysis.json``
  (``neurogym analyze RUN_DIR``).
* The papers' signatures on a trained agent's closed-loop trials (:func:`record_trials`),
  each a statistic with bootstrap intervals and a figure: :func:`context_slopes` (Mante et
  al. 2013), :func:`block_bias` (The International Brain Laboratory 2021),
  :func:`switch_recovery` (recovery after an unsignalled rule or context switch),
  :func:`stay_probabilities` (Wang et al. 2018's model-based stay pattern). See
  docs/signatures.md.

See docs/analysis.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from neurogym_apps.analysis._activity import DEFAULT_MAX_BYTES, Activity, record_activity
    from neurogym_apps.analysis._fixed_points import FixedPoints, find_fixed_points, transition
    from neurogym_apps.analysis._pca import Trajectories, population_trajectories
    from neurogym_apps.analysis._run import ANALYSES, analyze
    from neurogym_apps.analysis._signatures import Estimate, record_trials
    from neurogym_apps.analysis._signatures_daw import (
        StayProbabilities,
        plot_stay_probabilities,
        stay_probabilities,
    )
    from neurogym_apps.analysis._signatures_ibl import (
        BlockBias,
        block_bias,
        plot_block_psychometrics,
    )
    from neurogym_apps.analysis._signatures_mante import (
        ContextSlopes,
        context_slopes,
        plot_context_psychometrics,
    )
    from neurogym_apps.analysis._signatures_switch import (
        SwitchRecovery,
        plot_switch_recovery,
        switch_recovery,
    )
    from neurogym_apps.analysis._variance import (
        Clusters,
        TaskVariance,
        cluster_units,
        fractional_task_variance,
        shuffled_silhouette,
        task_variance,
    )

_HOMES = {
    "_activity": ("DEFAULT_MAX_BYTES", "Activity", "record_activity"),
    "_fixed_points": ("FixedPoints", "find_fixed_points", "transition"),
    "_pca": ("Trajectories", "population_trajectories"),
    "_run": ("ANALYSES", "analyze"),
    "_signatures": ("Estimate", "record_trials"),
    "_signatures_daw": ("StayProbabilities", "plot_stay_probabilities", "stay_probabilities"),
    "_signatures_ibl": ("BlockBias", "block_bias", "plot_block_psychometrics"),
    "_signatures_mante": ("ContextSlopes", "context_slopes", "plot_context_psychometrics"),
    "_signatures_switch": ("SwitchRecovery", "plot_switch_recovery", "switch_recovery"),
    "_variance": (
        "Clusters",
        "TaskVariance",
        "cluster_units",
        "fractional_task_variance",
        "shuffled_silhouette",
        "task_variance",
    ),
}
_WHERE = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "ANALYSES",
    "DEFAULT_MAX_BYTES",
    "Activity",
    "BlockBias",
    "Clusters",
    "ContextSlopes",
    "Estimate",
    "FixedPoints",
    "StayProbabilities",
    "SwitchRecovery",
    "TaskVariance",
    "Trajectories",
    "analyze",
    "block_bias",
    "cluster_units",
    "context_slopes",
    "find_fixed_points",
    "fractional_task_variance",
    "plot_block_psychometrics",
    "plot_context_psychometrics",
    "plot_stay_probabilities",
    "plot_switch_recovery",
    "population_trajectories",
    "record_activity",
    "record_trials",
    "shuffled_silhouette",
    "stay_probabilities",
    "switch_recovery",
    "task_variance",
    "transition",
]


def __getattr__(name: str) -> Any:
    """Imports the public names on first use (torch, then; scikit-learn when a function runs).

    Raises:
        ImportError: torch is missing (``pip install "neurogym[analysis]"``).
        AttributeError: ``name`` is not a public name of the package.
    """
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    try:
        import torch  # noqa: F401  (checked here so the error says how to install it)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "neurogym_apps.analysis needs PyTorch and scikit-learn, which come with the "
            'analysis extra: pip install "neurogym[analysis]"'
        ) from exc
    value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    globals()[name] = value
    return value
