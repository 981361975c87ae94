"""Gymnasium spaces with named dimensions.

``Box`` and ``Discrete`` behave exactly like their gymnasium parents (every gymnasium keyword is
forwarded) and additionally carry ``name``: a mapping from a dimension (or action) name to the
indices it covers. Task code uses the names in ``where=`` arguments::

    obs = Box(-np.inf, np.inf, shape=(3,), name={"fixation": 0, "stimulus": [1, 2]})
    act = Discrete(3, name={"fixation": 0, "choice": range(1, 3)})

Names are validated against the shape (indices must lie inside the last axis of a ``Box``, or
inside ``[start, start + n)`` for a ``Discrete``), kept by ``==``, ``repr``, ``copy`` and
pickling, and normalised to tuples of ints (a single int stays an int).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

import numpy as np
from gymnasium.spaces import Box as _GymBox
from gymnasium.spaces import (
    Dict,
    MultiBinary,
    MultiDiscrete,
    Space,
    Tuple,
    flatdim,
    flatten,
    unflatten,
)
from gymnasium.spaces import Discrete as _GymDiscrete

__all__ = [
    "Box",
    "Dict",
    "Discrete",
    "MultiBinary",
    "MultiDiscrete",
    "NameSpec",
    "NamedBox",
    "NamedDiscrete",
    "Space",
    "Tuple",
    "flatdim",
    "flatten",
    "unflatten",
]

NameValue: TypeAlias = int | Sequence[int] | range | slice | np.ndarray
NameSpec: TypeAlias = Mapping[str, NameValue]
Names: TypeAlias = dict[str, int | tuple[int, ...]]


def _normalise_value(key: str, value: object, size: int, offset: int) -> int | tuple[int, ...]:
    """Turns one name's value into an int or a tuple of ints, checking the range."""
    if isinstance(value, slice):
        indices: list[int] = list(range(offset, offset + size))[
            slice(
                None if value.start is None else value.start - offset,
                None if value.stop is None else value.stop - offset,
                value.step,
            )
        ]
        result: int | tuple[int, ...] = tuple(indices)
    elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        result = int(value)
    elif isinstance(value, (range, Sequence, np.ndarray)) and not isinstance(value, str):
        items = np.asarray(list(value) if isinstance(value, range) else value)
        if items.ndim != 1 or not (items.size == 0 or np.issubdtype(items.dtype, np.integer)):
            raise TypeError(
                f"name {key!r}: indices must be integers, got {value!r} "
                "(valid: an int, a list/tuple/array of ints, a range or a slice)"
            )
        result = tuple(int(i) for i in items)
    else:
        raise TypeError(
            f"name {key!r}: unsupported value {value!r} of type {type(value).__name__} "
            "(valid: an int, a list/tuple/array of ints, a range or a slice)"
        )
    flat = (result,) if isinstance(result, int) else result
    bad = [i for i in flat if not offset <= i < offset + size]
    if bad:
        raise ValueError(
            f"name {key!r}: indices {bad} are outside the valid range "
            f"[{offset}, {offset + size - 1}]"
        )
    return result


def _normalise_names(name: NameSpec | None, size: int, offset: int = 0) -> Names | None:
    """Validates a ``name=`` mapping and returns it with tuple/int values."""
    if name is None:
        return None
    if not isinstance(name, Mapping):
        raise TypeError(
            f"name must be a mapping of dim name to indices or None, got {type(name).__name__}"
        )
    out: Names = {}
    for key, value in name.items():
        if not isinstance(key, str):
            raise TypeError(f"dim names must be str, got {key!r}")
        out[key] = _normalise_value(key, value, size, offset)
    return out


def _names_repr(names: Names | None) -> str:
    return "" if names is None else f", name={names!r}"


class Box(_GymBox):
    """A gymnasium ``Box`` whose last axis may carry dim names.

    Args:
        low: Lower bound(s), as for ``gymnasium.spaces.Box``.
        high: Upper bound(s), as for ``gymnasium.spaces.Box``.
        shape: Shape of the space.
        dtype: Element dtype (default float32).
        seed: Seed of the space's own sampler.
        name: Mapping of dim name to an index, a list/range/array of indices or a slice of the
            last axis, e.g. ``{"fixation": 0, "stimulus": range(1, 3)}``.

    Raises:
        TypeError: ``name`` is not a mapping of str to indices.
        ValueError: A named index lies outside the last axis.
    """

    def __init__(
        self,
        low: Any,
        high: Any,
        shape: Sequence[int] | None = None,
        dtype: Any = np.float32,
        seed: int | np.random.Generator | None = None,
        name: NameSpec | None = None,
    ) -> None:
        super().__init__(low=low, high=high, shape=shape, dtype=dtype, seed=seed)
        size = self.shape[-1] if self.shape else 1
        self.name: Names | None = _normalise_names(name, size)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Box)
            and super().__eq__(other)
            and getattr(self, "name", None) == getattr(other, "name", None)
        )

    __hash__ = None  # type: ignore[assignment]  # mutable bounds, as gymnasium's Box

    def __repr__(self) -> str:
        return super().__repr__()[:-1] + _names_repr(self.name) + ")"

    def __setstate__(self, state: Any) -> None:
        super().__setstate__(state)
        if "name" not in self.__dict__:
            self.name = None


class Discrete(_GymDiscrete):
    """A gymnasium ``Discrete`` space whose actions may carry names.

    Args:
        n: Number of actions.
        seed: Seed of the space's own sampler (forwarded to gymnasium).
        start: Smallest action (forwarded to gymnasium).
        dtype: Integer dtype of the actions (forwarded to gymnasium; default int64).
        name: Mapping of an action name to an action value or a list/range of action values,
            e.g. ``{"fixation": 0, "choice": [1, 2]}``. ``set_groundtruth(k, where="choice")``
            maps choice index ``k`` to ``name["choice"][k]``.

    Raises:
        TypeError: ``name`` is not a mapping of str to action values.
        ValueError: A named action lies outside ``[start, start + n)``.
    """

    def __init__(
        self,
        n: int | np.integer[Any],
        seed: int | np.random.Generator | None = None,
        start: int | np.integer[Any] = 0,
        name: NameSpec | None = None,
        dtype: Any = np.int64,
    ) -> None:
        super().__init__(n=n, seed=seed, start=start, dtype=dtype)
        self.name: Names | None = _normalise_names(name, int(self.n), int(self.start))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Discrete)
            and super().__eq__(other)
            and getattr(self, "name", None) == getattr(other, "name", None)
        )

    def __hash__(self) -> int:
        return hash((int(self.n), int(self.start)))

    def __repr__(self) -> str:
        return super().__repr__()[:-1] + _names_repr(self.name) + ")"

    def __setstate__(self, state: Any) -> None:
        super().__setstate__(state)
        if "name" not in self.__dict__:
            self.name = None


NamedBox = Box
NamedDiscrete = Discrete
