"""Every period bound of a batch, converted from ms to steps at once (a :class:`BoundTable`).

A batch's periods are chained: each starts at the very bound object the previous one ends
at, and the trial ends at ``tmax_ms``. A bound is a float when all trials share it, else a
``(B,)`` array. The builder needs each bound in steps several times: the spans it writes
over (is the span shared, a slice, or ragged?), the trial lengths, the array sizes and the
period columns of the finished batch. Converting them one span at a time cost a dozen small
numpy calls per span; the table converts every bound in one pass and answers the rest with
lookups by identity (it keeps the bound objects, so their ids stay theirs).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from neurogym._trials.batch import per_trial
from neurogym._trials.ragged import RaggedSpan
from neurogym.timing import MAX_TRIAL_STEPS, _to_steps, check_steps

__all__ = ["ZERO", "BoundTable", "PeriodSteps"]

ZERO = 0.0
"""The start of the whole-trial span (one object, so that the table finds it)."""


class BoundTable:
    """The bounds of one batch in steps, found by identity.

    A bound all trials share (a float) is converted in Python; the ``(n,)`` array bounds are
    converted together, one row each.

    Args:
        bounds: The bound objects (floats, or ``(n,)`` float arrays); repeats are one entry.
        n: Trials in the batch.
        dt: Step size in ms.
    """

    __slots__ = ("_arrays", "_dt", "_n", "_objects", "_shared", "_steps", "_uniform")

    def __init__(self, bounds: list[Any], n: int, dt: float) -> None:
        self._n, self._dt = n, dt
        self._objects: dict[int, Any] = {}  # keeps every bound alive: its id stays its own
        self._shared: dict[int, int] = {}  # id -> step, for bounds every trial shares
        self._arrays: dict[int, int] = {}  # id -> row of _steps
        arrays: list[np.ndarray] = []
        for bound in bounds:
            key = id(bound)
            if key in self._objects:
                continue
            self._objects[key] = bound
            if type(bound) is np.ndarray and bound.shape == (n,):
                self._arrays[key] = len(arrays)
                arrays.append(bound)
            else:  # a float, or a number numpy broadcasts to every trial
                self._shared[key] = _to_steps(float(bound), dt)
        self._steps = self._uniform = None
        if arrays:
            steps = _to_steps(np.array(arrays), dt)
            self._steps = steps
            self._uniform = (steps == steps[:, :1]).all(axis=1).tolist()

    def steps(self, bound: Any) -> int | np.ndarray | None:
        """``bound`` in steps: an int if every trial shares it, else an ``(n,)`` int array.

        None if the table does not hold the very object.
        """
        key = id(bound)
        if self._objects.get(key) is not bound:
            return None
        shared = self._shared.get(key)
        if shared is not None:
            return shared
        row = self._arrays[key]
        assert self._steps is not None
        assert self._uniform is not None
        return int(self._steps[row, 0]) if self._uniform[row] else self._steps[row]

    def cells(self, start: Any, end: Any) -> slice | RaggedSpan | None:
        """Steps ``start .. end - 1`` of each trial: a slice if all trials share them.

        None if the table does not hold both bounds.
        """
        first, stop = self.steps(start), self.steps(end)
        if first is None or stop is None:
            return None
        if type(first) is int and type(stop) is int:
            return slice(first, max(first, stop))
        return RaggedSpan(self._per_trial(first), self._per_trial(stop))

    def _per_trial(self, steps: int | np.ndarray) -> np.ndarray:
        """``(n,)`` steps: an array as it is, an int repeated (``fill``: cheaper than a view)."""
        if isinstance(steps, int):
            filled = np.empty(self._n, dtype=np.intp)
            filled.fill(steps)
            return filled
        return steps

    def lengths(self, end: Any) -> np.ndarray | None:
        """``(n,)`` steps of ``end`` (a new array), or None if the table does not hold it."""
        steps = self.steps(end)
        if steps is None:
            return None
        return self._per_trial(steps) if isinstance(steps, int) else steps.copy()


class PeriodSteps:
    """The batch builder's periods in steps: spans, trial lengths, the longest trial.

    A mixin of :class:`~neurogym._trials.builder.BatchBuilder`, which holds the periods
    (``start_t``, ``end_t``, ``tmax_ms``), ``n``, ``dt`` and the caches used here.
    """

    env: Any
    n: int
    dt: float
    start_t: dict[str, Any]
    end_t: dict[str, Any]
    tmax_ms: Any
    _table: BoundTable | None
    _spans: dict[tuple[int, int], tuple[Any, Any, slice | RaggedSpan]]

    def _known(self, name: str, arg: str) -> tuple[Any, Any]:
        raise NotImplementedError

    @property
    def lengths(self) -> np.ndarray:
        """Steps per trial, ``(B,)``."""
        tmax = self.tmax_ms
        if isinstance(tmax, float):
            return np.full(self.n, _to_steps(tmax, self.dt), dtype=np.intp)
        lengths = self._bounds().lengths(tmax)
        if lengths is None:  # (a table holds tmax_ms: only a replaced one is missing)
            lengths = per_trial(_to_steps(tmax, self.dt), self.n).astype(np.intp)
        return lengths

    @property
    def steps(self) -> int:
        """Steps of the longest trial ``T`` (at most :data:`~neurogym.timing.MAX_TRIAL_STEPS`)."""
        tmax = self.tmax_ms
        steps = int(_to_steps(tmax, self.dt)) if isinstance(tmax, float) else None
        if steps is None:
            by_trial = self._bounds().steps(tmax)
            if by_trial is None:
                by_trial = _to_steps(tmax, self.dt)
            steps = by_trial if isinstance(by_trial, int) else int(by_trial.max())
        if steps > MAX_TRIAL_STEPS:
            check_steps(float(np.max(tmax)), self.dt, f"a trial of {type(self.env).__name__}")
        return steps

    def period_steps(self, name: str) -> tuple[int | np.ndarray, int | np.ndarray]:
        """Start and end step index (end exclusive) of ``name``: ints or ``(B,)`` arrays."""
        start, end = self._known(name, "period")
        return _to_steps(start, self.dt), _to_steps(end, self.dt)

    def _cells(self, period: str | None) -> slice | RaggedSpan:
        """A common slice when all trials share the period's bounds, else its ragged span."""
        if period is not None and period not in self.start_t:
            raise KeyError(
                f"unknown period {period!r}; this batch's periods are {list(self.start_t)}"
            )
        return self._span_cells(None if period is None else self._known(period, "period"))

    def _span_cells(self, span: tuple[Any, Any] | None) -> slice | RaggedSpan:
        """:meth:`_cells` of a ``(start, end)`` span in ms (None: the whole trial).

        Spans whose bounds are arrays are converted once per batch and bound objects (the
        builder keeps what it found, with the bound objects, so their ids stay theirs).
        """
        if span is None:
            start: Any = ZERO
            end: Any = self.tmax_ms
        else:
            start, end = span
        dt = self.dt
        if type(start) is float and type(end) is float:
            first = _to_steps(start, dt)
            return slice(first, max(first, _to_steps(end, dt)))
        key = (id(start), id(end))
        known = self._spans.get(key)
        if known is not None and known[0] is start and known[1] is end:
            return known[2]
        cells = self._bounds().cells(start, end)
        if cells is None:  # a bound the table does not hold: converted on its own
            cells = BoundTable([start, end], self.n, dt).cells(start, end)
            assert cells is not None
        self._spans[key] = (start, end, cells)
        return cells

    def _bounds(self) -> BoundTable:
        """Every period bound (and the trial's end) in steps, converted once per batch."""
        table = self._table
        if table is None:
            bounds = [ZERO, *self.start_t.values(), *self.end_t.values(), self.tmax_ms]
            table = self._table = BoundTable(bounds, self.n, self.dt)
        return table
