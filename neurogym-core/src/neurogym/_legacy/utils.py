"""NeuroGym 2.3.1's small utilities: ``ngym_random``, ``tasktools``, ``functions``, ...

Written here from their documented behaviour (../shared/spec/upstream-neurogym.md §7.3), each
as small as the 2.3.1 function it stands for. Tasks do not use them: today's timing specs,
``neurogym.validate`` and numpy cover what they did.
"""

from __future__ import annotations

import importlib.util
import logging
import math
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from neurogym import timing

__all__ = [
    "PSYCHOPY_INSTALLED",
    "SB3_INSTALLED",
    "TruncExp",
    "circular_dist",
    "compute_perf",
    "correct_2AFC",
    "divide",
    "ensure_dir",
    "get_idx",
    "get_periods_idx",
    "iso_timestamp",
    "logger",
    "minmax_number",
    "random_number_fn",
    "random_number_name",
    "suppress_during_pytest",
    "to_map",
    "trunc_exp",
]

F = TypeVar("F", bound=Callable[..., Any])

#: 2.3.1 logged through loguru; today neurogym logs through the standard ``logging`` module.
logger = logging.getLogger("neurogym")

#: 2.3.1's ``neurogym._SB3_INSTALLED`` and ``_PSYCHOPY_INSTALLED`` (no psychopy tasks in 3.0).
SB3_INSTALLED = importlib.util.find_spec("stable_baselines3") is not None
PSYCHOPY_INSTALLED = False

_DISTRIBUTIONS = ("uniform", "choice", "truncated_exponential", "constant")


class TruncExp(timing.TruncExp):
    """2.3.1's ``TruncExp``: today's spec, also callable on its own.

    In a ``timing`` dict it is today's :class:`neurogym.TruncExp`, drawn from the env's
    generator (so ``reset(seed=...)`` fixes it). Called without a generator, as 2.3.1 code
    does (``TruncExp(600, 300, 3000)()``), it draws from its own, re-created by :meth:`seed`.
    """

    def seed(self, seed: int | None = None) -> None:
        """Re-creates the generator used when called without one."""
        object.__setattr__(self, "_own_rng", np.random.default_rng(seed))

    def __call__(self, rng: np.random.Generator | None = None) -> float:
        """Draws one value from ``rng``, else from the spec's own generator."""
        if rng is None:
            if getattr(self, "_own_rng", None) is None:
                self.seed()
            rng = getattr(self, "_own_rng")  # noqa: B009  (set by seed(), outside the fields)
        return super().__call__(rng)


def trunc_exp(
    rng: np.random.Generator | np.random.RandomState,
    vmean: float,
    vmin: float = 0.0,
    vmax: float = math.inf,
) -> float:
    """A truncated exponential draw (2.3.1's signature; a RandomState works too)."""
    generator = (
        rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng.randint(2**31))
    )
    return float(timing.trunc_exp(generator, vmean, vmin, vmax))


def _check_distribution(dist: str) -> None:
    if dist not in _DISTRIBUTIONS:
        raise ValueError(f"Unknown distribution: {dist!r}; valid: {', '.join(_DISTRIBUTIONS)}")


def random_number_fn(dist: str, args: Any, rng: np.random.Generator) -> Callable[[], Any]:
    """A function drawing from ``dist`` with ``args`` (2.3.1's form of a timing spec)."""
    _check_distribution(dist)
    if dist == "uniform":
        return lambda: rng.uniform(*args)
    if dist == "choice":
        return lambda: rng.choice(args)
    if dist == "truncated_exponential":
        return lambda: trunc_exp(rng, *args)
    return lambda: args


def random_number_name(dist: str, args: Any) -> str:
    """A description of ``dist`` with ``args``."""
    _check_distribution(dist)
    if dist == "uniform":
        return f"uniform between {args[0]} and {args[1]}"
    if dist == "choice":
        return f"choice within {args}"
    if dist == "truncated_exponential":
        bounds = [
            f"{label} {value}" for label, value in zip(("min", "max"), args[1:], strict=False)
        ]
        return ", ".join([f"truncated exponential with mean {args[0]}", *bounds])
    return f"constant {args}"


def minmax_number(dist: str, args: Any) -> tuple[Any, Any]:
    """The smallest and largest value ``dist`` with ``args`` can give."""
    _check_distribution(dist)
    if dist == "uniform":
        return args[0], args[1]
    if dist == "choice":
        return np.min(args), np.max(args)
    if dist == "truncated_exponential":
        return args[1], args[2]
    return args, args


def to_map(*args: Any) -> OrderedDict[Any, int]:
    """Names to their positions: ``to_map("a", "b") == {"a": 0, "b": 1}`` (or from one list)."""
    names = args[0] if len(args) == 1 and isinstance(args[0], list) else args
    return OrderedDict((name, index) for index, name in enumerate(names))


def get_idx(t: Any, start_end: Sequence[float]) -> list[int]:
    """Indices of the times ``t`` in ``[start, end)``."""
    start, end = start_end
    t = np.asarray(t)
    return [int(i) for i in np.flatnonzero((start <= t) & (t < end))]


def get_periods_idx(
    dt: float, periods: Mapping[str, Any]
) -> tuple[np.ndarray, dict[str, list[int]]]:
    """A time axis up to ``periods["tmax"]`` and each period's indices on it."""
    t = np.linspace(0, periods["tmax"], int(periods["tmax"] / dt) + 1)
    return t, {name: get_idx(t, bounds) for name, bounds in periods.items() if name != "tmax"}


def circular_dist(original_dist: Any) -> Any:
    """The distance on a circle: ``min(|d|, 2*pi - |d|)``."""
    return np.minimum(np.abs(original_dist), 2 * np.pi - np.abs(original_dist))


def divide(x: Any, y: Any) -> Any:
    """``x / y``, or 0 when ``y`` is 0 or the result is NaN."""
    try:
        z = x / y
    except ZeroDivisionError:
        return 0
    return 0 if np.isnan(z) else z


def correct_2AFC(perf: Any) -> tuple[Any, Any]:  # noqa: N802  (2.3.1's name)
    """The fraction of trials with a decision and of decisions that were correct."""
    return perf.n_decision / perf.n_trials, divide(perf.n_correct, perf.n_decision)


def compute_perf(perf: float, reward: float, num_tr_perf: int, tr_perf: bool) -> tuple[float, int]:
    """Updates a running mean of ``reward`` over the trials where ``tr_perf`` is set."""
    if tr_perf:
        num_tr_perf += 1
        perf += (reward - perf) / num_tr_perf
    return perf, num_tr_perf


def ensure_dir(path: str | Path) -> Path:
    """Creates ``path`` (and its parents) if needed and returns it, resolved."""
    directory = Path(path).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def iso_timestamp() -> str:
    """The UTC time as ``YYYY-mm-dd_HH-MM-SS``."""
    return datetime.now(UTC).strftime("%Y-%m-%d_%H-%M-%S")


def suppress_during_pytest(
    *exceptions: type[BaseException], message: str | None = None, reason: str | None = None
) -> Callable[[F], F]:
    """2.3.1's decorator that swallowed errors under pytest; today it changes nothing.

    Errors are never swallowed now (a test that cannot fail is a defect), so the decorated
    function is returned as it is.
    """
    del exceptions, message, reason

    def decorator(func: F) -> F:
        return func

    return decorator
