"""Reward and timing keys: a task accepts the keys it declares, and nothing else.

A task declares its defaults as class attributes (``default_rewards = {...}``,
``default_timing = {...}``) and passes the user's ``rewards=`` and ``timing=`` on to
``TrialEnv.__init__``, which starts from the defaults and applies the overrides through
``update()`` (:class:`RewardsAndTiming`). Upstream-style code that assigns ``self.rewards =
{...}`` and calls ``self.rewards.update(rewards)`` in its own ``__init__`` works the same way.
``update()`` accepts the keys already present plus the optional ones the class declares
(``optional_rewards``, ``optional_timing``: e.g. a ``fail`` reward that is 0 unless given); any
other key raises, naming it, the valid keys and the closest one. So ``rewards={"corect": 5}``
or a timing key ``"stimulis"`` can no longer be accepted silently.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from neurogym._env.settings import install_arguments, install_class_defaults, recording_init
from neurogym.timing import TimingDict
from neurogym.validate import check_keys, number

__all__ = ["CheckedRewards", "RewardDict", "RewardsAndTiming"]


class RewardDict(dict[str, Any]):
    """The ``rewards`` dict of a task: ``update()`` accepts only known or optional keys.

    Once its env is made (:meth:`seal`), every change is remembered in :attr:`edits`, so that
    ``TrialEnv.configure`` applies it again to the task made anew, and no key can be removed.

    Args:
        values: The task's default rewards.
        optional: Keys the task also accepts in ``update()``.
        owner: The task's name, for messages.
    """

    __slots__ = ("edits", "optional", "owner", "sealed", "version")

    def __init__(
        self,
        values: Mapping[str, Any] | None = None,
        optional: Iterable[str] = (),
        owner: str = "",
    ) -> None:
        self.optional = tuple(optional)
        self.owner = owner
        super().__init__({key: self._checked(key, value) for key, value in (values or {}).items()})
        self.version = 0
        """The number of changes: part of the env's ``config_version``."""
        self.sealed = False
        self.edits: dict[str, float] = {}
        """The changes made since the env was made (key to value)."""

    def seal(self) -> None:
        """Marks the end of construction: changes from now on are remembered edits."""
        self.sealed = True

    def _checked(self, key: str, value: Any) -> float:
        """``value`` as a float; a reward that is not a finite real number raises."""
        return number(value, f"rewards[{key!r}] of {self.owner or 'this task'}")

    def _changed(self, values: dict[str, float]) -> None:
        super().update(values)
        if self.sealed:
            self.edits.update(values)
        self.version += 1

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Overrides rewards; an unknown key or a value that is not a finite number raises.

        Known keys are the defaults and the optional ones; values are stored as floats.
        """
        if args and not isinstance(args[0], Mapping):
            raise TypeError(
                f"rewards of {self.owner or 'this task'} must be a mapping of reward names to "
                f"numbers (e.g. {{'correct': 1.0}}), got {args[0]!r}"
            )
        other: dict[str, Any] = dict(*args, **kwargs)
        check_keys(other, self, self.optional, f"rewards of {self.owner or 'this task'}")
        self._changed({key: self._checked(key, value) for key, value in other.items()})

    def __setitem__(self, key: str, value: Any) -> None:
        if self.sealed:
            check_keys([key], self, self.optional, f"rewards of {self.owner or 'this task'}")
        self._changed({key: self._checked(key, value)})

    def _refuse_removal(self) -> None:
        if self.sealed:
            raise TypeError(
                f"rewards of {self.owner or 'this task'} keep their keys ({sorted(self)}): "
                "set a reward to 0 instead of removing it (env.rewards['fail'] = 0)"
            )
        self.version += 1

    def __delitem__(self, key: str) -> None:
        self._refuse_removal()
        super().__delitem__(key)

    def pop(self, *args: Any) -> Any:
        """``dict.pop`` while the task is made; afterwards refused (keys stay)."""
        self._refuse_removal()
        return super().pop(*args)

    def popitem(self) -> tuple[str, Any]:
        """``dict.popitem`` while the task is made; afterwards refused (keys stay)."""
        self._refuse_removal()
        return super().popitem()

    def clear(self) -> None:
        """``dict.clear`` while the task is made; afterwards refused (keys stay)."""
        self._refuse_removal()
        super().clear()

    def setdefault(self, key: str, default: Any = None) -> Any:
        """``dict.setdefault``."""
        if key not in self:
            self[key] = default
        return self[key]

    def __ior__(self, other: Any) -> RewardDict:  # type: ignore[override,misc]
        self.update(other)
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        state = (self.version, self.sealed, dict(self.edits))
        return (RewardDict, (dict(self), self.optional, self.owner), state)

    def __setstate__(self, state: tuple[int, bool, dict[str, float]]) -> None:
        self.version, self.sealed, self.edits = state

    def copy(self) -> RewardDict:
        """A shallow copy with the same accepted keys."""
        return RewardDict(self, self.optional, self.owner)


class CheckedRewards:
    """Descriptor of ``TrialEnv.rewards``: assignment wraps the dict in a :class:`RewardDict`.

    It defines no ``__get__``, so reads come straight from the instance dict (no cost in the
    step loop).
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __set__(self, env: Any, value: Mapping[str, Any]) -> None:
        current = env.__dict__.get(self.name)
        if current is not None and current.sealed:  # a made env: update the keys named
            current.update(value)
            return
        cls = type(env)
        if isinstance(value, RewardDict):
            value = RewardDict(value, (*value.optional, *cls.optional_rewards), value.owner)
        else:
            value = RewardDict(value, cls.optional_rewards, cls.__name__)
        env.__dict__[self.name] = value


class RewardsAndTiming:
    """A task's rewards and timing: class-level defaults, overridden key by key.

    A base of ``TrialEnv``; ``TrialEnv.__init__`` calls :meth:`_configure`.
    """

    default_rewards: ClassVar[Mapping[str, float]] = {}
    """The task's rewards; ``rewards=`` passed on to ``TrialEnv.__init__`` overrides keys."""
    default_timing: ClassVar[Mapping[str, Any]] = {}
    """The task's periods and their timing specs; ``timing=`` overrides periods."""
    optional_rewards: tuple[str, ...] = ()
    """Reward keys the task accepts in ``rewards=`` beyond its defaults (e.g. ``"fail"``)."""
    optional_timing: tuple[str, ...] = ()
    """Timing keys the task accepts in ``timing=`` beyond its defaults."""
    if TYPE_CHECKING:
        rewards: dict[str, float]
        dt: float
    else:
        rewards = CheckedRewards()
    _timing: TimingDict

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        init = cls.__init__
        # (TrialEnv's own __init__ is what a bare super().__init__() reaches: not a task's)
        if not getattr(init, "_records_arguments", False) and cls.__name__ != "TrialEnv":
            cls.__init__ = recording_init(init)  # type: ignore[method-assign]
        install_arguments(cls)
        install_class_defaults(cls)

    @property
    def timing(self) -> TimingDict:
        """Period name to timing spec; validated when set (see :mod:`neurogym.timing`)."""
        return self._timing

    @timing.setter
    def timing(self, value: Any) -> None:
        """Replaces the whole timing while the task is made; afterwards updates the keys named.

        Once the task has periods (its defaults, or those its ``__init__`` assigned), a
        replacement may name only those (``TimingDict.known``: every key its timing held) and
        its ``optional_timing`` ones: a misspelt period
        (``{**env.timing, "decison": 700}``) raises here, naming the close match, instead of
        leaving the real period at its old duration. On a made env, ``env.timing = {...}``
        is ``env.timing.update({...})``: periods it does not name keep their timing.
        """
        current = self.__dict__.get("_timing")
        if current is not None and current.sealed:
            if not isinstance(value, Mapping):
                raise TypeError(
                    f"timing of {type(self).__name__} must be a mapping of period name to "
                    f"spec, got {type(value).__name__}"
                )
            current.update(value)
            return
        timing = value if isinstance(value, TimingDict) else TimingDict(value)
        cls = type(self)
        known = current.known if current is not None else {}
        if known:  # not while __init__ builds it
            check_keys(timing, known, cls.optional_timing, f"timing of {cls.__name__}")
        self._timing = timing.bind(self.dt, cls.optional_timing, cls.__name__, known)

    def _configure(self, rewards: Mapping[str, float] | None, timing: Any) -> None:
        """The class's defaults, then ``rewards`` and ``timing`` over them (checked keys)."""
        cls = type(self)
        self.rewards = dict(cls.default_rewards)
        if rewards:
            self.rewards.update(rewards)
        self._timing = TimingDict()
        self._timing.owner = cls.__name__  # (named in errors before a timing is bound)
        if cls.default_timing or timing:
            self.timing = dict(cls.default_timing)
            if timing:
                self.timing.update(timing)
