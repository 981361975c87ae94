"""The per-trial authoring API of :class:`~neurogym.TrialEnv` (upstream NeuroGym semantics).

These methods act on the env's *current* trial. They serve upstream-style tasks that write
``_new_trial(**kwargs)`` and any task that edits its observation inside ``_step``. Under the
hood they drive the same :class:`~neurogym._builder.BatchBuilder` (with one trial) that
batch-native tasks use, so there is a single implementation of periods, ``where`` and
broadcasting.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from neurogym._builder import BatchBuilder, action_table
from neurogym._trial import PeriodArg, WhereArg, resolve_where
from neurogym._trialbatch import _to_steps

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["AuthoringMixin"]


class AuthoringMixin:
    """Per-trial verbs: ``add_period``, ``add_ob``, ``set_ob``, ``add_randn``, ...

    Values follow upstream's rule: they broadcast to ``(T_period, k)`` (``k`` selected dims),
    and a callable receives the selected view and returns the addend.
    """

    _builder: BatchBuilder | None
    _ob_row: np.ndarray | None
    _gt_row: np.ndarray | None
    _gt_list: Any
    start_t: dict[str, float]
    end_t: dict[str, float]
    start_ind: dict[str, int]
    end_ind: dict[str, int]
    _duration: dict[str, float]
    _tmax: float
    tmax: float
    dt: float
    t: float
    t_ind: int
    observation_space: Any
    action_space: Any

    def _current_builder(self) -> BatchBuilder:
        if self._builder is None:
            pool, row = getattr(self, "_pool", None), getattr(self, "_pool_row", None)
            if pool is None or row is None:
                raise RuntimeError("there is no current trial: call reset() or new_trial() first")
            self._builder = pool.row_builder(self, row)
        return self._builder

    def add_period(
        self,
        period: str | Sequence[str],
        duration: Any = None,
        before: str | None = None,
        after: str | float | None = None,
        last_period: bool = False,
    ) -> None:
        """Adds a period (or a chain of periods) to the current trial.

        Args:
            period: A name, or a list of names added one after the other.
            duration: ``None`` samples ``timing[period]`` (floored to ``dt``); else ms (not
                floored), or a list matching a list of periods.
            before: Name of a period this one ends at.
            after: Name of a period (or a time in ms) this one starts at; default 0.
            last_period: Ignored; kept for compatibility.
        """
        builder = self._current_builder()
        builder.add_period(period, duration, before=before, after=after, last_period=last_period)
        self._sync_periods()

    def _sync_periods(self) -> None:
        builder = self._current_builder()
        for name, start in builder.start_t.items():
            end = builder.end_t[name]
            self.start_t[name] = start = (
                float(start) if isinstance(start, float) else float(start[0])
            )
            self.end_t[name] = end = float(end) if isinstance(end, float) else float(end[0])
            self.start_ind[name] = _to_steps(start, self.dt)
            self.end_ind[name] = _to_steps(end, self.dt)
            self._duration[name] = end - start
        if builder.start_t:
            tmax = builder.tmax_ms
            self._tmax = float(tmax) if isinstance(tmax, float) else float(tmax[0])
            self.tmax = _to_steps(self._tmax, self.dt) * self.dt

    def _refresh_rows(self) -> None:
        builder = self._current_builder()
        self._ob_row = None if builder._ob is None else builder._ob[0]
        self._gt_row = None if builder._gt is None else builder._gt[0]
        # Ground truth written through the per-trial API (also inside _step) is read live by
        # step(); loading a trial replaces this with a fast list snapshot.
        self._gt_list = [] if self._gt_row is None else self._gt_row

    def add_ob(self, value: Any, period: PeriodArg = None, where: WhereArg = None) -> None:
        """Adds ``value`` to the current trial's observations of ``period`` at ``where``."""
        self._current_builder().add_ob(value, period, where, per_step=True)
        self._refresh_rows()

    def set_ob(self, value: Any, period: PeriodArg = None, where: WhereArg = None) -> None:
        """Sets the current trial's observations of ``period`` at ``where`` to ``value``."""
        self._current_builder().set_ob(value, period, where, per_step=True)
        self._refresh_rows()

    def add_randn(
        self, mu: float = 0.0, sigma: float = 1.0, period: PeriodArg = None, where: WhereArg = None
    ) -> None:
        """Adds ``mu + sigma * N(0, 1)`` noise (drawn from ``self.rng``)."""
        self._current_builder().add_randn(mu, sigma, period, where)
        self._refresh_rows()

    def set_groundtruth(
        self, value: Any, period: PeriodArg = None, where: WhereArg = None
    ) -> None:
        """Sets the current trial's ground truth of ``period``.

        With ``where`` on a Discrete action space, ``value`` indexes the named actions
        (``where="choice"`` maps ``k`` to ``action_space.name["choice"][k]``).
        """
        builder = self._current_builder()
        if where is not None and not self.action_space.shape:
            value = self._action_table(where)[np.asarray(value)]
            where = None
        builder.set_groundtruth(value, period, where, per_step=True)
        self._refresh_rows()

    def view_ob(self, period: str | None = None) -> np.ndarray:
        """A writable view of the current trial's observations (of one period)."""
        view: np.ndarray = self._current_builder().view_ob(period)[0]
        self._refresh_rows()
        return view

    def view_groundtruth(self, period: str | None = None) -> np.ndarray:
        """A writable view of the current trial's ground truth (of one period)."""
        builder = self._current_builder()
        gt: np.ndarray = builder.gt[0]
        self._refresh_rows()
        if period is None:
            return gt
        return gt[self._period_slice(period)]

    def _period_slice(self, period: str) -> slice:
        if period not in self.start_ind:
            raise KeyError(
                f"unknown period {period!r}; this trial's periods are {list(self.start_ind)}"
            )
        return slice(self.start_ind[period], self.end_ind[period])

    def in_period(self, period: str, t: float | None = None) -> bool:
        """Whether time ``t`` (ms; default: now) lies in ``period`` of the current trial."""
        now = self.t if t is None else t
        try:
            return self.start_t[period] <= now < self.end_t[period]
        except KeyError:
            raise KeyError(
                f"unknown period {period!r}; this trial's periods are {list(self.start_t)}"
            ) from None

    def _action_table(self, where: WhereArg) -> np.ndarray:
        """Action values named ``where`` (cached per space object); index it with choices."""
        space = self.action_space
        cache = self.__dict__.setdefault("_action_tables", {})
        hit = cache.get(where)
        if hit is None or hit[0] is not space:  # the space was replaced: resolve again
            hit = cache[where] = (space, action_table(where, space))
        table: np.ndarray = hit[1]
        return table

    def _where(self, where: WhereArg, space: str = "observation") -> Any:
        """Resolves a ``where=`` argument against the observation (or action) space.

        Results for names, ints and ranges are cached per space object (the cache entry keeps
        the space itself, so a replaced space is never served a stale index).
        """
        if where is None:
            return None
        target = self.observation_space if space == "observation" else self.action_space
        if not isinstance(where, (str, int, range)):
            return resolve_where(where, target, space)
        cache = self.__dict__.setdefault("_where_cache", {})
        key = (space, where)  # a range hashes by its start, stop and step
        hit = cache.get(key)
        if hit is None or hit[0] is not target:
            hit = cache[key] = (target, resolve_where(where, target, space))
        return hit[1]
