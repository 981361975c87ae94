"""One generator per group of rows: build the next trials of ``N`` envs in one builder pass.

A vector env keeps one ``numpy.random.Generator`` per sub-env (as ``N`` single envs would). A
single env generates its trials ``K`` at a time (``env.new_trials(K)``, ``K = env.prefetch``,
1 for tasks that do not prefetch). To build the next ``K`` trials of many sub-envs at once,
the :class:`~neurogym._trials.builder.BatchBuilder` gets a :class:`RowGenerators` instead of a
``Generator``: rows ``g*K .. g*K+K-1`` belong to generator ``g``, and every draw whose leading
dimension is the batch size is split into one draw per generator with exactly the shape
``new_trials(K)`` draws. Those rows therefore equal the trials a single env with generator
``g`` generates next (``docs/architecture.md`` §9.4).
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
        generators: One generator per group of rows.
        group: Rows per generator ``K`` (the batch has ``len(generators) * K`` rows).
    """

    def __init__(self, generators: Sequence[np.random.Generator], group: int = 1) -> None:
        self.generators = list(generators)
        self.group = int(group)
        self.n = len(self.generators) * self.group
        bits = [g.bit_generator for g in self.generators]
        # PCG64's Generator.random() is (next64 >> 11) * 2**-53, and random_raw() is next64:
        # drawing raw words and converting them as one array gives the same doubles, faster.
        one = self.group == 1 and set(map(type, bits)) == {np.random.PCG64}
        self._raw = bits if one else None

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

    def _blocks(self, result: np.ndarray) -> list[np.ndarray]:
        k = self.group
        return [result[i * k : (i + 1) * k] for i in range(len(self.generators))]

    def random(self, size: Any = None, dtype: Any = np.float64, out: Any = None) -> Any:
        """Uniforms on [0, 1): rows of group ``g`` drawn from generator ``g``."""
        if size is None and out is None and self.n == 1:
            return self.generators[0].random(dtype=dtype)
        if out is not None:
            size = out.shape
        rest = self._rows(size, "random")
        if not rest and dtype in (np.float64, float) and out is None and self._raw is not None:
            words = np.array([b.random_raw() for b in self._raw], dtype=np.uint64)
            return (words >> np.uint64(11)) * (1.0 / 9007199254740992.0)
        result = np.empty((self.n, *rest), dtype=dtype) if out is None else out
        for g, block in zip(self.generators, self._blocks(result), strict=True):
            g.random(dtype=dtype, out=block)
        return result

    def standard_normal(self, size: Any = None, dtype: Any = np.float64, out: Any = None) -> Any:
        """Standard normals: rows of group ``g`` drawn from generator ``g``."""
        if size is None and out is None and self.n == 1:
            return self.generators[0].standard_normal(dtype=dtype)
        if out is not None:
            size = out.shape
        rest = self._rows(size, "standard_normal")
        result = np.empty((self.n, *rest), dtype=dtype) if out is None else out
        if self.group == 1 and rest:  # iterate row views (fastest)
            for g, row in zip(self.generators, result, strict=True):
                g.standard_normal(dtype=dtype, out=row)
            return result
        for g, block in zip(self.generators, self._blocks(result), strict=True):
            g.standard_normal(dtype=dtype, out=block)
        return result

    def standard_normal_ragged(
        self, counts: np.ndarray, cell: tuple[int, ...], dtype: Any
    ) -> np.ndarray:
        """Noise for a period of ``counts[i]`` steps in row ``i``, as ``new_trials(K)`` draws it.

        Each group draws ``(K, longest of the group, *cell)`` (a batch of one: its own length);
        cells past a row's length are drawn but not used, exactly as in a ragged batch.

        Returns:
            ``(n, max(counts), *cell)`` array.
        """
        longest = max(int(np.max(counts)), 1) if self.n else 1
        result = np.zeros((self.n, longest, *cell), dtype=dtype)
        k = self.group
        for i, g in enumerate(self.generators):
            rows = slice(i * k, (i + 1) * k)
            steps = int(counts[rows].max())
            if steps > 0:
                result[rows, :steps] = g.standard_normal((k, steps, *cell), dtype=dtype)
        return result

    def __getattr__(self, name: str) -> Callable[..., Any]:
        """Any other ``Generator`` method, drawn per group with ``size=(K, *rest)``."""
        method = getattr(np.random.Generator, name, None)
        if method is None or name.startswith("_"):
            raise AttributeError(name)

        def per_group(*args: Any, size: Any = None, **kwargs: Any) -> Any:
            rest = self._rows(size, name)
            parts = []
            for i, g in enumerate(self.generators):
                group_args = [self._group_arg(a, i) for a in args]
                group_kwargs = {k: self._group_arg(v, i) for k, v in kwargs.items()}
                parts.append(
                    getattr(g, name)(*group_args, size=(self.group, *rest), **group_kwargs)
                )
            return np.concatenate(parts, axis=0)

        return per_group

    def _group_arg(self, value: Any, i: int) -> Any:
        if isinstance(value, np.ndarray) and value.ndim and value.shape[0] == self.n:
            return value[i * self.group : (i + 1) * self.group]
        return value
