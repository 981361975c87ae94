"""Exceptions and warnings raised by neurogym's registry and plugin discovery.

Every class here derives from a builtin exception, so callers that only know Python's own
hierarchy still work: an unknown id is a :class:`LookupError`, an ambiguous or duplicate one a
:class:`ValueError`.
"""

from __future__ import annotations

import gymnasium.error

__all__ = [
    "AmbiguousTaskError",
    "DuplicateTaskError",
    "DuplicateWrapperError",
    "InvalidActionError",
    "NeurogymPluginWarning",
    "UnknownTaskError",
    "UnknownWrapperError",
]


class NeurogymPluginWarning(UserWarning):
    """A plugin could not be used: it failed to load, raised in a hook or clashes with another.

    Discovery never raises for a broken plugin; it warns with this category, names the plugin
    and its distribution, and carries on with the others.
    """


class UnknownTaskError(LookupError):
    """No registered task matches the requested id or name.

    The message names the requested value and up to five close registered ids.
    """


class AmbiguousTaskError(ValueError):
    """A bare task name or ``Name-vN`` matches tasks in more than one namespace.

    The message lists every id it could mean; pass one of them in full.
    """


class DuplicateTaskError(ValueError):
    """A task id is registered twice.

    Raised by ``Registry.register`` for an existing id (unless ``override=True``), and when
    making a task whose id two installed distributions both declare.
    """


class UnknownWrapperError(LookupError):
    """No registered wrapper has the requested name.

    The message names the requested value and up to five close registered names.
    """


class DuplicateWrapperError(ValueError):
    """A wrapper name is registered twice, or two installed distributions both declare it."""


class InvalidActionError(gymnasium.error.InvalidAction, ValueError):
    """An action the env's action space does not contain (wrong type, shape or range).

    Both gymnasium's ``InvalidAction`` and ``ValueError``; the message names the action and
    the space.
    """
