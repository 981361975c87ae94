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
from contextvars import ContextVar, Token
from typing import Any, Protocol

__all__ = [
    "TrialOwner",
    "claim_trials",
    "current_owner",
    "detached_trials",
    "owning_trials",
    "release_trials",
]


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


def claim_trials(owner: TrialOwner) -> Token[TrialOwner | None] | None:
    """The fast form of :func:`owning_trials` for per-step code (no generator frame).

    Returns:
        A token to pass to :func:`release_trials` if ``owner`` became the owner, else None
        (an outer owner already holds the call).
    """
    if _OWNER.get() is not None:
        return None
    return _OWNER.set(owner)


def release_trials(token: Token[TrialOwner | None] | None) -> None:
    """Ends an ownership taken by :func:`claim_trials` (a None token does nothing)."""
    if token is not None:
        _OWNER.reset(token)


@contextmanager
def detached_trials() -> Iterator[None]:
    """Runs the block with no trial owner, whatever the enclosing call set.

    Wrappers that hold several envs (``ScheduleEnvs``) reset their sub-envs inside this block,
    so each sub-env generates its first trial through its own chain, not through the owner of
    the enclosing call.
    """
    token = _OWNER.set(None)
    try:
        yield
    finally:
        _OWNER.reset(token)
