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

__all__ = [
    "GUIDE",
    "REMOVED",
    "RemovedAttributeHints",
    "WrapperHints",
    "deprecated",
    "removed_attribute",
    "reset_warnings",
]

#: Where the warnings and errors send a reader for the whole story.
GUIDE = "docs/porting.md, 'Upgrading from 2.3.1'"

_warned: set[str] = set()

#: Attributes of 2.3.1's envs and wrappers that are gone, and what to use instead.
REMOVED = {
    "seed": "env.reset(seed=s), which seeds every draw of the task (gymnasium 1.0 dropped "
    "seed(); its check_env flags envs that keep one)",
    "set_top": "nothing: trial wrappers serve their trials during their own step/reset",
    "num_tr_exp": "nothing (2.3.1 never used it)",
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


def removed_attribute(obj: Any, name: str, hint: str | None = None) -> AttributeError:
    """The :class:`AttributeError` for ``obj.name``, naming today's spelling if there is one."""
    owner = type(obj).__name__
    hint = REMOVED.get(name) if hint is None else hint
    if hint is None:
        return AttributeError(f"{owner!r} object has no attribute {name!r}")
    return AttributeError(f"{owner!r} object has no attribute {name!r}: use {hint} ({GUIDE})")


class RemovedAttributeHints:
    """Mixin of tasks: 2.3.1's ``seed``, ``set_top`` and ``_post_init``.

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

    def _post_init(self, allow_empty_timing: bool = False) -> None:
        """2.3.1's post-construction hook: nothing to do (tasks without timing are allowed).

        neurogym never calls it; it is here so that a 2.3.1 override calling the base runs.
        """
        del allow_empty_timing
        deprecated("TrialEnv._post_init(allow_empty_timing=...)", "nothing (delete the override)")


class WrapperHints:
    """Mixin of neurogym's wrappers: a missing attribute raises an error that says why.

    gymnasium 0.29 (NeuroGym 2.3.1's) forwarded a wrapper's missing attributes to the env
    inside; gymnasium 1.0 does not, and neither do neurogym's wrappers (a forwarded read would
    change what ``hasattr`` answers). Reading one the task has names ``env.unwrapped.<name>``.
    """

    def __getattr__(self, name: str) -> NoReturn:
        inner = self.__dict__.get("env")  # not self.env: unpickling runs before it exists
        task = getattr(inner, "unwrapped", None)
        if name in REMOVED or name.startswith("__") or task is None:
            raise removed_attribute(self, name)
        try:
            object.__getattribute__(task, name)
        except AttributeError:
            raise removed_attribute(self, name) from None
        hint = f"env.unwrapped.{name} (gymnasium 1.0 wrappers do not forward attributes)"
        raise removed_attribute(self, name, hint)
