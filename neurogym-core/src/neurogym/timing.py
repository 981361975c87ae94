"""Declarative timing specifications, sampled for a whole batch of trials in one call.

A task's ``timing`` maps a period name to a duration spec in ms. Every form upstream NeuroGym
accepts is accepted here:

============================================  ===============================================
form                                          meaning
============================================  ===============================================
``300`` / ``300.0``                           constant
``(300, 500, 700)`` (numbers)                 uniform choice among the values
``("uniform", (a, b))``                       uniform on [a, b)
``("choice", [v1, v2, ...])``                 uniform choice
``("truncated_exponential", [m, lo, hi])``    exponential of mean m conditioned on [lo, hi)
``("constant", x)``                           x
``("until", t_end)``                          the period ends at absolute time ``t_end``
``TruncExp(m, lo, hi)``                       same as ``truncated_exponential``
a callable ``f()``                            called once per trial (compatibility path)
============================================  ===============================================

Every random draw uses the generator passed to :meth:`TimingSpec.sample` (the env's ``rng``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import numpy as np

from neurogym.validate import check_keys, frozen

__all__ = [
    "MAX_TRIAL_STEPS",
    "UNBOUNDED_RISK",
    "TimingDict",
    "TimingSpec",
    "TruncExp",
    "parse_timing",
    "trunc_exp",
]

Kind: TypeAlias = Literal[
    "constant", "choice", "uniform", "truncated_exponential", "until", "callable"
]

MAX_TRIAL_STEPS = 1_000_000
"""The most steps one trial may have. A period (or trial) that would be longer at the env's
``dt`` (``timing`` values such as ``1e300``, or ``dt=1e-9``) raises a ``ValueError`` naming it,
instead of trying to allocate its arrays."""

VALID_FORMS = (
    "a number (constant), a list/tuple of numbers (choice), ('uniform', (low, high)), "
    "('choice', [values]), ('truncated_exponential', [mean, min, max]), ('constant', x), "
    "('until', t_end), TruncExp(mean, min, max) or a callable returning a number"
)


def trunc_exp(
    rng: np.random.Generator,
    vmean: float,
    vmin: float = 0.0,
    vmax: float = math.inf,
    size: int | None = None,
) -> Any:
    """Draws from an exponential of mean ``vmean`` conditioned on ``[vmin, vmax)``.

    Uses the exact inverse CDF, one uniform per draw (no rejection loop). Returns ``vmax``
    when ``vmin >= vmax``.

    Args:
        rng: Generator to draw from.
        vmean: Mean of the untruncated exponential (> 0).
        vmin: Lower bound.
        vmax: Upper bound (may be ``inf``).
        size: Number of draws; ``None`` returns a float.

    Returns:
        A float, or an array of ``size`` floats.
    """
    if vmin >= vmax:
        return vmax if size is None else np.full(size, float(vmax))
    u = rng.random(size)
    # Inverse CDF written relative to vmin, so nothing underflows when vmin >> vmean:
    # x = vmin - m * log(1 - u * (1 - exp(-(vmax - vmin) / m))).
    mass = 1.0 if math.isinf(vmax) else -math.expm1(-(vmax - vmin) / vmean)
    if size is None:  # one draw: the same double arithmetic in Python floats (numpy's
        return float(vmin - vmean * math.log1p(-u * mass))  # log1p is the C library's)
    out: np.ndarray = vmin - vmean * np.log1p(-u * mass)
    return out


@dataclass(frozen=True)
class TruncExp:
    """A truncated-exponential duration, drawn from the env's generator.

    Upstream's ``TruncExp`` carried its own random state; this one is only a description, so
    ``reset(seed=...)`` fixes its draws like every other draw of the task.

    Args:
        vmean: Mean of the untruncated exponential, in ms.
        vmin: Lower bound in ms.
        vmax: Upper bound in ms.
    """

    vmean: float
    vmin: float = 0.0
    vmax: float = math.inf

    def __call__(self, rng: np.random.Generator) -> float:
        """Draws one value from ``rng``."""
        return float(trunc_exp(rng, self.vmean, self.vmin, self.vmax))


@dataclass(frozen=True)
class TimingSpec:
    """A parsed timing spec.

    Attributes:
        kind: One of ``constant``, ``choice``, ``uniform``, ``truncated_exponential``,
            ``until`` or ``callable``.
        args: The parameters of the distribution (tuple of floats), or the end time for
            ``until``.
        func: The callable for ``kind == "callable"``.
        raw: The spec as the user wrote it (for messages).
    """

    kind: Kind
    args: tuple[float, ...] = ()
    func: Callable[[], Any] | None = None
    raw: Any = None

    @property
    def is_constant(self) -> bool:
        """Whether every trial gets the same duration."""
        return self.kind == "constant" or (self.kind == "choice" and len(set(self.args)) == 1)

    @property
    def is_vectorised(self) -> bool:
        """Whether :meth:`sample` draws a batch in one call (everything but callables)."""
        return self.kind != "callable"

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """Draws ``n`` durations in ms (not floored to ``dt``).

        ``until`` specs cannot be sampled on their own: the builder computes them from the
        end of the periods added so far.

        Args:
            rng: The env's generator.
            n: Number of trials.

        Returns:
            A float64 array of shape ``(n,)``.
        """
        kind, args = self.kind, self.args
        if kind == "constant":
            return np.full(n, args[0])
        if kind == "choice":
            if len(args) == 1:
                return np.full(n, args[0])
            idx = (rng.random(n) * len(args)).astype(np.intp)
            return np.asarray(args)[idx]
        if kind == "uniform":
            return args[0] + rng.random(n) * (args[1] - args[0])
        if kind == "truncated_exponential":
            return np.asarray(trunc_exp(rng, args[0], args[1], args[2], size=n), dtype=float)
        if kind == "callable":
            assert self.func is not None
            return np.array([_call_timing(self.func, rng) for _ in range(n)], dtype=float)
        raise ValueError(f"an 'until' spec {self.raw!r} is relative to the trial's end so far")

    def minmax(self) -> tuple[float, float]:
        """The smallest and largest duration this spec can produce (callables: nan)."""
        kind, args = self.kind, self.args
        if kind in ("constant", "choice"):
            return (min(args), max(args))
        if kind == "uniform":
            return (args[0], args[1])
        if kind == "truncated_exponential":
            return (args[1], args[2]) if args[1] < args[2] else (args[2], args[2])
        return (math.nan, math.nan)


def _call_timing(func: Callable[..., Any], rng: np.random.Generator) -> float:
    if isinstance(func, TruncExp):
        return func(rng)
    return float(func())


def _as_number(value: Any, what: str, *, infinite: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what}: expected a number, got {value!r}")
    number = float(value)
    if math.isnan(number) or number < 0 or (math.isinf(number) and not infinite):
        raise ValueError(f"{what}: durations are finite numbers >= 0 ms, got {value!r}")
    return number


def check_drawn(values: Any, spec: TimingSpec, where: str) -> None:
    """Raises if a callable spec drew a duration that is not a finite number >= 0 ms."""
    drawn = np.asarray(values, dtype=float)
    bad = drawn[~(np.isfinite(drawn) & (drawn >= 0))]
    if bad.size:
        raise ValueError(
            f"{where} = {spec.raw!r} returned {float(bad[0])!r}; durations are finite numbers "
            ">= 0 ms"
        )


def check_steps(longest_ms: float, dt: float, where: str) -> None:
    """Raises if ``longest_ms`` at step ``dt`` exceeds :data:`MAX_TRIAL_STEPS` steps."""
    if longest_ms / dt > MAX_TRIAL_STEPS:
        raise ValueError(
            f"{where} lasts up to {longest_ms:g} ms, {longest_ms / dt:.3g} steps at dt={dt:g} "
            f"ms; a trial has at most {MAX_TRIAL_STEPS:,} steps (neurogym.timing."
            "MAX_TRIAL_STEPS): use a larger dt or shorter periods"
        )


def _numbers(values: Any, what: str, *, infinite: bool = False) -> tuple[float, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(f"{what}: expected a list of numbers, got {values!r}")
    out = tuple(_as_number(v, what, infinite=infinite) for v in values)
    if not out:
        raise ValueError(f"{what}: the list of values is empty")
    return out


def _parse_named(name: str, args: Any, raw: Any, where: str) -> TimingSpec:
    what = f"{where} {name!r}"
    if name == "constant":
        return TimingSpec("constant", (_as_number(args, what),), raw=raw)
    if name == "until":
        return TimingSpec("until", (_as_number(args, what),), raw=raw)
    if name == "choice":
        return TimingSpec("choice", _numbers(args, what), raw=raw)
    if name == "uniform":
        bounds = _numbers(args, what)
        if len(bounds) != 2:
            raise ValueError(f"{what}: expected (low, high), got {args!r}")
        low, high = bounds
        if high < low:
            raise ValueError(f"{what}: low {low} is larger than high {high}")
        return TimingSpec("uniform", (low, high), raw=raw)
    if name == "truncated_exponential":
        values = _numbers(args if isinstance(args, Iterable) else [args], what, infinite=True)
        if not 1 <= len(values) <= 3:
            raise ValueError(f"{what}: expected [mean, min, max], got {args!r}")
        mean, vmin, vmax = (values + (0.0, math.inf)[len(values) - 1 :])[:3]
        if math.isinf(mean) or math.isinf(vmin):
            raise ValueError(f"{what}: the mean and min must be finite, got {args!r}")
        if mean <= 0:
            raise ValueError(f"{what}: the mean must be > 0, got {mean}")
        return TimingSpec("truncated_exponential", (mean, vmin, vmax), raw=raw)
    raise ValueError(
        f"{where}: unknown distribution {name!r} in {raw!r}; valid forms: {VALID_FORMS}"
    )


def parse_timing(raw: Any, where: str = "timing") -> TimingSpec:
    """Parses one timing value into a :class:`TimingSpec`.

    Args:
        raw: The spec (see the module docstring for the forms).
        where: Context for error messages, e.g. ``"timing['stimulus']"``.

    Returns:
        The parsed spec.

    Raises:
        TypeError: The value has none of the valid forms.
        ValueError: The form is right but a parameter is invalid (negative, empty, NaN).
    """
    if isinstance(raw, TimingSpec):
        return raw
    if isinstance(raw, TruncExp):
        return _parse_named("truncated_exponential", (raw.vmean, raw.vmin, raw.vmax), raw, where)
    if isinstance(raw, (int, float, np.integer, np.floating)) and not isinstance(raw, bool):
        return TimingSpec("constant", (_as_number(raw, where),), raw=raw)
    if callable(raw):
        return TimingSpec("callable", func=raw, raw=raw)
    if isinstance(raw, Sequence) and not isinstance(raw, (str, bytes)) and len(raw) > 0:
        if isinstance(raw[0], str):
            if len(raw) != 2:
                raise ValueError(
                    f"{where}: a named distribution is a pair (name, args), got {raw!r}; "
                    f"valid forms: {VALID_FORMS}"
                )
            return _parse_named(raw[0], raw[1], raw, where)
        return TimingSpec("choice", _numbers(raw, where), raw=raw)
    raise TypeError(f"{where}: invalid timing spec {raw!r}; valid forms: {VALID_FORMS}")


class TimingDict(dict[str, Any]):
    """A ``dict`` of period name to timing spec that validates every value when it is set.

    ``timing["stimulus"]`` returns the value as written (upstream code reads it back);
    :meth:`spec` returns the parsed :class:`TimingSpec`. Assigning an invalid spec raises at
    the assignment, naming the key and the value.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        self._parsed: dict[str, TimingSpec] = {}
        self.version = 0
        """Bumped by every change, so caches of sampled trials can tell they are stale."""
        self.dt: float | None = None
        """The owning env's step (set by ``TrialEnv``): longer periods than
        :data:`MAX_TRIAL_STEPS` steps raise when assigned."""
        self.optional: tuple[str, ...] | None = None
        """Set by the owning env: ``update()`` then accepts only ``known`` or these keys."""
        self.owner = ""
        self.known: dict[str, None] = {}
        """Every key this timing (or the one it replaced in its env) has held: the task's
        periods, which ``update()`` and a replacement of the env's timing may name."""
        self.sealed = False
        """Set when the owning env's construction ends (its outermost ``__init__`` returns) or
        it builds its first trial: from then on item assignment, too, names only ``known`` or
        ``optional`` keys (before, task code adds its periods that way), no key can be removed,
        and every change is remembered in :attr:`edits`."""
        self.edits: dict[str, Any] = {}
        """The changes made since sealing (period to spec): ``TrialEnv.configure`` applies
        them again to the task made anew."""
        self.update(*args, **kwargs)

    def __setitem__(self, key: str, value: Any) -> None:
        if not isinstance(key, str):
            raise TypeError(f"timing keys are period names (str), got {key!r}")
        if self.sealed and key not in self.known:
            what = f"timing of {self.owner or 'this task'}"
            check_keys([key], self.known, self.optional or (), what)
        where = f"timing[{key!r}] = {value!r}"
        spec = parse_timing(value, where=f"timing[{key!r}]")
        value = frozen(value)  # read-only lists: a spec changes only by assigning its key
        if spec.raw is not value and spec.kind != "callable":
            spec = dataclasses.replace(spec, raw=value)
        if self.dt is not None and spec.kind not in ("callable", "until"):
            _check_longest(spec, self.dt, where)
        self._parsed[key] = spec
        self.known[key] = None
        self.version += 1
        if self.sealed:
            self.edits[key] = value
        super().__setitem__(key, value)

    def bind(
        self,
        dt: float,
        optional: tuple[str, ...] = (),
        owner: str = "",
        known: Iterable[str] = (),
    ) -> TimingDict:
        """Makes this the timing of an env: checked against ``dt`` and the accepted keys.

        Every entry, now and later, must fit :data:`MAX_TRIAL_STEPS` steps of ``dt``, and
        ``update()`` accepts only the keys held now or before (``known``: those of the timing
        this one replaces) plus ``optional`` (item assignment, which task code uses to build
        its defaults, accepts any key until the timing is ``sealed``).
        """
        self.dt = dt
        self.optional = tuple(optional)
        self.owner = owner
        self.known = dict.fromkeys([*known, *self.known])
        for key, spec in self._parsed.items():
            if spec.kind not in ("callable", "until"):
                _check_longest(spec, dt, f"timing[{key!r}] = {self[key]!r}")
        return self

    def _refuse_removal(self) -> None:
        if self.sealed:
            raise TypeError(
                f"timing of {self.owner or 'this task'} keeps its periods ({sorted(self)}): "
                "give a period another spec instead of removing it (env.timing['delay'] = 0)"
            )
        self.version += 1

    def __delitem__(self, key: str) -> None:
        self._refuse_removal()
        super().__delitem__(key)
        del self._parsed[key]

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Updates from a mapping or pairs, validating every value before changing any."""
        if len(args) > 1:
            raise TypeError(f"update expected at most 1 positional argument, got {len(args)}")
        other: dict[str, Any] = {}
        if args and args[0] is not None:
            if not isinstance(args[0], Mapping):
                kind = type(args[0]).__name__
                raise TypeError(f"timing must be a mapping of period name to spec, got {kind}")
            other.update(args[0])
        other.update(kwargs)
        if self.optional is not None:
            check_keys(other, self.known, self.optional, f"timing of {self.owner or 'this task'}")
        if len(other) > 1:  # all checked on a copy first: a bad value changes nothing
            checked = self.copy()
            for key, value in other.items():
                checked[key] = value
        for key, value in other.items():
            self[key] = value

    def __ior__(self, other: Any) -> TimingDict:  # type: ignore[override]
        self.update(other)
        return self

    def __or__(self, other: Any) -> TimingDict:  # type: ignore[override]
        merged = self.copy()
        merged.update(other)
        return merged

    def setdefault(self, key: str, default: Any = None) -> Any:
        """Sets ``key`` to ``default`` (validated) if missing; returns the value."""
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key: str, *default: Any) -> Any:
        """Removes ``key`` and returns its value (refused once sealed)."""
        self._refuse_removal()
        self._parsed.pop(key, None)
        return super().pop(key, *default)

    def clear(self) -> None:
        """Removes every entry (refused once sealed)."""
        self._refuse_removal()
        super().clear()
        self._parsed.clear()

    def spec(self, key: str) -> TimingSpec:
        """The parsed spec of ``key``.

        Raises:
            KeyError: ``key`` is not in the timing, naming the valid keys.
        """
        try:
            return self._parsed[key]
        except KeyError:
            raise KeyError(f"no timing for period {key!r}; timing has {sorted(self)}") from None

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuilt, self._state())

    def copy(self) -> TimingDict:
        """A shallow copy (a ``TimingDict``, checked against the same ``dt`` and keys)."""
        return _rebuilt(*self._state())

    def _state(self) -> tuple[Any, ...]:
        known = tuple(self.known)
        version, edits = self.version, dict(self.edits)
        return dict(self), self.dt, self.optional, self.owner, known, self.sealed, version, edits


UNBOUNDED_RISK = 1e-12
"""The largest chance per trial that an unbounded truncated exponential may have of outlasting
:data:`MAX_TRIAL_STEPS`: above it, the spec is refused when set, not by some seed's trial."""


def _check_longest(spec: TimingSpec, dt: float, where: str) -> None:
    """Checks a spec's longest duration; an unbounded one by its chance of a too-long draw."""
    longest = spec.minmax()[1]
    if math.isfinite(longest):
        check_steps(longest, dt, where)
    elif spec.kind == "truncated_exponential":
        mean, vmin = spec.args[0], spec.args[1]
        risk = math.exp(-max(MAX_TRIAL_STEPS * dt - vmin, 0.0) / mean)
        if risk > UNBOUNDED_RISK:
            raise ValueError(
                f"{where} is unbounded and outlasts {MAX_TRIAL_STEPS:,} steps "
                f"(neurogym.timing.MAX_TRIAL_STEPS) at dt={dt:g} ms in {risk:.2g} of trials, so "
                "some seeds would fail: give it a finite max, a smaller mean or a larger dt"
            )


def _rebuilt(
    entries: dict[str, Any],
    dt: float | None,
    optional: tuple[str, ...] | None = None,
    owner: str = "",
    known: tuple[str, ...] = (),
    sealed: bool = False,
    version: int = 0,
    edits: dict[str, Any] | None = None,
) -> TimingDict:
    timing = TimingDict(entries)
    if dt is not None:
        timing.bind(dt, optional or (), owner, known)
    timing.sealed = sealed
    timing.version = version  # a copy or an unpickled env's caches stay valid
    timing.edits = dict(edits or {})
    return timing


# ---------------------------------------------------------------------- the step-index rule
EPS = 1e-9
"""Tolerance of ``floor(t / dt)`` (times in ms that are multiples of dt up to rounding)."""


def _floor_to_dt(value: float | np.ndarray, dt: float) -> float | np.ndarray:
    """``value`` floored to a multiple of ``dt`` (the time of its step, :func:`_to_steps`)."""
    out: float | np.ndarray = _to_steps(value, dt) * dt
    return out


def _to_steps(value: float | np.ndarray, dt: float) -> Any:
    """Step index of a time in ms: ``floor(t / dt)`` (an int, or an int array).

    The one step-index rule, and the one function that turns ms into steps: the builder
    writes a period's observations and ground truth into steps ``_to_steps(start) ..
    _to_steps(end) - 1``, the period codes of a :class:`~neurogym.StandardDecision` cover the
    same steps, and a trial of ``tmax`` ms has ``_to_steps(tmax)`` steps.
    """
    if isinstance(value, (float, int)):  # a tuple: faster to test than a union type
        return math.floor(value / dt + EPS)
    return np.floor(value / dt + EPS).astype(np.intp)
