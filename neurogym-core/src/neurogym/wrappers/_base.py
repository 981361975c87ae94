"""``TrialWrapper``: the base of wrappers that take part in trial generation.

How it works (``docs/architecture.md`` §8): the trial wrapper whose ``step`` or ``reset`` is
called first in a chain *serves* the chain's next trial. For the duration of that one call it
holds the task that will be stepped (:func:`stepping_task`; for ``reset``, every task below
it): a held task leaves its next trial to its holder at a trial boundary and in ``reset``, and
a trial wrapper whose task is already held passes the call through. When the call returns, the
hold is released, the serving wrapper calls its own :meth:`TrialWrapper.new_trial` (which
passes the request down the chain, each wrapper adding what it does) and returns the new
trial's first observation. Nothing outlives the call: making, wrapping or unwrapping never
changes how the wrapped task or wrapper behaves on its own.
"""

from __future__ import annotations

from typing import Any, ClassVar, SupportsFloat

import gymnasium as gym

from neurogym._deprecation import WrapperHints
from neurogym._env.chain import iter_chain, stepping_task, tasks_below
from neurogym._env.env import TrialEnv
from neurogym._env.overrides import Overrides
from neurogym._trials.builder import TrialBatch
from neurogym._trials.stack import loop_trials

__all__ = [
    "TrialWrapper",
    "check_switchable",
    "observation_now",
    "require_trial_env",
    "stepping_task",
    "switcher_in",
    "tasks_below",
    "trial_source",
]


def require_trial_env(env: gym.Env[Any, Any], who: str) -> TrialEnv:
    task = env.unwrapped
    if not isinstance(task, TrialEnv):
        raise TypeError(
            f"{who} needs an env whose unwrapped task is a neurogym TrialEnv, got "
            f"{type(task).__name__} (from {env})"
        )
    return task


def trial_source(env: gym.Env[Any, Any]) -> TrialWrapper | TrialEnv:
    """The object that generates ``env``'s trials: its outermost trial wrapper, or its task.

    Step-level wrappers (gymnasium's or neurogym's) are skipped: they take no part in trial
    generation.

    Raises:
        TypeError: If the chain ends in something other than a ``TrialEnv``.
    """
    for link in iter_chain(env):
        if isinstance(link, TrialWrapper | TrialEnv):
            return link
    raise TypeError(f"{env} does not end in a neurogym TrialEnv (found {type(link).__name__})")


def _changes_observation(wrapper: gym.Wrapper[Any, Any, Any, Any]) -> bool:
    return (
        isinstance(wrapper, gym.ObservationWrapper)
        or bool(getattr(type(wrapper), "changes_observation", False))
        or wrapper.observation_space is not wrapper.env.observation_space
    )


def _shown_through(env: gym.Env[Any, Any]) -> list[gym.Wrapper[Any, Any, Any, Any]]:
    """The step wrappers between ``env`` and its trial source that change observations."""
    shown = []
    for link in iter_chain(env):
        if not isinstance(link, gym.Wrapper) or isinstance(link, TrialWrapper):
            break
        if _changes_observation(link):
            shown.append(link)
    return shown


def check_switchable(env: gym.Env[Any, Any], who: str, *, shown: bool = True) -> None:
    """Checks that ``who``, a trial wrapper, can generate ``env``'s trials.

    A trial wrapper returns the first observation of each trial it generates itself (the env
    was not stepped into it), computed by :func:`observation_now`. That works through trial
    wrappers (they implement ``current_observation``), through step wrappers that leave the
    observation alone, and through step wrappers that change it and say how with an
    ``observation(ob)`` method (neurogym's PassAction, PassReward and Noise, and gymnasium's
    ``ObservationWrapper``s), as NeuroGym 2.3.1's chains (``SideBias(PassAction(task))``) need.

    Args:
        env: The env ``who`` wraps.
        who: The trial wrapper's class name (for the message).
        shown: Whether such ``observation(ob)`` methods may show the first observation. An env
            switcher passes False for its envs: the newly active env's step wrappers did not
            see the step that ended the trial (its action and reward).

    Raises:
        TypeError: Naming a step wrapper that changes observations without ``observation``
            (with ``shown=False``: any step wrapper that changes observations).
    """
    for link in _shown_through(env):
        if not shown or not callable(getattr(link, "observation", None)):
            name = type(link).__name__
            raise TypeError(
                f"{who} cannot generate the trials of {env}: its step wrapper {name} changes "
                f"observations{'' if not shown else ' without an observation(ob) method'}, and "
                f"{who} returns the first observation of each trial it generates; apply {name} "
                f"outside the {who} (in neurogym.make(wrappers=[...]), list {name} after {who})"
            )
    require_trial_env(env, who)


def observation_now(env: gym.Env[Any, Any]) -> Any:
    """The observation ``env`` shows at the current step of its current trial.

    Used when an env becomes active at a trial boundary without having been stepped: the trial
    source's ``current_observation()``, passed through the ``observation(ob)`` of each step
    wrapper between them that changes observations. ``env`` must pass :func:`check_switchable`.
    """
    ob = trial_source(env).current_observation()
    for link in reversed(_shown_through(env)):  # innermost first, as a step would show it
        ob = link.observation(ob)
    return ob


class TrialWrapper(WrapperHints, gym.Wrapper[Any, Any, Any, Any]):
    """Base class of wrappers that change how trials are generated.

    Override :meth:`new_trial` to change the kwargs of the next trial, pick the env that
    generates it, or post-process the trial it returns (``self.task.ob`` / ``self.task.gt``),
    and call ``super().new_trial(**kwargs)`` (or ``self.source.new_trial``) to generate it::

        class AlwaysLeft(neurogym.TrialWrapper):
            def new_trial(self, **kwargs):
                kwargs["ground_truth"] = 0
                return super().new_trial(**kwargs)

    The outermost trial wrapper of a chain generates every trial (at each trial boundary and
    in ``reset``), through :meth:`new_trial` down the chain, so each wrapper takes part
    wherever it sits. A subclass that overrides ``step`` or ``reset`` must call ``super()``'s
    (that is where the next trial is generated); one that changes the observation in ``step``
    must also override :meth:`current_observation`. Step wrappers between this wrapper and
    the task must leave observations alone (apply those outside it).

    Args:
        env: The env to wrap; ``env.unwrapped`` must be a :class:`~neurogym.TrialEnv`.

    Raises:
        TypeError: If ``env.unwrapped`` is not a ``TrialEnv``, or a step wrapper between this
            wrapper and the task changes observations.
    """

    _overrides: ClassVar[Overrides] = Overrides()
    """Which of ``new_trial`` and ``current_observation`` the class overrides (see
    :mod:`neurogym._env.overrides`): overriding ``new_trial`` makes batches loop it."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._overrides = Overrides.of(cls, TrialWrapper, ("new_trial", "current_observation"))

    def __init__(self, env: gym.Env[Any, Any]) -> None:
        who = type(self).__name__
        require_trial_env(env, who)
        check_switchable(env, who)
        super().__init__(env)
        self._source = trial_source(env)
        # the task every step reaches, unless an env switcher below picks it per step
        self._fixed_task: TrialEnv | None = None if switcher_in(env) else self.task

    @property
    def task(self) -> TrialEnv:
        """The wrapped task (``self.unwrapped``), typed as a ``TrialEnv``."""
        task = self.env.unwrapped
        assert isinstance(task, TrialEnv)  # checked in __init__
        return task

    @property
    def source(self) -> TrialWrapper | TrialEnv:
        """The next trial generator down the chain (a trial wrapper or the task)."""
        return self._source

    # ------------------------------------------------------------------ trial generation
    def new_trial(self, **kwargs: Any) -> dict[str, Any]:
        """Generates the next trial through the rest of the chain (override to take part).

        Args:
            **kwargs: Forced trial parameters, e.g. ``ground_truth=1``.

        Returns:
            The trial dict.
        """
        return self._source.new_trial(**kwargs)

    def new_trials(self, n: int, **kwargs: Any) -> TrialBatch:
        """Generates ``n`` trials at once, without changing the current trial.

        A wrapper that does not override :meth:`new_trial` passes the request down. Otherwise
        :meth:`new_trial` is called ``n`` times on the task (so wrapper state such as a block
        counter advances by ``n`` trials) and the trials are padded into one batch; override
        this method to draw the batch at once instead.

        Args:
            n: Batch size.
            **kwargs: Forced trial parameters: scalars or arrays with a leading axis of ``n``.

        Returns:
            The padded :class:`~neurogym.TrialBatch`.
        """
        if "new_trial" not in type(self)._overrides:
            return self._source.new_trials(n, **kwargs)
        switcher = switcher_in(self.env)
        if switcher is not None:
            raise NotImplementedError(
                f"{type(self).__name__} cannot build a batch: its trials come from the several "
                f"envs of {switcher}; call new_trials(n) on each env instead"
            )
        return self._loop_trials(n, kwargs)

    def _loop_trials(self, n: int, kwargs: dict[str, Any]) -> TrialBatch:
        return loop_trials(self.task, self.new_trial, n, kwargs)

    def current_observation(self) -> Any:
        """The observation this wrapper shows at the current step (see :func:`observation_now`)."""
        return observation_now(self.env)

    # ------------------------------------------------------------------ gymnasium API
    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Steps the wrapped env; at a trial boundary, serves the next trial (see the module).

        Unless a trial wrapper outside this one serves the chain's trials, this wrapper calls
        :meth:`new_trial` at a trial boundary and returns the new trial's first observation.
        """
        task = self._fixed_task or stepping_task(self.env)
        if task._holder is not None:  # an outer trial wrapper serves the next trial
            return self.env.step(action)
        task._holder = self
        try:
            ob, reward, terminated, truncated, info = self.env.step(action)
        finally:
            task._holder = None
        if info.get("new_trial"):
            self.new_trial()
            ob = self.current_observation()
        return ob, reward, terminated, truncated, info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Resets the wrapped env; unless an outer trial wrapper serves, serves the first trial.

        Returns:
            The first observation (:meth:`current_observation`) and the wrapped env's info.
        """
        self.reset_state()
        with Holding(tasks_below(self.env), self) as serving:
            ob, info = self.env.reset(seed=seed, options=options)
        if serving:
            self.new_trial()
            ob = self.current_observation()
        return ob, info

    def reset_state(self) -> None:
        """Forgets per-episode state before a reset (override; the default does nothing).

        State that needs random draws (a first block, a first previous choice) should be
        drawn lazily in the first ``new_trial`` after this, from ``self.task.rng``: the reset
        re-seeds that generator only after this method ran.
        """


class Holding:
    """Holds ``tasks`` for ``holder`` during a ``with`` block, unless they are held already.

    Entering returns True when this holder serves (no outer trial wrapper holds the tasks);
    leaving releases the hold it took, also when the block raises.
    """

    def __init__(self, tasks: list[TrialEnv], holder: Any) -> None:
        self.tasks = tasks
        self.serving = tasks[0]._holder is None
        self.holder = holder

    def __enter__(self) -> bool:
        if self.serving:
            for task in self.tasks:
                task._holder = self.holder
        return self.serving

    def __exit__(self, *exc: object) -> None:
        if self.serving:
            for task in self.tasks:
                task._holder = None


def switcher_in(env: gym.Env[Any, Any]) -> str | None:
    """The name of the first wrapper in ``env``'s chain that switches envs, if any."""
    for link in iter_chain(env):
        if isinstance(link, gym.Wrapper) and getattr(type(link), "switches_envs", False):
            return type(link).__name__
    return None
