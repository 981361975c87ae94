"""Hidden activity of a trained network on seeded batches, aligned with what each trial was."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

import neurogym
from neurogym import validate
from neurogym.wrappers import TaskSet
from neurogym_apps.train import TrainedModel, torch_threads

__all__ = ["DEFAULT_MAX_BYTES", "Activity", "activity_bytes", "record_activity", "task_names"]

#: The memory :func:`record_activity` and :meth:`Activity.table` allow by default (512 MiB).
DEFAULT_MAX_BYTES = 512 * 1024**2
_FLOAT = 4  # bytes per stored value (float32)
_TABLE_ROW = 8 * 7  # bytes per row of Activity.table: seven 8-byte columns


@dataclasses.dataclass(frozen=True, repr=False)
class Activity:
    """Hidden states of a network on a set of trials, with everything aligned to them.

    Time is the first axis and trials the second; trials of different lengths (or tasks) are
    padded to the longest, and padded steps hold NaN in :attr:`hidden` and False in
    :attr:`valid`.

    Attributes:
        hidden: ``(T, B, N)`` float32: unit ``n``'s state at step ``t`` of trial ``b`` (the
            recurrent layer's output: ``h`` for GRU, RNN and LSTM alike).
        inputs: ``(T, B, n_in)`` float32: the observations the network received.
        valid: ``(T, B)`` bool: steps that belong to the trial.
        task: ``(B,)`` str: each trial's task name (the task's id for a single-task model).
        trial: Trial variables, ``(B,)`` arrays (NaN where a task of a set lacks one).
        periods: Period name to ``(start, end)`` step arrays ``(B,)`` (end exclusive;
            ``(0, 0)`` where a trial has no such period).
        dt: Step size in ms.
        cell: ``(T, B, N)`` float32: an LSTM's cell state ``c`` beside :attr:`hidden`
            (NaN on padding); None for a GRU or RNN, whose state is ``hidden`` alone.
    """

    hidden: np.ndarray
    inputs: np.ndarray
    valid: np.ndarray
    task: np.ndarray
    trial: dict[str, np.ndarray]
    periods: dict[str, tuple[np.ndarray, np.ndarray]]
    dt: float
    cell: np.ndarray | None = None

    def __repr__(self) -> str:
        """One line: the shape and the tasks."""
        steps, trials, units = self.hidden.shape
        return (
            f"Activity(steps={steps}, trials={trials}, units={units}, "
            f"tasks={list(self.tasks)}, dt={self.dt:g})"
        )

    @property
    def states(self) -> np.ndarray:
        """``(T, B, S)``: the network's whole state, the state of its map.

        :attr:`hidden` for a GRU or RNN (``S = N``); ``h`` and ``c`` side by side for an LSTM
        (``S = 2N``), as :func:`~neurogym_apps.analysis.transition` steps it.
        """
        if self.cell is None:
            return self.hidden
        return np.concatenate([self.hidden, self.cell], axis=-1)

    @property
    def tasks(self) -> tuple[str, ...]:
        """The task names present, in order of first appearance."""
        return tuple(dict.fromkeys(str(name) for name in self.task))

    def select(self, trials: np.ndarray | Sequence[int]) -> Activity:
        """The activity of some trials (a bool mask or indices ``(B,)``), trimmed to fit them."""
        index = np.asarray(trials)
        valid = self.valid[:, index]
        steps = int(np.flatnonzero(valid.any(1)).max() + 1) if valid.any() else 0
        return Activity(
            hidden=self.hidden[:steps, index],
            cell=None if self.cell is None else self.cell[:steps, index],
            inputs=self.inputs[:steps, index],
            valid=valid[:steps],
            task=self.task[index],
            trial={key: value[index] for key, value in self.trial.items()},
            periods={
                key: (start[index], end[index]) for key, (start, end) in self.periods.items()
            },
            dt=self.dt,
        )

    def of_task(self, name: str) -> Activity:
        """The trials of one task.

        Raises:
            ValueError: ``name`` is not one of :attr:`tasks`.
        """
        validate.choice(name, "task", self.tasks)
        return self.select(self.task == name)

    def period_names(self) -> np.ndarray:
        """``(T, B)`` str: the period each step belongs to (``""`` on padding or no period).

        Where periods overlap, the one that starts latest wins.
        """
        names = np.full(self.valid.shape, "", dtype=object)
        steps = np.arange(self.valid.shape[0])[:, None]
        order = sorted(self.periods, key=lambda key: float(np.mean(self.periods[key][0])))
        for key in order:
            start, end = self.periods[key]
            names[(steps >= start[None]) & (steps < end[None])] = key
        names[~self.valid] = ""
        return names

    def table(self, max_bytes: int = DEFAULT_MAX_BYTES) -> dict[str, np.ndarray]:
        """A tidy (long) table: one row per trial, valid step and unit, in that order.

        Columns ``task``, ``trial`` (index), ``step``, ``time_ms`` (step x dt), ``period``,
        ``unit`` and ``value`` (the unit's state), equal-length arrays:
        ``pandas.DataFrame(activity.table())`` makes a data frame of it.

        Raises:
            ValueError: The table would need more than ``max_bytes`` (56 bytes a row).
        """
        units = self.hidden.shape[2]
        rows = int(self.valid.sum()) * units
        _refuse(rows * _TABLE_ROW, max_bytes, f"a table of {rows:,} rows", "trials or units")
        trial, step = np.nonzero(self.valid.T)
        periods = self.period_names()[step, trial]
        return {
            "task": np.repeat(self.task[trial], units),
            "trial": np.repeat(trial, units),
            "step": np.repeat(step, units),
            "time_ms": np.repeat(step * self.dt, units),
            "period": np.repeat(periods, units),
            "unit": np.tile(np.arange(units), step.size),
            "value": self.hidden[step, trial].reshape(-1),
        }


def _refuse(n_bytes: float, max_bytes: int, what: str, lower: str) -> None:
    if n_bytes > max_bytes:
        raise ValueError(
            f"{what} would need {n_bytes / 1024**2:,.1f} MiB, more than max_bytes="
            f"{max_bytes:,} ({max_bytes / 1024**2:,.1f} MiB); lower {lower}, or raise max_bytes"
        )


def activity_bytes(steps: int, trials: int, units: int, n_in: int, lstm: bool = False) -> int:
    """The memory :func:`record_activity` keeps: ``steps x trials x (S + n_in + 1) x 4``.

    States (``S``: ``units``, or ``2 x units`` for an LSTM's ``h`` and ``c``) and inputs as
    float32 plus the valid mask (counted at 4 bytes too), for ``trials`` trials padded to
    ``steps`` steps; trial variables and periods add a few values per trial.
    """
    state = 2 * units if lstm else units
    return steps * trials * (state + n_in + 1) * _FLOAT


def task_names(model: TrainedModel) -> tuple[str, ...]:
    """The tasks of a model: its task set's names, or its one task id."""
    env = model.make_env()
    return tuple(env.names) if isinstance(env, TaskSet) else (model.task,)


def _task_env_kwargs(model: TrainedModel, name: str, names: tuple[str, ...]) -> dict[str, Any]:
    """The model's env kwargs, with all of a task set's probability on task ``name``."""
    if len(names) == 1 and name == model.task:
        return dict(model.env_kwargs)
    onehot = [float(other == name) for other in names]
    return {**model.env_kwargs, "p": onehot}


def record_activity(
    model: TrainedModel,
    trials: int = 128,
    *,
    seed: int = 0,
    tasks: Sequence[str] | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    threads: int | None = 1,
) -> Activity:
    """Runs ``model`` on ``trials`` seeded trials of each of its tasks; returns the activity.

    The trials of each task are ``neurogym.batch(env, trials, seed=seed)`` of the model's task
    (for a task set, the set with all probability on that task, so the network sees the rule
    input it was trained with). The network runs over whole trials from a zero state (as in
    training); its outputs are not fed back. An LSTM is run one step at a time, to record its
    cell state too (:attr:`Activity.cell`).

    Args:
        model: A trained model (``TrainedModel.load(run_folder)``).
        trials: Trials per task.
        seed: Seed of the batches (the same for every task).
        tasks: Task names of a task set to run (None: all); a single-task model has one, its
            id (see :func:`task_names`).
        max_bytes: Refuse when :func:`activity_bytes` of the padded result is larger.
        threads: torch CPU threads while the network runs (None: torch's setting).

    Returns:
        The :class:`Activity`, trials grouped by task in ``tasks`` order.

    Raises:
        ValueError: An unknown task name, or the estimate is above ``max_bytes`` (checked
            after drawing the trials, before the network runs).
    """
    validate.positive_int(trials, "trials")
    validate.integer(seed, "seed", minimum=0)
    names = task_names(model)
    chosen = tuple(names if tasks is None else tasks)
    for name in chosen:
        validate.choice(name, "task", names)
    batches = [
        neurogym.batch(
            neurogym.make(model.task, **_task_env_kwargs(model, name, names)), trials, seed=seed
        )
        for name in chosen
    ]
    steps = max(int(np.asarray(b.inputs).shape[1]) for b in batches)
    units = int(model.network.recurrent.hidden_size)
    n_in = int(model.network.recurrent.input_size)
    lstm = model.network.cell == "lstm"
    _refuse(
        activity_bytes(steps, trials * len(chosen), units, n_in, lstm),
        max_bytes,
        f"the activity of {trials:,} trials x {len(chosen)} task(s) x {steps} steps x "
        f"{units} units",
        "trials or tasks",
    )
    with torch_threads(threads), torch.inference_mode():
        parts = [_run(model, b, name, steps) for name, b in zip(chosen, batches, strict=True)]
    return _concat(parts)


def _states(layer: torch.nn.Module, inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """``h`` at every step ``(B, T, N)``, and an LSTM's ``c`` too (else None)."""
    x = torch.as_tensor(inputs)
    if not isinstance(layer, torch.nn.LSTM):
        hidden, _ = layer(x)
        return hidden.numpy(), None
    state = None  # nn.LSTM returns only the last c: step it to record c at every step
    hs, cs = [], []
    for t in range(x.shape[1]):
        _, state = layer(x[:, t : t + 1], state)
        hs.append(state[0][0])
        cs.append(state[1][0])
    return torch.stack(hs, 1).numpy(), torch.stack(cs, 1).numpy()


def _run(model: TrainedModel, data: Any, name: str, steps: int) -> Activity:
    """One task's batch through the recurrent layer, padded to ``steps``."""
    inputs = np.asarray(data.inputs, dtype=np.float32)
    hidden, cell = _states(model.network.recurrent, inputs)
    valid = np.asarray(data.valid, dtype=bool)

    def masked(state: np.ndarray) -> np.ndarray:
        return np.where(valid[..., None], state, np.nan).astype(np.float32)

    pad = steps - inputs.shape[1]

    def time_first(array: np.ndarray, fill: Any) -> np.ndarray:
        widths = [(0, 0), (0, pad)] + [(0, 0)] * (array.ndim - 2)
        return np.swapaxes(np.pad(array, widths, constant_values=fill), 0, 1)

    count = inputs.shape[0]
    trial = {key: np.asarray(value) for key, value in data.trial.items() if key != "task"}
    return Activity(
        hidden=time_first(masked(hidden), np.nan),
        cell=None if cell is None else time_first(masked(cell), np.nan),
        inputs=time_first(inputs, 0.0),
        valid=time_first(valid, False),
        task=np.full(count, name, dtype=object),
        trial=trial,
        periods={key: (np.asarray(s), np.asarray(e)) for key, (s, e) in data.periods.items()},
        dt=float(data.dt),
    )


def _concat(parts: list[Activity]) -> Activity:
    """The activities of several tasks, trials one after the other."""
    if len(parts) == 1:
        return parts[0]
    sizes = [part.task.size for part in parts]
    keys = list(dict.fromkeys(key for part in parts for key in part.trial))
    trial = {key: _column([part.trial.get(key) for part in parts], sizes) for key in keys}
    periods = {}
    for key in dict.fromkeys(key for part in parts for key in part.periods):
        starts, ends = zip(
            *(part.periods.get(key, (np.zeros(n, int), np.zeros(n, int))) for part, n in
              zip(parts, sizes, strict=True)),
            strict=True,
        )  # fmt: skip
        periods[key] = (np.concatenate(starts), np.concatenate(ends))
    return Activity(
        hidden=np.concatenate([part.hidden for part in parts], axis=1),
        cell=None
        if parts[0].cell is None
        else np.concatenate([part.cell for part in parts if part.cell is not None], axis=1),
        inputs=np.concatenate([part.inputs for part in parts], axis=1),
        valid=np.concatenate([part.valid for part in parts], axis=1),
        task=np.concatenate([part.task for part in parts]),
        trial=trial,
        periods=periods,
        dt=parts[0].dt,
    )


def _column(values: list[np.ndarray | None], sizes: list[int]) -> np.ndarray:
    """A trial variable over several tasks: NaN (or None) where a task lacks it."""
    filled = []
    for value, size in zip(values, sizes, strict=True):
        if value is None:
            filled.append(np.full(size, np.nan))
        else:
            filled.append(value)
    try:
        column = np.concatenate(filled)
    except (TypeError, ValueError):  # mixed kinds: keep them as objects
        column = np.concatenate([np.asarray(v, dtype=object) for v in filled])
    return column
