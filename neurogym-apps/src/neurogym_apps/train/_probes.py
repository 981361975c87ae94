"""Activation probes: a torch layer's outputs, step by step and trial by trial, and their plot.

:class:`ActivationProbe` puts a forward hook on any ``torch.nn.Module`` and keeps, for each
population the layer has, one numpy array per forward pass, grouped in trials: a recurrent
layer (``nn.RNN``, ``nn.GRU``) has ``"output"`` and ``"hidden"``, an ``nn.LSTM`` also
``"cell"``, any other module (``nn.Linear``, an activation function...) ``"output"``.
:func:`plot_activations` draws one panel per neuron, trials overlaid (or their mean), on a
``matplotlib.figure.Figure`` built without pyplot.

NeuroGym 2.3.1's ``Monitor.record_activations`` and ``Monitor.plot_activations`` use both
(the Monitor calls :meth:`ActivationProbe.new_trial` at each trial end it sees).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from torch import nn

__all__ = ["ActivationProbe", "plot_activations"]


def _numpy(tensor: torch.Tensor, batch_axis: int | None = None) -> np.ndarray:
    """A detached CPU copy of ``tensor``, without ``batch_axis`` when that axis has size 1."""
    data = tensor.detach()
    if batch_axis is not None and data.dim() == 3 and data.shape[batch_axis] == 1:
        data = data.squeeze(batch_axis)
    return np.array(data.cpu().numpy(), copy=True)


class ActivationProbe:
    """Records a module's outputs at each forward pass, one list per trial and population.

    The arrays of a recurrent layer drop the batch axis when it has size 1 (one env stepped
    at a time): an LSTM driven one step at a time gives ``hidden`` arrays of shape
    ``(num_layers, hidden_size)``. Forward passes in training mode (``module.training``, as
    while stable-baselines3 fits a policy) are skipped unless ``training=True``.

    A trial's list is opened by the first forward pass after :meth:`new_trial`, so calling
    :meth:`new_trial` at each trial end leaves exactly one list per trial that was run.

    Args:
        module: The layer to record.
        name: A label; default the module's class name.
        steps: At most this many steps are kept per trial (None: all).
        training: Also record forward passes made in training mode.

    Attributes:
        history: Population -> list over trials -> list over steps of numpy arrays.
        name: The label.
        steps: The per-trial cap (None: no cap).
        paused: While True, forward passes are not recorded.
    """

    def __init__(
        self,
        module: nn.Module,
        name: str | None = None,
        steps: int | None = None,
        *,
        training: bool = False,
    ) -> None:
        if not isinstance(module, nn.Module):
            raise TypeError(f"ActivationProbe records a torch.nn.Module, got {module!r}")
        if steps is not None and (isinstance(steps, bool) or int(steps) != steps or steps < 1):
            raise ValueError(f"steps must be a positive integer or None, got {steps!r}")
        self.module = module
        self.name = name or type(module).__name__
        self.steps = None if steps is None else int(steps)
        self.training = training
        self.paused = False
        self.history: dict[str, list[list[np.ndarray]]] = {
            population: [] for population in self.populations
        }
        self._pending = True
        self._handle: Any = module.register_forward_hook(self._hook)

    @property
    def probe(self) -> ActivationProbe:
        """This probe (2.3.1 spelled its shapes ``am.probe.get_population_shapes()``)."""
        return self

    @property
    def populations(self) -> tuple[str, ...]:
        """The populations this module has."""
        if isinstance(self.module, nn.LSTM):
            return ("output", "hidden", "cell")
        if isinstance(self.module, nn.RNNBase):
            return ("output", "hidden")
        return ("output",)

    def get_population_shapes(self) -> dict[str, tuple[int, ...]]:
        """The number of neurons of each population (the last axis of its arrays).

        Known from the layer for ``nn.Linear`` and recurrent layers; for any other module, the
        shape of the last array recorded (empty before the first forward pass).
        """
        layer = self.module
        if isinstance(layer, nn.RNNBase):
            directions = 2 if layer.bidirectional else 1
            size = getattr(layer, "proj_size", 0) or layer.hidden_size
            shapes: dict[str, tuple[int, ...]] = {
                "output": (size * directions,),
                "hidden": (size,),
            }
            if isinstance(layer, nn.LSTM):
                shapes["cell"] = (layer.hidden_size,)
            return shapes
        if isinstance(layer, nn.Linear):
            return {"output": (layer.out_features,)}
        recorded = [trial[-1] for trial in self.history["output"] if trial]
        return {"output": tuple(recorded[-1].shape)} if recorded else {}

    def _split(self, output: Any) -> dict[str, np.ndarray]:
        """The arrays of one forward pass, by population."""
        layer = self.module
        if isinstance(layer, nn.RNNBase):
            sequence, state = output
            arrays = {"output": _numpy(sequence, 0 if layer.batch_first else 1)}
            if isinstance(layer, nn.LSTM):
                arrays["hidden"], arrays["cell"] = (_numpy(part, 1) for part in state)
            else:
                arrays["hidden"] = _numpy(state, 1)
            return arrays
        while isinstance(output, tuple | list):  # e.g. MultiheadAttention: (output, weights)
            output = output[0]
        if not isinstance(output, torch.Tensor):
            raise TypeError(f"{self.name}: cannot record an output of type {type(output)}")
        return {"output": _numpy(output)}

    def _hook(self, module: nn.Module, inputs: Any, output: Any) -> None:
        if self.paused or (module.training and not self.training):
            return
        if self._pending:
            for trials in self.history.values():
                trials.append([])
            self._pending = False
        if self.steps is not None and len(self.history["output"][-1]) >= self.steps:
            return
        for population, array in self._split(output).items():
            self.history[population][-1].append(array)

    def new_trial(self) -> None:
        """Ends the current trial: the next recorded forward pass opens a new one."""
        self._pending = True

    def pause(self) -> None:
        """Stops recording until :meth:`resume`."""
        self.paused = True

    def resume(self) -> None:
        """Records again after :meth:`pause`."""
        self.paused = False

    def remove(self) -> None:
        """Removes the forward hook (the history is kept)."""
        self._handle.remove()

    def clear(self) -> None:
        """Forgets everything recorded."""
        for trials in self.history.values():
            trials.clear()
        self._pending = True


def _stack(trials: Sequence[Sequence[np.ndarray]], batch_dim: int | None) -> np.ndarray:
    """Trials x steps x neurons, NaN after each trial's end."""
    kept = [trial for trial in trials if len(trial)]
    if not kept:
        raise ValueError("nothing recorded yet: run the module (e.g. Monitor.evaluate_policy)")
    shape = np.shape(kept[0][0])
    data = np.full((len(kept), max(map(len, kept)), *shape), np.nan)
    for index, trial in enumerate(kept):
        data[index, : len(trial)] = np.asarray(trial, dtype=np.float64)
    if batch_dim is not None:
        if not 2 <= batch_dim < data.ndim - 1:
            raise ValueError(
                f"batch_dim must be an axis of the stacked (trial, step, ...) array between 2 "
                f"and {data.ndim - 2}, got {batch_dim}"
            )
        data = data.mean(axis=batch_dim)
    while data.ndim > 3:  # average any axis left between step and neuron
        data = data.mean(axis=2)
    if data.ndim == 2:  # one value per step: one neuron
        data = data[:, :, np.newaxis]
    return data


def plot_activations(
    trials: Sequence[Sequence[np.ndarray]],
    neurons: int | Sequence[int] | None = None,
    *,
    mean: bool = False,
    batch_dim: int | None = None,
    figsize: tuple[float, float] | None = None,
    title: str = "Neuron activations",
) -> tuple[Figure, np.ndarray]:
    """One panel per neuron: its activation over the steps of each trial, or the trials' mean.

    Args:
        trials: A population's history: a list over trials of lists over steps of arrays
            (``probe.history["hidden"]``).
        neurons: Neuron index or indices (the last axis of the arrays); default all.
        mean: Plot the mean over trials (at each step, over the trials that lasted that long)
            instead of every trial.
        batch_dim: An axis of the stacked ``(trial, step, ...)`` array to average away (2 for
            the single batch/layer axis of an LSTM's ``hidden``); any axis left between step
            and neuron is averaged too.
        figsize: Figure size; default 3 x 2 inches per panel.
        title: The figure's title.

    Returns:
        The figure and a flat array of its axes, one per neuron (panels of the grid beyond the
        last neuron are removed).

    Raises:
        ValueError: If nothing is recorded, ``batch_dim`` is not such an axis, or a neuron
            index is out of range.
    """
    data = _stack(trials, batch_dim)
    count = data.shape[-1]
    chosen = list(range(count)) if neurons is None else list(np.atleast_1d(neurons))
    if not chosen or any(not 0 <= int(n) < count for n in chosen):
        raise ValueError(f"neuron indices must be between 0 and {count - 1}, got {chosen}")
    rows = max(1, int(np.floor(np.sqrt(len(chosen)))))
    cols = -(-len(chosen) // rows)
    fig = Figure(figsize=figsize or (3 * cols, 2 * rows), layout="constrained")
    grid = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax in grid[len(chosen) :]:
        fig.delaxes(ax)
    axes = grid[: len(chosen)]
    steps = np.arange(data.shape[1])
    for ax, neuron in zip(axes, chosen, strict=True):
        _panel(ax, steps, data[:, :, int(neuron)], mean)
        ax.set_title(f"Neuron {int(neuron)}")
    fig.suptitle(title)
    return fig, axes


def _panel(ax: Axes, steps: np.ndarray, traces: np.ndarray, mean: bool) -> None:
    if mean:  # every step has at least one trial (the longest): no empty slice
        ax.plot(steps, np.nanmean(traces, axis=0), lw=1.0, color="k")
    else:
        for trace in traces:
            ax.plot(steps, trace, lw=0.6, alpha=0.8)
    ax.set_xlabel("Step")
    ax.set_ylabel("Activation")
