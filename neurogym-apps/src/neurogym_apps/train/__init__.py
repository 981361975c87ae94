"""Supervised training of recurrent networks on neurogym tasks (extra ``neurogym[train]``).

``import neurogym`` never imports this package or torch; ``import neurogym_apps.train`` does.

* :func:`train`: fits a GRU, LSTM or vanilla RNN to a task's ground truth on whole batches
  (``neurogym.batch``), by default on every step up to the response (fixation included) and
  the response's targets (``TrainConfig.loss``: also Yang et al.'s cost mask, or the old
  response-only mask): cross-entropy for Discrete actions, mean squared error for Box
  actions. Seeded and repeatable on CPU for a step budget.
* :func:`evaluate`: closed loop: the network steps the env and is scored strictly (fixation
  held until the response, then correct; or the task's own criterion), with the
  fixation-break rate and the env's own ``info["performance"]``, overall and per condition,
  against random and fixation-only baselines and a :class:`Guess` (fixate, then answer at
  random) measured the same way.
* :func:`train_and_report`: both, plus the saved model, ``metrics.json`` and figures
  (``neurogym train TASK`` on the command line).
* :class:`TrainedModel`: ``act``, ``policy()`` (for ``neurogym_apps.plot``), ``save``, ``load``.
* Threads: every entry point trains on ``TrainConfig.threads`` torch threads (default 1, the
  fastest for these small networks; ``--threads`` on the command line) and restores torch's
  earlier setting afterwards; :func:`torch_threads` does the same for any block (an RL
  ``model.learn``). Progress goes to stderr: a bar on a terminal, plain lines in a log.
* :func:`neurogym_apps.train.sweep.sweep`: one run per task x seed, here or as Ray tasks
  (``neurogym sweep``; docs/scale.md). :func:`evaluate` also scores stable-baselines3 models
  (docs/rl.md).

See docs/training.md.
"""

from __future__ import annotations

try:
    import torch  # noqa: F401  (checked here so the error says how to install it)
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "neurogym_apps.train needs PyTorch, which comes with the torch extra: pip install "
        '"neurogym[train]" (any torch>=2.3,<3; on a CPU-only machine install the CPU build '
        "first, from https://download.pytorch.org/whl/cpu, so pip keeps it)"
    ) from exc

from neurogym_apps.train._closed_loop import Guess
from neurogym_apps.train._evaluate import Evaluation, evaluate
from neurogym_apps.train._network import RecurrentNetwork
from neurogym_apps.train._progress import torch_threads
from neurogym_apps.train._report import RunResult, plot_loss, train_and_report, write_figures
from neurogym_apps.train._trainer import (
    LOSSES,
    LR_SCHEDULES,
    TrainConfig,
    TrainedModel,
    loss_weights,
    train,
)

__all__ = [
    "LOSSES",
    "LR_SCHEDULES",
    "Evaluation",
    "Guess",
    "RecurrentNetwork",
    "RunResult",
    "TrainConfig",
    "TrainedModel",
    "evaluate",
    "loss_weights",
    "plot_loss",
    "torch_threads",
    "train",
    "train_and_report",
    "write_figures",
]
