"""Helpers shared by the batch builder and the per-trial authoring API.

They resolve ``where=`` (dim names and indices) and ``period=`` arguments and broadcast values,
raising precise errors that name the bad value and what would be valid.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NoReturn, TypeAlias, TypeGuard

import numpy as np

__all__ = [
    "InvalidOperationError",
    "PeriodArg",
    "RenamedVerb",
    "WhereArg",
    "as_period_list",
    "fit_value",
    "named_dims",
    "per_row",
    "period_spans",
    "resolve_where",
    "scaled_rows",
]

PeriodArg: TypeAlias = str | Sequence[str] | None
WhereArg: TypeAlias = str | int | Sequence[int] | Sequence[str] | range | slice | np.ndarray | None
Index: TypeAlias = int | slice | np.ndarray | None


class InvalidOperationError(Exception):
    """An authoring call made at the wrong moment (e.g. ``add_period`` after ``add_ob``)."""


def as_period_list(period: PeriodArg, known: Mapping[str, Any]) -> list[str | None]:
    """Normalises ``period`` to a list of known period names (``[None]`` = whole trial).

    Raises:
        KeyError: A name is not a period of the trial, naming the valid ones.
        TypeError: ``period`` is neither a str, a sequence of str nor None.
    """
    if period is None:
        return [None]
    if isinstance(period, str) and period in known:
        return [period]
    names = [period] if isinstance(period, str) else list(period)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"period names are str, got {name!r} in period={period!r}")
        if name not in known:
            raise KeyError(f"unknown period {name!r}; this trial's periods are {list(known)}")
    return list(names)


def period_spans(
    period: PeriodArg, start_t: Mapping[str, Any], end_t: Mapping[str, Any]
) -> list[tuple[Any, Any] | None]:
    """The ``(start, end)`` bounds (ms) a write over ``period`` covers; ``[None]`` = whole trial.

    Adjacent periods (one starts at the very bound object the previous one ends at, as a
    chain of ``add_period`` calls makes them) merge into one span, so a value constant over
    time (a fixation cue over five periods, say) is written once rather than once per period.
    The steps covered are the same: ``floor(t / dt)`` of the shared bound ends one period and
    starts the next. Only spans whose durations are all non-negative merge.
    """
    if isinstance(period, str) and period in start_t:  # the common case: one period
        return [(start_t[period], end_t[period])]
    spans: list[tuple[Any, Any] | None] = []
    # whether the last span may grow (its durations are all >= 0); None: not checked yet
    # (checked only when the next period starts at its end: arrays cost a comparison)
    extendable: bool | None = False
    for name in as_period_list(period, start_t):
        if name is None:
            return [None]
        start, end = start_t[name], end_t[name]
        last = spans[-1] if spans else None
        if last is not None and last[1] is start:
            if extendable is None:  # a span of one period: its own bounds
                extendable = _ordered(last[0], last[1])
            if extendable and _ordered(start, end):
                spans[-1] = (last[0], end)
                continue
        spans.append((start, end))
        extendable = None
    return spans


def _ordered(start: Any, end: Any) -> bool:
    """Whether ``end >= start`` (for every trial, if either is an array)."""
    if type(start) is float and type(end) is float:
        return end >= start
    return bool(np.all(np.asarray(end) >= np.asarray(start)))


def _as_index(indices: Sequence[int] | np.ndarray) -> slice | np.ndarray:
    arr = np.asarray(indices, dtype=np.intp)
    if arr.size and np.all(np.diff(arr) == 1):
        return slice(int(arr[0]), int(arr[-1]) + 1)
    return arr


def resolve_where(where: WhereArg, space: Any, kind: str) -> Index:
    """Turns a ``where=`` argument into an index into the space's last axis.

    Args:
        where: ``None`` (all dims), a dim name, a list of dim names (their dims, in that
            order), an int, a list/range/array of ints or a slice.
        space: The observation or action space (its ``name`` maps dim names to indices).
        kind: ``"observation"`` or ``"action"`` (for messages).

    Returns:
        ``None``, an int, a slice or an integer array.

    Raises:
        KeyError: ``where`` is a str that is not a dim name of the space.
        IndexError: An index lies outside the space's last axis.
    """
    if where is None:
        return None
    size = space.shape[-1] if getattr(space, "shape", None) else 1
    if isinstance(where, str):
        value = named_dims(where, space, kind)
        return value if isinstance(value, int) else _as_index(value)
    if _all_names(where):  # several dim names: their dims, in the order given
        return _as_index(np.concatenate([
            np.atleast_1d(np.asarray(named_dims(name, space, kind), dtype=np.intp))
            for name in where
        ]))  # fmt: skip
    if isinstance(where, slice):
        return where
    if isinstance(where, (int, np.integer)) and not isinstance(where, bool):
        if not -size <= int(where) < size:
            raise IndexError(f"where={where} is outside the {kind} space's {size} dims")
        return int(where) % size
    indices = np.asarray(list(where) if isinstance(where, range) else where)
    if indices.ndim != 1 or not (indices.size == 0 or np.issubdtype(indices.dtype, np.integer)):
        raise TypeError(
            f"where={where!r}: expected a dim name, an int, a slice, or a list of dim names or "
            "of ints (a range or an int array too)"
        )
    bad = [int(i) for i in indices if not -size <= i < size]
    if bad:
        raise IndexError(f"where={where!r}: indices {bad} outside the {kind} space's {size} dims")
    return _as_index(np.where(indices < 0, indices + size, indices))  # -1 is the last dim


def named_dims(name: str, space: Any, kind: str) -> Any:
    """The dims (an int, or a list/range of ints) the space names ``name``.

    Raises:
        KeyError: ``name`` is not a dim name of the space; the message lists the valid ones.
    """
    names = getattr(space, "name", None) or {}
    if name not in names:
        raise KeyError(
            f"where={name!r} is not a dim name of the {kind} space; valid names: {sorted(names)}"
        )
    return names[name]


def _all_names(where: Any) -> TypeGuard[Sequence[str]]:
    """Whether ``where`` is a non-empty list or tuple of dim names (str)."""
    return (
        isinstance(where, (list, tuple))
        and len(where) > 0
        and all(isinstance(item, str) for item in where)
    )


def fit_value(
    value: Any, n: int, steps: int, cell: tuple[int, ...], per_step: bool, what: str
) -> Any:
    """Reshapes ``value`` so it broadcasts to ``(n, steps, *cell)``; validates the shape.

    Without ``per_step`` a value has no time axis: ``(n, *cell)`` (one per trial) or a lower
    -dimensional value shared by all trials. With ``per_step`` it has one: ``(n, steps, *cell)``
    or ``(steps, *cell)`` (shared) or lower.

    Raises:
        ValueError: The shape does not fit, naming it and the valid shapes.
    """
    arr = np.asarray(value)
    if arr.ndim == 0:
        return arr
    ncell = len(cell)
    shape: tuple[int, ...] | None = None
    if per_step and arr.ndim <= ncell + 2:
        shape = (1,) * (ncell + 2 - arr.ndim) + arr.shape
    elif not per_step and arr.ndim <= ncell:
        shape = (1, 1) + (1,) * (ncell - arr.ndim) + arr.shape
    elif not per_step and arr.ndim == ncell + 1:
        shape = (arr.shape[0], 1, *arr.shape[1:])
    full = (n, steps, *cell)
    if shape is not None and all(s in (1, f) for s, f in zip(shape, full, strict=True)):
        return arr.reshape(shape)
    form = "(B, L, *dims), (L, *dims) or (*dims)" if per_step else "(B, *dims) or (*dims)"
    raise ValueError(
        f"{what}: a value of shape {arr.shape} does not broadcast to B={n} trials x "
        f"L={steps} steps x dims={cell}; valid shapes: {form}"
    )


def per_row(values: np.ndarray, n: int, name: str) -> np.ndarray:
    """``values`` as ``(n,)``: one per trial of a batch of ``n``."""
    if values.shape == (n,):
        return values
    if values.shape == (1,):
        return np.broadcast_to(values, (n,))
    raise ValueError(
        f"{name} must be one number or one per trial (shape ({n},)), got shape {values.shape}"
    )


class RenamedVerb:
    """A batch-builder attribute that raises: TrialEnv's per-trial verb, renamed for batches.

    ``b.add_ob`` in ``_new_trials`` raises an ``AttributeError`` naming ``b.add_input`` (the
    batch verb has another shape rule: one row per trial, not one per time step).
    """

    def __init__(self, renamed: str) -> None:
        self.renamed = renamed

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: object, owner: type | None = None) -> NoReturn:
        raise AttributeError(
            f"BatchBuilder has no {self.name!r}: the batch verbs take one row per trial, "
            f"use b.{self.renamed}(...); {self.name} is TrialEnv's upstream-style verb for "
            "_new_trial, whose values have one row per time step"
        )


def _index_error(what: str, bad: int, k: int) -> ValueError:
    return ValueError(
        f"{what}: index {bad} is out of range for the {k} dims where= selects "
        f"(valid: 0 to {k - 1})"
    )


def single_index(index: Any, k: int, what: str) -> int:
    """The one trial's ``index`` (an int, or an array of one) checked against ``[0, k)``."""
    picked: int
    if type(index) is int:
        picked = index
    else:
        arr = np.asarray(index)
        kind = arr.dtype.kind
        if kind not in "iub" or (kind == "b" and k < 2):
            raise ValueError(
                f"{what}: index= takes integers (or booleans for 2 dims), got {index!r}"
            )
        if arr.size != 1:
            per_row(arr.reshape(-1), 1, f"{what}: index")  # raises, naming the shape
        picked = int(arr.reshape(-1)[0])
    if not 0 <= picked < k:
        raise _index_error(what, picked, k)
    return picked


def one_hot_rows(value: Any, index: Any, n: int, k: int, what: str) -> np.ndarray:
    """``(n, k)`` rows holding ``value`` at column ``index`` (one per trial) and 0 elsewhere.

    ``value`` is one number or one per trial; ``index`` one int or one per trial, in ``[0, k)``.
    """
    picked = np.asarray(index).reshape(-1)
    kind = picked.dtype.kind
    if kind == "b" and k >= 2:
        picked = picked.astype(np.intp)
    elif kind not in "iu":
        raise ValueError(f"{what}: index= takes integers (or booleans for 2 dims), got {index!r}")
    if picked.shape != (n,):
        picked = per_row(picked, n, f"{what}: index")
    low, high = int(picked.min()), int(picked.max())
    if low < 0 or high >= k:
        raise _index_error(what, low if low < 0 else high, k)
    rows = np.zeros((n, k))
    if not isinstance(value, (int, float)) and np.ndim(value):
        value = per_row(np.asarray(value).reshape(-1), n, f"{what}: value")
    rows[np.arange(n), picked] = value
    return rows


def scaled_rows(draw: np.ndarray, sigma: float | np.ndarray) -> np.ndarray:
    """``draw * sigma`` in place, ``sigma`` a number or one value per row (first axis)."""
    if isinstance(sigma, np.ndarray):
        draw *= sigma.astype(draw.dtype).reshape(-1, *([1] * (draw.ndim - 1)))
    else:
        draw *= sigma
    return draw
