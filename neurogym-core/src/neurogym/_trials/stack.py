"""Stacking single trials into a padded :class:`TrialBatch` (the per-trial compatibility path)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from neurogym._trials.batch import concat_rows
from neurogym._trials.builder import TrialBatch
from neurogym._trials.variables import RecordOnly

if TYPE_CHECKING:
    from neurogym._env.env import TrialEnv

__all__ = ["concat_batches", "loop_trials", "merge_trial_batches", "row_of", "stack_trials"]


def _stacked(
    blocks: list[np.ndarray | None], steps: int, fill: Any, dtype: Any
) -> np.ndarray | None:
    """Blocks of rows ``(B_i, T_i, ...)``, one after the other, in ``(sum B_i, steps, ...)``.

    Steps past a block's ``T_i`` hold ``fill``; a None block stands for one row of ``fill``.
    The one padding rule of single trials (:func:`stack_trials`) and of whole batches
    (:func:`concat_batches`). None if every block is None.
    """
    present = [b for b in blocks if b is not None]
    if not present:
        return None
    rows = sum(1 if b is None else b.shape[0] for b in blocks)
    out = np.full((rows, steps, *present[0].shape[2:]), fill, dtype=dtype)
    row = 0
    for block in blocks:
        if block is not None:
            out[row : row + block.shape[0], : block.shape[1]] = block
        row += 1 if block is None else block.shape[0]
    return out


def _pad(arrays: list[np.ndarray | None], steps: int, fill: Any, dtype: Any) -> np.ndarray | None:
    """Single trials ``(T_i, ...)`` (None: a trial without the array) padded into one array."""
    return _stacked([None if a is None else a[None] for a in arrays], steps, fill, dtype)


def _stack_values(values: list[Any]) -> np.ndarray:
    try:
        return np.asarray(values)
    except ValueError:  # ragged values: keep them as objects
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out


def _period_column(
    rows: list[tuple[TrialBatch, dict[str, Any]]], name: str, what: str
) -> np.ndarray:
    """One period's start/end (steps) or start_t/end_t (ms) across trials (0 if absent)."""
    values = []
    for batch, _ in rows:
        if name not in batch.periods:
            values.append(0.0)
        elif what in ("start", "end"):
            values.append(float(batch.periods[name][0 if what == "start" else 1][0]))
        else:
            values.append(float(getattr(batch, what)[name][0]))
    return np.array(values)


def stack_trials(rows: list[tuple[TrialBatch, dict[str, Any]]], env: TrialEnv) -> TrialBatch:
    """Pads single-trial batches (and their trial dicts) into one :class:`TrialBatch`."""
    lengths = np.array([int(batch.lengths[0]) for batch, _ in rows], dtype=np.intp)
    steps = int(lengths.max()) if len(rows) else 0
    fill = 0 if env._default_ob_value is None else env._default_ob_value
    obs = [None if b.ob is None else b.ob[0, : b.lengths[0]] for b, _ in rows]
    gts = [None if b.gt is None else b.gt[0, : b.lengths[0]] for b, _ in rows]
    ob = _pad(obs, steps, fill, env.observation_space.dtype)
    gt = _pad(gts, steps, 0, env.action_space.dtype)
    mask = np.zeros((len(rows), steps), dtype=bool)
    for i, (batch, _) in enumerate(rows):
        mask[i, : batch.mask.shape[1]] = batch.mask[0, :steps]
    names = list(dict.fromkeys(name for batch, _ in rows for name in batch.periods))
    periods, start_t, end_t = {}, {}, {}
    for name in names:
        periods[name] = (
            _period_column(rows, name, "start").astype(np.intp),
            _period_column(rows, name, "end").astype(np.intp),
        )
        start_t[name] = _period_column(rows, name, "start_t")
        end_t[name] = _period_column(rows, name, "end_t")
    keys = list(dict.fromkeys(k for _, trial in rows for k in (trial or {})))
    trial = {k: _stack_values([(t or {}).get(k) for _, t in rows]) for k in keys}
    return TrialBatch(ob, gt, lengths, mask, periods, start_t, end_t, trial, float(env.dt))


def row_of(value: Any, i: int, n: int) -> Any:
    """Trial ``i``'s value of a forced batch kwarg.

    An array, list or tuple whose leading axis has length ``n`` is split (one value per
    trial); anything else applies to every trial.
    """
    if isinstance(value, RecordOnly):
        return RecordOnly(row_of(value.value, i, n))
    arr = value if isinstance(value, np.ndarray) else None
    if arr is None and isinstance(value, list | tuple):
        arr = np.asarray(value, dtype=object) if value else None
    if arr is not None and arr.ndim and arr.shape[0] == n:
        return arr[i]
    return value


def loop_trials(
    task: TrialEnv, new_trial: Callable[..., Any], n: int, kwargs: dict[str, Any]
) -> TrialBatch:
    """``n`` trials from ``n`` calls of ``new_trial`` (the task's or a wrapper's), padded.

    The one looped-batch path of tasks with per-trial generation and of trial wrappers that
    override ``new_trial``: forced kwargs are split per trial with :func:`row_of`, and the
    task's current trial (one object) and trial count are restored afterwards.
    """
    saved = task._current, task.num_tr
    rows: list[tuple[TrialBatch, dict[str, Any]]] = []
    try:
        for i in range(n):
            trial = new_trial(**{key: row_of(value, i, n) for key, value in kwargs.items()})
            rows.append((task._current_builder().finish(None), trial or task.trial or {}))
    finally:
        task._current, task.num_tr = saved
    return stack_trials(rows, task)


def _padded(arrays: list[np.ndarray | None], steps: int, fill: Any) -> np.ndarray | None:
    """``(B_i, T_i, ...)`` arrays padded to ``steps`` and concatenated (None if any is)."""
    if any(a is None for a in arrays):
        return None
    return _stacked(arrays, steps, fill, arrays[0].dtype)  # type: ignore[union-attr]


def concat_batches(batches: list[TrialBatch], n: int, fill: Any) -> TrialBatch:
    """The first ``n`` rows of ``batches`` back to back, padded to the longest trial.

    Args:
        batches: Batches of one task (the same periods and trial variables).
        n: Rows to keep (at most the batches' total).
        fill: The observation padding value (the task's default ob value, or 0).
    """
    if len(batches) == 1:
        whole = batches[0]
    else:
        steps = max(b.mask.shape[1] for b in batches)
        sizes = [b.size for b in batches]
        names = list(batches[0].periods)
        whole = TrialBatch(
            _padded([b.ob for b in batches], steps, fill),
            _padded([b.gt for b in batches], steps, 0),
            np.concatenate([b.lengths for b in batches]),
            _padded([b.mask for b in batches], steps, False),  # type: ignore[arg-type]
            {
                k: tuple(np.concatenate([b.periods[k][j] for b in batches]) for j in (0, 1))  # type: ignore[misc]
                for k in names
            },
            {k: np.concatenate([b.start_t[k] for b in batches]) for k in names},
            {k: np.concatenate([b.end_t[k] for b in batches]) for k in names},
            {k: concat_rows([b.trial.get(k) for b in batches], sizes) for k in batches[0].trial},
            batches[0].dt,
        )
    if whole.size == n:
        return whole
    longest = int(whole.lengths[:n].max())
    rows = (slice(n), slice(longest))
    own = np.ascontiguousarray  # arrays of their own, not views of the unused rows
    return TrialBatch(
        None if whole.ob is None else own(whole.ob[rows]),
        None if whole.gt is None else own(whole.gt[rows]),
        whole.lengths[:n],
        own(whole.mask[rows]),
        {k: (start[:n], end[:n]) for k, (start, end) in whole.periods.items()},
        {k: v[:n] for k, v in whole.start_t.items()},
        {k: v[:n] for k, v in whole.end_t.items()},
        {k: v[:n] for k, v in whole.trial.items()},
        whole.dt,
    )


def _fill_value(dtype: np.dtype[Any]) -> tuple[np.dtype[Any], Any]:
    """The dtype and fill of a trial-dict column that some tasks lack."""
    if dtype.kind in "fc":
        return dtype, np.nan
    if dtype.kind in "iu":
        return np.dtype(np.int64), -1
    if dtype.kind == "b":
        return dtype, False
    if dtype.kind in "US":
        return dtype, ""
    return np.dtype(object), None


def _merge_column(n: int, present: list[tuple[np.ndarray, np.ndarray]], complete: bool) -> Any:
    arrays = [np.asarray(values) for _, values in present]
    if len({a.shape[1:] for a in arrays}) > 1:  # different shapes per task: one object per row
        column = np.empty(n, dtype=object)
        for rows, values in present:
            for row, value in zip(rows, values, strict=True):
                column[row] = value
        return column
    dtype = np.result_type(*arrays)
    fill: Any = 0
    if not complete:
        dtype, fill = _fill_value(dtype)
    column = np.full((n, *arrays[0].shape[1:]), fill, dtype=dtype)
    for rows, values in present:
        column[rows] = values
    return column


def merge_trial_batches(
    n: int,
    parts: Sequence[tuple[int, np.ndarray, TrialBatch]],
    dtype: Any,
    n_tasks: int,
) -> TrialBatch:
    """One :class:`TrialBatch` of ``n`` rows from per-task batches, with a one-hot rule input.

    Args:
        n: Rows of the result.
        parts: ``(task index, rows, batch)``: the batch's trial ``k`` goes to row ``rows[k]``.
        dtype: Observation dtype of the result.
        n_tasks: Number of rule dims appended to the observation (0: none).

    Returns:
        A batch padded to the longest trial: ``ob`` ends with the rule dims (1 on the steps of
        the row's task, 0 on padding); ``gt``/``mask`` as the tasks set them (``gt`` None if
        no task sets one); ``periods``/``start_t``/``end_t`` hold every task's periods, empty
        (0, 0) in rows of tasks without them; trial-dict keys of some tasks only hold NaN,
        -1, False or "" (by dtype) in the other rows.
    """
    steps = max(batch.ob.shape[1] for _, _, batch in parts if batch.ob is not None)
    width = next(batch.ob.shape[2] for _, _, batch in parts if batch.ob is not None)
    ob = np.zeros((n, steps, width + n_tasks), dtype=dtype)
    gts = [batch.gt for _, _, batch in parts if batch.gt is not None]
    gt = None if not gts else np.zeros((n, steps, *gts[0].shape[2:]), dtype=gts[0].dtype)
    mask = np.zeros((n, steps), dtype=bool)
    lengths = np.zeros(n, dtype=np.intp)
    for i, rows, batch in parts:
        t = batch.mask.shape[1]
        if batch.ob is not None:
            ob[rows, :t, :width] = batch.ob
        if n_tasks:
            ob[rows, :t, width + i] = batch.valid
        if gt is not None and batch.gt is not None:
            gt[rows, :t] = batch.gt
        mask[rows, :t] = batch.mask
        lengths[rows] = batch.lengths
    out = TrialBatch(ob, gt, lengths, mask, {}, {}, {}, {}, parts[0][2].dt)
    for name in dict.fromkeys(k for _, _, batch in parts for k in batch.periods):
        pairs = [(rows, batch.periods[name]) for _, rows, batch in parts if name in batch.periods]
        start, end = np.zeros(n, dtype=np.intp), np.zeros(n, dtype=np.intp)
        start_t, end_t = np.zeros(n), np.zeros(n)
        for rows, (first, last) in pairs:
            start[rows], end[rows] = first, last
        for _, rows, batch in parts:
            if name in batch.start_t:
                start_t[rows], end_t[rows] = batch.start_t[name], batch.end_t[name]
        out.periods[name] = (start, end)
        out.start_t[name], out.end_t[name] = start_t, end_t
    for key in dict.fromkeys(k for _, _, batch in parts for k in batch.trial):
        present = [(rows, batch.trial[key]) for _, rows, batch in parts if key in batch.trial]
        out.trial[key] = _merge_column(n, present, len(present) == len(parts))
    return out
