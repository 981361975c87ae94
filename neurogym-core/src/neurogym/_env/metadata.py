"""Where a task instance's ``metadata`` comes from (the registry hands the env layer its lookup).

The env layer does not import the registry: ``neurogym._registry.api`` calls
:func:`use_metadata_source` once at import with a lookup that adds the paper, tags and
description of the spec naming a class to the class's own ``metadata``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["metadata_of", "use_metadata_source"]


def _own_metadata(cls: type) -> dict[str, Any]:
    return dict(getattr(cls, "metadata", {}))


_source: Callable[[type], dict[str, Any]] = _own_metadata


def use_metadata_source(source: Callable[[type], dict[str, Any]]) -> None:
    """Sets where a task instance's ``metadata`` comes from (once, by the registry)."""
    global _source  # wiring, done once at import
    _source = source


def metadata_of(cls: type) -> dict[str, Any]:
    """A new instance's ``metadata``: a fresh dict from the current source."""
    return _source(cls)
