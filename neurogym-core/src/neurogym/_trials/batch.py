"""``TrialBatch`` (what the builder returns) and array helpers of the builder."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from neurogym._trials.where import WhereArg
from neurogym.timing import _to_steps

__all__ = [
    "TrialBatch",
    "action_table",
    "concat_rows",
    "exact_cast",
    "period_columns",
    "refuse_empty_trials",
    "scatter_cells",
    "set_tile",
]


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


def per_trial(value: Any, n: int) -> np.ndarray:
    """``value`` (a number or an array) as ``(n,)``: itself if it is one, else a broadcast view.

    ``np.broadcast_to`` checks its arguments in Python; most values are already ``(n,)``.
    """
    if type(value) is np.ndarray and value.shape == (n,):
        return value
    return np.broadcast_to(value, (n,))


def _apply(sub: np.ndarray, val: Any, reset: bool) -> None:
    """``sub[...] = val`` or ``sub += val``, fast for large, narrow 3-D views.

    numpy iterates an interleaved ``(B, L, k)`` view with ``k`` in the inner loop. When the
    ``k`` dims fill 8 or 16 bytes, :func:`_apply_packed` works on a contiguous copy; else,
    for small ``k``, one operation per channel (inner loop over ``B x L``) is about 3x
    faster than one over the whole view. A value of
    another dtype that the target's holds exactly is cast first (same results, no mixed-dtype
    loop); large values are left as they are. A set of a value constant over time
    (``(B or 1, 1, k)``) always casts it first: a set stores each value cast to the
    target's dtype, so casting the few values before they are repeated stores the same.
    """
    big = sub.ndim == 3 and sub.shape[0] * sub.shape[1] >= 64
    if big and type(val) is np.ndarray and val.dtype != sub.dtype:  # small: not worth a check
        if reset and val.ndim == 3 and val.shape[1] == 1 < sub.shape[1]:
            val = val.astype(sub.dtype)  # a set casts anyway: cast the few values first
        else:
            val = exact_cast(val, sub.dtype, limit=sub.size // 4)
    if big and type(val) is np.ndarray and val.ndim == 3 and _apply_packed(sub, val, reset):
        return
    if big and 1 < sub.shape[2] <= 8 and isinstance(val, np.ndarray) and val.ndim == 3:
        last = val.shape[2]
        for c in range(sub.shape[2]):
            channel = sub[:, :, c]
            part = val[:, :, c if last > 1 else 0]
            if reset:
                channel[...] = part
            else:
                channel += part
    elif reset:
        sub[...] = val
    else:
        sub += val


def _along_time(val: np.ndarray, steps: int) -> np.ndarray:
    """A ``(B, 1, k)`` value repeated over ``steps``, copied cell by cell (``k`` values as one).

    numpy broadcasts a ``(B, 1, k)`` value over time with ``k`` in its inner loop, a few
    values per call; the tile is made by moving each cell as one opaque item instead.
    """
    cell = val.shape[2] * val.itemsize
    if cell > 16:
        return val
    val = np.ascontiguousarray(val)
    tile = np.empty((val.shape[0], steps, val.shape[2]), dtype=val.dtype)
    tile.view(f"V{cell}")[...] = val.view(f"V{cell}")
    return tile


_PACKED = (8, 16)
"""Cell sizes in bytes that :func:`_apply_packed` moves as one item."""


def _packable(sub: np.ndarray, val: np.ndarray) -> bool:
    """Whether :func:`_apply_packed` takes ``val`` into ``sub`` (8- or 16-byte cells)."""
    cell = sub.shape[2] * sub.itemsize
    return not (
        cell not in _PACKED
        or sub.strides[2] != sub.itemsize
        or sub.strides[1] == cell  # each trial's cells are contiguous: numpy is fast there
        or val.shape[2:] != sub.shape[2:]
        or val.shape[1] not in (1, sub.shape[1])
        or val.dtype.kind not in "biuf"
    )


def set_tile(sub: np.ndarray, val: Any) -> np.ndarray | None:
    """What a set of ``val``, constant over time, stores in a float ``sub``: a tile, or None.

    For a large ``(B, L, k)`` float32 or float64 view that :func:`_apply_packed` writes by
    cells and a ``(B or 1, 1, k)`` value: the value cast to ``sub``'s dtype and repeated
    over ``L`` (``(B, L, k)``, contiguous), to be written with :func:`scatter_cells`. None
    for any other write (``_apply`` writes it).
    """
    if not (
        type(val) is np.ndarray
        and sub.ndim == 3
        and val.ndim == 3
        and val.shape[1] == 1 < sub.shape[1]
        and sub.shape[0] * sub.shape[1] >= 64
        and sub.dtype.kind == "f"
        and sub.itemsize in (4, 8)
        and _packable(sub, val)
    ):
        return None
    return _along_time(val.astype(sub.dtype), sub.shape[1])


def scatter_cells(sub: np.ndarray, tile: np.ndarray) -> None:
    """``sub[...] = tile`` for a view :func:`_packable` accepts, cell by cell."""
    cell = f"V{sub.shape[2] * sub.itemsize}"
    sub.view(cell)[...] = tile.view(cell)


def _apply_packed(sub: np.ndarray, val: np.ndarray, reset: bool) -> bool:
    """:func:`_apply` for a ``(B, L, k)`` view whose ``k`` adjacent dims fill 8 or 16 bytes.

    numpy adds into such a view (``k = 2`` float32 dims of a wider observation, say) one
    short strided row at a time, several times slower than over contiguous memory. Here each
    cell of ``k`` values is moved as one opaque item (a void view): the view is gathered into
    a contiguous buffer, the ufunc runs there, and the buffer is scattered back. The
    arithmetic is the same ufunc on the same values, so the results are identical. Values
    with a time axis (``(B or 1, L, k)``, e.g. noise) and values constant over time
    (``(B or 1, 1, k)``, e.g. a stimulus, first tiled by :func:`_along_time`) take this path.
    Returns False (nothing written) otherwise.
    """
    if not _packable(sub, val):
        return False
    if val.shape[1] != sub.shape[1]:  # constant over time: one tile, moved cell by cell
        if reset and val.dtype == sub.dtype:  # a set: the tile is what is written
            scatter_cells(sub, _along_time(val, sub.shape[1]))
            return True
        val = _along_time(val, sub.shape[1])
    packed = sub.view(f"V{sub.shape[2] * sub.itemsize}")
    buf = np.empty(sub.shape, dtype=sub.dtype)
    if reset:
        buf[...] = val
    else:
        buf.view(packed.dtype)[...] = packed
        buf += val
    packed[...] = buf.view(packed.dtype)
    return True


def _column(value: Any, n: int, dtype: Any) -> np.ndarray:
    """``value`` (a scalar or an ``(n,)`` array) as a fresh ``(n,)`` array of ``dtype``."""
    if isinstance(value, np.ndarray):
        return value.astype(dtype)
    return np.full(n, value, dtype=dtype)


def concat_rows(parts: list[Any], sizes: list[int]) -> np.ndarray:
    """One trial variable of several batches, back to back (``sizes[i]`` rows in part ``i``).

    A part that lacks the variable (``None``) contributes ``None`` rows; values whose shapes
    differ between parts (ragged) are kept as an object array, one value per row.
    """
    arrays = [
        np.asarray(part) if part is not None else np.full(size, None, dtype=object)
        for part, size in zip(parts, sizes, strict=True)
    ]
    try:
        return np.concatenate(arrays)
    except ValueError:  # ragged trial variables: keep them as objects
        out = np.empty(sum(sizes), dtype=object)
        i = 0
        for array in arrays:
            for value in array:
                out[i] = value
                i += 1
        return out


def action_table(where: WhereArg, space: Any) -> np.ndarray:
    """The action values named ``where`` in a Discrete space, as an array.

    ``where`` is an action name, or a list of names whose actions are concatenated in that
    order (``where=["nogo", "go"]``: value 0 is the ``nogo`` action, 1 the ``go`` one).
    """
    names = getattr(space, "name", None) or {}
    listed = [where] if isinstance(where, str) else where
    if (
        not isinstance(listed, (list, tuple))
        or not listed
        or not all(isinstance(name, str) and name in names for name in listed)
    ):
        kind = "an action name" if isinstance(where, str) else "an action name or a list of them"
        raise KeyError(f"where={where!r} is not {kind}; action names: {sorted(names)}")
    return np.concatenate([np.atleast_1d(np.asarray(names[name])) for name in listed])


def exact_cast(arr: np.ndarray, dtype: np.dtype[Any], limit: int = 64) -> np.ndarray:
    """``arr`` as ``dtype`` when that loses nothing (same results, no mixed-dtype loops).

    Casting an operand of ``+`` to a float type that holds it exactly gives the same sums:
    float64 arithmetic rounded to float32 equals float32 arithmetic. Arrays of more than
    ``limit`` elements are returned as they are (the check would cost more than it saves).
    """
    if arr.dtype == dtype or dtype.kind != "f" or arr.dtype.kind not in "biuf":
        return arr
    if arr.size > limit:
        return arr
    if arr.size:  # the first and the last value, compared in Python (no weak casts)
        first, last, kind = arr.item(0), arr.item(-1), dtype.type
        if float(kind(first)) != first or float(kind(last)) != last:
            return arr  # one does not survive the cast: refused at once
        if arr.size <= 2:  # they are all the values (a number, say): no array compare
            return arr.astype(dtype)
    cast = arr.astype(dtype)
    return cast if (cast == arr).all() else arr


def refuse_empty_trials(env: Any, shortest: int, periods: list[str], dt: float) -> None:
    """Raises if a trial defined by ``periods`` has no step (one rule, every path).

    Single envs, batches and vector envs all build trials here; tasks without periods
    (``Null``, ``Bandit``) do not call it.

    Args:
        env: The task (named in the message, with its timing).
        shortest: The fewest steps of any trial built.
        periods: The trials' period names.
        dt: Step size in ms.
    """
    if shortest < 1:
        timing = getattr(env, "timing", None)
        raise ValueError(
            f"{type(env).__name__} generated a trial without steps: its periods "
            f"({', '.join(periods)}) last less than one step of dt={dt:g} ms "
            f"(timing {dict(timing) if timing else {}!r}); lower dt or lengthen the timing"
        )


def period_columns(bounds: list[Any], n: int, dt: float) -> tuple[np.ndarray, np.ndarray]:
    """Period bounds in ms and in steps, as two ``(len(bounds), n)`` arrays.

    One array each (its rows are the columns of the batch) instead of one per bound; when
    every trial shares every bound, the steps are computed once per bound, not per trial.
    """
    k = len(bounds)
    times = np.empty((k, n))
    if set(map(type, bounds)) == {float}:
        steps = np.empty((k, n), dtype=np.intp)
        steps[...] = np.array([_to_steps(bound, dt) for bound in bounds], np.intp)[:, None]
        times[...] = np.array(bounds)[:, None]
        return times, steps
    for row, bound in zip(times, bounds, strict=True):
        row[...] = bound
    return times, _to_steps(times, dt)
