"""TrialEnv: the task-authoring contract (see ``docs/architecture.md`` §4-§6)."""

from __future__ import annotations

import math
import operator
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, SupportsFloat

import gymnasium as gym
import numpy as np

from neurogym._deprecation import (  # 2.3.1's seed() and RandomState names
    OwnGenerator,
    RemovedAttributeHints,
    as_task_generator,
)
from neurogym._env.actions import checked_action, discrete_bounds, small_box_shape
from neurogym._env.authoring import AuthoringMixin
from neurogym._env.current import OBNOW, CurrentTrial, LazyTrial, gt_at
from neurogym._env.metadata import metadata_of
from neurogym._env.overrides import Overrides
from neurogym._env.prefetch import (
    BLOCK,
    TrialPool,
    refuse_prefetch_assignment,
    refuse_prefetch_setting,
)
from neurogym._env.rewards import RewardsAndTiming
from neurogym._env.rulestep import RuleStepping
from neurogym._env.settings import ClassDefault, Configurable, EnvSetting, given_arguments
from neurogym._trials.batch import refuse_empty_trials
from neurogym._trials.builder import BatchBuilder, TrialBatch
from neurogym._trials.durations import trial_length_stats
from neurogym._trials.stack import loop_trials
from neurogym._trials.variables import RecordOnly, check_forced_finite, kept_forced
from neurogym.rules import StandardDecision

__all__ = ["OBNOW", "EmptyPeriodWarning", "TrialEnv"]


_index = operator.index  # int(action) for Python and numpy integers and 0-d int arrays
_isfinite = math.isfinite


def _is_positive_number(value: object) -> bool:
    return (
        isinstance(value, (int, float, np.integer, np.floating))
        and not isinstance(value, bool)
        and bool(value > 0)
    )


class EmptyPeriodWarning(UserWarning):
    """A period with a positive timing spec lasts less than one step at this ``dt``."""


class TrialEnv(
    Configurable,
    AuthoringMixin,
    RuleStepping,
    RewardsAndTiming,
    RemovedAttributeHints,
    OwnGenerator,
    gym.Env[np.ndarray, Any],
):
    """Base class of trial-based tasks.

    Subclasses set, in ``__init__``: ``observation_space`` and ``action_space`` (ideally
    :mod:`neurogym.spaces` with named dims), ``timing`` (period name to spec), ``rewards``,
    and write **one** of

    * ``_new_trials(self, b, **kwargs) -> dict``: batch-native generation with a
      :class:`~neurogym._trials.builder.BatchBuilder` (fast, serves single envs and batches), or
    * ``_new_trial(self, **kwargs) -> dict``: upstream-style per-trial generation,

    and either declare ``rule = StandardDecision(...)`` or write ``_step(action)``.

    A task's ``__init__`` calls ``super().__init__()``: without arguments it passes on the
    task's own ``dt`` argument (100 ms if it has none) and, if the class declares
    ``default_rewards``/``default_timing``, its ``rewards``/``timing`` arguments
    (:func:`~neurogym._env.settings.given_arguments`); with any of them given, only those.

    Args:
        dt: Step size in ms.
        r_tmax: Reward added when a trial times out.
        rewards: Overrides of ``default_rewards``.
        timing: Overrides of ``default_timing``.

    Attributes:
        rng: The env's ``numpy.random.Generator`` (gymnasium's ``np_random``); every draw of
            the task uses it and ``reset(seed=s)`` re-seeds it.
        max_episode_steps: Truncate the episode after this many steps (None: never).
        trials_per_episode: Terminate the episode after this many trials (None: never).
    """

    # Rendering only: a task's paper, tags and description live in its TaskSpec, and each env
    # gets them in its own ``metadata`` (TaskSpec.make, or the lookup in __init__).
    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012  (gymnasium: a class attribute)
    if TYPE_CHECKING:
        rule: StandardDecision | None
        abort: bool
        observation_space: gym.spaces.Space[Any]
        action_space: gym.spaces.Space[Any]
    else:
        rule = ClassDefault("rule")
        """The declarative step rule; a class attribute, or set per instance in ``__init__``."""
        abort = EnvSetting("abort")
        """Whether breaking fixation ends the trial (the rule's ``abort`` outcome)."""
        observation_space = EnvSetting("observation_space")
        action_space = EnvSetting("action_space")
    # The supervised-data contract (neurogym._env.contract; check_task verifies it):
    has_groundtruth: bool = True
    """Trials define a target action; if False, ``neurogym.batch``/``Dataset`` raise (RL only)."""
    agent_dependent_dims: tuple[str, ...] = ()
    """Named observation dims that stepping writes from the agent's actions (``post_step``);
    batches hold them as the trial builder wrote them."""
    strict_criterion: str | None = None
    """How ``neurogym_apps.train.evaluate`` scores a trial strictly: ``"fixate-then-respond"`` (the
    fixation action on every step before the response, i.e. while the ground truth is the
    fixation action, then ``performance`` 1: Yang et al.'s criterion plus held fixation) or
    ``"performance"`` (the env's own ``performance``: timing, reaching, value-based tasks).
    None derives it: fixate-then-respond when the action space names a ``fixation`` action and
    trials have a ground truth, else performance."""
    response_period: str = "decision"
    """The period of the answer: chance's guessing policy (``evaluate``) fixates until then."""
    guess_responses: tuple[int, ...] | None = None
    """The actions that guess picks from (None: every action but fixation; 0 may be one)."""
    guess_earlier: Mapping[str, tuple[int, ...]] | None = None
    """Answers a trial asks for before ``response_period``: period name to the actions a guess
    draws one from there (None: none; HierarchicalReasoning's rule in ``rule_target``)."""
    cross_trial_state: bool = False
    """Trial generation depends on earlier trials (curricula, blocks): batches are consecutive
    trials of one env, and the task must not prefetch."""
    _overrides: ClassVar[Overrides] = Overrides()
    """Which of :data:`TRACKED` the class overrides (see :mod:`neurogym._env.overrides`)."""
    # The attributes ``step`` and the trial boundary read or write, as slots: CPython 3.11
    # reads and writes a slot faster than a key of the instance dict (a plain dict: see the
    # end of __init__). Configuration (public names a trial depends on) stays in the
    # instance dict, where the prefetch pool's checks look for it. ``_holder``
    # is the trial wrapper serving this task's next trial, only during that wrapper's
    # ``step`` or ``reset`` call (None otherwise): while it is set, the task leaves the next
    # trial at a trial boundary and in ``reset`` to it (docs/architecture.md §8).
    __slots__ = (
        "_action_bounds", "_batch_native", "_config_version", "_current", "_default_ob_value",
        "_default_tmax", "_episode_steps", "_holder", "_np_random", "_outcomes",
        "_plain_post_step", "_pool", "_reset_done", "_small_box", "_steps_by_rule",
        "_trials_done", "max_episode_steps", "num_tr", "performance", "t_ind",
        "trials_per_episode",
    )  # fmt: skip
    TRACKED: ClassVar[tuple[str, ...]] = (
        "_new_trials", "_step", "step", "post_step", "new_trial",
    )  # fmt: skip
    """Methods whose overriding decides a path: ``_new_trials`` (batch-native generation),
    the rest (not steppable by the native vector env, ``neurogym.vector.native_obstacle``)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._overrides = Overrides.of(cls, TrialEnv, TrialEnv.TRACKED)
        refuse_prefetch_setting(cls)
        if "render_modes" not in cls.metadata:
            cls.metadata = {"render_modes": [], **cls.metadata}

    def __init__(
        self,
        dt: float | None = None,
        r_tmax: float = 0,
        *,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        if dt is None and rewards is None and timing is None:  # a bare super().__init__()
            dt, rewards, timing = given_arguments(self)
        elif dt is None:
            dt = 100
        self._np_random = None  # gymnasium's (a class attribute of gym.Env; here a slot)
        cls = type(self)
        # The per-step and per-trial paths' switches, from the class's record of overrides,
        # and cross_trial_state, kept on the instance: CPython 3.11 specialises reads of
        # instance attributes, not of class attributes read through an instance (about 200
        # instructions each). (``rule`` is a ClassDefault setting: read through it.)
        overrides = cls._overrides
        self._batch_native = "_new_trials" in overrides
        self._steps_by_rule = "_step" not in overrides
        self._plain_post_step = "post_step" not in overrides
        self.cross_trial_state = cls.cross_trial_state
        self._config_version = 0
        self.ob_now = OBNOW
        self.metadata = metadata_of(cls)
        if not _is_positive_number(dt) or not np.isfinite(dt):
            raise ValueError(f"dt must be a finite number of ms > 0, got {dt!r}")
        self.dt = dt
        self.r_tmax = r_tmax
        self.t_ind = 0
        self._default_tmax: float = 10000
        self.num_tr = 0
        self.performance: float = 0
        self._configure(rewards, timing)  # default_rewards / default_timing, then overrides
        self.abort = False
        self._current = CurrentTrial.empty_trial(dt, self._default_tmax)
        self._default_ob_value: float | None = None
        self._pool: TrialPool | None = None
        self._outcomes: tuple[Any, ...] = (None,)  # (config_version, the rule's outcome table)
        self._warned_periods: set[str] = set()
        self.max_episode_steps: int | None = None
        self.trials_per_episode: int | None = None
        self._action_bounds: tuple[int, int] | None = None  # Discrete bounds, set by reset
        self._small_box: tuple[int, ...] | None = None  # a small Box's shape, set by reset
        self._holder: Any = None  # the serving trial wrapper (see __slots__)
        self._reset_done = False
        self._episode_steps = 0
        self._trials_done = 0
        # A plain (combined) dict: CPython 3.11 cannot specialise attribute reads on a key-sharing
        # dict once it is materialised (``vars(env)``, the rewards descriptor), nor method loads
        # on either: the per-step and per-trial paths call ``type(self).method(self, ...)``.
        self.__dict__ = dict(self.__dict__)

    # ------------------------------------------------------------------ properties
    @property
    def rng(self) -> np.random.Generator:
        """The env's generator (gymnasium's ``np_random``), re-seeded by ``reset(seed=...)``.

        A :class:`~neurogym._deprecation.TaskGenerator` when the env made it: a numpy
        ``Generator`` that also answers 2.3.1's ``RandomState`` names (``rand``, ``randint``,
        ...) with a warning. A generator assigned to ``rng``/``np_random`` is used as it is.
        """
        generator = self._np_random
        return self.np_random if generator is None else generator

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self.np_random = value

    def _generator_replaced(self) -> None:
        self._pool = None  # the next trial is the new generator's

    ob_now: str = OBNOW
    """Sentinel for ``_step`` to return: ``step`` replaces it by the next observation (set on
    the instance too: a hand-written ``_step`` reads it on every step)."""

    @property
    def batch_native(self) -> bool:
        """Whether the task generates trials with ``_new_trials`` (batch-native)."""
        return self._batch_native

    # ------------------------------------------------------------------ trial generation
    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        """Builds ``b.n`` trials at once (override in batch-native tasks)."""
        raise NotImplementedError

    def ideal_observer(self, batch: Any) -> np.ndarray | None:
        """Per trial of ``batch``, the probability that an ideal observer answers correctly.

        The ceiling of what any network can score strictly on the task's inputs (the
        learnability table's ceiling). The default, None, says the inputs determine every
        answer, so an agent playing the ground truth scores the ceiling. Tasks whose inputs
        leave answers undetermined (noise, a zero coherence, a hidden context) override it:
        ``batch`` is a numpy :class:`~neurogym.data.TrainingBatch` of the task's trials
        (:meth:`~neurogym.data.TrainingBatch.period_sum` gives a period's summed evidence);
        the observer may know every trial variable except the answer, so its score bounds
        what a network can reach from above.
        """
        del batch
        return None

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
        if not kwargs and self._batch_native and not self.cross_trial_state:
            current = type(self)._trial_from_pool(self)
        else:  # a refused forced value raises here, leaving the current trial as it was
            current = type(self)._built_trial(self, kwargs)
        self._current = current
        self.num_tr += 1
        assert current.trial is not None
        return current.trial

    def _built_trial(self, kwargs: dict[str, Any]) -> CurrentTrial:
        """One trial generated on its own (one builder pass of one trial)."""
        if self._batch_native:
            builder = BatchBuilder(self, 1, kwargs)
            recorded = builder.record(type(self)._new_trials(self, builder, **kwargs))
            trial = {key: value[0] for key, value in recorded.items()}
            built = LazyTrial.built(builder, trial, self._default_tmax)
            return type(self)._with_arrays(self, built)
        # upstream-style: the verbs write into the current trial (its builder: the first verb)
        plain = kwargs
        if kwargs:
            check_forced_finite(kwargs)
            plain = {k: v.value if isinstance(v, RecordOnly) else v for k, v in kwargs.items()}
        previous = self._current
        current = self._current = CurrentTrial(self.dt, self._default_tmax, previous.trial)
        try:  # (an empty ** costs a dict: most trials force nothing)
            trial = type(self)._new_trial(self, **plain) if plain else type(self)._new_trial(self)
        finally:
            self._current = previous
        current.trial = kept_forced(type(self).__name__, plain, trial) if plain else trial
        if current._builder is not None:
            return type(self)._with_arrays(self, current)
        if self.rule is not None:  # no verb: no periods, no arrays (a bandit)
            self._derive_step_tables(current)  # (a fresh trial's tables are already empty)
        return current

    def _with_arrays(self, current: CurrentTrial) -> CurrentTrial:
        """A trial whose builder holds its arrays and periods, with its step tables."""
        builder = current._builder
        assert builder is not None
        current.view_arrays()
        if builder.start_t and builder.steps < 1:  # a trial defined by periods has steps
            refuse_empty_trials(self, builder.steps, list(builder.start_t), self.dt)
        type(self)._derive_step_tables(self, current)
        return current

    def _trial_from_pool(self) -> CurrentTrial:
        pool = self._pool
        if pool is None or pool.next >= pool.size or pool.version != self.config_version:
            pool = self._pool = TrialPool.generate(self, BLOCK)
        return CurrentTrial.from_pool(pool, pool.take(), self.dt)

    def _derive_step_tables(self, current: CurrentTrial) -> None:
        """The per-step period codes of the declared rule, which ``step`` reads."""
        rule = self.rule
        if rule is None:
            current.codes = None
            return
        if not isinstance(rule, StandardDecision):
            raise TypeError(
                f"{type(self).__name__}.rule is reserved for the declarative step rule "
                f"(a neurogym.StandardDecision or None), got {rule!r}; store task state "
                "under another attribute name"
            )
        steps = round(current.tmax / self.dt)
        current.codes = rule.codes(current.start_t, current.end_t, steps, self.dt)

    @property
    def prefetch(self) -> int:
        """Trials a single env draws at once (``BLOCK``, or 1 with cross-trial state)."""
        return BLOCK if self._batch_native and not self.cross_trial_state else 1

    @prefetch.setter
    def prefetch(self, value: Any) -> None:  # a precise error, not "no setter"
        refuse_prefetch_assignment(self, value)

    def discard_prefetched(self) -> None:
        """Drops prefetched trials, as any change of the env's configuration does itself."""
        self._pool = None

    def refresh_trial(self) -> None:
        """Re-derives the current trial's step tables after its periods or length were edited.

        A declarative ``rule``'s period codes come from ``start_t``/``end_t``/``tmax``: code
        that moves a period or sets ``tmax`` during a trial (``ReactionTime``) calls this.
        Edits of ``env.ob``/``env.gt`` need no call (architecture §5: read live).
        """
        self._derive_step_tables(self._edited())

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

        During a trial wrapper's ``reset`` (``_holder``), the first trial is left to it.

        Returns:
            The first trial's first observation (no hidden step) and an empty info dict.
        """
        super().reset(seed=seed)
        if seed is not None:  # the same stream, with 2.3.1's RandomState names
            self._np_random = as_task_generator(self.np_random)
        self._action_bounds = discrete_bounds(self.action_space)
        self._small_box = small_box_shape(self.action_space)
        self._reset_done = True
        if seed is not None:
            self._pool = None  # a new stream: else the trials just go on
        self._current = CurrentTrial.empty_trial(self.dt, self._default_tmax)
        self.num_tr = 0
        self.t_ind = 0
        self.performance = 0
        self._episode_steps = 0
        self._trials_done = 0
        if self._holder is not None:  # a placeholder: the holder serves the first trial
            space = self.observation_space
            return np.zeros(space.shape or (), dtype=space.dtype), {}
        self.new_trial()
        return self.current_observation(), {}

    def current_observation(self) -> np.ndarray:
        """The observation at the current step of the current trial (a copy).

        What ``reset`` returns, and what a trial wrapper returns at a trial boundary it
        generated. Tasks whose ``post_step`` changes observations override it to match.
        """
        current = self._current
        if current.ob is None or current.ob.shape[0] == 0:
            return self.initial_observation()
        ob: np.ndarray = current.ob[self.t_ind].copy()
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
            RuntimeError: If the task has no current trial (never reset).
        """
        bounds = self._action_bounds
        if bounds is None:  # a Box space, or not reset yet
            if not (  # a small finite float array of a 1-d Box space's shape passes inline
                type(action) is np.ndarray
                and action.shape == self._small_box
                and action.dtype.kind == "f"
                and _isfinite(sum(action.tolist()))  # NaN and inf propagate (overflow: below)
            ):
                action = checked_action(self, action)
        else:  # Discrete: an integer in range (Python, numpy, 0-d array) goes on as an int
            try:
                index = _index(action)
            except TypeError:
                index = bounds[1]  # not an integer: the check below names the problem
            action = index if bounds[0] <= index < bounds[1] else checked_action(self, action)
        current = self._current
        if current.empty:
            raise self._no_trial_error()
        codes = current.codes
        if codes is not None and self._steps_by_rule:  # the declared rule, inline
            t_ind = self.t_ind
            if not codes[t_ind] or action == self.rule.fixation_action:  # type: ignore[union-attr]
                reward, new_trial = 0.0, False  # most steps: _rule_step's first exit, inlined
            else:
                reward, new_trial = self._rule_step(action, current, t_ind)
            ob: Any = OBNOW
            terminated = truncated = False
            info: dict[str, Any] = {"new_trial": new_trial}
        else:
            if type(current) is LazyTrial:  # its first step: plain attributes from now on
                current = self._current = current.plain()
            ob, reward, terminated, truncated, info = type(self)._step(self, action)
            new_trial = info.setdefault("new_trial", False)
            t_ind = self.t_ind
        gt = current.gt
        if gt is not None and "gt" not in info:  # a Python number, or a row of a vector gt
            info["gt"] = gt_at(gt, t_ind)
        self.t_ind = t_ind = t_ind + 1  # t (ms) is t_ind * dt, a property
        if not new_trial and t_ind >= current.end_step:  # the next step would pass tmax
            info["new_trial"] = new_trial = True
            reward += self.r_tmax
            if current.codes is not None and self._steps_by_rule:  # the rule's timeout
                reward += self._rule_timeout(action, current, t_ind - 1)
        if new_trial:
            terminated = type(self)._end_trial(self, info) or terminated
            current = self._current
            t_ind = 0
        if ob is OBNOW:  # the next trial's first (held: the holder's trial replaces it)
            if current.ob is None:
                raise self._no_ob_error()
            ob = current.ob[t_ind].copy()
        if self.max_episode_steps is not None:
            self._episode_steps += 1
            truncated = truncated or self._episode_steps >= self.max_episode_steps
        if self._plain_post_step:
            result = ob, reward, terminated, truncated, info
        else:
            try:
                result = self.post_step(ob, reward, terminated, truncated, info)
            except BaseException:
                if new_trial:  # a failed trial boundary: no trial goes on (none is replayed)
                    self._current.end_boundary()
                raise
        if new_trial and self._holder is not None:
            # the holder serves the next trial as soon as this step returns
            self._current.end_boundary()
        return result

    def _no_ob_error(self) -> RuntimeError:
        return RuntimeError(
            f"{type(self).__name__}._step returned ob_now but the trial has no ob array"
        )

    def _no_trial_error(self) -> RuntimeError:
        if self._current.failed:
            return RuntimeError(
                f"{type(self).__name__} has no current trial: the last trial boundary failed "
                "(generating the next trial or a post_step raised, see that exception); "
                "call reset() to start again"
            )
        return RuntimeError(
            f"{type(self).__name__} has no current trial: call reset() first (or again, if "
            "the trial wrapper serving its trials failed to generate the next one)"
        )

    def _end_trial(self, info: dict[str, Any]) -> bool:
        info["performance"] = self.performance
        info["trial"] = self._current.trial
        self.t_ind = 0
        self._trials_done += 1
        if self._holder is None:  # the ended trial is never current again, even if this fails
            self._current.end_boundary()
            type(self).new_trial(self)
        self.performance = 0
        limit = self.trials_per_episode
        return limit is not None and self._trials_done >= limit

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """One step of the task's logic; the default evaluates the declared ``rule``.

        ``step`` evaluates the rule itself (:meth:`_rule_step`) unless a subclass overrides
        this method; a subclass may call it through ``super()._step(action)``.
        """
        current = self._current
        if self.rule is None or current.codes is None:
            self._rule_outcomes(None)  # raises: no rule and no _step
        reward, new_trial = self._rule_step(action, current, self.t_ind)
        return OBNOW, reward, False, False, {"new_trial": new_trial}

    def post_step(
        self, ob: Any, reward: Any, terminated: bool, truncated: bool, info: dict[str, Any]
    ) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        """Hook applied to every step's result (identity by default)."""
        return ob, reward, terminated, truncated, info

    def render(self) -> None:
        """No rendering (``metadata["render_modes"]`` is empty); plot runs instead.

        :func:`neurogym_apps.plot.plot_env` (extra ``neurogym[plot]``) or ``neurogym plot ID``
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
        return trial_length_stats(self, num_trials)
