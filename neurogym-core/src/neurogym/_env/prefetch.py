"""Prefetching: a single env generates its trials ``BLOCK`` at a time and serves them in turn.

Every batch-native task without ``cross_trial_state`` draws its trials in blocks of
:data:`BLOCK` (one library constant, not a task or user setting): one ``new_trials(BLOCK)``
pass over the env's generator instead of ``BLOCK`` passes of one, which removes most of the
per-trial numpy overhead of stepping a single env. The trial sequence is fixed by
``reset(seed=...)`` and by nothing else: trial ``k`` after a reset is row ``k % BLOCK`` of the
``k // BLOCK``-th block, so ``neurogym.batch(task, n, seed=s)`` (which draws the same blocks)
is exactly the env's first ``n`` trials. A task that sets ``prefetch`` is refused at class
creation (:func:`refuse_prefetch_setting`).

A pool is discarded (and the next block generated) when it is used up, on ``reset(seed=...)``
(or a ``reset()`` after ``env.rng`` was replaced), and when the env's configuration is no longer
the one the pool was generated from. ``reset()`` without a seed (an episode end: gymnasium's
autoreset, ``trials_per_episode``) goes on with the pool (its next row), so an episode end
costs one trial, not a block, and the trials stay those of the seed's stream. The rule: **a pool
remembers its configuration** (every public attribute that is not per-step or per-trial
state or gymnasium's ``metadata``/``spec``, and the ``timing`` object and its number of
edits): by identity, and for mutable containers (arrays, lists, dicts, sets) also by
contents, so reassigning an attribute (``env.cohs = [...]``), setting a new public one
(``env.sigma = 2`` over a class default), editing one in place (``env.cohs[0] = 5``, a
reshape or a dtype change) or editing or replacing ``timing`` is seen at the next trial; a
copy or an unpickled env keeps a valid pool. Trials forced with kwargs
(``new_trial(ground_truth=1)``) are generated on their own and leave the pool alone.
"""

from __future__ import annotations

from operator import is_, itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from neurogym._trials.batch import period_columns
from neurogym._trials.builder import BatchBuilder

if TYPE_CHECKING:
    from neurogym._env.env import TrialEnv
    from neurogym._trials.builder import TrialBatch

__all__ = ["BLOCK", "TrialPool", "refuse_prefetch_assignment", "refuse_prefetch_setting"]

BLOCK = 128
"""Trials a single env of a batch-native task without cross-trial state draws at once."""


def refuse_prefetch_setting(cls: type) -> None:
    """Refuses a task class that sets ``prefetch``: retuning it would change what a seed gives."""
    if "prefetch" in vars(cls):
        raise TypeError(
            f"{cls.__name__} sets prefetch, which is not a task setting: every batch-native "
            f"task without cross_trial_state draws its trials in blocks of {BLOCK} "
            "(neurogym._env.prefetch.BLOCK), so a seed gives the same trials whatever the "
            "speed settings; remove the attribute (declare cross_trial_state = True if a trial "
            "depends on earlier ones)"
        )


def refuse_prefetch_assignment(env: Any, value: Any) -> None:
    """``TrialEnv.prefetch``'s setter: the block size is not an env setting either."""
    raise AttributeError(
        f"{type(env).__name__}.prefetch cannot be set (got {value!r}): a single env draws its "
        f"trials in blocks of {BLOCK} (neurogym._env.prefetch.BLOCK; 1 for tasks with "
        "cross_trial_state), so a seed gives the same trials whatever the speed settings; "
        "to start a new block, reset(seed=...) or discard_prefetched()"
    )


# Attributes that change while an env runs, or describe the task without taking part in
# generating trials (gymnasium's metadata and spec): not part of a pool's configuration.
DYNAMIC_ATTRIBUTES = frozenset(
    {"t", "t_ind", "num_tr", "performance", "max_episode_steps", "trials_per_episode", "r_tmax",
     "metadata", "spec", "render_mode"}
)  # fmt: skip


# Numbers are compared by value: pickling does not keep their identity (it keeps every other
# object's, shared references included), so an unpickled env keeps its pool.
_BY_VALUE = (int, float, complex)


def _same(held: Any, generated_with: Any) -> bool:
    return held is generated_with or (
        type(held) in _BY_VALUE and type(held) is type(generated_with) and held == generated_with
    )


def _configuration(env: TrialEnv) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    """The env's configuration objects: public attribute names and their values."""
    state = vars(env)
    keys = tuple(state)
    names = _NAMES.get(keys)
    if names is None:  # (an env's attribute names rarely change: filter them once)
        if len(_NAMES) >= 256:
            _NAMES.clear()
        names = _NAMES[keys] = tuple(
            k for k in keys if k[0] != "_" and k not in DYNAMIC_ATTRIBUTES
        )
    return names, tuple(state[k] for k in names)


_NAMES: dict[tuple[str, ...], tuple[str, ...]] = {}
"""An env's attribute names to its configuration's names (:func:`_configuration`)."""


def _attribute_marks(state: dict[str, Any]) -> tuple[int, str | None]:
    """The number of an env's attributes and the last one set (None without attributes)."""
    return len(state), next(reversed(state), None)


def _one_tuple(names: tuple[str, ...]) -> Any:
    """A getter of ``names``' values as a tuple, for fewer than two names."""
    return lambda state: tuple(state[name] for name in names)


def _snapshots(values: tuple[Any, ...]) -> tuple[list[tuple[Any, ...]], list[tuple[int, Any]]]:
    """What in-place edits of the mutable containers among ``values`` would change.

    Arrays: ``(index, shape, dtype, bytes)``; lists, dicts and sets: ``(index, shallow copy)``
    (compared with ``==``, elements: see :func:`_same_container`). Other values: nothing.
    """
    arrays, containers = [], []
    for i, value in enumerate(values):
        kind = type(value)
        if kind is np.ndarray:
            arrays.append((i, value.shape, value.dtype, value.tobytes()))
        elif kind is list or kind is dict or kind is set:
            containers.append((i, kind(value)))
    return arrays, containers


def _same_container(value: Any, copy: Any) -> bool:
    """Whether a list, dict or set still equals its shallow copy."""
    try:
        return bool(value == copy)
    except (TypeError, ValueError):  # elements numpy cannot compare as one bool: regenerate
        return False


def _row_dicts(columns: dict[str, Any], size: int) -> list[dict[str, Any]]:
    """One dict per row of ``columns`` (each a ``(size, ...)`` array), filled column by column.

    The values are the arrays' elements (numpy scalars, or sub-arrays), as indexing a row
    gives them; filling every dict one key at a time costs less than zipping each row.
    """
    rows: list[dict[str, Any]] = [{} for _ in range(size)]
    for key, column in columns.items():
        for row, value in zip(rows, column, strict=True):
            row[key] = value
    return rows


def _period_columns(
    batch: TrialBatch, names: list[str], size: int, dt: float
) -> tuple[np.ndarray, np.ndarray]:
    """``(2P, size)`` period bounds in ms (starts, then ends) and in steps.

    The builder's own columns when the batch still holds them (its ``start_t`` and
    ``end_t`` values are their very rows), else made from the batch's dicts.
    """
    count = len(names)
    columns = getattr(batch, "_columns", None)
    if columns is not None:
        times, steps, starts, ends = columns
        if (
            len(starts) == len(ends) == count
            and all(map(is_, batch.start_t.values(), starts))
            and all(map(is_, batch.end_t.values(), ends))
        ):
            return times, steps
    bounds = [*(batch.start_t[name] for name in names), *(batch.end_t[name] for name in names)]
    return period_columns(bounds, size, dt)


class TrialPool:
    """``K`` pre-generated trials of one env and the per-row data stepping needs.

    Args:
        env: The env the trials belong to.
        batch: Its ``new_trials(K)`` result.
    """

    def __init__(self, env: TrialEnv, batch: TrialBatch) -> None:
        self.batch = batch
        self.size = batch.size
        self.next = 0
        self.generator = env._np_random  # what ``reset()`` without a seed continues
        self.names, self.values = _configuration(env)
        # ``env.timing`` (a property over ``_timing``): the object, and its number of edits
        self.timing, self.timing_version = env._timing, env._timing.version
        self.arrays, self.containers = _snapshots(self.values)
        # An attribute set since (a new key is the dict's last): are the names the same?
        self.attribute_count, self.last_attribute = _attribute_marks(vars(env))
        getter: Any = itemgetter  # (mypy cannot type itemgetter(*names))
        self._held = getter(*self.names) if len(self.names) > 1 else _one_tuple(self.names)
        size = self.size
        self.lengths: list[int] = batch.lengths.tolist()
        # per period: its name and, per row, start_t, end_t, start_ind, end_ind, duration
        # (all periods converted at once: a pool is made every BLOCK trials; a fixed period's
        # times may be scalars, which the row assignment broadcasts)
        names = list(batch.start_t)
        self.tmax: list[float] = [0.0] * size
        self.periods: list[tuple[Any, ...]] = []
        if names:
            count = len(names)
            times, step_array = _period_columns(batch, names, size, env.dt)
            as_lists, steps = times.tolist(), step_array.tolist()
            durations = (times[count:] - times[:count]).tolist()
            starts, ends = as_lists[:count], as_lists[count:]
            firsts, stops = steps[:count], steps[count:]
            per_period = zip(names, starts, ends, firsts, stops, durations, strict=True)
            self.periods = list(per_period)
            self.tmax = times[count:].max(axis=0).tolist()
        self.trials = _row_dicts(batch.trial, size)
        self.gt_lists = self._gt_lists(batch)
        rule = env.rule
        self.codes: list[list[int]] | None = None
        if rule is not None:
            first = {name: steps for name, _, _, steps, _, _ in self.periods}
            stop = {name: steps for name, _, _, _, steps, _ in self.periods}
            self.codes = rule.code_rows(first, stop, self.lengths)

    def _gt_lists(self, batch: TrialBatch) -> list[Any]:
        """Each row's ground truth per step, as ``step`` compares it with actions."""
        gt = batch.gt
        if gt is None:
            return [[] for _ in range(self.size)]
        if gt.ndim == 2:  # scalar actions: Python numbers, fast to compare
            rows: list[Any] = gt.tolist()
            if self.size and len(rows[0]) == min(self.lengths):  # all as long as the batch
                return rows
            return [row[:steps] for row, steps in zip(rows, self.lengths, strict=True)]
        return [list(gt[i, :steps]) for i, steps in enumerate(self.lengths)]

    @classmethod
    def generate(cls, env: TrialEnv, size: int) -> TrialPool:
        """Builds ``size`` trials of ``env`` from its generator."""
        return cls(env, env.new_trials(size))

    def usable(self, env: TrialEnv) -> bool:
        """Whether a trial is left and the env holds the configuration it was generated from."""
        timing = env._timing
        if (
            self.next >= self.size
            or timing is not self.timing
            or timing.version != self.timing_version
        ):
            return False
        state = vars(env)
        if (  # _attribute_marks, inlined (a served trial's path)
            len(state) != self.attribute_count
            or next(reversed(state), None) is not self.last_attribute
        ) and not self._same_names(env):
            return False
        try:
            held = self._held(state)
        except KeyError:  # an attribute was deleted
            return False
        if not all(map(is_, held, self.values)):
            if not all(map(_same, held, self.values)):
                return False
            self.values = held  # equal numbers (an unpickled env): the same objects from now on
        # held[i] is the very array the pool was generated with: only its contents can differ
        for i, shape, dtype, data in self.arrays:
            array = held[i]
            # (``dtype is not``: an equal dtype can be another object, in an unpickled pool)
            if (
                array.tobytes() != data
                or array.shape != shape
                or (array.dtype is not dtype and array.dtype != dtype)
            ):
                return False
        for i, copy in self.containers:  # noqa: SIM110 (a loop: cheaper than all(<generator>))
            if not _same_container(held[i], copy):
                return False
        return True

    def _same_names(self, env: TrialEnv) -> bool:
        """Whether the env's public attributes are still those the pool was generated with.

        Called when the env gained or lost attributes (its number of attributes or its last
        one changed: a new attribute is the instance dict's last key, even when another was
        deleted): a new public one (``env.sigma = 2`` shadowing a class default) is a new
        configuration; a new private one is not.
        """
        if _configuration(env)[0] != self.names:
            return False
        self.attribute_count, self.last_attribute = _attribute_marks(vars(env))
        return True

    def take(self) -> int:
        """The index of the next unused row."""
        row = self.next
        self.next += 1
        return row

    def row_builder(self, env: TrialEnv, row: int) -> BatchBuilder:
        """A one-trial builder whose arrays are views of row ``row`` (for in-step edits)."""
        batch, steps = self.batch, self.lengths[row]
        builder = BatchBuilder(env, 1, {})
        builder._ob = None if batch.ob is None else batch.ob[row : row + 1, :steps]
        builder._gt = None if batch.gt is None else batch.gt[row : row + 1, :steps]
        builder._mask = batch.mask[row : row + 1, :steps]
        builder.start_t = {name: starts[row] for name, starts, *_ in self.periods}
        builder.end_t = {name: ends[row] for name, _, ends, *_ in self.periods}
        builder.tmax_ms = self.tmax[row]
        builder.trial = {key: column[row : row + 1] for key, column in batch.trial.items()}
        return builder
