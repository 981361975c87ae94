"""One training run's loop: the loss over a batch's steps, one Adam step, the progress shown."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np
import torch
from torch import nn

import neurogym
from neurogym_apps.train._across import Streams
from neurogym_apps.train._progress import Progress

if TYPE_CHECKING:
    from neurogym_apps.train._trainer import TrainConfig, TrainedModel

__all__ = ["HISTORY", "fit", "loss_weights", "progress_for", "stepper"]


def loss_weights(data: Any, loss: str, response_weight: float = 1.0) -> torch.Tensor:
    """Per-step loss weights ``(B, T)`` of a batch (torch, batch first) for ``loss``.

    See :class:`TrainConfig` (``loss`` and ``response_weight``, which only the ``"valid"``
    loss uses) for what each choice covers.
    """
    mask: torch.Tensor = data.mask.bool()
    if loss == "mask":
        return mask.float()
    if loss == "cost":
        return torch.as_tensor(data.cost_mask("decision"), dtype=torch.float32)
    valid: torch.Tensor = data.valid.bool()
    steps = torch.arange(mask.shape[1])
    first_target = torch.where(mask.any(1), mask.float().argmax(1), mask.shape[1])
    if "decision" in data.periods:
        decision = torch.as_tensor(np.asarray(data.periods["decision"][0]))
        first_target = torch.minimum(first_target, decision)
    before = steps[None, :] < first_target[:, None]
    weights = (valid & (before | mask)).float()
    if response_weight != 1.0:
        weights = torch.where(before, weights, weights * response_weight)
    return weights


def _loss(
    out: torch.Tensor, targets: torch.Tensor, weights: torch.Tensor, continuous: bool
) -> tuple[torch.Tensor, float]:
    """Weighted cross-entropy (Discrete) or squared error (Box); and the step accuracy.

    The accuracy is the fraction of the weighted steps whose arg-max output is the target.
    """
    total = weights.sum().clamp_min(1e-12)
    if continuous:
        err = ((out - targets.float()) ** 2).mean(-1)
        return (err * weights).sum() / total, math.nan
    labels = targets.long()
    per_step = nn.functional.cross_entropy(out.transpose(1, 2), labels, reduction="none")
    loss = (per_step * weights).sum() / total
    return loss, _hit_rate(out, labels, weights > 0)


def _hit_rate(out: torch.Tensor, labels: torch.Tensor, steps: torch.Tensor) -> float:
    """The fraction of ``steps`` (a bool mask) whose arg-max output is the label (NaN: none)."""
    hits = (out.argmax(-1) == labels)[steps]
    return float(hits.float().mean()) if hits.numel() else math.nan


HISTORY = ("step", "loss", "accuracy", "response_accuracy", "seconds")
_SHOWN = {"loss": "loss", "accuracy": "step_acc", "response_accuracy": "resp_acc"}
_SHOWN_WINDOW = 25  # progress shows means over this many steps


def progress_for(config: TrainConfig, task: str) -> Progress:
    """The progress of a run of ``config`` on ``task``: in steps, or in seconds of its budget."""
    label = task.removeprefix("neurogym/").removesuffix("-v0")
    if config.max_steps is not None:
        return Progress(label, config.max_steps, "step")
    assert config.seconds is not None
    return Progress(label, config.seconds, "s")


def _step(
    model: TrainedModel, env: gym.Env[Any, Any], optimizer: torch.optim.Optimizer
) -> dict[str, float]:
    """One Adam step on a new batch; returns its loss and accuracies."""
    config, network = model.config, model.network
    data = neurogym.batch(env, config.batch_size, as_torch=True)
    out, _ = network(data.inputs.float())
    weights = loss_weights(data, config.loss, config.response_weight)
    loss, accuracy = _loss(out, data.targets, weights, model.continuous)
    _update(model, loss, optimizer)
    response = math.nan
    if not model.continuous:
        response = _hit_rate(out.detach(), data.targets.long(), data.mask.bool())
    return {"loss": float(loss.detach()), "accuracy": accuracy, "response_accuracy": response}


def _update(model: TrainedModel, loss: torch.Tensor, optimizer: torch.optim.Optimizer) -> None:
    """One Adam step on ``loss`` (gradients clipped to ``config.grad_clip``)."""
    optimizer.zero_grad()
    loss.backward()  # type: ignore[no-untyped-call]
    if model.config.grad_clip is not None:
        nn.utils.clip_grad_norm_(model.network.parameters(), model.config.grad_clip)
    optimizer.step()


def _across_step(
    model: TrainedModel, streams: Streams, optimizer: torch.optim.Optimizer
) -> dict[str, float]:
    """One Adam step on the next chunk of the streams (training across trials).

    The loss covers every step of the chunk, with the env's ground truth of that step as the
    target; steps whose target is not the fixation action weigh ``response_weight``.
    """
    config = model.config
    chunk = streams.chunk(model.network, config.chunk_steps)
    weights = torch.where(chunk.response, config.response_weight, 1.0)
    loss, accuracy = _loss(chunk.outputs, chunk.targets, weights, continuous=False)
    _update(model, loss, optimizer)
    response = _hit_rate(chunk.outputs.detach(), chunk.targets, chunk.response)
    return {"loss": float(loss.detach()), "accuracy": accuracy, "response_accuracy": response}


def stepper(
    model: TrainedModel, data: gym.Env[Any, Any] | Streams, optimizer: torch.optim.Optimizer
) -> Callable[[], dict[str, float]]:
    """The training step of ``model``: on batches of ``data`` (an env), or on its streams."""
    if isinstance(data, Streams):
        return lambda: _across_step(model, data, optimizer)
    return lambda: _step(model, data, optimizer)


def _shown(history: dict[str, list[float]]) -> dict[str, float]:
    """The progress metrics: means of the last steps, named as the progress shows them."""
    shown = {}
    for key, name in _SHOWN.items():
        recent = np.asarray(history[key][-_SHOWN_WINDOW:], dtype=float)
        finite = recent[np.isfinite(recent)]
        shown[name] = float(finite.mean()) if finite.size else math.nan
    return shown


def fit(
    model: TrainedModel,
    step_once: Callable[[], dict[str, float]],
    progress: Progress | None,
    callback: Callable[[TrainedModel, int], bool | None] | None = None,
) -> None:
    """Trains ``model`` in place until its budget ends or ``callback`` returns True.

    ``step_once`` (see :func:`stepper`) makes one training step and returns its metrics.
    """
    config, network, history = model.config, model.network, model.history
    start = time.perf_counter()
    step = 0
    network.train()
    try:
        while True:
            elapsed = time.perf_counter() - start
            if config.max_steps is not None and step >= config.max_steps:
                break
            if config.seconds is not None and elapsed >= config.seconds and step > 0:
                break
            values = step_once()
            step += 1
            for key, value in (("step", step), *values.items()):
                history[key].append(value)
            history["seconds"].append(time.perf_counter() - start)
            if callback is not None:
                paused = time.perf_counter()
                stop = callback(model, step)
                network.train()
                start += time.perf_counter() - paused  # the callback's time is not training time
                if stop is True:
                    break
            if progress is not None:
                if config.max_steps is not None:
                    progress.update(step, **_shown(history))
                else:  # a seconds budget: the progress counts seconds
                    progress.update(history["seconds"][-1], step=step, **_shown(history))
    finally:
        if progress is not None:
            progress.close()
