"""The per-trial authoring API of :class:`~neurogym.TrialEnv` (upstream NeuroGym semantics).

These methods act on the env's *current* trial. They serve upstream-style tasks that write
``_new_trial(**kwargs)`` and any task that edits its observation inside ``_step``. Under the
hood they drive the same :class:`~neurogym._trials.builder.BatchBuilder` (with one trial) that
batch-native tasks use, so there is a single implementation of periods, ``where`` and
broadcasting.
"""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from neurogym._env.current import gt_at
from neurogym._trials.builder import BatchBuilder, action_table
from neurogym._trials.where import PeriodArg, WhereArg, resolve_where

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from neurogym._env.current import CurrentTrial

__all__ = ["AuthoringMixin"]


class AuthoringMixin:
    """Per-trial verbs: ``add_period``, ``add_ob``, ``set_ob``, ``add_randn``, ...

    Values follow upstream's rule: they broadcast to ``(T_period, k)`` (``k`` selected dims),
    and a callable receives the selected view and returns the addend. Every verb acts on the
    env's one current trial (:class:`~neurogym._env.current.CurrentTrial`).
    """

    _current: CurrentTrial
    _default_tmax: float
    dt: float
    t_ind: int
    observation_space: Any
    action_space: Any

    @property
    def t(self) -> float:
        """Time within the current trial in ms, ``t_ind * dt``: the start of the current step.

        Set it to a whole number of steps (it sets ``t_ind``), as upstream's
        ``self.t = self.t_ind = 0`` does.
        """
        return self.t_ind * self.dt

    @t.setter
    def t(self, value: float) -> None:
        steps = value / self.dt
        t_ind = round(steps)
        if abs(steps - t_ind) > 1e-9 * max(1.0, abs(steps)):
            raise ValueError(
                f"t must be a whole number of steps of dt={self.dt} ms (t = t_ind * dt), got "
                f"{value!r}; set t_ind (the step index) instead"
            )
        self.t_ind = t_ind

    def _edited(self) -> CurrentTrial:
        """The current trial, for an authoring verb."""
        current = self._current
        if current.empty:
            raise RuntimeError("there is no current trial: call reset() or new_trial() first")
        return current

    # Upstream's per-trial names read the one current-trial object. The read-only ones are
    # attrgetter properties (no Python frame: as fast as a plain attribute, since ``_current``
    # is never None, just empty before the first trial).
    if TYPE_CHECKING:

        @property
        def trial(self) -> dict[str, Any] | None: ...
        @trial.setter
        def trial(self, value: dict[str, Any] | None) -> None: ...
        @property
        def start_t(self) -> dict[str, float]: ...
        @property
        def end_t(self) -> dict[str, float]: ...
        @property
        def start_ind(self) -> dict[str, int]: ...
        @property
        def end_ind(self) -> dict[str, int]: ...
        @property
        def tmax(self) -> float: ...
        @tmax.setter
        def tmax(self, value: float) -> None: ...

    else:

        def _set_trial(self, value: dict[str, Any] | None) -> None:
            self._edited().trial = value

        def _set_tmax(self, value: float) -> None:
            current = self._current
            current.set_tmax(value)
            if current.empty:  # before a trial: the length of trials that add no period
                self._default_tmax = value

        trial = property(
            attrgetter("_current.trial"),
            _set_trial,
            doc="The current trial's parameters (None before the first trial).",
        )
        start_t = property(
            attrgetter("_current.start_t"), doc="Period name to start time (ms), current trial."
        )
        end_t = property(
            attrgetter("_current.end_t"), doc="Period name to end time (ms), current trial."
        )
        start_ind = property(
            attrgetter("_current.start_ind"), doc="Period name to first step, current trial."
        )
        end_ind = property(
            attrgetter("_current.end_ind"),
            doc="Period name to the step after the period, current trial.",
        )
        tmax = property(
            attrgetter("_current.tmax"),
            _set_tmax,
            doc="The current trial's length in ms (a whole number of steps). Set before any "
            "trial, it is the length of trials that add no period (tasks without periods set "
            "it in __init__); set during a trial, it edits that trial (then call refresh_trial(), "
            "as for an edit of start_t/end_t).",
        )

    @property
    def ob(self) -> np.ndarray:
        """The current trial's observations, ``(T, *obs_shape)`` (allocated on first use).

        The trial's own array: an in-place edit during the trial takes effect at the next
        step (``step`` reads the trial's arrays and nothing else).
        """
        current = self._edited()
        if current.ob is None:
            return self.view_ob()
        return current.ob

    @property
    def gt(self) -> np.ndarray:
        """The current trial's ground truth, ``(T, *act_shape)`` (allocated on first use).

        The trial's own array: an in-place edit during the trial takes effect at the next
        step, in ``info["gt"]`` and in the scoring.
        """
        current = self._edited()
        if current.gt is None:
            return self.view_groundtruth()
        return current.gt

    @property
    def _has_gt(self) -> bool:
        """Whether the current trial sets a ground truth."""
        current = self._current
        return current.gt is not None

    @property
    def gt_now(self) -> Any:
        """The ground truth at the current step (as ``info["gt"]`` reports it).

        A Python number for a scalar ground truth, a row of ``gt`` for a vector one.
        """
        gt = self._current.gt
        if gt is None:
            raise AttributeError(f"{type(self).__name__} sets no ground truth in this trial")
        return gt_at(gt, self.t_ind)

    def _current_builder(self) -> BatchBuilder:
        """The one-trial builder of the current trial (a view of a prefetched row)."""
        return self._edited().builder(self)  # type: ignore[arg-type]

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
        current = self._edited()
        builder = current.builder(self)  # type: ignore[arg-type]
        builder.add_period(period, duration, before=before, after=after, last_period=last_period)
        current.sync_periods()

    def _arrays_written(self, write: Callable[[BatchBuilder], Any]) -> Any:
        """Runs ``write`` on the current trial's builder, then views its arrays again."""
        current = self._edited()
        result = write(current.builder(self))  # type: ignore[arg-type]
        current.view_arrays()
        return result

    def add_ob(self, value: Any, period: PeriodArg = None, where: WhereArg = None) -> None:
        """Adds ``value`` to the current trial's observations of ``period`` at ``where``."""
        self._arrays_written(
            lambda b: b.add_input(value, period, where, per_step=True, _what="add_ob")
        )

    def set_ob(self, value: Any, period: PeriodArg = None, where: WhereArg = None) -> None:
        """Sets the current trial's observations of ``period`` at ``where`` to ``value``."""
        self._arrays_written(
            lambda b: b.set_input(value, period, where, per_step=True, _what="set_ob")
        )

    def add_randn(
        self, mu: float = 0.0, sigma: float = 1.0, period: PeriodArg = None, where: WhereArg = None
    ) -> None:
        """Adds ``mu + sigma * N(0, 1)`` noise (drawn from ``self.rng``)."""
        self._arrays_written(lambda b: b.add_noise(mu, sigma, period, where))

    def set_groundtruth(
        self, value: Any, period: PeriodArg = None, where: WhereArg = None
    ) -> None:
        """Sets the current trial's ground truth of ``period``.

        With ``where`` on a Discrete action space, ``value`` indexes the named actions
        (``where="choice"`` maps ``k`` to ``action_space.name["choice"][k]``).
        """
        if where is not None and not self.action_space.shape:
            value = self._action_table(where)[np.asarray(value)]
            where = None
        self._arrays_written(
            lambda b: b.set_target(value, period, where, per_step=True, _what="set_groundtruth")
        )

    def view_ob(self, period: str | None = None) -> np.ndarray:
        """A writable view of the current trial's observations (of one period)."""
        view: np.ndarray = self._arrays_written(lambda b: b.view_input(period)[0])
        return view

    def view_groundtruth(self, period: str | None = None) -> np.ndarray:
        """A writable view of the current trial's ground truth (of one period)."""
        gt: np.ndarray = self._arrays_written(lambda b: b.gt[0])
        if period is None:
            return gt
        return gt[self._period_slice(period)]

    def _period_slice(self, period: str) -> slice:
        current = self._edited()
        start_ind = current.start_ind
        if period not in start_ind:
            raise KeyError(
                f"unknown period {period!r}; this trial's periods are {list(start_ind)}"
            )
        return slice(start_ind[period], current.end_ind[period])

    def in_period(self, period: str, t: float | None = None) -> bool:
        """Whether time ``t`` (ms; default: now) lies in ``period`` of the current trial."""
        now = self.t_ind * self.dt if t is None else t  # self.t, without the property call
        current = self._current
        try:
            return current.start_t[period] <= now < current.end_t[period]
        except KeyError:
            raise KeyError(
                f"unknown period {period!r}; this trial's periods are {list(current.start_t)}"
            ) from None

    def _action_table(self, where: WhereArg) -> np.ndarray:
        """Action values named ``where`` (cached per space object); index it with choices."""
        space = self.action_space
        cache = self.__dict__.setdefault("_action_tables", {})
        key = tuple(where) if isinstance(where, list) else where  # a list of names: hashable
        hit = cache.get(key)
        if hit is None or hit[0] is not space:  # the space was replaced: resolve again
            hit = cache[key] = (space, action_table(where, space))
        table: np.ndarray = hit[1]
        return table

    def _where(self, where: WhereArg, space: str = "observation") -> Any:
        """Resolves a ``where=`` argument against the observation (or action) space.

        Results for names, ints, ranges and lists or tuples of names or ints are cached per
        space object (the cache entry keeps the space itself, so a replaced space is never
        served a stale index).
        """
        if where is None:
            return None
        target = self.observation_space if space == "observation" else self.action_space
        if isinstance(where, (str, int, range)):
            key: Any = (space, where)  # a range hashes by its start, stop and step
        elif isinstance(where, (list, tuple)) and all(type(w) in (str, int) for w in where):
            key = (space, type(where), *where)
        else:
            return resolve_where(where, target, space)
        cache = self.__dict__.setdefault("_where_cache", {})
        hit = cache.get(key)
        if hit is None or hit[0] is not target:
            hit = cache[key] = (target, resolve_where(where, target, space))
        return hit[1]
