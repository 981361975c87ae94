"""Which trial wrapper generates the next trial (resolved per call, never stored on the env).

A trial wrapper's ``step`` and ``reset`` mark themselves as the *trial owner* for the duration
of the call, unless an outer trial wrapper already did. When the task reaches a trial boundary
inside that call, it asks the owner (the outermost trial wrapper) for the next trial instead of
generating it itself. Nothing is written onto the wrapped env, so any nesting works: the
outermost wrapper always wins, and each wrapper's ``new_trial`` passes down the chain.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol

__all__ = ["TrialOwner", "current_owner", "owning_trials"]


class TrialOwner(Protocol):
    """Anything with ``new_trial(**kwargs)``: trial wrappers."""

    def new_trial(self, **kwargs: Any) -> Any:
        """Generates the next trial through this owner."""


_OWNER: ContextVar[TrialOwner | None] = ContextVar("neurogym_trial_owner", default=None)


def current_owner() -> TrialOwner | None:
    """The outermost trial wrapper of the call in progress, if any."""
    return _OWNER.get()


@contextmanager
def owning_trials(owner: TrialOwner) -> Iterator[None]:
    """Makes ``owner`` generate trial boundaries during the block, unless an outer one does."""
    if _OWNER.get() is not None:
        yield
        return
    token = _OWNER.set(owner)
    try:
        yield
    finally:
        _OWNER.reset(token)
