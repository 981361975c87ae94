"""One generator per trial row: build ``N`` trials of ``N`` envs in one builder pass.

A vector env keeps one ``numpy.random.Generator`` per sub-env (as ``N`` single envs would).
To build the next trial of every sub-env at once, the :class:`~neurogym._builder.BatchBuilder`
gets a :class:`RowGenerators` instead of a ``Generator``: every draw whose leading dimension is
the batch size is split into one draw per row, from that row's generator, with exactly the
shape a batch of one would have drawn. Row ``i`` of the batch therefore equals the trial a
single env with generator ``i`` generates next (``docs/architecture.md`` §9.3).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["RowGenerators", "SharedDrawError"]


class SharedDrawError(ValueError):
    """A task drew a value shared by all trials of a batch from ``b.rng``.

    Per-env generators cannot draw it: every row must draw its own value. Tasks that declare
    ``vectorized=True`` draw per trial (``size=(b.n, ...)``) or through the builder helpers.
    """


def _shape(size: Any) -> tuple[int, ...]:
    if isinstance(size, (int, np.integer)):
        return (operator.index(size),)
    return tuple(operator.index(s) for s in size)


class RowGenerators:
    """A sequence of generators that stands in for ``b.rng`` in a multi-env builder pass.

    Args:
        generators: One generator per row of the batch.
    """

    def __init__(self, generators: Sequence[np.random.Generator]) -> None:
        self.generators = list(generators)
        self.n = len(self.generators)
        bits = [g.bit_generator for g in self.generators]
        # PCG64's Generator.random() is (next64 >> 11) * 2**-53, and random_raw() is next64:
        # drawing raw words and converting them as one array gives the same doubles, faster.
        self._raw = bits if set(map(type, bits)) == {np.random.PCG64} else None

    def __len__(self) -> int:
        return self.n

    def _rows(self, size: Any, what: str) -> tuple[int, ...]:
        if size is None:
            raise SharedDrawError(
                f"b.rng.{what}() without a size draws one value shared by the whole batch; "
                f"a vectorized task must draw one per trial (size=(b.n, ...))"
            )
        shape = _shape(size)
        if not shape or shape[0] != self.n:
            raise SharedDrawError(
                f"b.rng.{what}(size={size!r}) does not have the batch size {self.n} as its "
                "first dimension; a vectorized task draws per trial (size=(b.n, ...))"
            )
        return shape[1:]

    def random(self, size: Any = None, dtype: Any = np.float64, out: Any = None) -> Any:
        """Uniforms on [0, 1): row ``i`` drawn from generator ``i``."""
        if size is None and out is None and self.n == 1:
            return self.generators[0].random(dtype=dtype)
        if out is not None:
            size = out.shape
        rest = self._rows(size, "random")
        if not rest and dtype in (np.float64, float) and out is None:
            if self._raw is not None:
                words = np.array([b.random_raw() for b in self._raw], dtype=np.uint64)
                return (words >> np.uint64(11)) * (1.0 / 9007199254740992.0)
            return np.array([g.random() for g in self.generators])
        result = np.empty((self.n, *rest), dtype=dtype) if out is None else out
        for g, row in zip(self.generators, result, strict=True):
            g.random(dtype=dtype, out=row[None])
        return result

    def standard_normal(self, size: Any = None, dtype: Any = np.float64, out: Any = None) -> Any:
        """Standard normals: row ``i`` drawn from generator ``i``."""
        if size is None and out is None and self.n == 1:
            return self.generators[0].standard_normal(dtype=dtype)
        if out is not None:
            size = out.shape
        rest = self._rows(size, "standard_normal")
        result = np.empty((self.n, *rest), dtype=dtype) if out is None else out
        rows = result if rest else result[:, None]  # iterate views, not scalars
        for g, row in zip(self.generators, rows, strict=True):
            g.standard_normal(dtype=dtype, out=row)
        return result

    def standard_normal_ragged(
        self, counts: np.ndarray, cell: tuple[int, ...], dtype: Any
    ) -> np.ndarray:
        """Row ``i`` draws ``counts[i]`` steps of ``cell``; the rest of its row stays 0.

        This is what a batch of one draws for a period of ``counts[i]`` steps.

        Returns:
            ``(n, max(counts), *cell)`` array.
        """
        longest = max(int(np.max(counts)), 1) if self.n else 1
        result = np.zeros((self.n, longest, *cell), dtype=dtype)
        for g, row, count in zip(self.generators, result, counts.tolist(), strict=True):
            if count > 0:
                g.standard_normal(dtype=dtype, out=row[None, :count])
        return result

    def __getattr__(self, name: str) -> Callable[..., Any]:
        """Any other ``Generator`` method, drawn row by row with ``size=(1, *rest)``."""
        method = getattr(np.random.Generator, name, None)
        if method is None or name.startswith("_"):
            raise AttributeError(name)

        def per_row(*args: Any, size: Any = None, **kwargs: Any) -> Any:
            rest = self._rows(size, name)
            parts = []
            for i, g in enumerate(self.generators):
                row_args = [self._row_arg(a, i) for a in args]
                row_kwargs = {k: self._row_arg(v, i) for k, v in kwargs.items()}
                parts.append(getattr(g, name)(*row_args, size=(1, *rest), **row_kwargs))
            return np.concatenate(parts, axis=0)

        return per_row

    def _row_arg(self, value: Any, i: int) -> Any:
        if isinstance(value, np.ndarray) and value.ndim and value.shape[0] == self.n:
            return value[i : i + 1]
        return value
