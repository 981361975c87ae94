"""Deprecation warnings and precise errors for NeuroGym 2.3.1's spellings (foundation layer).

:func:`deprecated` warns once per process per 2.3.1 name, naming today's spelling; the
2.3.1 compatibility layer (:mod:`neurogym._legacy`) and the few places below it that accept a
2.3.1 spelling use it. :class:`RemovedAttributeHints` and :class:`WrapperHints` turn a read of
an attribute 2.3.1 had and neurogym 3.0 does not into an :class:`AttributeError` that says
what to write instead.

``env.seed(s)`` is the one such call 2.3.1 code makes most: gymnasium 1.0 dropped ``seed`` and
its ``check_env`` flags any env with a callable ``seed``, so neurogym 3.0 has none (not even a
warned one): ``seed`` is a property that raises, naming ``env.reset(seed=s)``, which seeds
every draw of the task (2.3.1's ``reset(seed=)`` did not).
"""

from __future__ import annotations

import warnings
from typing import Any, NoReturn

import numpy as np
from gymnasium.utils import seeding

__all__ = [
    "FORWARDED",
    "GUIDE",
    "REMOVED",
    "OwnGenerator",
    "RemovedAttributeHints",
    "TaskGenerator",
    "WrapperHints",
    "as_task_generator",
    "deprecated",
    "removed_attribute",
    "reset_warnings",
    "task_generator",
]

#: Where the warnings and errors send a reader for the whole story.
GUIDE = "docs/porting.md, 'Upgrading from 2.3.1'"

_warned: set[str] = set()

#: Attributes of 2.3.1's envs and wrappers that are gone, and what to use instead.
REMOVED = {
    "seed": "env.reset(seed=s), which seeds every draw of the task (gymnasium 1.0 dropped "
    "seed(); its check_env flags envs that keep one)",
    "set_top": "nothing: trial wrappers serve their trials during their own step/reset",
}


def deprecated(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warns once per process that ``old`` (a 2.3.1 spelling) is deprecated for ``new``.

    Args:
        old: The 2.3.1 spelling, e.g. ``"neurogym.utils.plot_env"``.
        new: What to write today, e.g. ``"neurogym_apps.plot.plot_env"``.
        stacklevel: Passed to :func:`warnings.warn`: the frame the warning is attributed to
            (3: the caller of the function that calls this one).
    """
    if old in _warned:
        return
    _warned.add(old)
    message = (
        f"{old} is NeuroGym 2.3.1's spelling, deprecated since neurogym 3.0: use {new} ({GUIDE})"
    )
    warnings.warn(message, DeprecationWarning, stacklevel=stacklevel)


def reset_warnings() -> None:
    """Forgets which names have warned, so each warns again (for tests)."""
    _warned.clear()


def removed_attribute(obj: Any, name: str) -> AttributeError:
    """The :class:`AttributeError` for ``obj.name``, naming today's spelling if there is one."""
    owner = type(obj).__name__
    hint = REMOVED.get(name)
    if hint is None:
        return AttributeError(f"{owner!r} object has no attribute {name!r}")
    return AttributeError(f"{owner!r} object has no attribute {name!r}: use {hint} ({GUIDE})")


class RemovedAttributeHints:
    """Mixin of tasks: 2.3.1's ``seed``, ``set_top``, ``_duration`` and ``_post_init``.

    ``seed`` and ``set_top`` are properties that raise an :class:`AttributeError` naming
    today's spelling, so ``hasattr(env, "seed")`` is False, as gymnasium's ``check_env``
    requires. ``_post_init`` is a warned no-op, so a 2.3.1 subclass calling
    ``super()._post_init(allow_empty_timing=True)`` runs.
    """

    @property
    def seed(self) -> NoReturn:
        """Gone: raises an :class:`AttributeError` naming ``env.reset(seed=s)``."""
        raise removed_attribute(self, "seed")

    @property
    def set_top(self) -> NoReturn:
        """Gone: raises an :class:`AttributeError` saying trial wrappers need no call."""
        raise removed_attribute(self, "set_top")

    @property
    def _duration(self) -> dict[str, float]:
        """2.3.1's ``env._duration``: each period's duration in this trial, in ms (warned)."""
        deprecated("env._duration[period]", "env.end_t[period] - env.start_t[period]")
        start, end = self.start_t, self.end_t  # type: ignore[attr-defined]
        return {period: end[period] - start[period] for period in start}

    def _post_init(self, allow_empty_timing: bool = False) -> None:
        """2.3.1's post-construction hook: nothing to do (tasks without timing are allowed).

        neurogym never calls it; it is here so that a 2.3.1 override calling the base runs.
        """
        del allow_empty_timing
        deprecated("TrialEnv._post_init(allow_empty_timing=...)", "nothing (delete the override)")


#: Task attributes 2.3.1's tutorials and tests read through a wrapper (gymnasium 0.29 forwarded).
FORWARDED = (
    "timing",
    "rewards",
    "dt",
    "t_ind",
    "tmax",
    "num_tr",
    "ob",
    "gt",
    "trial",
    "in_period",
    "gt_now",
    "ob_now",
)


def _forwarded(name: str) -> property:
    """A wrapper attribute that reads the task's ``name`` (warned) unless the wrapper set its own.

    As in 2.3.1: ``wrapper.timing`` is the task's timing; ``self.ob = ...`` in a wrapper gives
    the wrapper an ``ob`` of its own, which reads return from then on.
    """

    def read(self: Any) -> Any:
        own = self.__dict__
        if name in own:
            return own[name]
        deprecated(f"reading {name!r} through a wrapper", f"env.unwrapped.{name}")
        return getattr(self.unwrapped, name)

    def write(self: Any, value: Any) -> None:
        self.__dict__[name] = value

    return property(read, write, doc=f"The task's ``{name}`` (2.3.1's forwarding, warned).")


class WrapperHints:
    """Mixin of neurogym's wrappers: 2.3.1's reads of task attributes, and precise errors.

    gymnasium 0.29 (NeuroGym 2.3.1's) forwarded a wrapper's missing attributes to the env
    inside; gymnasium 1.0 does not, and neither do neurogym's wrappers in general (a forwarded
    read would change what ``hasattr`` answers). The task attributes 2.3.1 code reads through
    wrappers (:data:`FORWARDED`: ``env.timing``, ``env.gt_now``, ``env.in_period(...)``, ...)
    are read from the task with a warning naming ``env.unwrapped.<name>``; ``seed`` and
    ``set_top`` raise the errors tasks raise (:class:`RemovedAttributeHints`). Any other
    missing attribute gets Python's plain :class:`AttributeError`. Deliberately no
    ``__getattr__``: a class with one loses CPython's fast attribute lookups on every read, not
    only on misses (it made each step of ``PassAction(PassReward(task))`` +19 % instructions).
    """

    seed = RemovedAttributeHints.seed
    set_top = RemovedAttributeHints.set_top


for _name in FORWARDED:
    setattr(WrapperHints, _name, _forwarded(_name))
del _name


class TaskGenerator(np.random.Generator):
    """A task's generator: numpy's ``Generator``, plus the ``RandomState`` names 2.3.1 used.

    NeuroGym 2.3.1's ``env.rng`` was a ``numpy.random.RandomState``, and tasks written for it
    call ``self.rng.rand()``, ``randn``, ``randint`` and ``random_sample``. Here each of those
    warns once, naming the ``Generator`` method, and draws from this generator (so
    ``reset(seed=...)`` fixes it; the numbers are not RandomState's). Every other draw is the
    plain ``Generator``'s: on the same bit generator both give the same numbers.
    """

    def rand(self, *shape: int) -> Any:
        """``RandomState.rand``: uniform draws in [0, 1); use :meth:`random`."""
        deprecated("self.rng.rand(*shape)", "self.rng.random(shape)")
        return self.random(shape or None)

    def randn(self, *shape: int) -> Any:
        """``RandomState.randn``: standard normal draws; use :meth:`standard_normal`."""
        deprecated("self.rng.randn(*shape)", "self.rng.standard_normal(shape)")
        return self.standard_normal(shape or None)

    def randint(self, low: Any, high: Any = None, size: Any = None, dtype: Any = int) -> Any:
        """``RandomState.randint`` (``high`` excluded); use :meth:`integers`."""
        deprecated("self.rng.randint(low, high, size)", "self.rng.integers(low, high, size)")
        return self.integers(low, high, size, dtype=dtype)

    def random_sample(self, size: Any = None) -> Any:
        """``RandomState.random_sample``; use :meth:`random`."""
        deprecated("self.rng.random_sample(size)", "self.rng.random(size)")
        return self.random(size)

    def __reduce__(self) -> tuple[Any, ...]:
        # numpy's rebuilds a plain Generator: keep the class through copies and pickles.
        return (type(self), (self.bit_generator,))


def task_generator(seed: int | None = None) -> tuple[TaskGenerator, int]:
    """``gymnasium.utils.seeding.np_random(seed)`` as a :class:`TaskGenerator` (same draws)."""
    rng, used = seeding.np_random(seed)
    return TaskGenerator(rng.bit_generator), used


def as_task_generator(rng: np.random.Generator) -> TaskGenerator:
    """``rng`` as a :class:`TaskGenerator` drawing from the same bit generator (same stream)."""
    return rng if isinstance(rng, TaskGenerator) else TaskGenerator(rng.bit_generator)


class OwnGenerator:
    """Mixin of tasks: gymnasium's ``np_random`` and ``np_random_seed``, made as a TaskGenerator.

    gymnasium's own properties make a plain ``Generator`` on first use (either of them); here
    both make a :class:`TaskGenerator`, so every generator an env makes for itself answers
    2.3.1's RandomState names. A generator assigned to ``np_random`` is kept as it is.
    """

    _np_random: np.random.Generator | None
    _np_random_seed: int | None

    @property
    def np_random(self) -> np.random.Generator:
        """The env's generator, made unseeded on first use."""
        if self._np_random is None:
            self._np_random, self._np_random_seed = task_generator()
        return self._np_random

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self._np_random = value
        self._np_random_seed = -1  # as gymnasium: the seed of a given generator is unknown
        self._generator_replaced()

    def _generator_replaced(self) -> None:
        """Called when a generator is assigned (``TrialEnv`` drops its prefetched trials)."""

    @property
    def np_random_seed(self) -> int:
        """The seed of the env's generator (-1 if it was assigned), made on first use."""
        if self._np_random_seed is None:
            self._np_random, self._np_random_seed = task_generator()
        return self._np_random_seed
