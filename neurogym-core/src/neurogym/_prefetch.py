"""Prefetching: a single env generates its trials ``prefetch`` at a time and serves them in turn.

A batch-native task with ``prefetch = K > 1`` (a class attribute; tasks opt in) builds ``K``
trials with one ``new_trials(K)`` pass over the env's generator instead of ``K`` passes of one,
which removes most of the per-trial numpy overhead of stepping a single env. The trial sequence
is still fixed by ``reset(seed=...)``: trial ``k`` after a reset is row ``k % K`` of the
``k // K``-th batch.

A pool is discarded (and the next trial generated afresh) when it is used up, on ``reset``,
when a public attribute of the env is reassigned (``env.cohs = [...]``: every such attribute is
fingerprinted by identity) and when ``env.timing`` changes. Trials forced with kwargs
(``new_trial(ground_truth=1)``) are generated on their own and leave the pool alone. Changes
*inside* an attribute's value (``env.cohs[0] = 5``) cannot be seen: call
:meth:`~neurogym.TrialEnv.discard_prefetched` after such an edit.

Only tasks whose trial generation keeps no state across trials may opt in (a block counter
advanced by ``_new_trials`` would skip the positions of discarded trials).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from neurogym._trialbatch import _to_steps, gt_by_step

if TYPE_CHECKING:
    from neurogym._builder import TrialBatch
    from neurogym._env import TrialEnv

__all__ = ["TrialPool"]

# Attributes that change while an env runs; they do not describe how trials are generated.
DYNAMIC_ATTRIBUTES = frozenset(
    {
        "t", "t_ind", "tmax", "num_tr", "performance", "trial", "start_t", "end_t",
        "start_ind", "end_ind", "max_episode_steps", "trials_per_episode", "r_tmax",
    }
)  # fmt: skip


def _fingerprint(env: TrialEnv) -> tuple[tuple[str, ...], tuple[int, ...], int]:
    state = vars(env)
    names = tuple(k for k in state if k[0] != "_" and k not in DYNAMIC_ATTRIBUTES)
    return names, tuple(id(state[k]) for k in names), env.timing.version


class TrialPool:
    """``K`` pre-generated trials of one env and the per-row data stepping needs.

    Args:
        env: The env the trials belong to.
        batch: Its ``new_trials(K)`` result.
    """

    def __init__(self, env: TrialEnv, batch: TrialBatch) -> None:
        self.batch = batch
        self.size = batch.size
        self.next = 0
        self.names, self.ids, self.timing_version = _fingerprint(env)
        self.lengths: list[int] = batch.lengths.tolist()
        self.start_t = {name: values.tolist() for name, values in batch.start_t.items()}
        self.end_t = {name: values.tolist() for name, values in batch.end_t.items()}
        ends = list(batch.end_t.values())
        self.tmax: list[float] = (
            np.max(np.stack(ends), axis=0).tolist() if ends else [0.0] * self.size
        )
        # per period, per row: start_t, end_t, start_ind, end_ind, duration (what load sets)
        dt = env.dt
        self.periods = [
            (
                name,
                starts,
                ends,
                _to_steps(batch.start_t[name], dt).tolist(),
                _to_steps(batch.end_t[name], dt).tolist(),
                (batch.end_t[name] - batch.start_t[name]).tolist(),
            )
            for (name, starts), ends in zip(self.start_t.items(), self.end_t.values(), strict=True)
        ]
        keys = list(batch.trial)
        columns = [batch.trial[k] for k in keys]
        self.trials = [
            {key: column[i] for key, column in zip(keys, columns, strict=True)}
            for i in range(self.size)
        ]
        rule = env.rule
        self.codes: list[list[int]] | None = None
        if rule is not None:
            grid = rule.code_grid(batch.start_t, batch.end_t, batch.lengths, float(env.dt))
            self.codes = [grid[i, : self.lengths[i]].tolist() for i in range(self.size)]

    def rebind(self, env: TrialEnv) -> None:
        """Fingerprints ``env`` afresh (after a copy or unpickling).

        A copy's attributes are new objects with the same contents, so the pool stays valid.
        """
        self.names, self.ids, self.timing_version = _fingerprint(env)

    @classmethod
    def generate(cls, env: TrialEnv, size: int) -> TrialPool:
        """Builds ``size`` trials of ``env`` from its generator."""
        return cls(env, env.new_trials(size))

    def usable(self, env: TrialEnv) -> bool:
        """Whether a trial is left and the env's configuration is unchanged since generation."""
        if self.next >= self.size or env.timing.version != self.timing_version:
            return False
        state = vars(env)
        try:
            return tuple(map(id, map(state.__getitem__, self.names))) == self.ids
        except KeyError:  # an attribute was deleted
            return False

    def take(self) -> int:
        """The index of the next unused row."""
        row = self.next
        self.next += 1
        return row

    def load(self, env: TrialEnv, row: int) -> None:
        """Makes row ``row`` the env's current trial (upstream's per-trial state)."""
        batch, steps, dt = self.batch, self.lengths[row], env.dt
        env._ob_row = None if batch.ob is None else batch.ob[row, :steps]
        gt = None if batch.gt is None else batch.gt[row, :steps]
        env._gt_row = gt
        env._has_gt = gt is not None
        env._gt_list = gt_by_step(gt)
        start_t, end_t = env.start_t, env.end_t
        start_ind, end_ind, duration = env.start_ind, env.end_ind, env._duration
        for container in (start_t, end_t, start_ind, end_ind, duration):
            container.clear()
        for name, starts, ends, start_inds, end_inds, durations in self.periods:
            start_t[name] = starts[row]
            end_t[name] = ends[row]
            start_ind[name] = start_inds[row]
            end_ind[name] = end_inds[row]
            duration[name] = durations[row]
        env._tmax = self.tmax[row]
        env.tmax = steps * dt
        env.trial = self.trials[row]
        if self.codes is not None:
            env._codes = self.codes[row]

    def row_builder(self, env: TrialEnv, row: int) -> Any:
        """A one-trial builder whose arrays are views of row ``row`` (for in-step edits)."""
        from neurogym._builder import BatchBuilder

        batch, steps = self.batch, self.lengths[row]
        builder = BatchBuilder(env, 1, {})
        builder._ob = None if batch.ob is None else batch.ob[row : row + 1, :steps]
        builder._gt = None if batch.gt is None else batch.gt[row : row + 1, :steps]
        builder._mask = batch.mask[row : row + 1, :steps]
        builder.start_t = {name: values[row] for name, values in self.start_t.items()}
        builder.end_t = {name: values[row] for name, values in self.end_t.items()}
        builder.tmax_ms = self.tmax[row]
        builder.trial = {key: column[row : row + 1] for key, column in batch.trial.items()}
        return builder
