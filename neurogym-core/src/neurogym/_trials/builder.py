"""Batch-native trial generation: one task definition builds one trial or a whole batch.

See ``docs/architecture.md`` §4 for the contract. A :class:`BatchBuilder` is handed to a task's
``_new_trials(b, **kwargs)``; it samples period durations for all ``B`` trials in one call per
period, writes observations and ground truth into padded ``(B, T, ...)`` arrays and returns a
:class:`TrialBatch`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from neurogym import validate
from neurogym._trials.batch import (
    TrialBatch,
    _apply,
    action_table,
    period_columns,
    refuse_empty_trials,
    scatter_cells,
)
from neurogym._trials.bounds import BoundTable, PeriodSteps
from neurogym._trials.durations import Bound, sample_duration
from neurogym._trials.fresh import FreshChannels, as_set_value
from neurogym._trials.kept import KeptSet
from neurogym._trials.ragged import RaggedSpan, write_ragged
from neurogym._trials.rowrng import RowGenerators
from neurogym._trials.variables import (
    TrackedKwargs,
    TrialVariables,
    check_forced_finite,
)
from neurogym._trials.where import (
    InvalidOperationError,
    PeriodArg,
    RenamedVerb,
    WhereArg,
    as_period_list,
    fit_value,
    one_hot_rows,
    per_row,
    period_spans,
    scaled_rows,
    single_index,
)
from neurogym.timing import _to_steps

if TYPE_CHECKING:
    from neurogym._env.env import TrialEnv

__all__ = ["TRIAL_BYTES", "BatchBuilder", "InvalidOperationError", "TrialBatch", "action_table"]


TRIAL_BYTES = 256  # at least, per trial of a batch: its drawn variables and period bounds


class BatchBuilder(PeriodSteps, TrialVariables, KeptSet):
    """Builds ``n`` trials at once for one env.

    Args:
        env: The env whose spaces, ``timing`` and ``dt`` are used.
        n: Number of trials ``B``.
        kwargs: Forced trial parameters (scalars or arrays with a leading ``B`` axis).
        rng: The generator to draw from; ``env.rng`` if None. A vector env passes a
            :class:`~neurogym._trials.rowrng.RowGenerators` (one generator per trial row), which
            draws every row exactly as a batch of one would from that row's generator.
    """

    def __init__(self, env: TrialEnv, n: int, kwargs: dict[str, Any], rng: Any = None) -> None:
        if n < 1:
            raise ValueError(f"a batch needs at least one trial, got n={n}")
        if n > 1 and float(n) * TRIAL_BYTES > validate.MAX_ALLOCATION:  # before any draw
            validate.allocation(
                float(n) * TRIAL_BYTES, f"a batch of {n:,} trials", "the number of trials"
            )
        self.env = env
        env._timing.sealed = True  # its first trial: the task's periods are settled
        self.n = n
        self.rng: np.random.Generator = env.rng if rng is None else rng
        if kwargs:
            check_forced_finite(kwargs)
        # forced values remember which names the task looked up (record() names the others);
        # without any, a plain dict: nothing to report, and its lookups cost no Python call
        self.kwargs: dict[str, Any] = TrackedKwargs(kwargs) if kwargs else {}
        self.dt = float(env.dt)
        self.trial: dict[str, Any] = {}
        self.start_t: dict[str, Bound] = {}
        self.end_t: dict[str, Bound] = {}
        self.tmax_ms: Bound = 0.0
        self._ob: np.ndarray | None = None
        self._gt: np.ndarray | None = None
        self._mask: np.ndarray | None = None
        self._fresh: FreshChannels | None = None  # the ob channels still all zero
        # a set into ob not written yet: (cells, where, the view, its tile); see _defer_set
        self._pending: tuple[slice, Any, np.ndarray, np.ndarray] | None = None
        # ragged spans met so far: (id(start), id(end)) -> (start, end, slice or RaggedSpan)
        self._spans: dict[tuple[int, int], tuple[Any, Any, slice | RaggedSpan]] = {}
        self._table: BoundTable | None = None  # every bound in steps (made when needed)

    # ------------------------------------------------------------------ periods
    def add_period(
        self,
        period: str | Sequence[str],
        duration: Any = None,
        before: str | None = None,
        after: str | float | None = None,
        last_period: bool = False,
    ) -> None:
        """Adds one period (or a chain of periods) to every trial of the batch.

        Args:
            period: A name, or a list of names added one after the other.
            duration: ``None`` samples ``timing[period]`` (floored to ``dt``); else a number or
                a ``(B,)`` array of ms (not floored), or a list matching a list of periods.
            before: Name of a period this one ends at.
            after: Name of a period (or a time in ms) this one starts at; default 0.
            last_period: Ignored; kept for compatibility with upstream code.

        Raises:
            InvalidOperationError: Observations or ground truth were already written.
            KeyError: No timing entry for the period and no explicit duration.
        """
        del last_period
        if self._ob is not None or self._gt is not None:
            raise InvalidOperationError(
                "add_period cannot be called after an observation or ground truth was written"
            )
        if not isinstance(period, str):
            durations = [None] * len(period) if duration is None else list(duration)
            if len(durations) != len(period):
                raise ValueError(
                    f"{len(period)} periods {list(period)} but {len(durations)} durations"
                )
            for i, (name, dur) in enumerate(zip(period, durations, strict=True)):
                self._add_one(name, dur, None, after if i == 0 else period[i - 1])
            return
        self._add_one(period, duration, before, after)

    def _add_one(
        self, period: str, duration: Any, before: str | None, after: str | float | None
    ) -> None:
        dur = (
            sample_duration(self, period) if duration is None else self._duration(period, duration)
        )
        if isinstance(after, str):
            start: Bound = self._known(after, "after")[1]
        elif after is not None:
            start = float(after)
        elif before is not None:
            start = self._known(before, "before")[0] - dur
        else:
            start = 0.0
        end = start + dur
        self._table = None
        self.start_t[period] = start
        self.end_t[period] = end
        if isinstance(end, float) and isinstance(self.tmax_ms, float):
            self.tmax_ms = max(self.tmax_ms, end)
        else:
            self.tmax_ms = np.maximum(self.tmax_ms, end)

    def _duration(self, period: str, value: Any) -> Bound:
        """An explicit duration of ``period`` (ms): refused unless every trial's is >= 0."""
        dur = self._bound(value)
        if not (dur >= 0 if type(dur) is float else np.all(dur >= 0)):  # (NaN fails too)
            bad = [x for x in np.atleast_1d(dur).tolist() if not x >= 0]
            raise ValueError(
                f"period {period!r} was given a duration that is not >= 0 ms: {bad[:5]}"
                f"{' ...' if len(bad) > 5 else ''}; a duration is a number of ms >= 0 (a forced "
                "value it comes from may be out of range)"
            )
        return dur

    def _bound(self, value: Any) -> Bound:
        """A duration or time given by the task: a float, or an ``(n,)`` float array."""
        arr = np.asarray(value, dtype=float)
        if arr.ndim == 0:
            return float(arr)
        if arr.shape != (self.n,):
            raise ValueError(f"a per-trial duration must have shape ({self.n},), got {arr.shape}")
        return float(arr[0]) if self.n == 1 else arr

    def _known(self, name: str, arg: str) -> tuple[Bound, Bound]:
        if name not in self.start_t:
            raise KeyError(
                f"{arg}={name!r} names no period added so far; added: {list(self.start_t)}"
            )
        return self.start_t[name], self.end_t[name]

    # ------------------------------------------------------------------ arrays
    @property
    def ob(self) -> np.ndarray:
        """The ``(B, T, *obs_shape)`` observation array (allocated on first use)."""
        ob = self._ob_array()
        if self._fresh is not None:  # the caller may write into it
            self._fresh.touch_all()
        return ob

    def _ob_array(self) -> np.ndarray:
        """:attr:`ob` for the verbs, which keep :class:`FreshChannels` up to date."""
        if self._pending is not None:
            self._flush()
        if self._ob is None:
            space = self.env.observation_space
            fill = self.env._default_ob_value
            shape = (self.n, self.steps, *(space.shape or ()))
            if self.n > 1:
                self._check_size(shape[1])
            if fill is None:
                self._ob = np.zeros(shape, dtype=space.dtype)
                if len(shape) == 3 and self._ob.dtype.kind == "f":
                    self._fresh = FreshChannels(shape[2])
            else:
                self._ob = np.full(shape, fill, dtype=space.dtype)
        return self._ob

    @property
    def gt(self) -> np.ndarray:
        """The ``(B, T, *act_shape)`` ground-truth array (allocated on first use)."""
        if self._gt is None:
            space = self.env.action_space
            steps = self.steps
            if self.n > 1 and self._ob is None:
                self._check_size(steps)
            self._gt = np.zeros((self.n, steps, *(space.shape or ())), dtype=space.dtype)
            self._mask = np.zeros((self.n, steps), dtype=bool)
        return self._gt

    def _check_size(self, steps: int) -> None:
        """Refuses a batch whose arrays would exceed :data:`~neurogym.validate.MAX_ALLOCATION`."""
        obs, act = self.env.observation_space, self.env.action_space
        per_step = sum(
            math.prod(space.shape or ()) * np.dtype(space.dtype).itemsize for space in (obs, act)
        )
        n_bytes = float(self.n) * steps * (per_step + 1)  # + the loss mask
        if n_bytes > validate.MAX_ALLOCATION:  # the message only when it is needed
            validate.allocation(
                n_bytes,
                f"a batch of {self.n:,} trials of up to {steps:,} steps of "
                f"{type(self.env).__name__}",
                "the number of trials (or the trials' durations)",
            )

    def _write(
        self,
        target: np.ndarray,
        value: Any,
        period: PeriodArg,
        where: Any,
        *,
        per_step: bool,
        reset: bool,
        what: str,
    ) -> None:
        """Adds (or sets) ``value`` into ``target`` over ``period`` and ``where``.

        An add into observation channels no write has touched yet is written as a set
        (:mod:`~neurogym._trials.fresh`): over each span of the write that no earlier span
        of it overlaps (spans in increasing order with shared bounds; else the first only).
        """
        fresh = self._fresh if target is self._ob else None
        as_set = fresh is not None and fresh.take(where) and not reset
        done, set_value = -1, value  # done: -1 before the first span, then where they end
        for span in period_spans(period, self.start_t, self.end_t):
            if self._pending is not None:  # an earlier span of this write was deferred
                self._flush()
            cells = self._span_cells(span)
            val, sets = value, reset
            if as_set:
                if done < 0:  # the first span: is the value one a set can write?
                    as_set, set_value = as_set_value(value)
                if type(cells) is slice and cells.start >= done:
                    sets, val, done = as_set, set_value, cells.stop
                elif done < 0:  # a ragged first span: the spans after it may overlap it
                    sets, val, as_set = as_set, set_value, False
                else:  # this span may overlap an earlier one of the write: an add
                    as_set = False
            if type(cells) is slice:
                self._write_slice(target, val, cells, where, per_step, sets, what)
            else:
                write_ragged(target, val, cells, where, per_step, sets, what)

    def _write_slice(
        self,
        target: np.ndarray,
        value: Any,
        sl: slice,
        where: Any,
        per_step: bool,
        reset: bool,
        what: str,
    ) -> None:
        view = target[:, sl]
        if view.shape[1] == 0:
            return
        sub = view if where is None else view[..., where]
        if callable(value):  # it receives the (B, L, k) view: its result has a time axis
            value = value(sub)
            per_step = True
        if type(value) in (int, float):  # a Python scalar broadcasts to anything
            if where is None or isinstance(where, (int, slice)):  # what _apply does with it
                if reset:
                    sub[...] = value
                else:
                    sub += value
                return
            val: Any = value
        elif (
            not per_step
            and type(value) is np.ndarray
            and value.ndim == sub.ndim - 1
            and value.shape[0] in (1, self.n)
            and value.shape[1:] == sub.shape[2:]
        ):  # one value per trial, already (B, *dims): add the time axis (what fit_value does)
            val = value[:, None]
        else:
            val = fit_value(value, self.n, sub.shape[1], sub.shape[2:], per_step, what)
        if where is None or isinstance(where, (int, slice)):
            if reset and target is self._ob and self._defer_set(sl, where, sub, val):
                return
            _apply(sub, val, reset)
        else:
            view[..., where] = val if reset else sub + val

    def add_input(
        self,
        value: Any,
        period: PeriodArg = None,
        where: WhereArg = None,
        *,
        per_step: bool = False,
        index: Any = None,
        _what: str = "add_input",
    ) -> None:
        """Adds ``value`` to the observations (inputs) of ``period`` at dims ``where``.

        The batch verbs (``add_input``, ``set_input``, ``add_noise``, ``set_target``) take one
        row per trial; ``TrialEnv``'s upstream-style verbs (``add_ob``, ...) take one row per
        time step of a single trial. The names differ because the shape rules do.

        Args:
            value: Broadcast to ``(B, k)`` (``per_step=False``: constant over the period) or
                ``(B, L, k)`` (``per_step=True``); a value without the batch axis applies to
                every trial. ``k`` is the number of selected dims.
            period: A period name, a list of names, or ``None`` for the whole trial.
            where: A dim name of the observation space, an index, a list, a range or a slice.
            per_step: Whether ``value`` has a time axis.
            index: One int per trial (or one for all): a one-hot input, ``value`` at the
                ``index``-th dim of ``where`` and nothing at the others
                (``b.add_input(1, "cue", where=["nogo", "go"], index=go)``).
            _what: Internal: the verb errors name (``TrialEnv.add_ob`` passes its own).
        """
        idx = self.env._where(where, "observation")
        if index is not None:
            value, idx = self._one_hot(value, index, idx, per_step, _what)
        self._write(
            self._ob_array(), value, period, idx, per_step=per_step, reset=False, what=_what
        )

    def set_input(
        self,
        value: Any,
        period: PeriodArg = None,
        where: WhereArg = None,
        *,
        per_step: bool = False,
        index: Any = None,
        _what: str = "set_input",
    ) -> None:
        """Like :meth:`add_input`, but replaces the current values."""
        idx = self.env._where(where, "observation")
        if index is not None:
            value, idx = self._one_hot(value, index, idx, per_step, _what)
        self._write(
            self._ob_array(), value, period, idx, per_step=per_step, reset=True, what=_what
        )

    def _one_hot(
        self, value: Any, index: Any, idx: Any, per_step: bool, what: str
    ) -> tuple[Any, Any]:
        """The value and dims that write ``value`` at each trial's ``index``-th selected dim.

        A single trial with one value writes it at that one dim; a batch writes ``(B, k)``
        rows (0 at the other selected dims) at the selected dims.
        """
        if per_step:
            raise ValueError(f"{what}: index= writes one value per trial, not per_step")
        width = self._ob_array().shape[-1]
        if idx is None or isinstance(idx, slice):
            dims: Any = range(width)[slice(None) if idx is None else idx]
        else:
            dims = np.arange(width)[idx].reshape(-1)
        if self.n == 1 and (isinstance(value, (int, float)) or not np.ndim(value)):
            return value, int(dims[single_index(index, len(dims), what)])
        return one_hot_rows(value, index, self.n, len(dims), what), idx

    def add_noise(
        self,
        mu: float = 0.0,
        sigma: float | np.ndarray = 1.0,
        period: PeriodArg = None,
        where: WhereArg = None,
    ) -> None:
        """Adds ``mu + sigma * N(0, 1)`` noise, drawn for the batch in one call per period.

        ``sigma`` is one number, or one per trial (``(B,)``, e.g. a forced or drawn per-trial
        noise level); each trial's draws are scaled by its own value.
        """
        if np.ndim(sigma):
            sigma = per_row(np.asarray(sigma, dtype=float), self.n, "sigma")
        idx = self.env._where(where, "observation")
        tile = self._pending_tile(period, idx)  # a kept set of these cells: add to it
        ob = self._ob_array()
        if self._fresh is not None:
            self._fresh.take(idx)  # noise is added as drawn (no set for a first write)
        dtype = ob.dtype if ob.dtype.kind == "f" and ob.dtype.itemsize in (4, 8) else np.float64
        rng = self.rng
        if isinstance(period, str) and period in self.start_t:
            sl = self._cells(period)
            if type(sl) is slice:  # one period with shared bounds: draw straight into place
                view = ob[:, sl]
                if view.shape[1] == 0:
                    return
                sub = view if idx is None else view[..., idx]
                draw = rng.standard_normal(sub.shape, dtype=dtype)
                draw = scaled_rows(draw, sigma)
                if mu:
                    draw += mu
                if tile is not None:  # (a float32 or float64 tile: the draw's dtype)
                    tile += draw
                    scatter_cells(sub, tile)
                    return
                if idx is None or isinstance(idx, (int, slice)):
                    _apply(sub, draw, False)
                else:
                    view[..., idx] = sub + draw
                return

        def noise(view: np.ndarray) -> np.ndarray:
            draw = rng.standard_normal(view.shape, dtype=dtype)
            draw = scaled_rows(draw, sigma)
            if mu:
                draw += mu
            return draw

        for name in as_period_list(period, self.start_t):
            cells = self._cells(name)
            if type(cells) is slice:
                self._write_slice(ob, noise, cells, idx, True, False, "add_noise")
                continue
            if not cells.total:  # empty in every trial: nothing to draw
                continue
            cell = ob.shape[2:] if idx is None else ob[0, 0][..., idx].shape
            if isinstance(rng, RowGenerators):  # each row draws its own period length
                draw = rng.standard_normal_ragged(cells.lens, cell, dtype)
                draw = scaled_rows(draw, sigma)
                if mu:
                    draw += mu
            else:
                draw = noise(np.empty((self.n, cells.longest, *cell)))
            write_ragged(ob, draw, cells, idx, True, False, "add_noise")

    def set_target(
        self,
        value: Any,
        period: PeriodArg = None,
        where: WhereArg = None,
        *,
        per_step: bool = False,
        rows: Any = None,
        _what: str = "set_target",
    ) -> None:
        """Sets the ground truth of ``period``.

        Args:
            value: Per trial (``(B,)`` or ``(B, *act_shape)``) or the same for all trials.
                With ``where`` on a ``Discrete`` space, ``value`` indexes the named actions:
                ``where="choice"`` maps ``k`` to ``action_space.name["choice"][k]``.
            period: A period name, a list of names, or ``None`` for the whole trial.
            where: An action name (Discrete: maps values; Box: selects dims).
            per_step: Whether ``value`` has a time axis (``(B, L, ...)`` or ``(L, ...)``).
            rows: ``(B,)`` bools, or None for all trials: trials where it is False are left
                as they were (no target and no loss mask there, e.g. a tie between choices).
            _what: Internal: the verb errors name (``TrialEnv.set_groundtruth`` passes its own).
        """
        gt = self.gt
        if rows is not None:
            keep = np.asarray(rows, dtype=bool)
            if keep.shape != (self.n,):
                raise ValueError(f"rows must have shape ({self.n},), got {keep.shape}")
            skip, mask = ~keep, self._mask
            assert mask is not None  # allocated with gt
            saved = gt[skip], mask[skip]  # copies (boolean indexing)
            self.set_target(value, period, where, per_step=per_step, _what=_what)
            gt[skip], mask[skip] = saved
            return
        space = self.env.action_space
        if where is not None and not space.shape:
            value = self.env._action_table(where)[np.asarray(value)]
            idx = None
        else:
            idx = self.env._where(where, "action")
        mask = self._mask
        assert mask is not None
        for span in period_spans(period, self.start_t, self.end_t):
            cells = self._span_cells(span)
            if type(cells) is slice:
                self._write_slice(gt, value, cells, idx, per_step, True, _what)
                mask[:, cells] = True
            else:
                write_ragged(gt, value, cells, idx, per_step, True, _what)
                mask |= cells.inside(gt.shape[1])

    def view_input(self, period: str | None = None) -> np.ndarray:
        """A writable view ``(B, L, *obs_shape)`` of a period shared by all trials."""
        sl = self._cells(period)
        if type(sl) is not slice:
            raise ValueError(
                f"period {period!r} has different bounds across the batch; use add_input/"
                "set_input with per_step=True instead of a view"
            )
        return self.ob[:, sl]

    # TrialEnv's per-trial names raise an AttributeError naming the batch verb. Descriptors,
    # not __getattr__: a class with __getattr__ loses CPython's fast attribute lookups.
    add_ob = RenamedVerb("add_input")
    set_ob = RenamedVerb("set_input")
    add_randn = RenamedVerb("add_noise")
    set_groundtruth = RenamedVerb("set_target")
    view_ob = RenamedVerb("view_input")

    # ------------------------------------------------------------------ result
    def finish(self, returned: dict[str, Any] | None) -> TrialBatch:
        """Collects the arrays and trial variables into a :class:`TrialBatch`."""
        self.record(returned)
        self._flush()
        n = self.n
        mask = self._mask if self._mask is not None else np.zeros((n, self.steps), dtype=bool)
        names = list(self.start_t)
        p = len(names)
        times, steps = period_columns([*self.start_t.values(), *self.end_t.values()], n, self.dt)
        tmax = self.tmax_ms
        if type(tmax) is float:  # every trial has the same length: checked in Python
            total = _to_steps(tmax, self.dt)
            if p:
                refuse_empty_trials(self.env, total, names, self.dt)
            lengths = np.full(n, total, dtype=np.intp)
        else:
            lengths = self.lengths
            if p:
                refuse_empty_trials(self.env, int(lengths.min()), names, self.dt)
        rows, step_rows = list(times), list(steps)  # one view per row, made in one pass
        starts, ends = rows[:p], rows[p:]
        batch = TrialBatch(
            ob=self._ob,
            gt=self._gt,
            lengths=lengths,
            mask=mask,
            periods={name: (step_rows[i], step_rows[p + i]) for i, name in enumerate(names)},
            start_t=dict(zip(names, starts, strict=True)),
            end_t=dict(zip(names, ends, strict=True)),
            trial=self.trial,
            dt=self.dt,
        )
        # the period columns a TrialPool would convert again (its rows are start_t's, end_t's)
        setattr(batch, "_columns", (times, steps, starts, ends))  # noqa: B010 (not a field)
        return batch
