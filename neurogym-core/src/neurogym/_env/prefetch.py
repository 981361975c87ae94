"""Prefetching: a single env generates its trials ``prefetch`` at a time and serves them in turn.

A batch-native task with ``prefetch = K > 1`` (a class attribute; tasks opt in) builds ``K``
trials with one ``new_trials(K)`` pass over the env's generator instead of ``K`` passes of one,
which removes most of the per-trial numpy overhead of stepping a single env. The trial sequence
is still fixed by ``reset(seed=...)``: trial ``k`` after a reset is row ``k % K`` of the
``k // K``-th batch.

A pool is discarded (and the next trial generated afresh) when it is used up, on ``reset``,
and when the env's configuration is no longer the one the pool was generated from. The rule:
**a pool remembers the objects of its configuration** (the value of every public attribute
that is not per-step or per-trial state, and the number of edits of ``timing``) and serves
trials while the env still holds those same objects. Reassigning an attribute
(``env.cohs = [...]``) or editing ``timing`` is therefore seen; a copy or an unpickled env keeps
a valid pool, because copying maps the pool's references to the copy's own attributes.
Trials forced with kwargs (``new_trial(ground_truth=1)``) are generated on their own and leave
the pool alone. Changes *inside* an attribute's value (``env.cohs[0] = 5``) cannot be seen
without comparing values every trial: call :meth:`~neurogym.TrialEnv.discard_prefetched`
after such an edit.

Only tasks whose trial generation keeps no state across trials may opt in (a block counter
advanced by ``_new_trials`` would skip the positions of discarded trials).
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

__all__ = ["TrialPool"]

# Attributes that change while an env runs; they do not describe how trials are generated.
DYNAMIC_ATTRIBUTES = frozenset(
    {"t", "t_ind", "num_tr", "performance", "max_episode_steps", "trials_per_episode", "r_tmax"}
)


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
        self.lengths: list[int] = batch.lengths.tolist()
        starts = {name: values.tolist() for name, values in batch.start_t.items()}
        ends = {name: values.tolist() for name, values in batch.end_t.items()}
        end_arrays = list(batch.end_t.values())
        self.tmax: list[float] = (
            np.max(np.stack(end_arrays), axis=0).tolist() if end_arrays else [0.0] * self.size
        )
        # per period: its name and, per row, start_t, end_t, start_ind, end_ind, duration
        dt = env.dt
        self.periods = [
            (
                name,
                starts[name],
                ends[name],
                _to_steps(batch.start_t[name], dt).tolist(),
                _to_steps(batch.end_t[name], dt).tolist(),
                (batch.end_t[name] - batch.start_t[name]).tolist(),
            )
            for name in starts
        ]
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
        if all(map(is_, held, self.values)):
            return True
        if all(map(_same, held, self.values)):  # equal numbers (an unpickled env)
            self.values = held  # the same objects from now on: the fast check above
            return True
        return False

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
