"""Trial variables of a :class:`~neurogym.BatchBuilder`: drawn, forced or derived, per trial.

A mixin of ``BatchBuilder`` (kept apart so each module stays small): every method returns one
value per trial, ``(B, ...)``, and records it in the trial dict; values forced through the
builder's kwargs win over draws.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from neurogym.validate import among, closest

__all__ = [
    "RecordOnly",
    "TrackedKwargs",
    "TrialVariables",
    "check_forced_finite",
    "derived_error",
    "kept_forced",
    "same_value",
    "unknown_kwargs_error",
]


class RecordOnly:
    """A forced kwarg a trial wrapper passes down only to be recorded in the trial dict.

    The task does not read it (``RandomGroundTruth`` records its ``p`` this way); any other
    kwarg the task neither reads nor records is a mistake, and raises.
    """

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"RecordOnly({self.value!r})"


class TrackedKwargs(dict[str, Any]):
    """The builder's forced kwargs, remembering which names the task looked up."""

    def __init__(self, kwargs: dict[str, Any]) -> None:
        super().__init__(kwargs)
        self.read: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        """``dict.get``, remembering the lookup."""
        self.read.add(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.read.add(key)
        return super().__contains__(key)


def same_value(recorded: Any, forced: Any) -> bool:
    """Whether a recorded trial variable is the forced value (equal, elementwise)."""
    if recorded is forced:
        return True
    try:
        return bool(np.array_equal(np.asarray(recorded), np.asarray(forced)))
    except (TypeError, ValueError):
        return False


def derived_error(task: str, name: str, forced: Any, recorded: Any) -> ValueError:
    """The error for a forced variable the task replaced by one it derived itself."""
    shown = [_shown(value) for value in (forced, recorded)]
    return ValueError(
        f"{name} cannot be forced: {task} derives it from other trial variables (forced "
        f"{shown[0]}, the trial has {shown[1]}; force those instead)"
    )


def _shown(value: Any) -> str:
    """``value`` for a message: arrays and numpy scalars as plain lists and numbers."""
    try:
        return repr(np.asarray(value).tolist())
    except (TypeError, ValueError):
        return repr(value)


def kept_forced(task: str, forced: dict[str, Any], trial: dict[str, Any]) -> dict[str, Any]:
    """``trial`` from an upstream-style ``_new_trial``, refused if it overrode a forced value.

    Such a task records every kwarg, so a forced variable it derives itself (DawTwoStep's
    ``hi_state``) would be silently replaced.
    """
    for name, value in forced.items():
        if name in trial and not same_value(trial[name], value):
            raise derived_error(task, name, value, trial[name])
    return trial


def check_forced_finite(kwargs: dict[str, Any]) -> None:
    """Raises a ValueError naming a forced numeric value that is NaN or infinite.

    No trial variable has a meaningful non-finite value: a NaN coherence or duration would
    silently turn into NaN observations or targets.
    """
    for name, value in kwargs.items():
        if isinstance(value, RecordOnly) or type(value) is int or type(value) is bool:
            continue
        if type(value) is float:
            if math.isfinite(value):
                continue
            raise ValueError(f"forced {name} must be a finite number, got {value!r}")
        try:
            arr = np.asarray(value) if not isinstance(value, np.ndarray) else value
        except ValueError:  # ragged (e.g. a list of stimulus tuples): not a number
            continue
        if arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
            raise ValueError(
                f"forced {name} must be finite numbers, got {arr.tolist()!r} (NaN or infinite)"
            )


def unknown_kwargs_error(task: str, unknown: list[str], known_names: set[str]) -> ValueError:
    """The error for forced trial variables a task neither reads nor records."""
    known = sorted(known_names - set(unknown))
    listed = ", ".join(repr(name) for name in known) or "none"
    return ValueError(
        f"{task} has no trial variable {unknown[0]!r}{closest(unknown[0], known)} (forced "
        f"variables it reads or records: {listed}); a forced kwarg the task ignores would be "
        "silently wrong"
    )


class TrialVariables:
    """The trial-variable verbs; the builder provides ``n``, ``kwargs``, ``trial`` and ``rng``."""

    env: Any
    n: int
    kwargs: dict[str, Any]
    trial: dict[str, Any]
    rng: np.random.Generator

    def _per_trial(self, value: Any) -> np.ndarray:
        """``value`` with a leading batch axis (added when missing)."""
        arr = np.asarray(value)
        if arr.ndim and arr.shape[0] == self.n:
            return arr
        return arr[None] if self.n == 1 else np.broadcast_to(arr, (self.n, *arr.shape))

    def forced(
        self,
        name: str,
        shape: tuple[int, ...] = (),
        *,
        number: bool = False,
        minimum: float | None = None,
        maximum: float | None = None,
    ) -> np.ndarray | None:
        """The value forced for trial variable ``name``, as ``(B, *shape)``, or None.

        A forced value is a kwarg of ``new_trial``/``new_trials`` (or of ``neurogym.batch``):
        one value of shape ``shape`` for every trial, or one per trial, ``(B, *shape)``. It is
        recorded in the trial dict. Use it for trial variables that are not drawn by
        :meth:`choice` or :meth:`uniform` (which honour forced values themselves).

        Args:
            name: Trial-dict key, e.g. ``"pulse1"``.
            shape: Shape of one trial's value; ``()`` for a scalar.
            number: Whether the variable is a quantity: the forced value must then hold
                numbers (ints or floats; not bools, strings or None).
            minimum: The smallest value the quantity may take (e.g. 0 for a coherence or a
                stimulus strength); None: any finite number.
            maximum: The largest value it may take (e.g. 1 for a proportion); None: no bound.

        Returns:
            The forced values, or None if ``name`` was not forced.

        Raises:
            ValueError: If the forced value has neither shape ``shape`` nor ``(B, *shape)``,
                or, with ``number``, does not hold numbers; the message names ``name``.
        """
        if name not in self.kwargs:
            return None
        value = np.asarray(self.kwargs[name])
        shape = tuple(shape)
        if value.shape == shape:
            out = value[None] if self.n == 1 else np.broadcast_to(value, (self.n, *shape))
        elif value.shape == (self.n, *shape):
            out = value
        else:
            raise ValueError(
                f"forced {name} must have shape {shape} (one value for every trial) or "
                f"{(self.n, *shape)} (one per trial of this batch of {self.n}), got shape "
                f"{value.shape}"
            )
        if number and out.dtype.kind not in "iuf":  # (bools, strings, None, objects)
            raise ValueError(
                f"forced {name} must be a number (or one per trial): it is a quantity, got "
                f"{self.kwargs[name]!r}"
            )
        if minimum is not None or maximum is not None:
            self._check_domain(name, out, minimum, maximum)
        self.trial[name] = out
        return out

    @staticmethod
    def _check_domain(
        name: str, values: np.ndarray, minimum: float | None, maximum: float | None
    ) -> None:
        """Refuses forced values of a quantity outside ``[minimum, maximum]``, naming them."""
        low = -math.inf if minimum is None else minimum
        high = math.inf if maximum is None else maximum
        outside = (values < low) | (values > high)
        if bool(outside.any()):
            raise ValueError(
                f"forced {name}={float(values[outside].flat[0])!r} is outside its domain: "
                f"{name} lies in [{low!r}, {high!r}]"
            )

    def choice(
        self,
        name: str,
        options: Sequence[Any] | np.ndarray,
        p: Any = None,
        *,
        minimum: float | None = None,
    ) -> np.ndarray:
        """Draws trial variable ``name`` uniformly (or with probabilities ``p``) from options.

        A forced value in the builder's kwargs wins. The result is recorded in the trial dict.
        The domain of a forced value follows the options: drawn from integer, boolean or
        string options (a category: a choice, a rule, a pair), it must be one of them; drawn
        from real-valued options (a quantity such as a coherence), any finite number at least
        ``minimum`` is accepted, so a test set can use values off the default grid.

        Args:
            name: Trial-dict key, e.g. ``"ground_truth"``.
            options: The values to choose from.
            p: Optional probabilities, one per option.
            minimum: The smallest value a forced quantity may take (e.g. 0 for a coherence,
                whose sign the ground truth carries); None: any finite number.

        Returns:
            An array of shape ``(B,)`` (or ``(B, *option_shape)``).
        """
        values = options if type(options) is np.ndarray else np.asarray(options)
        if name in self.kwargs:  # one forced option for every trial, or one per trial
            quantity = values.dtype.kind == "f"  # else a category: one of the options
            forced = self.forced(
                name, values.shape[1:], number=quantity, minimum=minimum if quantity else None
            )
            assert forced is not None
            if not quantity:
                among(forced, name, values)
            return forced
        if values.shape[0] == 0:
            raise ValueError(f"trial variable {name!r}: no options to choose from")
        if p is None and self.n == 1:
            # The same draw as ``rng.random(1)``, without the array round trip.
            i = int(self.rng.random() * values.shape[0])
            one: np.ndarray = values[i : i + 1].copy()
            self.trial[name] = one
            return one
        if p is None:
            idx = (self.rng.random(self.n) * values.shape[0]).astype(np.intp)
        else:
            cdf = np.cumsum(np.asarray(p, dtype=float))
            if cdf.shape[0] != values.shape[0] or not math.isclose(cdf[-1], 1.0, abs_tol=1e-6):
                raise ValueError(
                    f"trial variable {name!r}: p must have one probability per option "
                    f"({values.shape[0]}) summing to 1, got {p!r}"
                )
            idx = np.minimum(
                np.searchsorted(cdf, self.rng.random(self.n) * cdf[-1], side="right"),
                values.shape[0] - 1,
            )
        out: np.ndarray = values[idx]
        self.trial[name] = out
        return out

    def uniform(self, name: str, low: float, high: float) -> np.ndarray:
        """Draws trial variable ``name`` uniformly on ``[low, high)`` (forced value wins)."""
        forced = self.forced(name, number=True) if name in self.kwargs else None
        if forced is not None:
            return forced
        if self.n == 1:
            out = np.array([low + self.rng.random() * (high - low)])
            self.trial[name] = out
            return out
        out = low + self.rng.random(self.n) * (high - low)
        self.trial[name] = out
        return out

    def not_forceable(self, name: str, because: str) -> None:
        """Refuses a forced value for a trial variable the task derives from others.

        Call it before recording a derived variable (``set_param``), so that forcing it is an
        error rather than silently ignored.

        Raises:
            ValueError: If ``name`` was forced, saying what it is derived from.
        """
        if name in self.kwargs:
            raise ValueError(f"{name} cannot be forced: it is derived from {because}")

    def set_param(self, name: str, value: Any) -> np.ndarray:
        """Records a derived trial variable (scalar or ``(B, ...)``) in the trial dict."""
        arr = self._per_trial(value)
        self.trial[name] = arr
        return arr

    def record(self, returned: dict[str, Any] | None) -> dict[str, Any]:
        """Records the returned trial variables and the forced kwargs; returns them all.

        Raises:
            ValueError: A forced kwarg the task neither read nor recorded (a typo such as
                ``cooh=``), unless a wrapper passed it down as :class:`RecordOnly`; or one
                the task recorded without reading it (a variable it derives from others).
        """
        for key, value in (returned or {}).items():
            if self.trial.get(key) is not value:
                self.set_param(key, value)
        read = self.kwargs.read if isinstance(self.kwargs, TrackedKwargs) else set()
        unknown, task = [], type(self.env).__name__
        for key, value in dict.items(self.kwargs):
            if isinstance(value, RecordOnly):
                self.set_param(key, value.value)
            elif key not in self.trial:
                unknown += [] if key in read else [key]
                self.set_param(key, value)
            elif key not in read and not same_value(self.trial[key], self._per_trial(value)):
                raise derived_error(task, key, value, self.trial[key])
        if unknown and self.env.batch_native:  # per-trial tasks record every kwarg
            raise unknown_kwargs_error(task, unknown, read | self.trial.keys())
        return self.trial
