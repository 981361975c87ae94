"""TrialEnv: the task-authoring contract (see ``docs/architecture.md`` §4-§6)."""

from __future__ import annotations

import copy
import operator
import warnings
from typing import TYPE_CHECKING, Any, ClassVar, SupportsFloat

import gymnasium as gym
import numpy as np

from neurogym._actions import checked_action, discrete_bounds
from neurogym._api import class_metadata
from neurogym._authoring import AuthoringMixin
from neurogym._batching import loop_trials
from neurogym._builder import BatchBuilder, TrialBatch
from neurogym._context import current_owner
from neurogym._keys import CheckedRewards
from neurogym._overrides import Overrides
from neurogym._prefetch import TrialPool
from neurogym._trialbatch import gt_by_step
from neurogym._variables import RecordOnly
from neurogym.rules import OutcomeTable, StandardDecision
from neurogym.timing import TimingDict

__all__ = ["OBNOW", "EmptyPeriodWarning", "TrialEnv"]

OBNOW = "ob_unknown_yet"
"""Sentinel returned by ``TrialEnv.ob_now``; ``step`` replaces it by the next observation."""


_index = operator.index  # int(action) for Python and numpy integers and 0-d int arrays


def _is_positive_number(value: object) -> bool:
    return (
        isinstance(value, (int, float, np.integer, np.floating))
        and not isinstance(value, bool)
        and bool(value > 0)
    )


class EmptyPeriodWarning(UserWarning):
    """A period with a positive timing spec lasts less than one step at this ``dt``."""


class TrialEnv(AuthoringMixin, gym.Env[np.ndarray, Any]):
    """Base class of trial-based tasks.

    Subclasses set, in ``__init__``: ``observation_space`` and ``action_space`` (ideally
    :mod:`neurogym.spaces` with named dims), ``timing`` (period name to spec), ``rewards``,
    and write **one** of

    * ``_new_trials(self, b, **kwargs) -> dict``: batch-native generation with a
      :class:`~neurogym._builder.BatchBuilder` (fast, serves single envs and batches), or
    * ``_new_trial(self, **kwargs) -> dict``: upstream-style per-trial generation,

    and either declare ``rule = StandardDecision(...)`` or write ``_step(action)``.

    Args:
        dt: Step size in ms.
        r_tmax: Reward added when a trial times out.

    Attributes:
        rng: The env's ``numpy.random.Generator`` (gymnasium's ``np_random``); every draw of
            the task uses it and ``reset(seed=s)`` re-seeds it.
        max_episode_steps: Truncate the episode after this many steps (None: never).
        trials_per_episode: Terminate the episode after this many trials (None: never).
    """

    # Rendering only: a task's paper, tags and description live in its TaskSpec, and each env
    # gets them in its own ``metadata`` (TaskSpec.make, or the lookup in __init__).
    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012  (gymnasium: a class attribute)
    prefetch: int = 1
    """Trials a batch-native task generates at once for a single env (see
    :mod:`neurogym._prefetch`); tasks whose generation keeps no cross-trial state opt in."""
    rule: StandardDecision | None = None
    """The declarative step rule; a class attribute, or set per instance in ``__init__``."""
    # The supervised-data contract (neurogym._contract; check_task verifies it):
    has_groundtruth: bool = True
    """Trials define a target action; if False, ``neurogym.batch``/``Dataset`` raise (RL only)."""
    agent_dependent_dims: tuple[str, ...] = ()
    """Named observation dims that stepping writes from the agent's actions (``post_step``);
    batches hold them as the trial builder wrote them."""
    optional_rewards: tuple[str, ...] = ()
    """Reward keys the task accepts in ``rewards=`` beyond its defaults (e.g. ``"fail"``)."""
    optional_timing: tuple[str, ...] = ()
    """Timing keys the task accepts in ``timing=`` beyond its defaults."""
    if TYPE_CHECKING:
        rewards: dict[str, float]
    else:
        rewards = CheckedRewards()
    cross_trial_state: bool = False
    """Trial generation depends on earlier trials (curricula, blocks): batches are consecutive
    trials of one env, and the task must not prefetch."""
    _overrides: ClassVar[Overrides] = Overrides()
    """Which of :data:`TRACKED` the class overrides (see :mod:`neurogym._overrides`)."""
    TRACKED: ClassVar[tuple[str, ...]] = (
        "_new_trials", "_step", "step", "post_step", "new_trial", "_next_trial",
    )  # fmt: skip
    """Methods whose overriding decides a path: ``_new_trials`` (batch-native generation),
    the rest (not steppable by the native vector env, ``neurogym.vector.native_obstacle``)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._overrides = Overrides.of(cls, TrialEnv, TrialEnv.TRACKED)
        if "render_modes" not in cls.metadata:
            cls.metadata = {"render_modes": [], **cls.metadata}

    def __init__(self, dt: float = 100, r_tmax: float = 0) -> None:
        super().__init__()
        self.metadata = class_metadata(type(self))
        if not _is_positive_number(dt) or not np.isfinite(dt):
            raise ValueError(f"dt must be a finite number of ms > 0, got {dt!r}")
        self.dt = dt
        self.r_tmax = r_tmax
        self.t: float = 0
        self.t_ind = 0
        self.tmax: float = 10000
        self._tmax: float = 0.0
        self.num_tr = 0
        self.performance: float = 0
        self.rewards = {}
        self._timing = TimingDict()
        self.abort = False
        self.trial: dict[str, Any] | None = None
        self.start_t: dict[str, float] = {}
        self.end_t: dict[str, float] = {}
        self.start_ind: dict[str, int] = {}
        self.end_ind: dict[str, int] = {}
        self._duration: dict[str, float] = {}
        self._default_ob_value: float | None = None
        self._builder: BatchBuilder | None = None
        self._pool: TrialPool | None = None
        self._pool_row: int | None = None
        self._ob_row: np.ndarray | None = None
        self._gt_row: np.ndarray | None = None
        self._gt_list: Any = []
        self._codes: list[int] = []
        self._outcomes: tuple[Any, ...] = (None,)  # rule, rewards version, abort, table
        self._has_gt = False
        self._warned_periods: set[str] = set()
        self.max_episode_steps: int | None = None
        self.trials_per_episode: int | None = None
        self._action_bounds: tuple[int, int] | None = None  # Discrete bounds, set by reset
        self._reset_done = False
        self._episode_steps = 0
        self._trials_done = 0

    # ------------------------------------------------------------------ properties
    @property
    def timing(self) -> TimingDict:
        """Period name to timing spec; validated when set (see :mod:`neurogym.timing`)."""
        return self._timing

    @timing.setter
    def timing(self, value: Any) -> None:
        timing = value if isinstance(value, TimingDict) else TimingDict(value)
        self._timing = timing.bind(self.dt, type(self).optional_timing, type(self).__name__)

    @property
    def rng(self) -> np.random.Generator:
        """The env's generator (gymnasium's ``np_random``), re-seeded by ``reset(seed=...)``."""
        return self.np_random

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self.np_random = value

    @property
    def ob(self) -> np.ndarray:
        """The current trial's observations, ``(T, *obs_shape)`` (allocated on first use)."""
        if self._ob_row is None:
            self._ob_row = self._current_builder().ob[0]
        return self._ob_row

    @property
    def gt(self) -> np.ndarray:
        """The current trial's ground truth, ``(T, *act_shape)`` (allocated on first use)."""
        if self._gt_row is None:
            self._gt_row = self._current_builder().gt[0]
        return self._gt_row

    @property
    def ob_now(self) -> str:
        """Sentinel for ``_step`` to return: ``step`` replaces it by the next observation."""
        return OBNOW

    @property
    def gt_now(self) -> Any:
        """The ground truth at the current step."""
        if self._gt_row is None:
            raise AttributeError(f"{type(self).__name__} sets no ground truth in this trial")
        return self._gt_row[self.t_ind]

    @property
    def batch_native(self) -> bool:
        """Whether the task generates trials with ``_new_trials`` (batch-native)."""
        return "_new_trials" in type(self)._overrides

    # ------------------------------------------------------------------ trial generation
    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        """Builds ``b.n`` trials at once (override in batch-native tasks)."""
        raise NotImplementedError

    def _new_trial(self, **kwargs: Any) -> dict[str, Any]:
        """Builds the next trial (override in upstream-style tasks)."""
        if self.batch_native:
            raise NotImplementedError(
                f"{type(self).__name__} is batch-native: it implements _new_trials(b, **kwargs), "
                "not _new_trial; call env.new_trial(**kwargs) for one trial or "
                "env.new_trials(n, **kwargs) for a batch"
            )
        raise NotImplementedError(
            f"{type(self).__name__} must implement _new_trials(b, **kwargs) or "
            "_new_trial(**kwargs)"
        )

    def new_trial(self, **kwargs: Any) -> dict[str, Any]:
        """Generates the next trial and makes it current.

        Args:
            **kwargs: Forced trial parameters, e.g. ``ground_truth=1``.

        Returns:
            The trial dict.
        """
        if not kwargs and self.prefetch > 1 and self.batch_native:
            return self._new_trial_from_pool()
        if kwargs:  # a forced value may be refused: the current trial must then stay intact
            saved, pool_row = self._save_trial_state(), self._pool_row
            try:
                return self._build_trial(kwargs)
            except BaseException:
                self._restore_trial_state(saved)
                self._pool_row = pool_row
                raise
        return self._build_trial(kwargs)

    def _build_trial(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        self._pool_row = None
        self._builder = builder = BatchBuilder(self, 1, kwargs)
        for attr in (self.start_t, self.end_t, self.start_ind, self.end_ind, self._duration):
            attr.clear()
        self._ob_row = self._gt_row = None
        self._tmax = 0.0
        if self.batch_native:
            recorded = builder.record(self._new_trials(builder, **kwargs))
            trial = {key: value[0] for key, value in recorded.items()}
            self._sync_periods()
        else:  # upstream-style tasks record every kwarg themselves
            plain = {k: v.value if isinstance(v, RecordOnly) else v for k, v in kwargs.items()}
            trial = self._new_trial(**plain)
        self.trial = trial
        self._load_current()
        self.num_tr += 1
        return trial

    def _new_trial_from_pool(self) -> dict[str, Any]:
        pool = self._pool
        if pool is None or not pool.usable(self):
            pool = self._pool = TrialPool.generate(self, self.prefetch)
        self._builder = None  # built on demand from the pool row (per-trial verbs in _step)
        self._pool_row = row = pool.take()
        pool.load(self, row)
        self.num_tr += 1
        assert self.trial is not None
        return self.trial

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self._pool is not None:  # copies hold new attribute objects: same configuration
            self._pool.rebind(self)
        self._rebind_rows()

    def _rebind_rows(self) -> None:
        """Make a copy's current-trial rows views of its builder's arrays again.

        Pickling and deep copies turn ``_ob_row``/``_gt_row`` (views of the builder's, or a
        prefetch pool's, arrays) into separate arrays, so an in-place edit of the copy's trial
        followed by :meth:`refresh_trial` (what ``ReactionTime`` does) would be lost. The
        copied rows, edits included, are written back and viewed again.
        """
        ob_row, gt_row = self._ob_row, self._gt_row
        if ob_row is None and gt_row is None:
            return
        built = self._builder is not None
        try:
            builder = self._current_builder()  # a pool row's builder views the pool's arrays
        except RuntimeError:  # no current trial
            return
        for name, row in (("_ob", ob_row), ("_gt", gt_row)):
            data = getattr(builder, name)
            if row is not None and data is not None and data[0].shape == row.shape:
                data[0] = row
        snapshot = isinstance(self._gt_list, list)
        self._refresh_rows()
        if snapshot:
            self._gt_list = gt_by_step(self._gt_row)
        if not built:
            self._builder = None  # as before the copy: built again on demand

    def discard_prefetched(self) -> None:
        """Drops prefetched trials: the next trial is generated from the current settings.

        Needed only after editing an attribute's contents in place (``env.cohs[0] = 5``);
        reassigning an attribute or changing ``timing`` is detected automatically.
        """
        self._pool = None

    def _load_current(self) -> None:
        builder = self._current_builder()
        self._refresh_rows()
        self._has_gt = builder._gt is not None
        gt = self._gt_row
        # Scalars as Python numbers (fast to compare); vector ground truths (Box actions) as
        # one array per step, as the action space holds them.
        self._gt_list = gt_by_step(gt)
        rule = self.rule
        if rule is not None:
            if not isinstance(rule, StandardDecision):
                raise TypeError(
                    f"{type(self).__name__}.rule is reserved for the declarative step rule "
                    f"(a neurogym.StandardDecision or None), got {rule!r}; store task state "
                    "under another attribute name"
                )
            steps = round(self.tmax / self.dt)
            self._codes = rule.codes(self.start_t, self.end_t, steps, self.dt)

    def refresh_trial(self) -> None:
        """Re-derives the per-step tables of the current trial after it was edited in place.

        ``step`` reads the reward/period codes of a declarative ``rule`` and the ground truth
        from tables built when the trial was generated. Code that edits the current trial's
        ``start_t``/``end_t``, ``tmax`` or the ``gt`` array afterwards (the ``ReactionTime``
        wrapper, a ``_step`` that moves a period) calls this so the edit takes effect.
        """
        self._load_current()

    def new_trials(self, n: int, **kwargs: Any) -> TrialBatch:
        """Generates ``n`` trials at once without changing the current trial.

        Args:
            n: Batch size.
            **kwargs: Forced trial parameters: scalars (all trials) or arrays whose first
                axis has length ``n`` (one per trial).

        Returns:
            The padded :class:`TrialBatch`.
        """
        if self.batch_native:
            builder = BatchBuilder(self, n, kwargs)
            return builder.finish(self._new_trials(builder, **kwargs))
        return self._loop_trials(n, kwargs)

    def _loop_trials(self, n: int, kwargs: dict[str, Any]) -> TrialBatch:
        return loop_trials(self, self.new_trial, n, kwargs)

    _STATE = (
        "trial", "_builder", "_ob_row", "_gt_row", "_gt_list", "_codes", "_has_gt",
        "_tmax", "tmax", "num_tr", "start_t", "end_t", "start_ind", "end_ind", "_duration",
    )  # fmt: skip

    def _save_trial_state(self) -> dict[str, Any]:
        return {name: copy.copy(getattr(self, name)) for name in self._STATE}

    def _restore_trial_state(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    def _next_trial(self) -> None:
        """Generates the next trial, through the outermost trial wrapper of this call if any.

        See :mod:`neurogym._context`: trial wrappers own trial generation during their
        ``step``/``reset`` calls without being stored on the env.
        """
        owner = current_owner()
        if owner is None:
            self.new_trial()
        else:
            owner.new_trial()

    def _warn_empty_period(self, period: str, spec: Any) -> None:
        if period not in self._warned_periods:
            self._warned_periods.add(period)
            warnings.warn(
                f"{type(self).__name__}: period {period!r} (timing {spec!r}) is shorter than "
                f"dt={self.dt} ms and is empty in some trials; lower dt or lengthen it",
                EmptyPeriodWarning,
                stacklevel=4,
            )

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts a new episode: seeds ``rng`` (if ``seed``) and generates the first trial.

        Returns:
            The first trial's first observation (no hidden step) and an empty info dict.
        """
        super().reset(seed=seed)
        self._action_bounds = discrete_bounds(self.action_space)
        self._reset_done = True
        self._pool = None
        self.num_tr = 0
        self.t = 0
        self.t_ind = 0
        self.performance = 0
        self._episode_steps = 0
        self._trials_done = 0
        self._next_trial()
        return self._current_observation(), {}

    def _current_observation(self) -> np.ndarray:
        if self._ob_row is None or self._ob_row.shape[0] == 0:
            return self.initial_observation()
        ob: np.ndarray = self._ob_row[self.t_ind].copy()
        return ob

    def initial_observation(self) -> np.ndarray:
        """Observation returned by ``reset`` for tasks that build no ob array (zeros)."""
        space = self.observation_space
        fill = 0 if self._default_ob_value is None else self._default_ob_value
        return np.full(space.shape or (), fill, dtype=space.dtype)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Advances one ``dt``; see ``docs/architecture.md`` §5 for the exact contract.

        Raises:
            gymnasium.error.ResetNeeded: If the env was never reset.
            neurogym.errors.InvalidActionError: If ``action_space.contains(action)`` is False.
        """
        bounds = self._action_bounds
        if bounds is None:  # a Box space, or not reset yet
            action = checked_action(self, action)
        else:  # Discrete: an integer in range (Python, numpy, 0-d array) goes on as an int
            try:
                index = _index(action)
            except TypeError:
                index = bounds[1]  # not an integer: the check below names the problem
            action = index if bounds[0] <= index < bounds[1] else checked_action(self, action)
        ob, reward, terminated, truncated, info = self._step(action)
        new_trial = info.setdefault("new_trial", False)
        t_ind = self.t_ind
        if self._has_gt and "gt" not in info:
            info["gt"] = self._gt_list[t_ind]
        self.t_ind = t_ind = t_ind + 1
        dt = self.dt
        self.t = t = t_ind * dt
        if not new_trial and t + dt > self.tmax + 1e-9 * dt:
            info["new_trial"] = new_trial = True
            reward += self.r_tmax
        if new_trial:
            terminated = self._end_trial(info) or terminated
        if ob is OBNOW:
            ob_row = self._ob_row
            if ob_row is None:
                raise RuntimeError(
                    f"{type(self).__name__}._step returned ob_now but the trial has no ob array"
                )
            ob = ob_row[self.t_ind].copy()
        if self.max_episode_steps is not None:
            self._episode_steps += 1
            truncated = truncated or self._episode_steps >= self.max_episode_steps
        return self.post_step(ob, reward, terminated, truncated, info)

    def _end_trial(self, info: dict[str, Any]) -> bool:
        info["performance"] = self.performance
        info["trial"] = self.trial
        self.t = 0
        self.t_ind = 0
        self._trials_done += 1
        self._next_trial()
        self.performance = 0
        limit = self.trials_per_episode
        return limit is not None and self._trials_done >= limit

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """One step of the task's logic; the default looks the step up in ``rule``'s table.

        The table is :meth:`StandardDecision.outcome_table` of the current ``rule``,
        ``rewards`` and ``abort``, built again whenever one of them changed. Its entries for
        NEUTRAL steps and for ``fixation_action`` are ``(0, False, False)`` whatever the
        configuration (``outcome_table``'s structure, pinned by a test): those steps, most of
        a trial, return without the lookup.
        """
        rule = self.rule
        t_ind = self.t_ind
        code = self._codes[t_ind] if rule is not None else None
        if not code or action == rule.fixation_action:  # type: ignore[union-attr]
            if code is None:
                self._rule_outcomes(rule)  # raises: no rule and no _step
            return OBNOW, 0.0, False, False, {"new_trial": False}
        cached, version = self._outcomes, self.rewards.version  # type: ignore[attr-defined]
        if cached[0] is not rule or cached[1] is not version or cached[2] is not self.abort:
            cached = self._rule_outcomes(rule)
        try:
            by_hit = cached[3][code][action == self._gt_list[t_ind]]
        except (IndexError, TypeError):  # no ground truth, or a live numpy one
            by_hit = cached[3][code][self._hits(action, t_ind)]
        reward, new_trial, correct = by_hit[True]
        if correct:
            self.performance = 1
        return OBNOW, reward, False, False, {"new_trial": new_trial}

    def _rule_outcomes(self, rule: StandardDecision | None) -> tuple[Any, ...]:
        """Builds (and caches) the outcome table of ``rule`` for the current configuration."""
        if rule is None:
            raise NotImplementedError(
                f"{type(self).__name__} must implement _step(action) or declare a rule"
            )
        rewards: Any = self.rewards
        abort = self.abort
        table: OutcomeTable = rule.outcome_table(rewards, abort)
        self._outcomes = cached = (rule, rewards.version, abort, table)
        return cached

    def _hits(self, action: Any, t_ind: int) -> bool:
        """Whether ``action`` equals the ground truth of step ``t_ind`` (False if it has none)."""
        gt = self._gt_list
        return t_ind < len(gt) and bool(action == gt[t_ind])

    def post_step(
        self, ob: Any, reward: Any, terminated: bool, truncated: bool, info: dict[str, Any]
    ) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        """Hook applied to every step's result (identity by default)."""
        return ob, reward, terminated, truncated, info

    def render(self) -> None:
        """No rendering (``metadata["render_modes"]`` is empty); plot runs instead.

        :func:`neurogym.plot.plot_env` (extra ``neurogym-core[plot]``) or ``neurogym plot ID``
        draws observations, actions against ground truth, rewards and performance.
        """
        return None

    def __str__(self) -> str:
        return f"<{type(self).__name__}>"

    # ------------------------------------------------------------------ statistics
    def trial_length_stats(self, num_trials: int = 10000) -> dict[str, float]:
        """Statistics of trial length in steps, from ``num_trials`` sampled trials.

        Samples on a copy of the env, so the env's generator and current trial are untouched.

        Returns:
            ``{"mean", "std", "percentile_95", "max"}`` in steps.
        """
        clone = copy.deepcopy(self)
        # Callable timing specs may close over *this* env's generator (upstream's lambdas):
        # put its state back afterwards, whatever the clone drew from it.
        saved_rng = copy.deepcopy(self.np_random.bit_generator.state)
        lengths = []
        remaining = num_trials
        while remaining > 0:
            n = min(remaining, 2048)
            lengths.append(clone.new_trials(n).lengths)
            remaining -= n
        self.np_random.bit_generator.state = saved_rng
        values = np.concatenate(lengths)
        return {
            "mean": float(values.mean()),
            "std": float(values.std()),
            "percentile_95": float(np.percentile(values, 95)),
            "max": float(values.max()),
        }
