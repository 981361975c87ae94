"""The current trial of a single env: one object, assigned in one go (``docs/architecture.md`` §5).

A :class:`~neurogym.TrialEnv` holds its current trial in exactly one place, ``env._current``.
A trial boundary replaces that object as a whole; nothing else holds current-trial state.
What reads or edits the current trial goes through it: ``step`` (its step tables), the env's
properties (``env.ob``, ``env.trial``, ``env.start_t``, ``env.tmax``, ...), the per-trial
authoring verbs (``add_ob``, ``set_groundtruth``, ... in ``_step``) and wrappers that edit
a trial (``ReactionTime``, followed by ``env.refresh_trial()`` because it moves a period).

``step`` reads the trial's own arrays and nothing else: each step returns a copy of its row
of ``ob`` and reports its element of ``gt``, so an in-place edit of ``env.ob``/``env.gt``
takes effect at the next step and no private copy can disagree with the trial.

A current trial comes from one of two places:

* a one-trial :class:`~neurogym._trials.builder.BatchBuilder` (a trial generated on its own: forced
  values, tasks that do not prefetch, upstream-style ``_new_trial`` tasks whose authoring verbs
  write into it while it is being built), or
* one row of a prefetched :class:`~neurogym.TrialBatch` (:mod:`neurogym._env.prefetch`). Its
  arrays are views of the row, its period dicts are made on first read, and a one-trial
  builder viewing the row only if an authoring verb needs one.

Before the first trial (and after ``reset`` of a task whose trials a wrapper generates) the env
holds an *empty* current trial (:meth:`CurrentTrial.empty_trial`: no parameters, no
periods), so the env's per-trial names are plain attribute reads (``operator.attrgetter``
properties) that never have to test for a missing trial.

Pickling keeps the trial's arrays and any edits of them: views are not pickled but taken again
from the builder or batch they belong to.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from neurogym.timing import _to_steps

if TYPE_CHECKING:
    import numpy as np

    from neurogym._env.env import TrialEnv
    from neurogym._env.prefetch import TrialPool
    from neurogym._trials.builder import BatchBuilder, TrialBatch

__all__ = ["NO_PERIODS", "OBNOW", "CurrentTrial", "LazyTrial", "gt_at"]


class _ObNow(str):
    """:data:`OBNOW`'s type: upstream's string, pickled and copied as a reference."""

    __slots__ = ()

    def __reduce__(self) -> str:
        return "OBNOW"


OBNOW = _ObNow("ob_unknown_yet")
"""Sentinel returned by ``TrialEnv.ob_now``; ``step`` replaces it by the next observation
(recognised by identity, which unpickling and copying keep)."""


def end_step(tmax: float, dt: float) -> int:
    """The step index at which a trial of ``tmax`` ms times out: ``floor(tmax / dt)``.

    ``step`` ends a trial once ``t_ind * dt + dt > tmax`` (the next step would start past
    ``tmax``, with a relative tolerance of 1e-9 steps): for whole ``t_ind`` that is
    ``t_ind >= floor(tmax / dt + 1e-9)``, one integer comparison per step. An infinite
    ``tmax`` never ends a trial.
    """
    return _to_steps(tmax, dt) if tmax < math.inf else sys.maxsize


def gt_at(gt: np.ndarray, t_ind: int) -> Any:
    """The ground truth of step ``t_ind`` as ``step`` reports it (``info["gt"]``, ``gt_now``).

    A Python number for a scalar ground truth (fast to compare with an action), the step's
    row for a vector one.
    """
    return gt.item(t_ind) if gt.ndim == 1 else gt[t_ind]


PERIOD_DICTS = ("start_t", "end_t", "start_ind", "end_ind", "durations")
NO_PERIODS: Mapping[str, Any] = MappingProxyType({})
"""The period dicts of a trial that adds no period: one shared, read-only empty mapping."""


class _LazyPeriods:
    """A lazy trial's five period dicts, made on first read from its pool row or its builder.

    A non-data descriptor of :class:`LazyTrial`: it runs only while the instance dict lacks
    the name, and it puts all five dicts there, so every later read is an attribute read. A
    rule-stepped task never reads them, and a trial generated but not stepped never does:
    neither pays for them. (A class with such a descriptor loses CPython 3.11's specialised
    reads of that name, so ``step`` turns the trial of a task with a hand-written ``_step``,
    which reads its periods at every step through ``in_period``, into a plain
    :class:`CurrentTrial` before its first step: :meth:`LazyTrial.plain`.)
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, current: CurrentTrial | None, owner: type) -> Any:
        if current is None:
            return self
        current._fill_periods()  # type: ignore[attr-defined]
        return getattr(current, self.name)


def _set_row_periods(current: CurrentTrial) -> None:
    """Sets a prefetched trial's five period dicts from its pool row."""
    pool, row = current._pool, current._row
    assert pool is not None
    start_t, end_t, start_ind, end_ind, durations = {}, {}, {}, {}, {}
    for period, starts, ends, first, last, duration in pool.periods:
        start_t[period] = starts[row]
        end_t[period] = ends[row]
        start_ind[period] = first[row]
        end_ind[period] = last[row]
        durations[period] = duration[row]
    # Plain attribute sets (a non-data descriptor never intercepts them); going through
    # ``__dict__`` would materialise it, which slows later reads on CPython 3.11.
    current.start_t, current.end_t = start_t, end_t
    current.start_ind, current.end_ind, current.durations = start_ind, end_ind, durations


def _as_float(bound: Any) -> float:
    """A one-trial bound that is not a Python float (a number, or a one-element array)."""
    return float(bound) if isinstance(bound, (int, float)) else float(bound.item())


class CurrentTrial:
    """One trial made current: arrays, periods, parameters and the tables ``step`` reads.

    Attributes:
        empty: True for the placeholder an env holds before its first trial.
        trial: The trial's parameters (``env.trial``; None when empty). While an
            upstream-style ``_new_trial`` builds the trial, this is still the previous
            trial's dict (upstream's order).
        start_t, end_t: Period name to start and end time in ms.
        start_ind, end_ind: Period name to first step and the step after the period.
        durations: Period name to duration in ms.
        ob: ``(T, *obs_shape)`` observations (a view), or None if the trial writes none.
        gt: ``(T, *act_shape)`` ground truth (a view), or None if the trial sets none.
        codes: Per-step period codes of a declarative ``rule`` (None without a rule).
        tmax: Trial length in ms, a whole number of steps (``env.tmax``); set it with
            :meth:`set_tmax`.
        end_step: The number of steps of a trial of length ``tmax`` (:func:`end_step`):
            ``step`` ends the trial by timeout once ``t_ind`` reaches it.
        tmax_ms: End of the last period in ms, before flooring to steps.
    """

    # NO_PERIODS until sync_periods copies a builder's periods (LazyTrial: lazy).
    start_t: dict[str, float]
    end_t: dict[str, float]
    start_ind: dict[str, int]
    end_ind: dict[str, int]
    durations: dict[str, float]

    # Set on every instance (__init__, from_pool): step reads them.
    empty: bool
    codes: list[int] | None
    # Defaults as class attributes (an instance sets them only when it differs: a trial is
    # made on every trial boundary; nothing reads these on every step).
    tmax_ms = 0.0
    failed = False
    """True once the trial ended at a boundary (:meth:`end_boundary`)."""
    _pool: TrialPool | None = None
    _row = 0

    def __init__(self, dt: float, tmax: float, trial: dict[str, Any] | None) -> None:
        self.dt = dt
        self.tmax = tmax
        self.end_step = end_step(tmax, dt)
        self.trial = trial
        self.ob: np.ndarray | None = None
        self.gt: np.ndarray | None = None
        self._builder: BatchBuilder | None = None
        # What ``step`` reads, as instance attributes: CPython 3.11 specialises reads of
        # instance attributes only (a class default read through the instance takes the
        # generic lookup, about 200 instructions, on every step).
        self.empty = False
        self.codes: list[int] | None = None
        self.start_t = self.end_t = self.durations = NO_PERIODS  # type: ignore[assignment]
        self.start_ind = self.end_ind = NO_PERIODS  # type: ignore[assignment]

    # ------------------------------------------------------------------ construction
    @classmethod
    def empty_trial(cls, dt: float, tmax: float) -> CurrentTrial:
        """The placeholder before a first trial: no parameters, no periods, no arrays.

        Args:
            dt: The env's step.
            tmax: The length of trials that add no period (``env.tmax`` before a trial).
        """
        current = cls(dt, tmax, None)
        current.empty = True
        return current

    @classmethod
    def from_pool(cls, pool: TrialPool, row: int, dt: float) -> CurrentTrial:
        """Row ``row`` of a prefetched pool.

        A :class:`LazyTrial`: its period dicts are made on first read (a trial that is
        generated but never stepped, or stepped by the rule, never pays for them).
        """
        current = LazyTrial.__new__(LazyTrial)  # __init__'s work, for the per-trial path
        current.dt = dt
        current.end_step = steps = pool.lengths[row]
        current.tmax = steps * dt
        current.tmax_ms = pool.tmax[row]
        current.trial = pool.trials[row]
        current._builder = None
        current._pool = pool
        current._row = row
        current.empty = False  # an instance attribute, as in __init__
        current._rows_from_pool()
        current.codes = None if pool.codes is None else pool.codes[row]
        return current

    def _rows_from_pool(self) -> None:
        """Views this trial's row of the pool's arrays (``ob``, ``gt``)."""
        pool, row = self._pool, self._row
        assert pool is not None
        batch: TrialBatch = pool.batch
        steps = pool.lengths[row]
        self.ob = None if batch.ob is None else batch.ob[row, :steps]
        self.gt = None if batch.gt is None else batch.gt[row, :steps]

    def end_boundary(self) -> None:
        """Marks this trial as ended at a boundary, before the next trial is made.

        It becomes empty (``step`` raises on it) but still reports its parameters
        (``env.trial``, which an upstream-style ``_new_trial`` reads as the previous trial's):
        if making the next trial (or a ``post_step`` at the boundary) fails, the env stays on
        it, so no trial is ever replayed (``docs/architecture.md`` §5).
        """
        self.empty = True
        self.failed = True

    def set_tmax(self, tmax: float) -> None:
        """Sets the trial's length in ms (``env.tmax = ...``), and the step it ends at."""
        self.tmax = tmax
        self.end_step = end_step(tmax, self.dt)

    # ------------------------------------------------------------------ the builder
    def builder(self, env: TrialEnv) -> BatchBuilder:
        """The one-trial builder of this trial (made from its pool row, or empty, on demand)."""
        if self._builder is None:
            pool = self._pool
            if pool is None:  # a trial being built by an upstream-style _new_trial
                from neurogym._trials.builder import BatchBuilder

                self._builder = BatchBuilder(env, 1, {})
            else:
                self._builder = pool.row_builder(env, self._row)
        return self._builder

    def sync_periods(self) -> None:
        """Copies the builder's periods (and the trial length) after ``add_period``."""
        self._copy_periods()
        builder = self._builder
        assert builder is not None
        if builder.start_t:
            self._copy_length(builder)

    def _copy_length(self, builder: BatchBuilder) -> None:
        """The trial's length from its builder's periods (``tmax_ms``, ``end_step``, ``tmax``)."""
        tmax = builder.tmax_ms
        self.tmax_ms = tmax if type(tmax) is float else _as_float(tmax)
        self.end_step = steps = _to_steps(self.tmax_ms, self.dt)
        self.tmax = steps * self.dt

    def _copy_periods(self) -> None:
        """The five period dicts from the builder's periods."""
        builder = self._builder
        assert builder is not None
        dt = self.dt
        start_t: dict[str, float] = {}
        end_t: dict[str, float] = {}
        start_ind: dict[str, int] = {}
        end_ind: dict[str, int] = {}
        durations: dict[str, float] = {}
        self.start_t, self.end_t, self.durations = start_t, end_t, durations
        self.start_ind, self.end_ind = start_ind, end_ind
        for name, start in builder.start_t.items():
            end = builder.end_t[name]
            # a float, or a (1,) array or numpy scalar: .item() gives its Python float
            start_t[name] = first = start if type(start) is float else _as_float(start)
            end_t[name] = last = end if type(end) is float else _as_float(end)
            start_ind[name] = _to_steps(first, dt)
            end_ind[name] = _to_steps(last, dt)
            durations[name] = last - first

    def view_arrays(self) -> None:
        """Views the builder's arrays (``ob``, ``gt``) again, after they were (re)allocated."""
        builder = self._builder
        assert builder is not None
        self.ob = None if builder._ob is None else builder._ob[0]
        self.gt = None if builder._gt is None else builder._gt[0]

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> dict[str, Any]:
        state = dict(vars(self))
        # Views are taken again after unpickling, from the builder or batch they belong to
        # (pickling would turn them into separate arrays, and in-place edits would be lost).
        state["ob"] = state["gt"] = None
        for name in PERIOD_DICTS:  # the shared empty mapping cannot be pickled: None marks it
            if state.get(name, False) is NO_PERIODS:
                state[name] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, NO_PERIODS if value is None and name in PERIOD_DICTS else value)
        if self._builder is not None:
            self.view_arrays()
        elif self._pool is not None:
            self._rows_from_pool()


class LazyTrial(CurrentTrial):
    """A trial whose five period dicts are made on first read (:class:`_LazyPeriods`).

    A pooled trial (:meth:`CurrentTrial.from_pool`) makes them from its pool row; a trial a
    batch-native task built on its own (:meth:`built`), from its builder. One class, so that
    ``step`` tells it from a plain trial with one identity test.
    """

    def _fill_periods(self) -> None:
        if self._pool is not None:
            _set_row_periods(self)
        else:
            self._copy_periods()

    def plain(self) -> CurrentTrial:
        """This trial as a plain :class:`CurrentTrial`, its period dicts made.

        The attributes are set in the order ``from_pool`` sets them, with the periods after
        ``empty``, so that every plain trial made here shares one attribute layout, whose
        reads CPython specialises.
        """
        current = CurrentTrial.__new__(CurrentTrial)
        current.dt = self.dt
        current.end_step = self.end_step
        current.tmax = self.tmax
        current.tmax_ms = self.tmax_ms
        current.trial = self.trial
        current._builder = self._builder
        current._pool = self._pool
        current._row = self._row
        current.empty = self.empty
        current.start_t = self.start_t  # (the first read of a period makes all five)
        current.end_t = self.end_t
        current.start_ind = self.start_ind
        current.end_ind = self.end_ind
        current.durations = self.durations
        current.ob = self.ob
        current.gt = self.gt
        current.codes = self.codes
        return current

    start_t: dict[str, float] = _LazyPeriods()  # type: ignore[assignment]
    end_t: dict[str, float] = _LazyPeriods()  # type: ignore[assignment]
    start_ind: dict[str, int] = _LazyPeriods()  # type: ignore[assignment]
    end_ind: dict[str, int] = _LazyPeriods()  # type: ignore[assignment]
    durations: dict[str, float] = _LazyPeriods()  # type: ignore[assignment]

    @staticmethod
    def built(builder: BatchBuilder, trial: dict[str, Any], tmax: float) -> CurrentTrial:
        """The trial ``builder`` (one trial, its ``_new_trials`` done) built.

        A :class:`LazyTrial` if it has periods; else a plain :class:`CurrentTrial` with empty
        period dicts (nothing to make lazily, and its one or two steps would pay for the
        conversion).

        Args:
            builder: The finished one-trial builder.
            trial: The trial dict.
            tmax: The length of a trial that adds no period (``env.tmax`` before a trial).
        """
        periods = bool(builder.start_t)
        kind = LazyTrial if periods else CurrentTrial
        current = kind.__new__(kind)  # the attributes in from_pool's order
        current.dt = dt = builder.dt
        if periods:
            current._copy_length(builder)
        else:
            current.end_step = end_step(tmax, dt)
            current.tmax = tmax
        current.trial = trial
        current._builder = builder
        current.empty = False
        if not periods:
            current.start_t, current.end_t, current.durations = {}, {}, {}
            current.start_ind, current.end_ind = {}, {}
        current.ob = current.gt = None
        current.codes = None
        return current
