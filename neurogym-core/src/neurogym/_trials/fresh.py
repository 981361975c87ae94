"""Untouched observation channels: an add into cells still zero is written as a set.

A builder allocates its observations filled with zeros, and most tasks write each channel
once per period: the fixation cue, the stimulus, the rule. ``add_input`` into a channel that
no write has touched yet adds to zeros, so setting the value instead gives the same array
(``0 + v == v`` for every number but ``-0.0``, which the value is normalised from: ``-0.0 +
0.0`` is ``+0.0``, what the add would have stored). A set costs numpy a third to a quarter of
an in-place add (no read of the target, no ufunc loop): a first write per channel is most of
the writes of a trial.

:class:`FreshChannels` keeps, per observation channel, whether it is still untouched. Every
write marks the channels it selects; anything that hands the array out (``BatchBuilder.ob``,
``view_input``) marks them all, as the caller may write into it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["FreshChannels", "as_set_value"]

SMALL = 4096
"""Largest float value array normalised (one extra pass over it) to turn an add into a set."""


_KNOWN: dict[int, tuple[Any, int, int]] = {}
"""``id(where)`` -> ``(where, width, bits)`` for the slices met so far (slices are immutable)."""


class FreshChannels:
    """Which channels of a zero-filled ``(B, T, k)`` array no write has touched.

    Args:
        width: ``k``, the number of channels.
    """

    __slots__ = ("bits", "width")

    def __init__(self, width: int) -> None:
        self.width = width
        self.bits = (1 << width) - 1  # bit c: channel c is untouched

    def take(self, where: Any) -> bool:
        """Marks the channels ``where`` selects as touched; whether they all were untouched.

        ``where`` is what ``resolve_where`` returns: None (every channel), an int, a slice or
        an integer array.
        """
        selected = self._bits(where)
        fresh = selected & self.bits == selected
        self.bits &= ~selected
        return fresh

    def touch_all(self) -> None:
        """Marks every channel touched (the array was handed out)."""
        self.bits = 0

    def _bits(self, where: Any) -> int:
        width = self.width
        if where is None:
            return (1 << width) - 1
        if type(where) is int:
            return 1 << (where % width)
        if type(where) is not slice:  # an index array (it may be edited: not cached)
            return self._bits_of(where, width)
        known = _KNOWN.get(id(where))  # (a resolved where= is one object per space and name)
        if known is not None and known[0] is where and known[1] == width:
            return known[2]
        bits = self._bits_of(where, width)
        if len(_KNOWN) >= 256:
            _KNOWN.clear()
        _KNOWN[id(where)] = (where, width, bits)  # (keeps ``where``: its id stays its own)
        return bits

    @staticmethod
    def _bits_of(where: Any, width: int) -> int:
        if type(where) is slice:
            start, stop, step = where.indices(width)
            if step == 1:  # channels start .. stop - 1 (none if stop <= start)
                return ((1 << max(start, stop)) - 1) ^ ((1 << start) - 1)
            channels: Any = range(start, stop, step)
        else:
            channels = np.ravel(where).tolist()
        bits = 0
        for channel in channels:
            bits |= 1 << (channel % width)
        return bits


def as_set_value(value: Any) -> tuple[bool, Any]:
    """Whether adding ``value`` to zeros can be written as setting it, and the value to set.

    Real numbers and arrays of them qualify (floats normalised so that ``-0.0`` becomes
    ``+0.0``, as ``0.0 + -0.0`` is); callables, lists of arrays, complex or object values
    and float arrays of more than :data:`SMALL` elements do not (the add is kept).
    """
    kind = type(value)
    if kind is int:
        return True, value
    if kind is float:
        return True, value + 0.0
    arr = value
    if kind is list or kind is tuple:
        try:
            arr = np.asarray(value)
        except ValueError:  # ragged: the write raises its own error
            return False, value
    elif kind is not np.ndarray and not isinstance(value, np.generic):
        return False, value
    code, size = arr.dtype.kind, arr.size
    if code == "b" or (code in "iu" and arr.dtype.itemsize <= 4):
        return True, arr  # every value exact in float32 arithmetic as in the add's
    if code in "iuf" and size <= SMALL:
        # the add computes in float64 (or the value's float type): the same, -0.0 -> +0.0
        return True, arr + 0.0
    return False, value
