"""Plots of tasks, behaviour and training (needs the ``plot`` extra: ``neurogym[plot]``).

``import neurogym`` never imports this package or matplotlib; ``neurogym_apps.plot`` does.
Every function returns a ``matplotlib.figure.Figure`` built without pyplot (no global state,
no display needed): save it with ``fig.savefig("trial.png")``.

* :func:`plot_env`: observations, actions against ground truth, rewards and performance of a
  run of any task (:func:`run_env` records one without plotting).
* :func:`collect_choices`, :func:`fit_psychometric`, :func:`plot_psychometric`: psychometric
  curves of two-choice tasks; :func:`fit_psignifit` fits them with psignifit 4 (lapse rates
  and credible intervals; psignifit is imported only when it fits).
* :func:`plot_training`: reward and performance over trials from a ``Monitor``.

``python -m neurogym_apps.plot DIR`` writes the example figures of ``docs/plotting.md``.
"""

from __future__ import annotations

try:
    import matplotlib  # noqa: F401  (checked here so the error says how to install it)
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "neurogym_apps.plot needs matplotlib, which comes with the plot extra: pip install "
        '"neurogym[plot]"'
    ) from exc

from neurogym_apps.plot._envplot import plot_env
from neurogym_apps.plot._psignifit import PsignifitFit, fit_psignifit
from neurogym_apps.plot._psychometric import (
    PsychometricFit,
    collect_choices,
    fit_psychometric,
    plot_psychometric,
)
from neurogym_apps.plot._run import Run, run_env
from neurogym_apps.plot._training import moving_average, plot_training

__all__ = [
    "PsignifitFit",
    "PsychometricFit",
    "Run",
    "collect_choices",
    "fit_psignifit",
    "fit_psychometric",
    "moving_average",
    "plot_env",
    "plot_psychometric",
    "plot_training",
    "run_env",
]
