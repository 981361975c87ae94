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

import functools
import itertools
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from neurogym.timing import TimingDict
from neurogym.validate import check_keys, number

__all__ = ["CheckedRewards", "RewardDict", "RewardsAndTiming"]

_versions = itertools.count(1 << 20)  # large ints: each version is its own object


class RewardDict(dict[str, Any]):
    """The ``rewards`` dict of a task: ``update()`` accepts only known or optional keys.

    Args:
        values: The task's default rewards.
        optional: Keys the task also accepts in ``update()``.
        owner: The task's name, for messages.
    """

    __slots__ = ("optional", "owner", "version")

    def __init__(
        self,
        values: Mapping[str, Any] | None = None,
        optional: Iterable[str] = (),
        owner: str = "",
    ) -> None:
        self.optional = tuple(optional)
        self.owner = owner
        super().__init__({key: self._checked(key, value) for key, value in (values or {}).items()})
        self.version = next(_versions)
        """A new int object after every change: what was derived from the rewards (the
        outcome table of ``TrialEnv._step``) is current while it ``is`` the same."""

    def _checked(self, key: str, value: Any) -> float:
        """``value`` as a float; a reward that is not a finite real number raises."""
        return number(value, f"rewards[{key!r}] of {self.owner or 'this task'}")

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
        super().update({key: self._checked(key, value) for key, value in other.items()})
        self.version = next(_versions)

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key, self._checked(key, value))
        self.version = next(_versions)

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self.version = next(_versions)

    def pop(self, *args: Any) -> Any:
        """``dict.pop``."""
        self.version = next(_versions)
        return super().pop(*args)

    def popitem(self) -> tuple[str, Any]:
        """``dict.popitem``."""
        self.version = next(_versions)
        return super().popitem()

    def clear(self) -> None:
        """``dict.clear``."""
        super().clear()
        self.version = next(_versions)

    def setdefault(self, key: str, default: Any = None) -> Any:
        """``dict.setdefault``."""
        self.version = next(_versions)
        if key not in self:
            default = self._checked(key, default)
        return super().setdefault(key, default)

    def __ior__(self, other: Any) -> RewardDict:  # type: ignore[override,misc]
        self.update(other)
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (RewardDict, (dict(self), self.optional, self.owner))

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
        if not getattr(init, "_seals_timing", False):
            cls.__init__ = _sealing_init(init)  # type: ignore[method-assign]

    @property
    def timing(self) -> TimingDict:
        """Period name to timing spec; validated when set (see :mod:`neurogym.timing`)."""
        return self._timing

    @timing.setter
    def timing(self, value: Any) -> None:
        """Replaces the whole timing (validated); a task's periods stay its periods.

        Once the task has periods (its defaults, or those its ``__init__`` assigned), a
        replacement may name only those (``TimingDict.known``: every key its timing held) and
        its ``optional_timing`` ones: a misspelt period
        (``{**env.timing, "decison": 700}``) raises here, naming the close match, instead of
        leaving the real period at its old duration.
        """
        timing = value if isinstance(value, TimingDict) else TimingDict(value)
        cls = type(self)
        current = self.__dict__.get("_timing")
        known = current.known if current is not None else {}
        if known or (current is not None and current.sealed):  # not while __init__ builds it
            check_keys(timing, known, cls.optional_timing, f"timing of {cls.__name__}")
        self._timing = timing.bind(self.dt, cls.optional_timing, cls.__name__, known)
        self._timing.sealed = current is not None and current.sealed

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


def _sealing_init(init: Any) -> Any:
    """``init``, which seals the env's timing when it returns as the outermost ``__init__``.

    Once an env is constructed its periods are settled (a task's ``__init__`` adds them,
    by item assignment too), so from then on ``env.timing["decison"] = 700`` raises naming
    the valid keys (:attr:`TimingDict.sealed`) instead of adding a period no trial uses.
    The outermost call is the one ``type(self).__init__`` names: a subclass's ``__init__``
    calling its parent's through ``super()`` seals once, after its own code.
    """

    @functools.wraps(init)
    def sealing_init(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        if type(self).__init__ is sealing_init:
            timing = self.__dict__.get("_timing")
            if timing is not None:
                timing.sealed = True

    sealing_init._seals_timing = True  # type: ignore[attr-defined]
    return sealing_init
