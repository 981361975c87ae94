"""Strict JSON for every file the applications write: other tools must be able to read them.

Python's :mod:`json` writes ``NaN``, ``Infinity`` and ``-Infinity`` by default, which are not
JSON (``JSON.parse``, ``jq`` and most other readers refuse them). Every JSON file written by
``neurogym_apps`` goes through :func:`dumps` or :func:`write`: a number that is not finite
(an accuracy with nothing to score, a loss that diverged) is written as ``null``, numpy
scalars and arrays as plain numbers and lists, and anything else JSON cannot hold is an error.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["dumps", "plain", "write"]


def plain(value: Any) -> Any:
    """``value`` with non-finite floats as None and numpy values as Python ones (recursively).

    Raises:
        TypeError: ``value`` holds something JSON cannot store (named in the message).
    """
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, np.generic):
        return plain(value.item())
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, dict):
        return {_key(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    raise TypeError(f"cannot write a {type(value).__name__} as JSON: {value!r}")


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool | int | float | np.generic):
        return json.dumps(plain(key))
    raise TypeError(f"cannot write a {type(key).__name__} as a JSON key: {key!r}")


def dumps(value: Any, *, indent: int | None = 2) -> str:
    """Strict JSON text of ``value`` (see the module docstring); no trailing newline."""
    return json.dumps(plain(value), indent=indent, allow_nan=False)


def write(path: str | Path, value: Any, *, indent: int | None = 2) -> Path:
    """Write ``value`` as strict JSON, with a final newline, to ``path``; return the path."""
    path = Path(path)
    path.write_text(dumps(value, indent=indent) + "\n", encoding="utf-8")
    return path
