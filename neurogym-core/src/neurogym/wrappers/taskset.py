"""TaskSet: several tasks that share spaces, one task per trial, with a rule input naming it.

The multitask setting of Yang et al. (2019): every trial comes from one of several tasks
drawn by a seeded schedule, and a one-hot *rule* input (appended to the observation) says
which. :class:`TaskSet` is a :class:`~neurogym.wrappers.ScheduleEnvs` with ``env_input=True``
plus what training needs: task names in every trial dict, task probabilities, a precise error
when the tasks do not share spaces, and mixed batches built per task in whole batches.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from neurogym import validate
from neurogym._trials.builder import TrialBatch
from neurogym.wrappers.multi import ScheduleEnvs
from neurogym.wrappers.schedule import RandomSchedule

__all__ = ["TaskSet", "merge_trial_batches"]


def _space_text(space: gym.Space[Any]) -> str:
    return repr(space)


def _same_space(a: gym.Space[Any], b: gym.Space[Any]) -> bool:
    """Equal spaces up to dim names: type, shape, dtype, bounds or ``n``/``start``."""
    if type(a) is not type(b) or a.shape != b.shape or a.dtype != b.dtype:
        return False
    if isinstance(a, gym.spaces.Box) and isinstance(b, gym.spaces.Box):
        return bool(np.array_equal(a.low, b.low) and np.array_equal(a.high, b.high))
    if isinstance(a, gym.spaces.Discrete) and isinstance(b, gym.spaces.Discrete):
        return bool(a.n == b.n and a.start == b.start)
    return a == b


def _check_shared(envs: Sequence[gym.Env[Any, Any]], names: Sequence[str]) -> None:
    """Raises ValueError naming the first task whose space or ``dt`` differs from the first's."""
    first = envs[0]
    for name, env in zip(names[1:], envs[1:], strict=True):
        for kind in ("observation_space", "action_space"):
            mine, theirs = getattr(env, kind), getattr(first, kind)
            if not _same_space(mine, theirs):
                raise ValueError(
                    f"TaskSet needs tasks that share spaces: the {kind} of {name!r} is "
                    f"{_space_text(mine)}, but {names[0]!r} has {_space_text(theirs)}"
                )
        dt, dt0 = env.unwrapped.dt, first.unwrapped.dt  # type: ignore[attr-defined]
        if dt != dt0:
            raise ValueError(
                f"TaskSet needs tasks with one dt: {name!r} has dt={dt}, {names[0]!r} dt={dt0}"
            )


def _default_name(env: gym.Env[Any, Any]) -> str:
    spec = getattr(env.unwrapped, "spec", None)
    return str(spec.id) if spec is not None else type(env.unwrapped).__name__


@contextlib.contextmanager
def _drawing_from(envs: Sequence[gym.Env[Any, Any]], rng: np.random.Generator) -> Iterator[None]:
    """Makes every env's task draw from ``rng`` during the block."""
    tasks: list[Any] = [env.unwrapped for env in envs]
    saved = [(task._np_random, task._np_random_seed) for task in tasks]
    for task in tasks:
        task._np_random = rng
    try:
        yield
    finally:
        for task, (generator, seed) in zip(tasks, saved, strict=True):
            task._np_random, task._np_random_seed = generator, seed


class TaskSet(ScheduleEnvs):
    """Several tasks sharing spaces; each trial comes from one, named by a one-hot rule input.

    Each trial's task is drawn by a :class:`RandomSchedule` (probabilities ``p``) from the
    first task's generator, so ``reset(seed=s)`` fixes the sequence; ``set_i(i)`` or
    ``new_trial(task=name)`` forces the next one. The observation is the tasks' observation
    followed by ``len(envs)`` dims named ``rule`` (one-hot: the active task), at every step,
    so its shape never changes. Every trial dict (``env.active_env.unwrapped.trial``,
    ``info["trial"]`` at a trial end, batches' ``trial``) holds ``"task"``: the task's name.

    ``new_trials(n)`` (so ``neurogym.batch`` and ``neurogym.Dataset``) draws each trial's
    task, then builds the trials of each task as one batch of that task, every draw coming
    from the first task's generator; see :func:`merge_trial_batches` for the layout.

    Args:
        envs: The tasks (TrialEnv chains). They must share the observation space, the action
            space (dim names may differ) and ``dt``.
        names: One name per task (default: each task's id, else its class name).
        p: Probability of each task per trial (None: uniform).

    Attributes:
        names: The task names, in ``envs`` order (the rule dims' order).

    Raises:
        ValueError: If the tasks do not share spaces or ``dt`` (naming the task and the space),
            if the names are not distinct, or if ``p`` is not one probability per task.
    """

    def __init__(
        self,
        envs: Sequence[gym.Env[Any, Any]],
        names: Sequence[str] | None = None,
        p: Sequence[float] | None = None,
    ) -> None:
        envs = list(envs)
        if not envs:
            raise ValueError("TaskSet needs at least one task")
        names = [_default_name(env) for env in envs] if names is None else list(names)
        if len(names) != len(envs) or len(set(names)) != len(names):
            raise ValueError(f"TaskSet needs one distinct name per task, got {names!r}")
        _check_shared(envs, names)
        super().__init__(envs, RandomSchedule(len(envs), p=p), env_input=True)
        self.names: tuple[str, ...] = tuple(str(name) for name in names)
        self._name_array = np.array(self.names)

    @classmethod
    def from_ids(
        cls,
        task_ids: Sequence[str],
        *,
        names: Sequence[str] | None = None,
        p: Sequence[float] | None = None,
        **kwargs: Any,
    ) -> TaskSet:
        """A TaskSet of installed tasks, each made with ``neurogym.make(task_id, **kwargs)``.

        Args:
            task_ids: Task ids (or unambiguous bare names).
            names: One name per task (default: the ids as given).
            p: Probability of each task per trial (None: uniform).
            **kwargs: Constructor arguments given to every task (e.g. ``dt``).
        """
        from neurogym._registry.api import make

        ids = list(task_ids)
        return cls([make(task_id, **kwargs) for task_id in ids], names or ids, p)

    def index_of(self, task: int | str) -> int:
        """The index of a task given by name or index.

        Raises:
            ValueError: If ``task`` is neither one of :attr:`names` nor an index.
        """
        if isinstance(task, str):
            return self.names.index(validate.choice(task, "task", self.names))
        return validate.integer(task, "task", minimum=0, maximum=len(self.names) - 1)

    def new_trial(self, **kwargs: Any) -> dict[str, Any]:
        """Generates the next trial in the scheduled task (``task=`` forces one by name/index)."""
        if "task" in kwargs:
            self.set_i(self.index_of(kwargs.pop("task")))
        trial = super().new_trial(**kwargs)
        trial["task"] = self.names[self.i_env]
        return trial

    def _task_indices(self, n: int, task: Any, rng: np.random.Generator) -> np.ndarray:
        if task is None:
            assert isinstance(self.schedule, RandomSchedule)
            return self.schedule.draw(rng, n)
        values = np.asarray(task)
        if values.ndim == 0:
            return np.full(n, self.index_of(values.item()))
        if values.shape != (n,):
            raise ValueError(f"forced task must be one name/index or {n} of them, got {task!r}")
        return np.array([self.index_of(value.item()) for value in values])

    def new_trials(self, n: int, **kwargs: Any) -> TrialBatch:
        """``n`` trials of mixed tasks: each task's trials built as one batch of that task.

        Args:
            n: Batch size.
            **kwargs: Forced trial parameters, given to every task (scalars, or arrays with a
                leading axis of ``n``, split by task); ``task=`` forces the tasks (a name or
                index, or one per trial).

        Returns:
            The merged :class:`TrialBatch` (rule input included; ``trial["task"]`` names each
            row's task).
        """
        n = validate.positive_int(n, "n")
        rng = self.task.rng
        index = self._task_indices(n, kwargs.pop("task", None), rng)
        parts: list[tuple[int, np.ndarray, TrialBatch]] = []
        with _drawing_from(self.envs, rng):
            for i in np.unique(index):
                rows = np.flatnonzero(index == i)
                sub = {key: _rows_of(value, rows, n) for key, value in kwargs.items()}
                parts.append((int(i), rows, self._sources[i].new_trials(rows.size, **sub)))
        merged = merge_trial_batches(n, parts, self.observation_space.dtype, len(self.envs))
        merged.trial["task"] = self._name_array[index]
        return merged


def _rows_of(value: Any, rows: np.ndarray, n: int) -> Any:
    """The rows of a per-trial forced value (leading axis ``n``); other values unchanged."""
    array = np.asarray(value) if isinstance(value, (np.ndarray, list, tuple)) else None
    if array is not None and array.ndim and array.shape[0] == n:
        return array[rows]
    return value


def _fill_value(dtype: np.dtype[Any]) -> tuple[np.dtype[Any], Any]:
    """The dtype and fill of a trial-dict column that some tasks lack."""
    if dtype.kind in "fc":
        return dtype, np.nan
    if dtype.kind in "iu":
        return np.dtype(np.int64), -1
    if dtype.kind == "b":
        return dtype, False
    if dtype.kind in "US":
        return dtype, ""
    return np.dtype(object), None


def _merge_column(n: int, present: list[tuple[np.ndarray, np.ndarray]], complete: bool) -> Any:
    arrays = [np.asarray(values) for _, values in present]
    if len({a.shape[1:] for a in arrays}) > 1:  # different shapes per task: one object per row
        column = np.empty(n, dtype=object)
        for rows, values in present:
            for row, value in zip(rows, values, strict=True):
                column[row] = value
        return column
    dtype = np.result_type(*arrays)
    fill: Any = 0
    if not complete:
        dtype, fill = _fill_value(dtype)
    column = np.full((n, *arrays[0].shape[1:]), fill, dtype=dtype)
    for rows, values in present:
        column[rows] = values
    return column


def merge_trial_batches(
    n: int,
    parts: Sequence[tuple[int, np.ndarray, TrialBatch]],
    dtype: Any,
    n_tasks: int,
) -> TrialBatch:
    """One :class:`TrialBatch` of ``n`` rows from per-task batches, with a one-hot rule input.

    Args:
        n: Rows of the result.
        parts: ``(task index, rows, batch)``: the batch's trial ``k`` goes to row ``rows[k]``.
        dtype: Observation dtype of the result.
        n_tasks: Number of rule dims appended to the observation.

    Returns:
        A batch padded to the longest trial: ``ob`` ends with the rule dims (1 on the steps of
        the row's task, 0 on padding); ``gt``/``mask`` as the tasks set them (``gt`` None if
        no task sets one); ``periods``/``start_t``/``end_t`` hold every task's periods, empty
        (0, 0) in rows of tasks without them; trial-dict keys of some tasks only hold NaN,
        -1, False or "" (by dtype) in the other rows.
    """
    steps = max(batch.ob.shape[1] for _, _, batch in parts if batch.ob is not None)
    width = next(batch.ob.shape[2] for _, _, batch in parts if batch.ob is not None)
    ob = np.zeros((n, steps, width + n_tasks), dtype=dtype)
    gts = [batch.gt for _, _, batch in parts if batch.gt is not None]
    gt = None if not gts else np.zeros((n, steps, *gts[0].shape[2:]), dtype=gts[0].dtype)
    mask = np.zeros((n, steps), dtype=bool)
    lengths = np.zeros(n, dtype=np.intp)
    for i, rows, batch in parts:
        t = batch.mask.shape[1]
        if batch.ob is not None:
            ob[rows, :t, :width] = batch.ob
        ob[rows, :t, width + i] = batch.valid
        if gt is not None and batch.gt is not None:
            gt[rows, :t] = batch.gt
        mask[rows, :t] = batch.mask
        lengths[rows] = batch.lengths
    out = TrialBatch(ob, gt, lengths, mask, {}, {}, {}, {}, parts[0][2].dt)
    for name in dict.fromkeys(k for _, _, batch in parts for k in batch.periods):
        pairs = [(rows, batch.periods[name]) for _, rows, batch in parts if name in batch.periods]
        start, end = np.zeros(n, dtype=np.intp), np.zeros(n, dtype=np.intp)
        start_t, end_t = np.zeros(n), np.zeros(n)
        for rows, (first, last) in pairs:
            start[rows], end[rows] = first, last
        for _, rows, batch in parts:
            if name in batch.start_t:
                start_t[rows], end_t[rows] = batch.start_t[name], batch.end_t[name]
        out.periods[name] = (start, end)
        out.start_t[name], out.end_t[name] = start_t, end_t
    for key in dict.fromkeys(k for _, _, batch in parts for k in batch.trial):
        present = [(rows, batch.trial[key]) for _, rows, batch in parts if key in batch.trial]
        out.trial[key] = _merge_column(n, present, len(present) == len(parts))
    return out
