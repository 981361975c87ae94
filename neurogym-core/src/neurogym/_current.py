"""The current trial of a single env: one object, assigned in one go (``docs/architecture.md`` §5).

A :class:`~neurogym.TrialEnv` holds its current trial in exactly one place, ``env._current``.
A trial boundary replaces that object as a whole; nothing else holds current-trial state. What
reads or edits the current trial goes through it: ``step`` (its step tables), the env's
properties (``env.ob``, ``env.trial``, ``env.start_t``, ``env.tmax``, ...), the per-trial
authoring verbs (``add_ob``, ``set_groundtruth``, ... in ``_step``) and wrappers that edit a
trial (``ReactionTime``, followed by ``env.refresh_trial()``).

A current trial comes from one of two places:

* a one-trial :class:`~neurogym._builder.BatchBuilder` (a trial generated on its own: forced
  values, tasks that do not prefetch, upstream-style ``_new_trial`` tasks whose authoring verbs
  write into it while it is being built), or
* one row of a prefetched :class:`~neurogym.TrialBatch` (:mod:`neurogym._prefetch`). Its
  arrays are views of the row; a one-trial builder viewing the row is made only if an
  authoring verb needs one, and the period dicts are made only when read.

Pickling keeps the trial's arrays and any edits of them: views are not pickled but taken again
from the builder or batch they belong to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from neurogym._trialbatch import _to_steps, gt_by_step

if TYPE_CHECKING:
    import numpy as np

    from neurogym._builder import BatchBuilder, TrialBatch
    from neurogym._env import TrialEnv
    from neurogym._prefetch import TrialPool

__all__ = ["CurrentTrial"]


class CurrentTrial:
    """One trial made current: arrays, periods, parameters and the tables ``step`` reads.

    Attributes:
        trial: The trial's parameters (``env.trial``). While an upstream-style ``_new_trial``
            builds the trial, this is still the previous trial's dict (upstream's order).
        ob: ``(T, *obs_shape)`` observations (a view), or None if the trial writes none.
        gt: ``(T, *act_shape)`` ground truth (a view), or None if the trial sets none.
        gt_list: The ground truth per step as ``step`` compares it with actions.
        codes: Per-step period codes of a declarative ``rule`` (None without a rule).
        tmax: Trial length in ms, a whole number of steps (``env.tmax``).
        tmax_ms: End of the last period in ms, before flooring to steps.
    """

    __slots__ = (
        "_builder",
        "_durations",
        "_end_ind",
        "_end_t",
        "_pool",
        "_row",
        "_start_ind",
        "_start_t",
        "codes",
        "dt",
        "gt",
        "gt_list",
        "ob",
        "tmax",
        "tmax_ms",
        "trial",
    )

    def __init__(self, dt: float, tmax: float, trial: dict[str, Any] | None) -> None:
        self.dt = dt
        self.tmax = tmax
        self.tmax_ms = 0.0
        self.trial = trial
        self.ob: np.ndarray | None = None
        self.gt: np.ndarray | None = None
        self.gt_list: Any = []
        self.codes: list[int] | None = None
        self._builder: BatchBuilder | None = None
        self._pool: TrialPool | None = None
        self._row = 0
        self._start_t: dict[str, float] | None = {}
        self._end_t: dict[str, float] | None = {}
        self._start_ind: dict[str, int] | None = {}
        self._end_ind: dict[str, int] | None = {}
        self._durations: dict[str, float] | None = {}

    # ------------------------------------------------------------------ construction
    @classmethod
    def being_built(
        cls, builder: BatchBuilder, tmax: float, previous: dict[str, Any] | None
    ) -> CurrentTrial:
        """A trial that ``builder`` (one trial) is about to build.

        Args:
            builder: The one-trial builder.
            tmax: The trial length if the trial adds no period (the env's default ``tmax``).
            previous: The previous trial's dict (``trial`` until :meth:`finish`).
        """
        current = cls(builder.dt, tmax, previous)
        current._builder = builder
        return current

    @classmethod
    def from_pool(cls, pool: TrialPool, row: int, dt: float) -> CurrentTrial:
        """Row ``row`` of a prefetched pool; its period dicts are made when first read."""
        current = cls(dt, pool.lengths[row] * dt, pool.trials[row])
        current._pool = pool
        current._row = row
        current._start_t = current._end_t = current._start_ind = current._end_ind = None
        current._durations = None
        current.tmax_ms = pool.tmax[row]
        current._rows_from_pool()
        current.gt_list = pool.gt_lists[row]
        current.codes = None if pool.codes is None else pool.codes[row]
        return current

    def _rows_from_pool(self) -> None:
        pool, row = self._pool, self._row
        assert pool is not None
        batch: TrialBatch = pool.batch
        steps = pool.lengths[row]
        self.ob = None if batch.ob is None else batch.ob[row, :steps]
        self.gt = None if batch.gt is None else batch.gt[row, :steps]

    # ------------------------------------------------------------------ the builder
    def builder(self, env: TrialEnv) -> BatchBuilder:
        """The one-trial builder behind this trial (made from the pool row if needed)."""
        if self._builder is None:
            pool = self._pool
            assert pool is not None
            self._builder = pool.row_builder(env, self._row)
        return self._builder

    def sync_periods(self) -> None:
        """Copies the builder's periods (and the trial length) after ``add_period``."""
        builder = self._builder
        assert builder is not None
        dt = self.dt
        start_t, end_t = self.start_t, self.end_t
        start_ind, end_ind, durations = self.start_ind, self.end_ind, self.durations
        for name, start in builder.start_t.items():
            end = builder.end_t[name]
            start_t[name] = first = float(start) if isinstance(start, float) else float(start[0])
            end_t[name] = last = float(end) if isinstance(end, float) else float(end[0])
            start_ind[name] = _to_steps(first, dt)
            end_ind[name] = _to_steps(last, dt)
            durations[name] = last - first
        if builder.start_t:
            tmax = builder.tmax_ms
            self.tmax_ms = float(tmax) if isinstance(tmax, float) else float(tmax[0])
            self.tmax = _to_steps(self.tmax_ms, dt) * dt

    def sync_arrays(self) -> None:
        """Views the builder's arrays again after an authoring verb wrote (or allocated) them.

        Until :meth:`snapshot_groundtruth`, ``step`` reads the ground truth live from the
        array, so writes through a ``view_groundtruth`` view take effect.
        """
        builder = self._builder
        assert builder is not None
        self.ob = None if builder._ob is None else builder._ob[0]
        self.gt = None if builder._gt is None else builder._gt[0]
        self.gt_list = [] if self.gt is None else self.gt

    def snapshot_groundtruth(self) -> None:
        """Takes the per-step ground truth ``step`` compares actions with (fast to read)."""
        self.gt_list = gt_by_step(self.gt)

    # ------------------------------------------------------------------ periods
    def _pool_periods(self) -> None:
        pool, row = self._pool, self._row
        assert pool is not None
        start_t, end_t, start_ind, end_ind, durations = {}, {}, {}, {}, {}
        for name, starts, ends, first, last, duration in pool.periods:
            start_t[name] = starts[row]
            end_t[name] = ends[row]
            start_ind[name] = first[row]
            end_ind[name] = last[row]
            durations[name] = duration[row]
        self._start_t, self._end_t = start_t, end_t
        self._start_ind, self._end_ind, self._durations = start_ind, end_ind, durations

    @property
    def start_t(self) -> dict[str, float]:
        """Period name to start time in ms."""
        if self._start_t is None:
            self._pool_periods()
        assert self._start_t is not None
        return self._start_t

    @property
    def end_t(self) -> dict[str, float]:
        """Period name to end time in ms."""
        if self._end_t is None:
            self._pool_periods()
        assert self._end_t is not None
        return self._end_t

    @property
    def start_ind(self) -> dict[str, int]:
        """Period name to first step index."""
        if self._start_ind is None:
            self._pool_periods()
        assert self._start_ind is not None
        return self._start_ind

    @property
    def end_ind(self) -> dict[str, int]:
        """Period name to step index after the period."""
        if self._end_ind is None:
            self._pool_periods()
        assert self._end_ind is not None
        return self._end_ind

    @property
    def durations(self) -> dict[str, float]:
        """Period name to duration in ms."""
        if self._durations is None:
            self._pool_periods()
        assert self._durations is not None
        return self._durations

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> dict[str, Any]:
        state = {name: getattr(self, name) for name in self.__slots__}
        # Views are taken again after unpickling, from the builder or batch they belong to
        # (pickling would turn them into separate arrays, and in-place edits would be lost).
        state["ob"] = state["gt"] = None
        state["gt_list"] = None if self.gt_list is self.gt else self.gt_list
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        if self._builder is not None:
            live = self.gt_list is None
            self.sync_arrays()
            if not live:
                self.gt_list = state["gt_list"]
        elif self._pool is not None:
            self._rows_from_pool()
            if self.gt_list is None:
                self.gt_list = self.gt
