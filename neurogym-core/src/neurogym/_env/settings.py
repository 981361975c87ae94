"""A task's settings: one source of truth, one version (``docs/architecture.md`` §4).

A task's settings are the arguments it was made with (recorded when its outermost
``__init__`` is called), its ``rewards`` and ``timing``, and the settings every task has:
``abort``, the declarative ``rule`` and its observation and action spaces.
After construction they change through one path each, never around it:

* **Constructor arguments.** ``env.sigma = 0.5`` (and ``vec.set_attr("sigma", 0.5)``,
  ``ScheduleAttr``, a curriculum) is :meth:`~neurogym.TrialEnv.configure`: the task is made
  again with the new argument, so the constructor's checks run (an invalid value raises and
  leaves the env as it was) and every value the constructor derives follows (``cohs`` from
  ``stim_scale``, the noise std from ``sigma`` and ``dt``, the spaces from ``dim_ring``).
* **Rewards and timing.** ``env.rewards["correct"] = 10``, ``env.timing["stimulus"] = 500``,
  their ``update()`` and assigning a whole dict (which updates the keys it names) are checked
  by those dicts (:class:`~neurogym._env.rewards.RewardDict`,
  :class:`~neurogym.timing.TimingDict`), which remember the edits: a later
  ``configure`` applies them again.
* ``abort``, ``rule`` (and ``hold_fixation``, which sets the rule's) and the spaces are
  checked when assigned; ``configure`` keeps ``hold_fixation``. (``r_tmax`` is read at
  every timeout: a plain attribute, which some tasks set per trial.)

What a setting holds is immutable: the lists in timing specs and the lists and arrays a task
stored from its arguments become read-only (:class:`~neurogym.validate.ReadOnlyList`, equal
to the list given, and read-only arrays), so ``env.cohs[0] = 5`` or
``env.timing["stimulus"][1][0] = 2000`` raise instead of being half seen.

Every change bumps the env's :attr:`~neurogym.TrialEnv.config_version`. What is derived from
the configuration (the prefetched trials, the rule's outcome table, the native vector env's
tables) records the version it was built at and is built again when the env's differs: it is
never compared with the configuration by content. The task's other attributes (its own state,
values it derives) are the task's business.
"""

from __future__ import annotations

import functools
import inspect
from typing import TYPE_CHECKING, Any

import numpy as np

from neurogym.validate import closest, frozen

if TYPE_CHECKING:
    from collections.abc import Callable

    from neurogym._env.env import TrialEnv

__all__ = [
    "PRESERVED",
    "Argument",
    "ClassDefault",
    "Configurable",
    "EnvSetting",
    "argument_names",
    "configured",
    "install_arguments",
    "install_class_defaults",
    "install_derived",
    "recording_init",
]

PRESERVED = ("metadata", "spec", "render_mode")
"""Instance attributes ``configure`` keeps: what gymnasium and the registry set after make."""


# ---------------------------------------------------------------------- constructor arguments
def _signature(cls: type) -> inspect.Signature:
    return _function_signature(cls.__init__)  # type: ignore[misc]


@functools.cache
def _function_signature(function: Callable[..., None]) -> inspect.Signature:
    return inspect.signature(function)


def argument_names(cls: type) -> tuple[str, ...]:
    """The names a task's constructor takes by keyword (its settings), in order."""
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    names = [p.name for p in _signature(cls).parameters.values() if p.kind in kinds]
    return tuple(names[1:])  # without self


def _accepts_any_keyword(cls: type) -> bool:
    kind = inspect.Parameter.VAR_KEYWORD
    return any(p.kind is kind for p in _signature(cls).parameters.values())


def _recorded(
    init: Callable[..., None], env: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """The arguments of one ``__init__`` call, by name (defaults included, ``**kwargs`` merged)."""
    signature = _function_signature(init)
    bound = signature.bind(env, *args, **kwargs)
    bound.apply_defaults()
    arguments: dict[str, Any] = {}
    for name, value in list(bound.arguments.items())[1:]:
        kind = signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_KEYWORD:
            arguments.update(value)
        elif kind is inspect.Parameter.VAR_POSITIONAL:
            if value:
                raise TypeError(
                    f"{type(env).__name__} was given extra positional arguments {value!r}: a "
                    "task's settings are named arguments"
                )
        else:
            arguments[name] = value
    return arguments


def recording_init(init: Callable[..., None]) -> Callable[..., None]:
    """``init``, which records its call's arguments and, as the outermost, seals the settings.

    Every task class's ``__init__`` records the arguments of its call while it runs (a bare
    ``super().__init__()`` passes on those of the ``__init__`` that calls it:
    :func:`given_arguments`). The outermost call, the one ``type(self).__init__`` names,
    also seals the env when it returns: the values the task stored under its arguments'
    names are frozen (:func:`frozen`), an argument it did not store is stored as given (so
    ``env.<argument>`` reads it back), the rewards and timing are sealed (later edits are
    remembered) and ``env._arguments`` is set, which ends construction: from then on
    assigning an argument is ``configure``.
    """

    @functools.wraps(init)
    def recorded_init(self: Any, *args: Any, **kwargs: Any) -> None:
        arguments = _recorded(init, self, args, kwargs)
        calls = self.__dict__.setdefault("_given", [])
        calls.append(arguments)  # (a subclass's call is below its parent's)
        try:
            init(self, *args, **kwargs)
        finally:
            calls.pop()
        if type(self).__init__ is recorded_init:  # the outermost call
            _seal(self, arguments)

    recorded_init._records_arguments = True  # type: ignore[attr-defined]
    return recorded_init


def given_arguments(env: Any) -> tuple[float, Any, Any]:
    """The ``dt``, ``rewards`` and ``timing`` a bare ``super().__init__()`` passes on.

    Those of the ``__init__`` that calls it (a subclass's values reach it only through its
    own call): its ``dt`` argument (100 ms if it has none), and its ``rewards`` and ``timing``
    arguments if the class declares ``default_rewards`` and ``default_timing`` (a task that
    builds its rewards or timing itself, as 2.3.1's tasks do, applies its arguments itself).
    """
    calls = env.__dict__.get("_given")
    given = calls[-1] if calls else {}
    cls = type(env)
    rewards = given.get("rewards") if cls.default_rewards else None
    timing = given.get("timing") if cls.default_timing else None
    return given.get("dt", 100), rewards, timing


def _seal(env: Any, arguments: dict[str, Any]) -> None:
    state = vars(env)
    state.pop("_given", None)
    state["_rescaled"] = tuple(
        name for name, value in arguments.items() if _rescaled(state.get(name), value)
    )
    for name, value in arguments.items():
        if name in ("rewards", "timing"):
            continue
        if name in state:
            state[name] = frozen(state[name])
        elif isinstance(inspect.getattr_static(env, name, None), Argument):
            state[name] = frozen(value)
    cls = type(env)
    if env._batch_native and not env.cross_trial_state and "_derived_settings" not in vars(cls):
        install_derived(cls, state)  # (prefetched trials are the only cache they feed)
    for name in getattr(cls, "_derived_settings", ()):
        if name in state:  # a derived table or list: read-only, like the arguments
            state[name] = frozen(state[name])
    env.rewards.seal()
    env._timing.sealed = True
    state["_arguments"] = arguments


def install_derived(cls: type, state: dict[str, Any]) -> None:
    """Puts an :class:`EnvSetting` on ``cls`` for each other public attribute its env holds.

    Called when the first env of a task that prefetches its trials is made (batch-native,
    without cross-trial state): the values it derives from its arguments (``cohs`` from
    ``stim_scale``, ``theta`` from ``dim_ring``) are settings too, in that assigning one
    after make bumps ``config_version``, so no prefetched trial made with the old value is
    served. (A task that keeps state across trials draws them one at a time: nothing is
    derived from its other attributes, which stay plain.)
    """
    declared = {*_framework_names(cls), "r_tmax"}  # (r_tmax: some tasks set it per trial)
    names = []
    for name in state:
        if name.startswith("_") or name in declared:
            continue
        defined = inspect.getattr_static(cls, name, None)
        if defined is None:
            setattr(cls, name, DerivedSetting(name))
        if defined is None or isinstance(defined, EnvSetting):
            names.append(name)
    cls._derived_settings = tuple(names)  # type: ignore[attr-defined]


def _rescaled(stored: Any, given: Any) -> bool:
    """Whether a task stored another number under an argument's name than it was given."""
    numbers = (int, float, np.integer, np.floating)
    if not isinstance(stored, numbers) or not isinstance(given, numbers):
        return False
    return isinstance(stored, bool) is isinstance(given, bool) and float(stored) != float(given)


class Argument:
    """A constructor argument of a task class: assigning it after make is ``configure``.

    Set-only (no ``__get__``): reads come from the instance dict (a generic attribute read:
    CPython 3.11 does not specialise reads of a name its class defines as a descriptor). An
    argument under whose name the task stores a number derived from it (``sigma``: as in
    NeuroGym 2.3.1, the per-step noise ``sigma / sqrt(dt)``) cannot be assigned, which would
    be ambiguous (``env.sigma *= 2``): ``configure`` changes the argument.
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __set__(self, env: TrialEnv, value: Any) -> None:
        state = env.__dict__
        if "_arguments" not in state:  # the constructor is running
            state[self.name] = value
            return
        if self.name not in state["_arguments"]:  # a subclass that fixes a parent's argument
            state[self.name] = value
            env._config_version += 1
            return
        if self.name in state["_rescaled"]:
            cls = type(env).__name__
            raise AttributeError(
                f"{cls}.{self.name} holds {state[self.name]!r}, which {cls} derives from its "
                f"argument {self.name}={state['_arguments'][self.name]!r} (as NeuroGym 2.3.1 "
                f"did), so assigning it is ambiguous: env.configure({self.name}=...) makes the "
                f"task again with a new argument {self.name}"
            )
        env.configure(**{self.name: value})


def install_arguments(cls: type) -> None:
    """Puts an :class:`Argument` on ``cls`` for each argument no base class defines otherwise.

    ``rewards`` and ``timing`` have their own checked paths, ``r_tmax`` is a plain attribute
    (read at every timeout; some tasks set it per trial); a name a class in the MRO already
    defines (a property with a setter, a method) keeps that definition.
    """
    for name in argument_names(cls):
        if name in ("rewards", "timing", "r_tmax") or name.startswith("_"):
            continue
        defined = inspect.getattr_static(cls, name, None)
        if (defined is None or isinstance(defined, Argument)) and name not in vars(cls):
            setattr(cls, name, Argument(name))


def install_class_defaults(cls: type) -> None:
    """Makes ``cls``'s public class-level values (``rule``, defaults) settings.

    Names the framework's classes declare (``metadata``, ``default_rewards``, ...) other than
    ``rule`` stay plain class attributes: they describe the task, they are not set per env.
    """
    if cls.__module__.startswith("neurogym._env"):  # TrialEnv and its mixins
        return
    declared = _framework_names(cls)
    for name, value in list(vars(cls).items()):
        if name.startswith("_") or isinstance(value, EnvSetting):
            continue
        if name != "rule" and (name in declared or _is_code(value)):
            continue
        setattr(cls, name, ClassDefault(name, value))


def _framework_names(cls: type) -> set[str]:
    """The names the framework's classes in ``cls``'s MRO define (TrialEnv, gymnasium, object)."""
    return {name for klass in cls.__mro__ if _is_framework(klass) for name in vars(klass)}


def _is_framework(klass: type) -> bool:
    return klass.__module__.startswith(("neurogym._env", "gymnasium")) or klass is object


def _is_code(value: Any) -> bool:
    kind = type(value)
    return callable(value) or hasattr(kind, "__get__") or hasattr(kind, "__set__")


class Configurable:
    """The settings half of :class:`~neurogym.TrialEnv`: ``config_version`` and ``configure``."""

    __slots__ = ()

    @property
    def config_version(self) -> tuple[int, int, int]:
        """The version of the task's configuration: changed by every change of a setting.

        Everything derived from the configuration (prefetched trials, the rule's outcome
        table, the native vector env's tables) records the version it was built at and is
        built again when this differs (``docs/architecture.md`` §4). A copy or an unpickled
        env has the same version as its original.
        """
        env: Any = self
        return (env._config_version, env.rewards.version, env._timing.version)

    def configure(self, **settings: Any) -> None:
        """Changes settings after make, as if the env had been made with them.

        The task is made again with its recorded constructor arguments and ``settings``
        over them, so the constructor's checks apply (an invalid value raises and leaves the
        env unchanged) and every value it derives follows (``stim_scale`` → ``cohs``).
        Edits of ``rewards`` and ``timing`` made since are applied again; ``rewards=`` and
        ``timing=`` update the keys they name. The current trial runs to its end; the next
        trial uses the new settings. Assigning an argument (``env.sigma = 0.5``) calls this.

        Args:
            **settings: Constructor arguments, ``rewards`` or ``timing`` by name.

        Raises:
            AttributeError: A name is not one of the task's settings (listing them).
        """
        configured(self, settings)  # type: ignore[arg-type]

    def _settings_changed(self) -> None:
        """Re-derives what ``step`` caches from the spaces after a setting changed."""
        from neurogym._env.actions import discrete_bounds, small_box_shape

        env: Any = self
        if env._reset_done:
            env._action_bounds = discrete_bounds(env.action_space)
            env._small_box = small_box_shape(env.action_space)


def configured(env: TrialEnv, changes: dict[str, Any]) -> None:
    """``env`` made again with ``changes`` to its constructor arguments (see ``configure``)."""
    cls = type(env)
    names = argument_names(cls)
    for name in changes:
        if name not in names and not _accepts_any_keyword(cls):
            valid = ", ".join(n for n in names) or "none"
            raise AttributeError(
                f"{cls.__name__} has no argument {name!r} to configure; its settings are its "
                f"constructor arguments ({valid}), rewards and timing{closest(name, names)}"
            )
    rewards = changes.pop("rewards", None)
    timing = changes.pop("timing", None)
    if changes:
        fresh = cls(**{**env.__dict__["_arguments"], **changes})
        fresh.rewards.update(env.rewards.edits)  # type: ignore[attr-defined]
        fresh.timing.update(env.timing.edits)
        state = {k: v for k, v in vars(fresh).items() if k not in PRESERVED}
        if rewards is not None:  # checked before anything of env changes
            fresh.rewards.update(rewards)
        if timing is not None:
            fresh.timing.update(timing)
        held = env.hold_fixation  # a setting of the env, not an argument: kept
        vars(env).update(state)
        if held and not env.hold_fixation:  # the task sets its rule in __init__
            env.hold_fixation = True
        env._config_version += 1
        env._settings_changed()
        return
    if rewards is not None and timing is not None:  # both checked before either changes
        env.rewards.copy().update(rewards)
        env.timing.copy().update(timing)
    if rewards is not None:
        env.rewards.update(rewards)
    if timing is not None:
        env.timing.update(timing)


# ---------------------------------------------------------------------- settings of every task
def _checked_abort(value: Any, env: Any) -> Any:
    from neurogym import validate

    return validate.boolean(value, f"{type(env).__name__}.abort")


def _checked_rule(value: Any, env: Any) -> Any:
    from neurogym.rules import StandardDecision

    if value is not None and not isinstance(value, StandardDecision):
        raise TypeError(
            f"{type(env).__name__}.rule is reserved for the declarative step rule "
            f"(a neurogym.StandardDecision or None), got {value!r}; store task state "
            "under another attribute name"
        )
    return value


def _checked_space(value: Any, env: Any) -> Any:
    from gymnasium.spaces import Space

    if not isinstance(value, Space):
        raise TypeError(
            f"a space of {type(env).__name__} must be a gymnasium Space, got {value!r}"
        )
    return value


_SPACES = ("observation_space", "action_space")
_CHECKS = {
    "abort": _checked_abort,
    "rule": _checked_rule,
    "observation_space": _checked_space,
    "action_space": _checked_space,
}


class EnvSetting:
    """A setting every task has (``abort``, its spaces) or a value a task derives.

    Plain while the env is made; afterwards checked (the first ones) and versioned.
    Set-only: reads come straight from the instance dict, where every env's constructor puts
    the value (``TrialEnv.__init__`` sets ``abort``; a task sets its spaces).
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __set__(self, env: Any, value: Any) -> None:
        state = env.__dict__
        arguments = state.get("_arguments")
        if arguments is None:  # the constructor is running
            state[self.name] = value
            return
        check = _CHECKS.get(self.name)
        state[self.name] = value = value if check is None else check(value, env)
        if self.name in arguments:  # a task's own argument too (``abort``): kept by configure
            arguments[self.name] = value
        env._config_version += 1
        if self.name in _SPACES:
            env._settings_changed()

    def __delete__(self, env: Any) -> None:
        try:
            del env.__dict__[self.name]
        except KeyError:
            raise AttributeError(self.name) from None
        if "_arguments" in env.__dict__:
            env._config_version += 1


class DerivedSetting(EnvSetting):
    """A value a prefetching task derives from its arguments (``cohs``): a versioned setting.

    Reads come from the instance dict; an env without the value (a subclass that deleted it)
    raises ``AttributeError``, as for a plain attribute.
    """

    __slots__ = ()

    def __get__(self, env: Any, owner: type) -> Any:
        if env is None:
            return self
        try:
            return env.__dict__[self.name]
        except KeyError:
            raise AttributeError(
                f"{type(env).__name__!r} object has no attribute {self.name!r}"
            ) from None


class ClassDefault(EnvSetting):
    """A setting declared at class level (``rule``, a task's class defaults).

    An :class:`EnvSetting` whose class-level value is the default of every env.
    """

    __slots__ = ("default",)

    def __init__(self, name: str, default: Any = None) -> None:
        super().__init__(name)
        self.default = default

    def __get__(self, env: Any, owner: type) -> Any:
        if env is None:
            return self.default
        return env.__dict__.get(self.name, self.default)
