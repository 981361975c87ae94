"""The current trial of a single env: one object, assigned in one go (``docs/architecture.md`` §5).

A :class:`~neurogym.TrialEnv` holds its current trial in exactly one place, ``env._current``.
A trial boundary replaces that object as a whole (or, for a trial no verb made that nobody
else holds, renews it in place: :attr:`CurrentTrial.renewable`); nothing else holds
current-trial state. What reads or edits the current trial goes through it: ``step`` (its
step tables), the env's properties (``env.ob``, ``env.trial``, ``env.start_t``, ``env.tmax``,
...), the per-trial authoring verbs (``add_ob``, ``set_groundtruth``, ... in ``_step``) and
wrappers that edit a trial (``ReactionTime``, followed by ``env.refresh_trial()`` because it
moves a period).

``step`` reads fast snapshots of the trial (a private copy of ``ob``, the ground truth as a
list) only while nobody else holds its arrays: handing ``ob``/``gt`` out for editing
(``env.ob``, ``env.gt``, the authoring verbs) makes the trial *live*
(:meth:`CurrentTrial.go_live`), and ``step`` then reads the arrays themselves, so no snapshot
can disagree with the trial.

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

from neurogym._trials.batch import gt_by_step
from neurogym.timing import EPS, _to_steps

if TYPE_CHECKING:
    import numpy as np

    from neurogym._env.env import TrialEnv
    from neurogym._env.prefetch import TrialPool
    from neurogym._trials.builder import BatchBuilder, TrialBatch

__all__ = ["NO_PERIODS", "OBNOW", "CurrentTrial", "LazyTrial"]


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
    steps = tmax / dt + 1e-9
    return math.floor(steps) if steps < math.inf else sys.maxsize


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
        obs_out: A private copy of ``ob`` that ``step`` returns rows of (:meth:`observation`),
            taken at the trial's first step; None once the arrays were handed out.
        gt_list: The ground truth per step as ``step`` compares it with actions: a list
            snapshot, or a live reader once the arrays were handed out.
        live: True once ``ob``/``gt`` were handed out for editing (:meth:`go_live`): ``step``
            then reads both live, so an edit takes effect at the next step.
        codes: Per-step period codes of a declarative ``rule`` (None without a rule).
        tmax: Trial length in ms, a whole number of steps (``env.tmax``); set it with
            :meth:`set_tmax`.
        end_step: The number of steps of a trial of length ``tmax`` (:func:`end_step`):
            ``step`` ends the trial by timeout once ``t_ind`` reaches it.
        tmax_ms: End of the last period in ms, before flooring to steps.
        renewable: True while the trial is as an upstream-style ``_new_trial`` made it
            without an authoring verb (no arrays, no periods, the default length): the env may
            then make this object its next trial (``TrialEnv.new_trial``). Every edit clears
            it: a builder (an authoring verb), :meth:`set_tmax`, :meth:`go_live`.
    """

    # NO_PERIODS until sync_periods copies a builder's periods (LazyTrial: lazy).
    start_t: dict[str, float]
    end_t: dict[str, float]
    start_ind: dict[str, int]
    end_ind: dict[str, int]
    durations: dict[str, float]

    # Set on every instance (__init__, from_pool): step reads them.
    empty: bool
    live: bool
    renewable: bool
    codes: list[int] | None
    obs_out: np.ndarray | None
    # Defaults as class attributes (an instance sets them only when it differs: a trial is
    # made on every trial boundary; nothing reads these on every step).
    tmax_ms = 0.0
    _pool: TrialPool | None = None
    _row = 0

    def __init__(self, dt: float, tmax: float, trial: dict[str, Any] | None) -> None:
        self.dt = dt
        self.tmax = tmax
        steps = tmax / dt + 1e-9  # end_step(tmax, dt), inlined: a trial is made per boundary
        self.end_step = math.floor(steps) if steps < math.inf else sys.maxsize
        self.trial = trial
        self.ob: np.ndarray | None = None
        self.gt: np.ndarray | None = None
        self.gt_list: Any = []
        self._builder: BatchBuilder | None = None
        # What ``step`` reads, as instance attributes: CPython 3.11 specialises reads of
        # instance attributes only (a class default read through the instance takes the
        # generic lookup, about 200 instructions, on every step).
        self.empty = False
        self.live = False
        self.codes: list[int] | None = None
        self.obs_out: np.ndarray | None = None
        self.start_t = self.end_t = self.durations = NO_PERIODS  # type: ignore[assignment]
        self.start_ind = self.end_ind = NO_PERIODS  # type: ignore[assignment]
        self.renewable = False

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
        current.empty = current.live = False  # instance attributes, as in __init__
        current.obs_out = None
        current._rows_from_pool()
        current.gt_list = pool.gt_lists[row]
        current.codes = None if pool.codes is None else pool.codes[row]
        current.renewable = False
        return current

    def _rows_from_pool(self) -> None:
        """Views this trial's row of the pool's arrays (``ob``, ``gt``)."""
        pool, row = self._pool, self._row
        assert pool is not None
        batch: TrialBatch = pool.batch
        steps = pool.lengths[row]
        self.ob = None if batch.ob is None else batch.ob[row, :steps]
        self.gt = None if batch.gt is None else batch.gt[row, :steps]

    def set_tmax(self, tmax: float) -> None:
        """Sets the trial's length in ms (``env.tmax = ...``), and the step it ends at."""
        self.renewable = False
        self.tmax = tmax
        self.end_step = end_step(tmax, self.dt)

    # ------------------------------------------------------------------ the builder
    def builder(self, env: TrialEnv) -> BatchBuilder:
        """The one-trial builder of this trial (made from its pool row, or empty, on demand)."""
        if self._builder is None:
            self.renewable = False
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
        floor = math.floor
        for name, start in builder.start_t.items():
            end = builder.end_t[name]
            # a float, or a (1,) array or numpy scalar: .item() gives its Python float
            start_t[name] = first = start if type(start) is float else _as_float(start)
            end_t[name] = last = end if type(end) is float else _as_float(end)
            start_ind[name] = floor(first / dt + EPS)  # _to_steps, inlined
            end_ind[name] = floor(last / dt + EPS)
            durations[name] = last - first

    def view_arrays(self) -> None:
        """Views the builder's arrays (``ob``, ``gt``) again, after they were (re)allocated."""
        builder = self._builder
        assert builder is not None
        self.ob = None if builder._ob is None else builder._ob[0]
        self.gt = None if builder._gt is None else builder._gt[0]

    def sync_arrays(self) -> None:
        """Views the builder's arrays again after an authoring verb wrote (or allocated) them.

        The trial goes live (:meth:`go_live`): a view a verb hands out (``view_ob``) may be
        written after the verb returned.
        """
        self.view_arrays()
        self.go_live()

    def go_live(self) -> None:
        """From now on ``step`` reads this trial's ``ob`` and ``gt`` live, not from snapshots.

        Called whenever the arrays are handed out where they may be edited (``env.ob``,
        ``env.gt``, the authoring verbs), so an in-place edit takes effect at the next step:
        each step then returns a copy of its row of ``ob`` instead of a row of the private
        copy, and reads the ground truth from ``gt``. A trial nobody edits keeps the fast
        snapshots; :meth:`snapshot` (a new trial, ``refresh_trial``) takes them again.
        """
        self.live = True
        self.renewable = False
        self.obs_out = None
        self.gt_list = [] if self.gt is None else _LiveGroundTruth(self.gt)

    def snapshot(self) -> None:
        """Takes the fast per-step tables ``step`` reads (ground truth now, ``ob`` lazily)."""
        self.live = False
        self.obs_out = None
        self.gt_list = gt_by_step(self.gt)

    def observation(self, t_ind: int) -> np.ndarray:
        """What ``step`` returns for step ``t_ind``: a row the caller may keep or modify.

        A row of a private copy of ``ob``, taken once per trial at its first step (after any
        wrapper post-processed the new trial); for a live trial a copy of the row itself.
        """
        ob = self.ob
        assert ob is not None
        if self.live:
            row: np.ndarray = ob[t_ind].copy()
            return row
        self.obs_out = out = ob.copy()
        return out[t_ind]  # type: ignore[no-any-return]

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> dict[str, Any]:
        state = dict(vars(self))
        # Views are taken again after unpickling, from the builder or batch they belong to
        # (pickling would turn them into separate arrays, and in-place edits would be lost).
        state["ob"] = state["gt"] = state["obs_out"] = None
        if self.live:
            state["gt_list"] = None  # read live again from the re-taken view
        for name in PERIOD_DICTS:  # the shared empty mapping cannot be pickled: None marks it
            if state.get(name, False) is NO_PERIODS:
                state[name] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.renewable = False  # (absent from a state pickled before it existed)
        for name, value in state.items():
            setattr(self, name, NO_PERIODS if value is None and name in PERIOD_DICTS else value)
        if self._builder is not None:
            self.view_arrays()
        elif self._pool is not None:
            self._rows_from_pool()
        if self.live:
            self.go_live()


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
        ``obs_out``, so that every plain trial made here shares one attribute layout, whose
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
        current.live = self.live
        current.obs_out = self.obs_out
        current.start_t = self.start_t  # (the first read of a period makes all five)
        current.end_t = self.end_t
        current.start_ind = self.start_ind
        current.end_ind = self.end_ind
        current.durations = self.durations
        current.ob = self.ob
        current.gt = self.gt
        current.gt_list = self.gt_list
        current.codes = self.codes
        current.renewable = False
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
        current.empty = current.live = False
        current.obs_out = None
        if not periods:
            current.start_t, current.end_t, current.durations = {}, {}, {}
            current.start_ind, current.end_ind = {}, {}
        current.ob = current.gt = None
        current.gt_list = []
        current.codes = None
        current.renewable = False
        return current


class _LiveGroundTruth:
    """A live trial's ground truth per step, read from its array at every step.

    Reads as the snapshot does (``gt_by_step``): Python numbers for scalar ground truths,
    one array per step for vector ones.
    """

    __slots__ = ("gt",)

    def __init__(self, gt: np.ndarray) -> None:
        self.gt = gt

    def __len__(self) -> int:
        return len(self.gt)

    def __getitem__(self, t_ind: int) -> Any:
        gt = self.gt
        return gt[t_ind].tolist() if gt.ndim == 1 else gt[t_ind]
