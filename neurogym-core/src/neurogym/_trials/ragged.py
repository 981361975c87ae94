"""Writes over a span whose bounds differ between the trials of a batch ("ragged" spans).

A period with a drawn duration (or one after it) starts or ends at another step in every
trial. The builder writes such a span with one masked ufunc or one scatter per channel
instead of one slice per trial. Everything those writes need that depends only on the span
(its bounds in steps, lengths, masks and flat indices) is computed once per span and batch
by a :class:`RaggedSpan`, which the builder keeps for the batch: a task writes most spans
several times (observation channels, then ground truth and its loss mask).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from neurogym._trials.batch import exact_cast
from neurogym._trials.where import fit_value

__all__ = ["RaggedSpan", "scatter_rows", "write_ragged"]


class RaggedSpan:
    """Steps ``start[i] .. end[i] - 1`` of each trial ``i`` of a batch, and what writes reuse.

    Args:
        start: ``(B,)`` first step of each trial's span (int array).
        end: ``(B,)`` step after it; an ``end`` before ``start`` is an empty span.

    Attributes:
        lens: ``(B,)`` steps of each trial's span (0 when empty).
        total: Steps of all spans together.
        lo, hi: The window ``lo .. hi - 1`` covering every trial's span.
        longest: The longest span, at least 1 (the time axis of a per-trial value).
        dense: Whether the spans fill at least half of the window: masked writes over the
            window then cost less than scatters at flat indices.
    """

    __slots__ = ("_flat", "_inside", "_longest", "_picked", "_window", "dense", "end", "hi",
                 "lens", "lo", "n", "start", "total")  # fmt: skip

    def __init__(self, start: np.ndarray, end: np.ndarray) -> None:
        self.start, self.end = start, end
        self.n = n = start.shape[0]
        lens = end - start
        np.maximum(lens, 0, out=lens)
        self.lens = lens
        self.total = int(lens.sum())
        self.lo, self.hi = int(start.min()), int(end.max())
        self.dense = 2 * self.total >= n * (self.hi - self.lo)
        self._longest = 0  # (made on first use: writes of one value per trial never read it)
        self._window: np.ndarray | None = None
        self._picked: np.ndarray | None = None
        self._flat: dict[int, np.ndarray] = {}
        self._inside: dict[int, np.ndarray] = {}

    @property
    def longest(self) -> int:
        """The longest span, at least 1."""
        if not self._longest:
            self._longest = max(int(self.lens.max()), 1)
        return self._longest

    def window_mask(self) -> np.ndarray:
        """``(B, hi - lo)`` bools: which steps of the window belong to each trial's span."""
        if self._window is None:
            window = np.arange(self.lo, self.hi)
            self._window = (window >= self.start[:, None]) & (window < self.end[:, None])
        return self._window

    def inside(self, steps: int) -> np.ndarray:
        """``(B, steps)`` bools: the span's steps in arrays of ``steps`` steps per trial."""
        mask = self._inside.get(steps)
        if mask is None:
            mask = self._inside[steps] = np.zeros((self.n, steps), dtype=bool)
            lo, hi = max(self.lo, 0), min(self.hi, steps)
            if hi > lo:  # the window's mask, cut to the array's steps
                mask[:, lo:hi] = self.window_mask()[:, lo - self.lo : hi - self.lo]
        return mask

    def picked(self) -> np.ndarray:
        """``(B, longest)`` bools: the first ``lens[i]`` steps of a per-step value's row ``i``."""
        if self._picked is None:
            self._picked = np.arange(self.longest) < self.lens[:, None]
        return self._picked

    def flat_index(self, steps: int) -> np.ndarray:
        """The span's cells as indices into ``(B * steps,)``: row by row, in step order."""
        idx = self._flat.get(steps)
        if idx is None:
            lens = self.lens
            before = np.cumsum(lens) - lens
            rows = np.arange(0, self.n * steps, steps) + self.start - before
            idx = self._flat[steps] = np.repeat(rows, lens) + np.arange(self.total)
        return idx


def scatter_rows(
    target: np.ndarray,
    val: Any,
    span: RaggedSpan,
    where: int | slice | None,
    reset: bool,
    number: bool = False,
) -> None:
    """Writes one value per trial into the steps of ``span`` in each row of ``target``.

    ``target`` is a C-contiguous ``(B, T, ...)`` array and ``val`` broadcasts to
    ``(B, 1, *cell)`` (``cell`` being what ``where`` selects). Narrow cells are written
    channel by channel, each either as a masked ufunc over the span's window (when the
    spans fill most of it) or as a 1-D scatter at flat step indices: both are several times
    faster than boolean-mask writes into an interleaved ``(B, L, k)`` view. A Python
    ``number`` (checked by :func:`write_ragged`) is written as it is.
    """
    if span.total == 0:
        return
    arr = val if number else exact_cast(np.asarray(val), target.dtype)
    if span.dense:
        cells = target[:, span.lo : span.hi]
        sel = cells if where is None else cells[..., where]
        _by_channel(sel, arr, span.window_mask(), reset)
        return
    n, steps = target.shape[0], target.shape[1]
    idx = span.flat_index(steps)
    flat = target.reshape(n * steps, *target.shape[2:])
    sel = flat if where is None else flat[:, where]
    if number or arr.ndim == 0:
        value: Any = arr
    else:
        rows = arr.reshape(arr.shape[0], *arr.shape[2:])
        value = rows[np.repeat(np.arange(n), span.lens)] if rows.shape[0] > 1 else rows[0]
    _by_channel(sel, value, idx, reset)


def write_ragged(
    target: np.ndarray,
    value: Any,
    span: RaggedSpan,
    where: Any,
    per_step: bool,
    reset: bool,
    what: str,
) -> None:
    """Adds (or sets) ``value`` into ``target`` over ``span`` and the dims ``where``.

    ``value`` is one value per trial (or one for all), or with ``per_step`` a ``(B, L, ...)``
    value whose first ``lens[i]`` steps go to trial ``i``.
    """
    if callable(value):
        raise TypeError(
            f"{what}: callable values need a period with the same bounds in every trial "
            "of the batch; pass an array instead"
        )
    if (
        type(value) in (int, float)
        and not per_step
        and (where is None or type(where) is int or type(where) is slice)
        and span.lo >= 0
        and target.flags.c_contiguous
        and (target.dtype.kind == "f" or target.dtype == _INT64)  # (other ints: casting rules)
        and _same_in(value, target.dtype)
    ):  # one number for every trial: no array made of it
        scatter_rows(target, value, span, where, reset, number=True)
        return
    n, longest = span.n, span.longest
    cell = target.shape[2:] if where is None else target[0, 0][..., where].shape
    val = fit_value(value, n, longest, cell, per_step, what)
    simple = (where is None or isinstance(where, (int, slice))) and span.lo >= 0
    if simple and not per_step and target.flags.c_contiguous:
        scatter_rows(target, val, span, where, reset)  # one value per trial
        return
    inside = span.inside(target.shape[1])
    full = np.broadcast_to(val, (n, longest, *cell))
    if simple:
        # Boolean masks select cells row by row, in step order, on both sides.
        picked = full[span.picked()]
        view = target if where is None else target[..., where]
        if reset:
            view[inside] = picked
        else:
            view[inside] += picked
        return
    rows, cols = np.nonzero(inside)
    picked = full[rows, cols - span.start[rows]]
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


_INT64 = np.dtype(np.int64)
_UNITS = frozenset({-1, 0, 1})
"""Numbers every float and signed integer type holds (``-0.0`` and ``1.0`` among them)."""


def _same_in(number: int | float, dtype: np.dtype[Any]) -> bool:
    """Whether ``number`` survives a cast to ``dtype`` unchanged.

    Then writing it as it is writes what the array path would: numpy casts a Python number
    to the array's type first, while the array path adds in float64 a value that does not
    survive, and casts (unsafely) one an integer array cannot hold.
    """
    if number in _UNITS and dtype.kind in "fi":
        return True
    try:
        return bool(dtype.type(number).item() == number)  # compared as Python numbers
    except (OverflowError, ValueError):
        return False


def _by_channel(sel: np.ndarray, value: Any, at: np.ndarray, reset: bool) -> None:
    """Writes ``value`` at ``at`` (a bool mask over ``sel``'s leading dims, or flat indices)."""
    if sel.ndim == at.ndim + 1 and 1 < sel.shape[-1] <= 8:
        scalar = type(value) in (int, float) or np.ndim(value) == 0
        for c in range(sel.shape[-1]):
            part = value if scalar else value[..., 0 if value.shape[-1] == 1 else c]
            _put(sel[..., c], part, at, reset)
        return
    _put(sel, value, at, reset)


def _put(sel: np.ndarray, value: Any, at: np.ndarray, reset: bool) -> None:
    if at.dtype == bool:
        if sel.ndim > at.ndim:
            at = at.reshape(at.shape + (1,) * (sel.ndim - at.ndim))
        if reset:
            np.copyto(sel, value, casting="unsafe", where=at)
        else:
            np.add(sel, value, out=sel, where=at)
    elif reset:
        sel[at] = value
    else:
        sel[at] += value
