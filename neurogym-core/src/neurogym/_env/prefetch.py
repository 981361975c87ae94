"""Prefetching: a single env generates its trials ``BLOCK`` at a time and serves them in turn.

Every batch-native task without ``cross_trial_state`` draws its trials in blocks of
:data:`BLOCK` (one library constant, not a task or user setting): one ``new_trials(BLOCK)``
pass over the env's generator instead of ``BLOCK`` passes of one, which removes most of the
per-trial numpy overhead of stepping a single env. The trial sequence is fixed by
``reset(seed=...)`` and by nothing else: trial ``k`` after a reset is row ``k % BLOCK`` of the
``k // BLOCK``-th block, so ``neurogym.batch(task, n, seed=s)`` (which draws the same blocks)
is exactly the env's first ``n`` trials. A task that sets ``prefetch`` is refused at class
creation (:func:`refuse_prefetch_setting`).

A pool is discarded (and the next block generated) when it is used up, on ``reset(seed=...)``,
when ``env.rng`` is assigned, and when the env's configuration changed:
a pool records the :attr:`~neurogym.TrialEnv.config_version` it was generated at, and serves
trials only while the env's version is that one (every change of a setting bumps it:
``docs/architecture.md`` §4). ``reset()`` without a seed (an episode end: gymnasium's
autoreset, ``trials_per_episode``) goes on with the pool (its next row), so an episode end
costs one trial, not a block, and the trials stay those of the seed's stream. A copy or an
unpickled env keeps its pool and version. Trials forced with kwargs
(``new_trial(ground_truth=1)``) are generated on their own and leave the pool alone.
"""

from __future__ import annotations

from operator import is_
from typing import TYPE_CHECKING, Any

from neurogym._env.contract import DRAW_THROUGH_THE_BUILDER
from neurogym._trials.batch import period_columns
from neurogym._trials.builder import BatchBuilder

if TYPE_CHECKING:
    import numpy as np

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
            "speed settings; remove the attribute. If its trials change with earlier ones: "
            f"{DRAW_THROUGH_THE_BUILDER}; declare cross_trial_state = True only for state that "
            "truly carries from trial to trial"
        )


def refuse_prefetch_assignment(env: Any, value: Any) -> None:
    """``TrialEnv.prefetch``'s setter: the block size is not an env setting either."""
    raise AttributeError(
        f"{type(env).__name__}.prefetch cannot be set (got {value!r}): a single env draws its "
        f"trials in blocks of {BLOCK} (neurogym._env.prefetch.BLOCK; 1 for tasks with "
        "cross_trial_state), so a seed gives the same trials whatever the speed settings; "
        "to start a new block, reset(seed=...) or discard_prefetched()"
    )


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
        # (after generation: whatever the task's _new_trials set belongs to this version)
        self.version = env.config_version
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
        rule = env.rule
        self.codes: list[list[int]] | None = None
        if rule is not None:
            first = {name: steps for name, _, _, steps, _, _ in self.periods}
            stop = {name: steps for name, _, _, _, steps, _ in self.periods}
            self.codes = rule.code_rows(first, stop, self.lengths)

    @classmethod
    def generate(cls, env: TrialEnv, size: int) -> TrialPool:
        """Builds ``size`` trials of ``env`` from its generator."""
        return cls(env, env.new_trials(size))

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
