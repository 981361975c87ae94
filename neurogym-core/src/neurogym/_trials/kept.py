"""A set into the observations kept unwritten until noise is added over the same cells.

Most batch tasks set a stimulus constant over a period and then add noise to it over the
same steps and dims. Written as it comes, a narrow stimulus (two float32 dims of a wider
observation, say) is written by cells (``batch._apply_packed``), read back for the noise
and written again. :class:`KeptSet` keeps the set's tile instead: ``add_noise`` over exactly
these cells adds the noise to the tile and writes it once (``tile + noise`` is what reading
the set back and adding gives, bit for bit). Anything else that touches the observations
writes the kept set first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from neurogym._trials.batch import scatter_cells, set_tile
from neurogym._trials.ragged import RaggedSpan
from neurogym._trials.where import PeriodArg

__all__ = ["KeptSet"]


class KeptSet:
    """The builder's kept set: a mixin of :class:`~neurogym._trials.builder.BatchBuilder`.

    The builder calls :meth:`_flush` before anything reads or writes its observations
    other than the noise that completes the set (``_ob_array``, each span of ``_write``,
    ``finish``).
    """

    n: int
    start_t: dict[str, Any]
    # (cells, where, the view of ob, its tile), or None
    _pending: tuple[slice, Any, np.ndarray, np.ndarray] | None

    def _cells(self, period: str | None) -> slice | RaggedSpan:
        raise NotImplementedError

    def _defer_set(self, sl: slice, where: Any, sub: np.ndarray, val: Any) -> bool:
        """Keeps a set of a value constant over time into ``sub``, if it can: True if kept.

        ``sub`` is ``ob[:, sl]`` at dims ``where`` (None, an int or a slice); the value's
        tile is :func:`~neurogym._trials.batch.set_tile`'s. Batches only: a single trial's
        builder arrays are read directly by the env.
        """
        if self.n == 1:
            return False
        tile = set_tile(sub, val)
        if tile is None:
            return False
        self._pending = (sl, where, sub, tile)
        return True

    def _flush(self) -> None:
        """Writes the set :meth:`_defer_set` kept."""
        pending, self._pending = self._pending, None
        if pending is not None:
            scatter_cells(pending[2], pending[3])

    def _pending_tile(self, period: PeriodArg, where: Any) -> np.ndarray | None:
        """The kept set's tile if it covers exactly ``period``'s steps and dims ``where``.

        It is taken (no longer pending): the caller writes it.
        """
        pending = self._pending
        if pending is None or not isinstance(period, str) or period not in self.start_t:
            return None
        kept = pending[1]  # None, an int or a slice (what _write_slice defers)
        if not (kept is where or (type(kept) is type(where) and kept == where)):
            return None
        if self._cells(period) != pending[0]:
            return None
        self._pending = None
        return pending[3]
