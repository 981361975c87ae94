"""Prefetching: a single env generates its trials ``BLOCK`` at a time and serves them in turn.

Every batch-native task without ``cross_trial_state`` draws its trials in blocks of
:data:`BLOCK` (one library constant, not a task or user setting): one ``new_trials(BLOCK)``
pass over the env's generator instead of ``BLOCK`` passes of one, which removes most of the
per-trial numpy overhead of stepping a single env. The trial sequence is fixed by
``reset(seed=...)`` and by nothing else: trial ``k`` after a reset is row ``k % BLOCK`` of the
``k // BLOCK``-th block, so ``neurogym.batch(task, n, seed=s)`` (which draws the same blocks)
is exactly the env's first ``n`` trials. A task that sets ``prefetch`` is refused at class
creation (:func:`refuse_prefetch_setting`).

A pool is discarded (and the next block generated) when it is used up, on ``reset``, and when
the env's configuration is no longer the one the pool was generated from. The rule: **a pool
remembers its configuration** (every public attribute that is not per-step or per-trial
state or gymnasium's ``metadata``/``spec``, and the number of edits of ``timing``): by
identity, and for mutable containers (arrays, lists, dicts, sets) also by contents, so
reassigning an attribute (``env.cohs = [...]``), editing one in place (``env.cohs[0] = 5``)
or editing ``timing`` is seen at the next trial; a copy or an unpickled env keeps a valid
pool. Trials forced with kwargs (``new_trial(ground_truth=1)``) are generated on their own
and leave the pool alone.
"""

from __future__ import annotations

from operator import is_
from typing import TYPE_CHECKING, Any

import numpy as np

from neurogym._trials.builder import BatchBuilder
from neurogym.timing import _to_steps

if TYPE_CHECKING:
    from neurogym._env.env import TrialEnv
    from neurogym._trials.builder import TrialBatch

__all__ = ["BLOCK", "TrialPool", "refuse_prefetch_setting"]

BLOCK = 32
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


def _configuration(env: TrialEnv) -> tuple[tuple[str, ...], tuple[Any, ...], int]:
    """The env's configuration objects: public attribute names, their values, timing edits."""
    state = vars(env)
    names = tuple(k for k in state if k[0] != "_" and k not in DYNAMIC_ATTRIBUTES)
    return names, tuple(state[k] for k in names), env.timing.version


def _contents(value: Any) -> Any:
    """What an in-place edit of a mutable container changes (None for other values)."""
    kind = type(value)
    if kind is np.ndarray:
        return (value.dtype.str, value.shape, value.tobytes())
    if kind is list or kind is dict or kind is set:
        return kind(value)  # a shallow copy: compared with == (elements: see _same_contents)
    return None


def _same_contents(value: Any, contents: Any) -> bool:
    """Whether ``value`` (the object the pool was generated with) still holds ``contents``."""
    try:
        if type(value) is np.ndarray:
            return bool(
                value.shape == contents[1]
                and value.dtype.str == contents[0]
                and value.tobytes() == contents[2]
            )
        return bool(value == contents)  # a list, dict or set against its shallow copy
    except (TypeError, ValueError):  # elements numpy cannot compare as one bool: regenerate
        return False


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
        self.names, self.values, self.timing_version = _configuration(env)
        self.contents = [
            (i, snapshot)
            for i, value in enumerate(self.values)
            if (snapshot := _contents(value)) is not None
        ]
        self.lengths: list[int] = batch.lengths.tolist()
        # per period: its name and, per row, start_t, end_t, start_ind, end_ind, duration
        # (all periods converted at once: a pool is made every BLOCK trials)
        names = list(batch.start_t)
        self.tmax: list[float] = [0.0] * self.size
        self.periods: list[tuple[Any, ...]] = []
        if names:
            dt = env.dt
            start = np.stack([np.broadcast_to(batch.start_t[n], (self.size,)) for n in names])
            end = np.stack([np.broadcast_to(batch.end_t[n], (self.size,)) for n in names])
            per_period = zip(
                names,
                start.tolist(),
                end.tolist(),
                _to_steps(start, dt).tolist(),
                _to_steps(end, dt).tolist(),
                (end - start).tolist(),
                strict=True,
            )
            self.periods = list(per_period)
            self.tmax = end.max(axis=0).tolist()
        keys = list(batch.trial)
        columns = [batch.trial[k] for k in keys]
        self.trials = [
            {key: column[i] for key, column in zip(keys, columns, strict=True)}
            for i in range(self.size)
        ]
        self.gt_lists = self._gt_lists(batch)
        rule = env.rule
        self.codes: list[list[int]] | None = None
        if rule is not None:
            grid = rule.code_grid(batch.start_t, batch.end_t, batch.lengths, float(env.dt))
            self.codes = [grid[i, : self.lengths[i]].tolist() for i in range(self.size)]

    def _gt_lists(self, batch: TrialBatch) -> list[Any]:
        """Each row's ground truth per step, as ``step`` compares it with actions."""
        gt = batch.gt
        if gt is None:
            return [[] for _ in range(self.size)]
        if gt.ndim == 2:  # scalar actions: Python numbers, fast to compare
            return [row[:steps] for row, steps in zip(gt.tolist(), self.lengths, strict=True)]
        return [list(gt[i, :steps]) for i, steps in enumerate(self.lengths)]

    @classmethod
    def generate(cls, env: TrialEnv, size: int) -> TrialPool:
        """Builds ``size`` trials of ``env`` from its generator."""
        return cls(env, env.new_trials(size))

    def usable(self, env: TrialEnv) -> bool:
        """Whether a trial is left and the env holds the configuration it was generated from."""
        if self.next >= self.size or env.timing.version != self.timing_version:
            return False
        state = vars(env)
        try:
            held = tuple(map(state.__getitem__, self.names))
        except KeyError:  # an attribute was deleted
            return False
        if not all(map(is_, held, self.values)):
            if not all(map(_same, held, self.values)):
                return False
            self.values = held  # equal numbers (an unpickled env): the same objects from now on
        return all(_same_contents(held[i], snapshot) for i, snapshot in self.contents)

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
