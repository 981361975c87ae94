"""Batch-native trial generation: one task definition builds one trial or a whole batch.

See ``docs/architecture.md`` §4 for the contract. A :class:`BatchBuilder` is handed to a task's
``_new_trials(b, **kwargs)``; it samples period durations for all ``B`` trials in one call per
period, writes observations and ground truth into padded ``(B, T, ...)`` arrays and returns a
:class:`TrialBatch`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from neurogym._trial import InvalidOperationError, PeriodArg, WhereArg, as_period_list, fit_value

if TYPE_CHECKING:
    from neurogym._env import TrialEnv

__all__ = ["BatchBuilder", "InvalidOperationError", "TrialBatch"]

_EPS = 1e-9

Bound: TypeAlias = float | np.ndarray
"""A period bound in ms: a float when all trials share it, else a ``(B,)`` array."""


@dataclass
class TrialBatch:
    """A batch of ``B`` complete trials, padded to the longest.

    Attributes:
        ob: Observations, ``(B, T, *obs_shape)``, padded with the default ob value.
        gt: Ground truth, ``(B, T, *act_shape)``, 0 where unset; ``None`` if the task sets none.
        lengths: Number of steps of each trial, ``(B,)``.
        mask: ``(B, T)`` bool, True where ``set_groundtruth`` wrote.
        periods: Period name to ``(start, end)`` step indices (end exclusive), each ``(B,)``.
        start_t: Period name to start time in ms, ``(B,)``.
        end_t: Period name to end time in ms, ``(B,)``.
        trial: Trial parameters, one row per trial (``(B, ...)`` arrays).
        dt: Step size in ms.
    """

    ob: np.ndarray | None
    gt: np.ndarray | None
    lengths: np.ndarray
    mask: np.ndarray
    periods: dict[str, tuple[np.ndarray, np.ndarray]]
    start_t: dict[str, np.ndarray]
    end_t: dict[str, np.ndarray]
    trial: dict[str, np.ndarray] = field(default_factory=dict)
    dt: float = 100.0

    @property
    def size(self) -> int:
        """The number of trials ``B``."""
        return int(self.lengths.shape[0])

    @property
    def valid(self) -> np.ndarray:
        """``(B, T)`` bool, True on the steps that belong to a trial (not padding)."""
        steps = self.mask.shape[1]
        return np.arange(steps)[None, :] < self.lengths[:, None]

    def trial_dict(self, i: int) -> dict[str, Any]:
        """Trial ``i``'s parameters as a dict of scalars/arrays."""
        return {key: value[i] for key, value in self.trial.items()}


class BatchBuilder:
    """Builds ``n`` trials at once for one env.

    Args:
        env: The env whose spaces, ``timing``, ``dt`` and ``rng`` are used.
        n: Number of trials ``B``.
        kwargs: Forced trial parameters (scalars or arrays with a leading ``B`` axis).
    """

    def __init__(self, env: TrialEnv, n: int, kwargs: dict[str, Any]) -> None:
        if n < 1:
            raise ValueError(f"a batch needs at least one trial, got n={n}")
        self.env = env
        self.n = n
        self.rng: np.random.Generator = env.rng
        self.kwargs = kwargs
        self.dt = float(env.dt)
        self.trial: dict[str, Any] = {}
        self.start_t: dict[str, Bound] = {}
        self.end_t: dict[str, Bound] = {}
        self.tmax_ms: Bound = 0.0
        self._ob: np.ndarray | None = None
        self._gt: np.ndarray | None = None
        self._mask: np.ndarray | None = None

    # ------------------------------------------------------------------ trial variables
    def _per_trial(self, value: Any) -> np.ndarray:
        """``value`` with a leading batch axis (added when missing)."""
        arr = np.asarray(value)
        if arr.ndim and arr.shape[0] == self.n:
            return arr
        return arr[None] if self.n == 1 else np.broadcast_to(arr, (self.n, *arr.shape))

    def _forced(self, name: str) -> np.ndarray | None:
        if name not in self.kwargs:
            return None
        value = self._per_trial(self.kwargs[name])
        self.trial[name] = value
        return value

    def choice(self, name: str, options: Sequence[Any] | np.ndarray, p: Any = None) -> np.ndarray:
        """Draws trial variable ``name`` uniformly (or with probabilities ``p``) from options.

        A forced value in the builder's kwargs wins. The result is recorded in the trial dict.

        Args:
            name: Trial-dict key, e.g. ``"ground_truth"``.
            options: The values to choose from.
            p: Optional probabilities, one per option.

        Returns:
            An array of shape ``(B,)`` (or ``(B, *option_shape)``).
        """
        forced = self._forced(name)
        if forced is not None:
            return forced
        values = np.asarray(options)
        if values.shape[0] == 0:
            raise ValueError(f"trial variable {name!r}: no options to choose from")
        if p is None:
            idx = (self.rng.random(self.n) * values.shape[0]).astype(np.intp)
        else:
            cdf = np.cumsum(np.asarray(p, dtype=float))
            if cdf.shape[0] != values.shape[0] or not math.isclose(cdf[-1], 1.0, abs_tol=1e-6):
                raise ValueError(
                    f"trial variable {name!r}: p must have one probability per option "
                    f"({values.shape[0]}) summing to 1, got {p!r}"
                )
            idx = np.minimum(
                np.searchsorted(cdf, self.rng.random(self.n) * cdf[-1], side="right"),
                values.shape[0] - 1,
            )
        out: np.ndarray = values[idx]
        self.trial[name] = out
        return out

    def uniform(self, name: str, low: float, high: float) -> np.ndarray:
        """Draws trial variable ``name`` uniformly on ``[low, high)`` (forced value wins)."""
        forced = self._forced(name)
        if forced is not None:
            return forced
        out = low + self.rng.random(self.n) * (high - low)
        self.trial[name] = out
        return out

    def set_param(self, name: str, value: Any) -> np.ndarray:
        """Records a derived trial variable (scalar or ``(B, ...)``) in the trial dict."""
        arr = self._per_trial(value)
        self.trial[name] = arr
        return arr

    # ------------------------------------------------------------------ periods
    def _sample_duration(self, period: str) -> Bound:
        env = self.env
        if period not in env.timing:
            raise KeyError(
                f"period {period!r} has no timing and no explicit duration; "
                f"timing has {sorted(env.timing)}"
            )
        spec = env.timing.spec(period)
        dt = self.dt
        if spec.kind == "constant":
            raw: Bound = spec.args[0]
        elif spec.kind == "until":
            so_far = _floor_to_dt(self.tmax_ms, dt)
            raw = spec.args[0] - so_far
            if np.any(np.asarray(raw) < 0):
                raise ValueError(
                    f"timing[{period!r}] = {spec.raw!r}: the trial already lasts "
                    f"{float(np.max(so_far))} ms, past the 'until' time {spec.args[0]} ms"
                )
        else:
            sample = spec.sample(self.rng, self.n)
            raw = float(sample[0]) if self.n == 1 else sample
        floored = _floor_to_dt(raw, dt)
        if isinstance(raw, float):
            empty = floored == 0 and raw > 0
        else:
            empty = bool(np.any((floored == 0) & (raw > 0)))
        if empty:
            env._warn_empty_period(period, spec.raw)
        return floored

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
                self.add_period(name, dur, after=after if i == 0 else period[i - 1])
            return
        dur = self._sample_duration(period) if duration is None else self._bound(duration)
        if isinstance(after, str):
            start: Bound = self._known(after, "after")[1]
        elif after is not None:
            start = float(after)
        elif before is not None:
            start = self._known(before, "before")[0] - dur
        else:
            start = 0.0
        end = start + dur
        self.start_t[period] = start
        self.end_t[period] = end
        if isinstance(end, float) and isinstance(self.tmax_ms, float):
            self.tmax_ms = max(self.tmax_ms, end)
        else:
            self.tmax_ms = np.maximum(self.tmax_ms, end)

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

    @property
    def lengths(self) -> np.ndarray:
        """Steps per trial, ``(B,)``."""
        return np.broadcast_to(_to_steps(self.tmax_ms, self.dt), (self.n,)).astype(np.intp)

    @property
    def steps(self) -> int:
        """Steps of the longest trial ``T``."""
        return int(np.max(_to_steps(self.tmax_ms, self.dt)))

    def period_steps(self, name: str) -> tuple[int | np.ndarray, int | np.ndarray]:
        """Start and end step index (end exclusive) of ``name``: ints or ``(B,)`` arrays."""
        start, end = self._known(name, "period")
        return _to_steps(start, self.dt), _to_steps(end, self.dt)

    # ------------------------------------------------------------------ arrays
    @property
    def ob(self) -> np.ndarray:
        """The ``(B, T, *obs_shape)`` observation array (allocated on first use)."""
        if self._ob is None:
            space = self.env.observation_space
            fill = self.env._default_ob_value
            shape = (self.n, self.steps, *(space.shape or ()))
            self._ob = (
                np.zeros(shape, dtype=space.dtype)
                if fill is None
                else np.full(shape, fill, dtype=space.dtype)
            )
        return self._ob

    @property
    def gt(self) -> np.ndarray:
        """The ``(B, T, *act_shape)`` ground-truth array (allocated on first use)."""
        if self._gt is None:
            space = self.env.action_space
            steps = self.steps
            self._gt = np.zeros((self.n, steps, *(space.shape or ())), dtype=space.dtype)
            self._mask = np.zeros((self.n, steps), dtype=bool)
        return self._gt

    def _cells(self, period: str | None, steps: int) -> tuple[slice | None, Any, Any]:
        """A common slice when all trials share the period's bounds, else start/end arrays."""
        if period is None:
            start: Any = 0
            end: Any = _to_steps(self.tmax_ms, self.dt)
        else:
            if period not in self.start_t:
                raise KeyError(
                    f"unknown period {period!r}; this batch's periods are {list(self.start_t)}"
                )
            start, end = self.start_t[period], self.end_t[period]
            if isinstance(start, float) and isinstance(end, float):
                first = math.floor(start / self.dt + _EPS)
                return slice(first, max(first, math.floor(end / self.dt + _EPS))), None, None
            start, end = self.period_steps(period)
        if isinstance(start, int) and isinstance(end, int):
            return slice(start, max(start, end)), start, end
        start = np.broadcast_to(start, (self.n,))
        end = np.broadcast_to(end, (self.n,))
        if np.all(start == start[0]) and np.all(end == end[0]):
            return slice(int(start[0]), max(int(start[0]), int(end[0]))), start, end
        return None, start, end

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
        """Adds (or sets) ``value`` into ``target`` over ``period`` and ``where``."""
        for name in as_period_list(period, self.start_t):
            sl, start, end = self._cells(name, target.shape[1])
            if sl is not None:
                self._write_slice(target, value, sl, where, per_step, reset, what)
            else:
                self._write_ragged(target, value, start, end, where, per_step, reset, what)

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
        if callable(value):
            value = value(sub)
        val = fit_value(value, self.n, sub.shape[1], sub.shape[2:], per_step, what)
        if where is None:
            if reset:
                view[...] = val
            else:
                view += val
        elif isinstance(where, (int, slice)):
            if reset:
                sub[...] = val
            else:
                sub += val
        else:
            view[..., where] = val if reset else sub + val

    def _write_ragged(
        self,
        target: np.ndarray,
        value: Any,
        start: np.ndarray,
        end: np.ndarray,
        where: Any,
        per_step: bool,
        reset: bool,
        what: str,
    ) -> None:
        if callable(value):
            raise TypeError(
                f"{what}: callable values need a period with the same bounds in every trial "
                "of the batch; pass an array instead"
            )
        steps = np.arange(target.shape[1])
        inside = (steps[None, :] >= start[:, None]) & (steps[None, :] < end[:, None])
        rows, cols = np.nonzero(inside)
        longest = max(int((end - start).max()), 1)
        cell = target.shape[2:] if where is None else target[0, 0][..., where].shape
        val = fit_value(value, self.n, longest, cell, per_step, what)
        full = np.broadcast_to(val, (self.n, longest, *cell))
        picked = full[rows, cols - start[rows]]
        if where is None:
            if reset:
                target[rows, cols] = picked
            else:
                target[rows, cols] += picked
        else:
            current = target[rows, cols]
            if reset:
                current[..., where] = picked
            else:
                current[..., where] += picked
            target[rows, cols] = current

    def add_ob(
        self,
        value: Any,
        period: PeriodArg = None,
        where: WhereArg = None,
        *,
        per_step: bool = False,
    ) -> None:
        """Adds ``value`` to the observations of ``period`` at dims ``where``.

        Args:
            value: Broadcast to ``(B, k)`` (``per_step=False``: constant over the period) or
                ``(B, L, k)`` (``per_step=True``); a value without the batch axis applies to
                every trial. ``k`` is the number of selected dims.
            period: A period name, a list of names, or ``None`` for the whole trial.
            where: A dim name of the observation space, an index, a list, a range or a slice.
            per_step: Whether ``value`` has a time axis.
        """
        idx = self.env._where(where, "observation")
        self._write(self.ob, value, period, idx, per_step=per_step, reset=False, what="add_ob")

    def set_ob(
        self,
        value: Any,
        period: PeriodArg = None,
        where: WhereArg = None,
        *,
        per_step: bool = False,
    ) -> None:
        """Like :meth:`add_ob`, but replaces the current values."""
        idx = self.env._where(where, "observation")
        self._write(self.ob, value, period, idx, per_step=per_step, reset=True, what="set_ob")

    def add_randn(
        self, mu: float = 0.0, sigma: float = 1.0, period: PeriodArg = None, where: WhereArg = None
    ) -> None:
        """Adds ``mu + sigma * N(0, 1)`` noise, drawn for the batch in one call per period."""
        idx = self.env._where(where, "observation")
        ob = self.ob
        dtype = ob.dtype if ob.dtype in (np.float32, np.float64) else np.float64
        rng = self.rng

        def noise(view: np.ndarray) -> np.ndarray:
            draw = rng.standard_normal(view.shape, dtype=dtype)
            draw *= sigma
            if mu:
                draw += mu
            return draw

        for name in as_period_list(period, self.start_t):
            sl, start, end = self._cells(name, ob.shape[1])
            if sl is None:
                cell = ob.shape[2:] if idx is None else ob[0, 0][..., idx].shape
                longest = int((end - start).max())
                draw = noise(np.empty((self.n, longest, *cell)))
                self._write_ragged(ob, draw, start, end, idx, True, False, "add_randn")
            else:
                self._write_slice(ob, noise, sl, idx, True, False, "add_randn")

    def set_groundtruth(
        self,
        value: Any,
        period: PeriodArg = None,
        where: WhereArg = None,
        *,
        per_step: bool = False,
    ) -> None:
        """Sets the ground truth of ``period``.

        Args:
            value: Per trial (``(B,)`` or ``(B, *act_shape)``) or the same for all trials.
                With ``where`` on a ``Discrete`` space, ``value`` indexes the named actions:
                ``where="choice"`` maps ``k`` to ``action_space.name["choice"][k]``.
            period: A period name, a list of names, or ``None`` for the whole trial.
            where: An action name (Discrete: maps values; Box: selects dims).
            per_step: Whether ``value`` has a time axis (``(B, L, ...)`` or ``(L, ...)``).
        """
        gt = self.gt
        space = self.env.action_space
        if where is not None and not space.shape:
            value = self.env._action_table(where)[np.asarray(value)]
            idx = None
        else:
            idx = self.env._where(where, "action")
        self._write(gt, value, period, idx, per_step=per_step, reset=True, what="set_groundtruth")
        assert self._mask is not None
        for name in as_period_list(period, self.start_t):
            sl, start, end = self._cells(name, gt.shape[1])
            if sl is not None:
                self._mask[:, sl] = True
            else:
                steps = np.arange(gt.shape[1])
                self._mask |= (steps[None, :] >= start[:, None]) & (steps[None, :] < end[:, None])

    def view_ob(self, period: str | None = None) -> np.ndarray:
        """A writable view ``(B, L, *obs_shape)`` of a period shared by all trials."""
        sl, _, _ = self._cells(period, self.ob.shape[1])
        if sl is None:
            raise ValueError(
                f"period {period!r} has different bounds across the batch; use add_ob/set_ob "
                "with per_step=True instead of a view"
            )
        return self.ob[:, sl]

    # ------------------------------------------------------------------ result
    def record(self, returned: dict[str, Any] | None) -> dict[str, Any]:
        """Records the task's returned trial variables and unconsumed kwargs; returns them all."""
        for key, value in (returned or {}).items():
            if self.trial.get(key) is not value:
                self.set_param(key, value)
        for key, value in self.kwargs.items():
            if key not in self.trial:
                self.set_param(key, value)
        return self.trial

    def finish(self, returned: dict[str, Any] | None) -> TrialBatch:
        """Collects the arrays and trial variables into a :class:`TrialBatch`."""
        self.record(returned)
        lengths = self.lengths
        n, dt = self.n, self.dt
        mask = self._mask if self._mask is not None else np.zeros((n, self.steps), dtype=bool)
        periods = {}
        for name in self.start_t:
            start, end = self.period_steps(name)
            periods[name] = (
                np.broadcast_to(start, (n,)).astype(np.intp),
                np.broadcast_to(end, (n,)).astype(np.intp),
            )
        return TrialBatch(
            ob=self._ob,
            gt=self._gt,
            lengths=lengths,
            mask=mask,
            periods=periods,
            start_t={k: np.broadcast_to(v, (n,)).astype(float) for k, v in self.start_t.items()},
            end_t={k: np.broadcast_to(v, (n,)).astype(float) for k, v in self.end_t.items()},
            trial=self.trial,
            dt=dt,
        )


def _floor_to_dt(value: Bound, dt: float) -> Bound:
    if isinstance(value, float):
        return math.floor(value / dt + _EPS) * dt
    return np.floor(value / dt + _EPS) * dt


def _to_steps(value: Bound, dt: float) -> Any:
    """Step index of a time in ms: ``floor(t / dt)`` (an int, or an int array)."""
    if isinstance(value, float):
        return math.floor(value / dt + _EPS)
    return np.floor(value / dt + _EPS).astype(np.intp)


def action_table(where: WhereArg, space: Any) -> np.ndarray:
    """The action values named ``where`` in a Discrete space, as an array."""
    names = getattr(space, "name", None) or {}
    if not isinstance(where, str) or where not in names:
        raise KeyError(f"where={where!r} is not an action name; action names: {sorted(names)}")
    return np.atleast_1d(np.asarray(names[where]))
