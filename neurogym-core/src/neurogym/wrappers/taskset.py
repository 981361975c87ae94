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
from neurogym._deprecation import as_task_generator
from neurogym._trials.builder import TrialBatch
from neurogym._trials.stack import merge_trial_batches
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
        task._np_random = as_task_generator(rng)  # one stream, with 2.3.1's RandomState names
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
