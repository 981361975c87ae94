"""Argument validators for task, wrapper and data code: one check per concept, one message form.

Every function takes the value and the argument's name as the user wrote it (``"sigma"``,
``"rewards['correct']"``, ``"timing['stimulus']"``), returns the value converted to its plain
type, and otherwise raises with the message ``"<name> must be <what is valid>, got <value>"``:
:class:`TypeError` when the value has the wrong type, :class:`ValueError` when it has the right
type but a wrong value. ``bool`` is never accepted as a number.

Example:
    >>> from neurogym import validate
    >>> validate.positive_int(3, "dim_ring")
    3
    >>> validate.number(float("nan"), "sigma", minimum=0)
    Traceback (most recent call last):
    ...
    ValueError: sigma must be a finite number >= 0, got nan
"""

from __future__ import annotations

import difflib
import math
import numbers
from collections.abc import Collection, Iterable
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "MAX_ALLOCATION",
    "MAX_RING",
    "ReadOnlyList",
    "allocation",
    "among",
    "boolean",
    "check_keys",
    "choice",
    "closest",
    "frozen",
    "integer",
    "integers_in_range",
    "number",
    "positive_int",
    "probabilities",
    "probability",
]

_T = TypeVar("_T")

MAX_ALLOCATION = 4 * 1024**3
"""Bytes one request (a batch, a Dataset's cache) may allocate: 4 GiB. A request above it
raises instead of exhausting the machine's memory."""


MAX_RING = 4096
"""The most units a task's ring (``dim_ring``) may have: a larger ring is no model of a
population code, and its arrays would take gigabytes per batch."""


def boolean(value: Any, name: str) -> bool:
    """``value`` as a bool; anything but ``True``/``False`` (numpy's too) raises.

    Raises:
        TypeError: If ``value`` is not a bool (``"no"`` and ``1`` are not).
    """
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def allocation(n_bytes: float, what: str, names: str) -> None:
    """Refuses a request of ``n_bytes`` above :data:`MAX_ALLOCATION` before it is allocated.

    Args:
        n_bytes: The estimated size.
        what: What would be allocated, for the message.
        names: The arguments that set the size, for the message.

    Raises:
        ValueError: If the request is too large.
    """
    if n_bytes > MAX_ALLOCATION:
        raise ValueError(
            f"{what} would need {n_bytes / 1024**3:,.1f} GiB, more than the "
            f"{MAX_ALLOCATION / 1024**3:.0f} GiB limit (neurogym.validate.MAX_ALLOCATION); "
            f"lower {names}"
        )


def _is_integer(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_)


def _is_real(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)


def _bounds(minimum: float | None, maximum: float | None, *, exclusive_minimum: bool) -> str:
    low = "" if minimum is None else f"{'>' if exclusive_minimum else '>='} {minimum:g}"
    high = "" if maximum is None else f"<= {maximum:g}"
    if low and high:
        return f" in {'(' if exclusive_minimum else '['}{minimum:g}, {maximum:g}]"
    return f" {low or high}" if low or high else ""


def integer(
    value: Any, name: str, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """An int (Python or numpy integer, not bool) within ``[minimum, maximum]``.

    Args:
        value: The value to check.
        name: The argument's name, for the message.
        minimum: Smallest valid value, or None for no bound.
        maximum: Largest valid value, or None for no bound.

    Returns:
        ``value`` as a Python int.

    Raises:
        TypeError: If ``value`` is not an integer (a float such as ``2.0`` is not).
        ValueError: If it is outside the bounds.
    """
    what = f"an int{_bounds(minimum, maximum, exclusive_minimum=False)}"
    if not _is_integer(value):
        raise TypeError(f"{name} must be {what}, got {value!r}")
    number_ = int(value)
    if (minimum is not None and number_ < minimum) or (maximum is not None and number_ > maximum):
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return number_


def positive_int(value: Any, name: str) -> int:
    """An int >= 1 (see :func:`integer`).

    Args:
        value: The value to check.
        name: The argument's name, for the message.

    Returns:
        ``value`` as a Python int.

    Raises:
        TypeError: If ``value`` is not an integer.
        ValueError: If it is smaller than 1.
    """
    return integer(value, name, minimum=1)


def number(
    value: Any,
    name: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    exclusive_minimum: bool = False,
) -> float:
    """A finite real number (not bool) within the bounds.

    Args:
        value: The value to check.
        name: The argument's name, for the message.
        minimum: Smallest valid value, or None for no bound.
        maximum: Largest valid value, or None for no bound.
        exclusive_minimum: If True, ``minimum`` itself is not valid (``> minimum``).

    Returns:
        ``value`` as a Python float.

    Raises:
        TypeError: If ``value`` is not a real number.
        ValueError: If it is NaN, infinite or outside the bounds.
    """
    what = f"a finite number{_bounds(minimum, maximum, exclusive_minimum=exclusive_minimum)}"
    if not _is_real(value):
        raise TypeError(f"{name} must be {what}, got {value!r}")
    result = float(value)
    below = minimum is not None and (result <= minimum if exclusive_minimum else result < minimum)
    above = maximum is not None and result > maximum
    if not math.isfinite(result) or below or above:
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return result


def probability(value: Any, name: str) -> float:
    """A number in ``[0, 1]`` (see :func:`number`).

    Args:
        value: The value to check.
        name: The argument's name, for the message.

    Returns:
        ``value`` as a Python float.

    Raises:
        TypeError: If ``value`` is not a real number.
        ValueError: If it is outside ``[0, 1]`` or NaN.
    """
    return number(value, name, minimum=0, maximum=1)


def probabilities(values: Any, name: str, *, size: int | None = None) -> np.ndarray:
    """A 1-D vector of non-negative probabilities summing to 1 (to within 1e-8).

    Args:
        values: A sequence or array of numbers.
        name: The argument's name, for the message.
        size: The required length (for example one probability per choice), or None.

    Returns:
        The probabilities as a float64 array.

    Raises:
        ValueError: If the values are not numbers, have the wrong shape, are negative or
            non-finite, or do not sum to 1.
    """
    length = "" if size is None else f"{size} "
    what = f"{length}non-negative probabilities summing to 1"
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {what}, got {values!r}") from None
    wrong_shape = array.ndim != 1 or (size is not None and array.shape != (size,))
    if (
        wrong_shape
        or array.size == 0
        or not np.all(np.isfinite(array))
        or np.any(array < 0)
        or abs(float(array.sum()) - 1.0) > 1e-8
    ):
        raise ValueError(f"{name} must be {what}, got {values!r}")
    return array


def closest(value: object, options: Iterable[object]) -> str:
    """``"; did you mean 'x'?"`` for the option closest to a string ``value``, else ``""``."""
    if not isinstance(value, str):
        return ""
    texts = [option for option in options if isinstance(option, str)]
    match = difflib.get_close_matches(value, texts, n=1, cutoff=0.6)
    return f"; did you mean {match[0]!r}?" if match else ""


def choice(value: _T, name: str, options: Collection[_T]) -> _T:
    """One of ``options`` (compared with ``==``).

    Args:
        value: The value to check.
        name: The argument's name, for the message.
        options: The valid values, listed in the message in their order.

    Returns:
        ``value`` unchanged.

    Raises:
        ValueError: If ``value`` is not among ``options``; the message lists them and, for a
            string, the closest one.
    """
    try:
        valid = value in options
    except TypeError:  # e.g. an unhashable value tested against a set
        valid = False
    if not valid:
        listed = ", ".join(repr(option) for option in options)
        raise ValueError(f"{name} must be one of {listed}, got {value!r}{closest(value, options)}")
    return value


def among(forced: np.ndarray, name: str, options: np.ndarray) -> np.ndarray:
    """Per-trial values ``(B, ...)`` that must each be one of ``options`` (forced categories).

    Args:
        forced: One value per trial (a row per trial for tuple-valued options).
        name: The trial variable's name, for the message.
        options: One option per row: scalars ``(k,)`` or tuples such as pairs ``(k, m)``.

    Returns:
        ``forced``, unchanged.

    Raises:
        ValueError: Naming the first value that is not one of ``options``, and the options.
    """
    forced = np.asarray(forced)
    options = np.asarray(options)
    flat = options.reshape(options.shape[0], -1)
    rows = forced.reshape(forced.shape[0], -1)
    try:
        hit = (rows[:, None, :] == flat[None, :, :]).all(axis=2).any(axis=1)
    except (TypeError, ValueError):  # a value numpy cannot compare with the options
        hit = np.zeros(rows.shape[0], dtype=bool)
    if not hit.all():
        shown = np.asarray(forced[int(np.argmin(hit))]).tolist()
        listed = options.tolist()
        raise ValueError(f"forced {name}={shown!r} is not one of its values {listed}")
    return forced


def integers_in_range(values: Any, name: str, low: int, high: int) -> np.ndarray:
    """Whole numbers, each in ``[low, high]``: for forced per-trial values like ``ground_truth``.

    Any integer dtype is accepted, and floats holding whole numbers.

    Args:
        values: A scalar, sequence or array.
        name: The argument's name, for the message.
        low: Smallest valid value.
        high: Largest valid value.

    Returns:
        The values as an int64 array of the same shape.

    Raises:
        ValueError: If a value is not a whole number or is outside ``[low, high]``; the message
            lists the offending values.
    """
    array = np.asarray(values)
    if array.dtype == bool or not (
        np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    ):
        raise ValueError(f"{name} must hold ints in [{low}, {high}], got {values!r}")
    whole = np.isfinite(array) & (array == np.round(array)) if array.dtype.kind == "f" else True
    bad = ~(whole & (array >= low) & (array <= high))
    if np.any(bad):
        raise ValueError(
            f"{name} must hold ints in [{low}, {high}], got {np.asarray(array)[bad].tolist()}"
        )
    return array.astype(np.int64)


def check_keys(
    given: Iterable[str], present: Iterable[str], optional: Iterable[str], what: str
) -> None:
    """Raise unless every key of ``given`` is ``present`` or ``optional``.

    Args:
        given: The keys of the override.
        present: The keys the dict has (its defaults and those the task added).
        optional: The keys the task declares optional.
        what: ``"rewards"`` or ``"timing"`` plus the task, for the message.

    Raises:
        ValueError: Naming the first unknown key, the valid ones and the closest one.
    """
    valid = list(dict.fromkeys([*present, *optional]))
    for key in given:
        if key not in valid:
            listed = ", ".join(repr(k) for k in valid) or "none"
            raise ValueError(
                f"{what} has no key {key!r}; valid keys: {listed}{closest(key, valid)}"
            )


class ReadOnlyList(list):  # type: ignore[type-arg]
    """A list a setting holds: equal to the list it was given, but every change raises.

    What a task stores from a list argument (``env.cohs``) and the lists inside timing specs
    (``("choice", [300, 500])``): an edit in place would be half seen (the env derives
    tables and prefetches trials from its settings), so it raises, naming the form that works.
    """

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            "a task's settings are read-only: assign a whole new value (env.<setting> = [...], "
            "env.timing['<period>'] = (...)) instead of changing one in place"
        )

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return (ReadOnlyList, (list(self),))

    def __copy__(self) -> ReadOnlyList:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> ReadOnlyList:
        return self


def frozen(value: Any) -> Any:
    """``value`` made immutable: lists as :class:`ReadOnlyList` (nested too), arrays read-only.

    An array is copied before it is made read-only (the caller's own array stays writeable);
    a tuple keeps its type, with its items frozen. Other values are returned as they are.
    """
    kind = type(value)
    if kind is list:
        return ReadOnlyList(frozen(item) for item in value)
    if kind is tuple:
        return tuple(frozen(item) for item in value)
    if kind is np.ndarray and value.flags.writeable:
        value = value.copy()
        value.flags.writeable = False
    return value
