"""Progress and threads: what every training entry point shows and how many CPU threads it uses.

* :class:`Progress`: a tqdm bar on a terminal (or in a notebook), plain lines otherwise (cluster
  logs, ``2> train.log``, CI): one line per tenth of the budget (lines at least
  :data:`MIN_SECONDS` apart) and at least one every :data:`LINE_SECONDS` seconds, each naming
  its metrics, and one at the end.
* :func:`torch_threads`: torch's intra-op thread count set for a block and restored after it.

Both are used by :func:`neurogym_apps.train.train` and the commands built on it, and by the
stable-baselines3 callback of :mod:`neurogym_apps.rl`.
"""

from __future__ import annotations

import contextlib
import math
import sys
import time
from collections.abc import Iterator
from typing import Any, TextIO

import torch

from neurogym import validate

__all__ = ["LINE_SECONDS", "MIN_SECONDS", "Progress", "is_interactive", "torch_threads"]

#: Plain progress lines: at most this many seconds apart (besides one per tenth of the budget).
LINE_SECONDS = 30.0
#: ... and at least this many seconds apart (a short run writes its last line only).
MIN_SECONDS = 5.0
_FRACTION = 0.1  # a plain line each time another tenth of the budget is done


@contextlib.contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """Within the block torch uses ``threads`` CPU threads; the earlier count is restored after.

    Args:
        threads: Intra-op threads (``torch.set_num_threads``); None leaves torch's setting
            alone.

    Raises:
        ValueError: ``threads`` is not a positive int (or None).
    """
    if threads is None:
        yield
        return
    validate.positive_int(threads, "threads")
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def is_interactive(stream: TextIO | None = None) -> bool:
    """Whether ``stream`` (default stderr) is a terminal, or this runs in a Jupyter kernel."""
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    if callable(isatty) and isatty():
        return True
    return "ipykernel" in sys.modules


def _value(value: float) -> str:
    if isinstance(value, int):
        return f"{value:,}"
    if not math.isfinite(value):
        return "-"  # not measured (a step accuracy of continuous actions)
    return f"{value:.3g}" if abs(value) >= 1000 else f"{value:.3f}"


class Progress:
    """Progress of one run towards its budget: a bar on a terminal, plain lines otherwise.

    Args:
        label: What runs (a task name); starts every plain line.
        total: The budget, in ``unit``.
        unit: ``"step"`` (counted) or ``"s"`` (seconds of a time budget), or any other count
            (``"env step"``).
        bar: True: a tqdm bar; False: plain lines; None: a bar when :func:`is_interactive`.
        stream: Where to write (default stderr).
    """

    def __init__(
        self,
        label: str,
        total: float,
        unit: str = "step",
        *,
        bar: bool | None = None,
        stream: TextIO | None = None,
    ) -> None:
        self.label, self.total, self.unit = label, float(total), unit
        self.stream = sys.stderr if stream is None else stream
        self.start = time.perf_counter()
        self._last_line = self.start
        self._next_fraction = _FRACTION
        self._done = 0.0
        self._metrics: dict[str, float] = {}
        self._bar = (
            self._make_bar() if (is_interactive(self.stream) if bar is None else bar) else None
        )

    def _make_bar(self) -> Any:
        from tqdm.auto import tqdm  # type: ignore[import-untyped]  # the torch extra

        if self.unit == "s":
            form = "{l_bar}{bar}| {n:.0f}/{total:.0f} s{postfix}"
            return tqdm(
                total=self.total, desc=self.label, bar_format=form, leave=False, file=self.stream
            )
        total = round(self.total)  # a count
        return tqdm(total=total, desc=self.label, unit=self.unit, leave=False, file=self.stream)

    def update(self, done: float, **metrics: float) -> None:
        """Record that ``done`` (of ``total``) is done, with the current ``metrics``."""
        done = min(float(done), self.total)
        self._metrics = metrics
        if self._bar is not None:
            step = done - self._done
            self._bar.update(step if self.unit == "s" else round(step))
            self._bar.set_postfix({k: _value(v) for k, v in metrics.items()}, refresh=False)
            self._done = done
            return
        self._done = done
        now = time.perf_counter()
        fraction = done / self.total if self.total > 0 else 1.0
        if fraction >= 1.0:
            return  # close() writes the last line
        since = now - self._last_line
        if (fraction >= self._next_fraction and since >= MIN_SECONDS) or since >= LINE_SECONDS:
            self._line(now)
            while self._next_fraction <= fraction:
                self._next_fraction += _FRACTION

    def _line(self, now: float, end: str = "") -> None:
        self._last_line = now
        share = 100 * self._done / self.total if self.total > 0 else 100.0
        if self.unit == "s":
            digits = 1 if self.total < 10 else 0
            done = f"{self._done:.{digits}f}/{self.total:.{digits}f} s ({share:.0f}%)"
        else:
            done = f"{self.unit} {self._done:,.0f}/{self.total:,.0f} ({share:.0f}%)"
        metrics = "".join(f"  {key} {_value(value)}" for key, value in self._metrics.items())
        print(
            f"{self.label}: {done}{metrics}  elapsed {now - self.start:.0f} s{end}",
            file=self.stream,
            flush=True,
        )

    def close(self) -> None:
        """Close the bar, or write the last plain line (ending ``done``)."""
        if self._bar is not None:
            self._bar.close()
            return
        self._line(time.perf_counter(), end="  done")
