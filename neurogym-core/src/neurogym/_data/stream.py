"""``neurogym.Dataset``: upstream NeuroGym's streaming batches, seeded, masked and lossless.

Each of the ``batch_size`` columns is an endless stream of whole trials placed back to back.
A refill builds trials in bulk (``new_trials(m)``, one vectorised pass), deals them to the
columns in turn and cuts ``cache_len`` steps per column; what does not fit (the rest of a cut
trial and any whole trials left over) is carried into the next refill, so no trial is lost at
a cache boundary. See ``docs/data.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

from neurogym import validate
from neurogym._data.sources import batch_source, resolve_env, to_torch
from neurogym._deprecation import deprecated, task_generator
from neurogym._env.contract import require_groundtruth
from neurogym._env.env import TrialEnv
from neurogym._trials.batch import concat_rows
from neurogym._trials.builder import TrialBatch

__all__ = ["Dataset", "StreamBatch"]

_MAX_TRIALS_PER_CALL = 16384


@dataclass
class StreamBatch:
    """One batch of a :class:`Dataset`, with everything a training loop may need.

    Arrays are ``(seq_len, B, ...)``, or ``(B, seq_len, ...)`` with ``batch_first``.

    Attributes:
        inputs: Observations.
        targets: Ground truth (zeros where the task set none).
        mask: Loss mask: True where the task set a ground truth.
        trial_start: True on the first step of each trial.
        trial_index: Row of :attr:`trial` of the trial each step belongs to.
        trial: Parameters of the trials that appear in this batch, one row per trial.
        trial_id: Running number of each of those trials in the stream (``(K,)``).
    """

    inputs: Any
    targets: Any
    mask: Any
    trial_start: Any
    trial_index: np.ndarray
    trial: dict[str, np.ndarray]
    trial_id: np.ndarray

    def __iter__(self) -> Any:
        return iter((self.inputs, self.targets))

    def to_torch(self) -> StreamBatch:
        """The same batch with torch tensors (sharing memory) for the step arrays."""
        return StreamBatch(
            to_torch(self.inputs),
            to_torch(self.targets),
            to_torch(self.mask),
            to_torch(self.trial_start),
            self.trial_index,
            self.trial,
            self.trial_id,
        )


class _Source:
    """Steps of some trials (flat arrays) and, per column, which of them it holds, in order.

    ``order`` lists step indices into the flat arrays, column 0's first; column ``c`` owns
    ``order[seg_start[c] : seg_start[c] + seg_len[c]]``.
    """

    def __init__(
        self,
        arrays: tuple[np.ndarray, ...],
        order: np.ndarray,
        seg_start: np.ndarray,
        seg_len: np.ndarray,
    ) -> None:
        self.arrays = arrays  # ob, gt, mask, trial start, trial id
        self.order, self.seg_start, self.seg_len = order, seg_start, seg_len


_MIN_REFILL_STEPS = 2**17
_MAX_REFILL_NUMBERS = 2**22


def _default_cache_len(numbers_per_step: int, batch_size: int) -> int:
    """Upstream's ``1e5 / numbers / B`` raised to ``2**17 / B`` steps (at most ``2**22`` numbers).

    See :class:`Dataset`'s ``cache_len``.
    """
    upstream = int(1e5 / numbers_per_step / batch_size)
    floor = min(
        -(-_MIN_REFILL_STEPS // batch_size),
        _MAX_REFILL_NUMBERS // (numbers_per_step * batch_size),
    )
    return max(upstream, floor, 1)


def _ragged_index(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Indices ``starts[j] + 0 .. lengths[j]-1`` for every ``j``, concatenated."""
    total = int(lengths.sum())
    before = np.cumsum(lengths) - lengths
    return np.repeat(starts - before, lengths) + np.arange(total)


class Dataset:
    """Batches of continuous trial streams for supervised training (upstream's API, fixed).

    ``next(ds)`` and ``ds(**kwargs)`` return ``(inputs, targets)`` like upstream;
    :meth:`next_batch` also returns the loss mask, trial-start markers and the parameters of
    the trials in the batch (a :class:`StreamBatch`).

    Args:
        env: A task id (made with ``env_kwargs``) or an env (deep-copied). Trial wrappers of
            its chain are honoured; a step-level wrapper raises
            :class:`~neurogym.data.UnsupportedWrapperError` naming it.
        env_kwargs: Constructor arguments when ``env`` is an id.
        batch_size: Number of streams ``B``.
        seq_len: Steps per batch (default 1000, as upstream).
        max_batch: ``StopIteration`` after this many batches (then the count restarts).
        batch_first: ``(B, seq_len, ...)`` arrays instead of ``(seq_len, B, ...)``.
        cache_len: Steps built per refill and column, rounded up to a multiple of
            ``seq_len``. The default is upstream's rule (about 1e5 numbers per refill) raised
            to at least ``2**17`` steps over all columns, within ``2**22`` numbers: a refill
            has a fixed cost (a vectorised pass over a few hundred numpy calls), which small
            caches pay almost every batch.
        seed: Same seed, same batches (in any process). None draws fresh entropy.
    """

    def __init__(
        self,
        env: str | gym.Env[Any, Any],
        env_kwargs: dict[str, Any] | None = None,
        batch_size: int = 1,
        seq_len: int | None = None,
        max_batch: int | None = None,
        batch_first: bool = False,
        cache_len: int | float | None = None,  # 2.3.1 code passes 1e4
        *,
        seed: int | None = None,
    ) -> None:
        self.env = resolve_env(env, env_kwargs, copy=True)
        self._source = batch_source(self.env)
        task = self.env.unwrapped
        assert isinstance(task, TrialEnv)
        require_groundtruth(task, "neurogym.Dataset")
        self.task = task
        self.batch_size = validate.positive_int(batch_size, "batch_size")
        self.seq_len = 1000 if seq_len is None else validate.positive_int(seq_len, "seq_len")
        self.max_batch = (
            math.inf if max_batch is None else validate.positive_int(max_batch, "max_batch")
        )
        self.batch_first = validate.boolean(batch_first, "batch_first")
        obs_size = int(np.prod(task.observation_space.shape or (1,)))
        act_size = int(np.prod(task.action_space.shape or (1,)))
        if cache_len is None:
            cache_len = _default_cache_len(obs_size + act_size, self.batch_size)
        elif isinstance(cache_len, float) and cache_len.is_integer():  # 2.3.1 took 1e4
            deprecated("Dataset(cache_len=<a float>)", "an int (cache_len=10_000)")
            cache_len = int(cache_len)
        cache_len = validate.positive_int(cache_len, "cache_len")
        self.cache_len = (1 + cache_len // self.seq_len) * self.seq_len
        # inputs and targets as float32, the mask and trial starts as bools, per cached step
        per_step = 4 * (obs_size + act_size) + 2
        validate.allocation(
            float(self.batch_size) * self.cache_len * per_step,
            f"a Dataset cache of {self.batch_size} x {self.cache_len} steps",
            "batch_size, seq_len or cache_len",
        )
        self._batch_count = 0
        if seed is not None:
            validate.integer(seed, "seed", minimum=0)
        self.seed(seed)

    # ------------------------------------------------------------------ seeding
    def seed(self, seed: int | None = None) -> None:
        """Re-seeds the stream and drops everything built so far (next batch: a refill).

        ``seed=s`` gives the same batches as any other Dataset of the same task and arguments
        seeded ``s``; None draws fresh entropy.
        """
        if seed is None:
            self.task._np_random = task_generator()[0]
            self.env.reset()
        else:
            self.env.reset(seed=int(seed))
        self._pending: _Source | None = None
        self._cache: tuple[np.ndarray, ...] | None = None
        self._store: dict[str, np.ndarray] = {}
        self._store_first = 0
        self._cursor = self.cache_len
        self._next_trial_id = 0
        self._mean_len: float | None = None

    # ------------------------------------------------------------------ iteration
    def __iter__(self) -> Dataset:
        return self

    def __next__(self) -> tuple[np.ndarray, np.ndarray]:
        ob, gt, _, _, _ = self._advance({})
        return ob, gt

    def __call__(self, **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
        """The next ``(inputs, targets)``; ``kwargs`` reach trial generation on a refill."""
        ob, gt, _, _, _ = self._advance(kwargs)
        return ob, gt

    def next_batch(self, **kwargs: Any) -> StreamBatch:
        """The next batch with its loss mask, trial starts and trial parameters.

        Args:
            **kwargs: Forced trial parameters for the trials built by a refill (upstream
                passes them to ``new_trial`` the same way).

        Raises:
            StopIteration: After ``max_batch`` batches (the count then restarts).
        """
        ob, gt, mask, start, trial = self._advance(kwargs)
        ids, index = np.unique(trial, return_inverse=True)
        rows = ids - self._store_first
        params = {k: v[rows] for k, v in self._store.items()}
        return StreamBatch(ob, gt, mask, start, index.reshape(trial.shape), params, ids)

    def _advance(self, kwargs: dict[str, Any]) -> tuple[np.ndarray, ...]:
        """The next window of every cache array (views), refilling first if needed."""
        self._batch_count += 1
        if self._batch_count > self.max_batch:
            self._batch_count = 0
            raise StopIteration
        if self._cache is None or self._cursor + self.seq_len > self.cache_len:
            self._refill(kwargs)
        assert self._cache is not None
        lo, hi = self._cursor, self._cursor + self.seq_len
        self._cursor = hi
        if self.batch_first:
            return tuple(a[:, lo:hi] for a in self._cache)
        return tuple(a[lo:hi] for a in self._cache)

    # ------------------------------------------------------------------ refills
    def _refill(self, kwargs: dict[str, Any]) -> None:
        n_cols, need = self.batch_size, self.cache_len
        sources: list[_Source] = [] if self._pending is None else [self._pending]
        have = np.zeros(n_cols, dtype=np.intp) if self._pending is None else self._pending.seg_len
        params: list[dict[str, Any]] = []
        while np.any(have < need):
            # Trials are dealt in turn, so the shortest column sets how many rounds are needed.
            worst = float(np.max(need - have))
            if self._mean_len is None:
                # Unknown trial length: one round measures it (a guess could build far too
                # many long trials, whose surplus every later refill would copy along).
                rounds = 1
            else:
                rounds = math.ceil(1.1 * worst / max(self._mean_len, 1.0) + 0.5)
            n = min(n_cols * rounds, max(_MAX_TRIALS_PER_CALL, n_cols))
            trials = self._source.new_trials(n, **kwargs)
            if trials.ob is None:
                raise ValueError(
                    f"{type(self.task).__name__} builds no observation array; Dataset needs one"
                )
            self._mean_len = float(trials.lengths.mean())
            source = self._deal(trials, self._next_trial_id)
            self._next_trial_id += n
            sources.append(source)
            params.append(trials.trial)
            have = have + source.seg_len
        # One index over all sources, column by column (each column's sources in order).
        offsets = np.cumsum([0] + [src.arrays[0].shape[0] for src in sources[:-1]])
        order = np.concatenate(
            [src.order + off for src, off in zip(sources, offsets, strict=True)]
        )
        shift = np.cumsum([0] + [src.order.size for src in sources[:-1]])
        starts = np.stack([src.seg_start + sh for src, sh in zip(sources, shift, strict=True)])
        lens = np.stack([src.seg_len for src in sources])
        merged = order[_ragged_index(starts.T.reshape(-1), lens.T.reshape(-1))]
        seg_len = lens.sum(axis=0)
        seg_start = np.cumsum(seg_len) - seg_len
        data = [
            np.concatenate([src.arrays[k] for src in sources])
            if len(sources) > 1
            else sources[0].arrays[k]
            for k in range(5)
        ]
        idx = merged[seg_start[:, None] + np.arange(need)[None, :]]
        if not self.batch_first:
            idx = np.ascontiguousarray(idx.T)  # (need, B): a time-major cache
        self._cache = tuple(np.take(a, idx, axis=0) for a in data)
        rest_len = seg_len - need
        rest = merged[_ragged_index(seg_start + need, rest_len)]
        self._pending = _Source(
            tuple(np.take(a, rest, axis=0) for a in data),
            np.arange(rest.size),
            np.cumsum(rest_len) - rest_len,
            rest_len,
        )
        self._store_params(params, int(self._cache[4].min()))
        self._cursor = 0

    def _store_params(self, params: list[dict[str, Any]], low: int) -> None:
        """Keeps the parameters of trials ``low ..`` (older ones left the stream)."""
        parts = ([self._store] if self._store else []) + params
        keys = list(dict.fromkeys(k for p in parts for k in p))
        sizes = [len(next(iter(p.values()))) if p else 0 for p in parts]
        store = {k: concat_rows([p.get(k) for p in parts], sizes) for k in keys}
        first = self._store_first if self._store else low
        self._store = {k: v[low - first :] for k, v in store.items()}
        self._store_first = low

    def _deal(self, trials: TrialBatch, first_id: int) -> _Source:
        """``trials`` dealt to the columns in turn: trial ``first_id + j`` to column ``.. % B``.

        Their arrays are used in place (flattened, not copied).
        """
        assert trials.ob is not None
        n, steps = trials.size, trials.ob.shape[1]
        lengths = trials.lengths
        cols = (first_id + np.arange(n)) % self.batch_size
        by_column = np.lexsort((np.arange(n), cols))
        order = _ragged_index(by_column * steps, lengths[by_column])
        flat = n * steps
        ob = trials.ob.reshape(flat, *trials.ob.shape[2:])
        if trials.gt is None:
            space = self.task.action_space
            gt = np.zeros((flat, *(space.shape or ())), dtype=space.dtype)
        else:
            gt = trials.gt.reshape(flat, *trials.gt.shape[2:])
        start = np.zeros((n, steps), dtype=bool)
        start[:, 0] = True
        trial_id = np.repeat(np.arange(first_id, first_id + n), steps)
        seg_len = np.bincount(cols, weights=lengths, minlength=self.batch_size).astype(np.intp)
        return _Source(
            (ob, gt, trials.mask.reshape(flat), start.reshape(flat), trial_id),
            order,
            np.cumsum(seg_len) - seg_len,
            seg_len,
        )
