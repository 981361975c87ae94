"""Schedules: which condition (attribute set, env) the next trial uses.

A schedule is called once per trial and returns an index in ``[0, n)``. The wrappers that use
one (``ScheduleAttr``, ``ScheduleEnvs``) call it as ``schedule(rng)`` with the wrapped env's
generator and reset its counters in their ``reset``, so ``env.reset(seed=s)`` fixes the
schedule like every other draw. Called without a generator (standalone use), a schedule draws
from its own, which :meth:`BaseSchedule.seed` re-creates.

Upstream bug 21: upstream's ``RandomSchedule`` never returned the previous index, so with two
options (yang19's two modalities) it strictly alternated 0, 1, 0, 1. Here ``RandomSchedule``
draws uniformly among all ``n`` indices; ``RandomSchedule(n, repeat=False)`` keeps the
no-repeat rule for code that relied on it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from neurogym import validate
from neurogym.timing import TruncExp, trunc_exp

__all__ = [
    "BaseSchedule",
    "RandomBlockSchedule",
    "RandomSchedule",
    "SequentialBlockSchedule",
    "SequentialSchedule",
    "TruncExp",
    "trunc_exp",
]


class BaseSchedule:
    """Base of every schedule: counters, a standalone generator and the call protocol.

    Args:
        n: Number of conditions to schedule (indices ``0..n-1``).

    Attributes:
        n: Number of conditions.
        i: The index returned last (0 before the first call).
        count: Calls in a row that returned ``i``, as counted by block schedules.
        total_count: Calls since the last :meth:`reset`.
        rng: The schedule's own generator, used only when called without one.

    Raises:
        TypeError: If ``n`` is not an int.
        ValueError: If ``n < 1``.
    """

    def __init__(self, n: int) -> None:
        self.n = validate.positive_int(n, "n")
        self.i = 0
        self.count = 0
        self.total_count = 0
        self.rng: np.random.Generator | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n={self.n})"

    def seed(self, seed: int | None = None) -> None:
        """Re-creates the schedule's own generator (used when called without ``rng``)."""
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Returns to the initial state: ``i = count = total_count = 0``."""
        self.i = 0
        self.count = 0
        self.total_count = 0

    def __call__(self, rng: np.random.Generator | None = None) -> int:
        """Returns the index of the next trial's condition.

        Args:
            rng: Generator to draw from; default the schedule's own (seeded by :meth:`seed`,
                else fresh OS entropy).
        """
        if rng is None:
            if self.rng is None:
                self.rng = np.random.default_rng()
            rng = self.rng
        self.i = self._next(rng)
        self.total_count += 1
        return self.i

    def _next(self, rng: np.random.Generator) -> int:
        raise NotImplementedError(f"{type(self).__name__} must implement _next(rng)")

    def _other(self, rng: np.random.Generator) -> int:
        """A uniformly drawn index different from ``self.i`` (``i`` itself when ``n == 1``)."""
        if self.n == 1:
            return 0
        pick = int(rng.integers(self.n - 1))
        return pick + (pick >= self.i)


class SequentialSchedule(BaseSchedule):
    """Cycles through the indices: 1, 2, ..., n-1, 0, 1, ...

    As upstream, the first call after a reset returns 1 (the index advances before it is
    returned); with ``n == 1`` every call returns 0.
    """

    def _next(self, rng: np.random.Generator) -> int:
        self.count = 1
        return (self.i + 1) % self.n


class RandomSchedule(BaseSchedule):
    """Draws each index at random: uniformly, or with probabilities ``p``.

    Args:
        n: Number of conditions.
        repeat: Whether an index may follow itself. ``False`` reproduces upstream's rule
            (never the previous index; strict alternation when ``n == 2``, upstream bug 21).
            Before the first draw there is no previous index.
        p: Probability of each index (``n`` values summing to 1); None: uniform. Needs
            ``repeat=True``.

    Raises:
        ValueError: If ``p`` is not ``n`` probabilities summing to 1, or is given with
            ``repeat=False``.
    """

    def __init__(self, n: int, repeat: bool = True, p: Sequence[float] | None = None) -> None:
        super().__init__(n)
        self.repeat = bool(repeat)
        self.p: np.ndarray | None = None
        if p is not None:
            if not self.repeat:
                raise ValueError("RandomSchedule: p= needs repeat=True")
            self.p = validate.probabilities(p, "p", size=self.n)
            self._cdf = np.cumsum(self.p)

    def __repr__(self) -> str:
        p = "" if self.p is None else f", p={self.p.tolist()}"
        return f"RandomSchedule(n={self.n}, repeat={self.repeat}{p})"

    def draw(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """``size`` independent indices with this schedule's probabilities (one generator call).

        Used for batches; it does not move the schedule's counters.
        """
        if self.p is None:
            return rng.integers(self.n, size=size)
        out: np.ndarray = np.minimum(
            np.searchsorted(self._cdf, rng.random(size) * self._cdf[-1], side="right"),
            self.n - 1,
        )
        return out

    def _next(self, rng: np.random.Generator) -> int:
        if self.p is not None:
            return int(self.draw(rng, 1)[0])
        if self.repeat or self.total_count == 0:
            return int(rng.integers(self.n))
        return self._other(rng)


def _block_lens(block_lens: object, n: int) -> tuple[int, ...]:
    if isinstance(block_lens, str) or not isinstance(block_lens, Sequence | np.ndarray):
        raise TypeError(f"block_lens must be a sequence of {n} positive ints, got {block_lens!r}")
    if len(block_lens) != n:
        raise ValueError(
            f"block_lens must have one length per condition ({n}), got {block_lens!r}"
        )
    return tuple(validate.positive_int(length, "each block length") for length in block_lens)


class _BlockSchedule(BaseSchedule):
    """Shared block counting: ``block_lens[i]`` calls of ``i``, then :meth:`_next_block`.

    Subclasses pick the condition of the next block; the ``repr`` names the subclass.
    """

    def __init__(self, n: int, block_lens: Sequence[int]) -> None:
        super().__init__(n)
        self.block_lens = _block_lens(block_lens, self.n)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n={self.n}, block_lens={list(self.block_lens)})"

    def _next(self, rng: np.random.Generator) -> int:
        if self.count < self.block_lens[self.i]:
            self.count += 1
            return self.i
        self.count = 1
        return self._next_block(rng)

    def _next_block(self, rng: np.random.Generator) -> int:
        """The condition of the block that starts now (``self.i`` is the one that ended)."""
        raise NotImplementedError(f"{type(self).__name__} must implement _next_block(rng)")


class SequentialBlockSchedule(_BlockSchedule):
    """Blocks of conditions in order: ``block_lens[0]`` calls of 0, then ``block_lens[1]`` of 1...

    Args:
        n: Number of conditions.
        block_lens: Calls per block of each condition, ``n`` positive ints.

    Raises:
        ValueError: If ``block_lens`` does not have ``n`` positive entries.
    """

    def _next_block(self, rng: np.random.Generator) -> int:
        return (self.i + 1) % self.n


class RandomBlockSchedule(_BlockSchedule):
    """Blocks of conditions: after ``block_lens[i]`` calls of ``i``, a different random one.

    The first block is condition 0, as upstream.

    Args:
        n: Number of conditions.
        block_lens: Calls per block of each condition, ``n`` positive ints.

    Raises:
        ValueError: If ``block_lens`` does not have ``n`` positive entries.
    """

    def _next_block(self, rng: np.random.Generator) -> int:
        return self._other(rng)
