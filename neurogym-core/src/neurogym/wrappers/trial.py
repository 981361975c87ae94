"""Trial wrappers over one task: they choose the kwargs of each new trial.

Every random draw comes from the wrapped task's generator (``self.task.rng``), so
``reset(seed=s)`` fixes them. Per-episode state (the current block, the previous choice) is
forgotten at ``reset`` and drawn again, lazily, with the first trial of the episode.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from neurogym import validate
from neurogym._trials.builder import TrialBatch
from neurogym._trials.variables import RecordOnly
from neurogym.wrappers._base import TrialWrapper
from neurogym.wrappers.schedule import BaseSchedule

__all__ = ["RandomGroundTruth", "ScheduleAttr", "SideBias", "TrialHistoryV2"]


def _choices(wrapper: TrialWrapper) -> np.ndarray:
    task = wrapper.task
    choices = getattr(task, "choices", None)
    if choices is None:
        raise AttributeError(
            f"{type(wrapper).__name__} needs a task with a 'choices' attribute (the values of "
            f"ground_truth); {type(task).__name__} has none"
        )
    return np.asarray(choices)


def _probability_vector(p: Any, n: int, who: str) -> np.ndarray:
    return validate.probabilities(p, f"{who}: p (one probability per choice)", size=n)


def _pick(rng: np.random.Generator, values: np.ndarray, cdf: np.ndarray, n: int) -> np.ndarray:
    """``n`` draws from ``values`` with the probabilities whose cumulative sum is ``cdf``.

    One uniform per draw (inverse CDF), the same rule as ``BatchBuilder.choice``.
    """
    idx = np.searchsorted(cdf, rng.random(n) * cdf[-1], side="right")
    out: np.ndarray = values[np.minimum(idx, len(values) - 1)]
    return out


class RandomGroundTruth(TrialWrapper):
    """Draws each trial's ``ground_truth`` from the task's ``choices`` with probabilities ``p``.

    A ``p=`` kwarg of the trial (for example set by an outer :class:`ScheduleAttr`) overrides
    the wrapper's ``p``. The other kwargs are passed on (upstream dropped them), and ``p`` is
    passed on too (as :class:`~neurogym.wrappers.RecordOnly`), so it is recorded in the trial
    dict. Batches are drawn at once.

    Args:
        env: The env to wrap; its task needs ``choices``.
        p: Probability of each choice; default uniform.

    Raises:
        AttributeError: If the task has no ``choices``.
        ValueError: If ``p`` is not a probability vector over the choices.
    """

    def __init__(self, env: gym.Env[Any, Any], p: Sequence[float] | None = None) -> None:
        super().__init__(env)
        self.choices = _choices(self)
        n = len(self.choices)
        self.p = np.full(n, 1 / n) if p is None else _probability_vector(p, n, "RandomGroundTruth")
        self._cdf = np.cumsum(self.p)

    def _draw(self, n: int, kwargs: dict[str, Any]) -> dict[str, Any]:
        if "p" in kwargs:
            p = _probability_vector(kwargs["p"], len(self.choices), "RandomGroundTruth")
            cdf = np.cumsum(p)
        else:
            p, cdf = self.p, self._cdf
        kwargs["ground_truth"] = _pick(self.task.rng, self.choices, cdf, n)
        kwargs["p"] = RecordOnly(p if n == 1 else np.broadcast_to(p, (n, p.shape[0])))
        return kwargs

    def new_trial(self, **kwargs: Any) -> dict[str, Any]:
        """Draws ``ground_truth`` and generates the trial."""
        kwargs = self._draw(1, kwargs)
        kwargs["ground_truth"] = kwargs["ground_truth"][0]
        return super().new_trial(**kwargs)

    def new_trials(self, n: int, **kwargs: Any) -> TrialBatch:
        """Draws ``n`` ground truths at once and generates the batch."""
        return self.source.new_trials(n, **self._draw(n, kwargs))


class SideBias(TrialWrapper):
    """Block-wise biased ground truth: each block has its own choice probabilities.

    Each trial draws ``ground_truth`` from the task's ``choices`` with the probabilities of
    the current block and passes ``ground_truth`` and ``probs`` on. At the end of a block a
    different block is drawn at random.

    Args:
        env: The env to wrap; its task needs ``choices``.
        probs: ``n_blocks x n_choices`` probabilities (a list of lists); rows sum to 1.
        block_dur: An int ``>= 1``: trials per block; a float in ``(0, 1)``: probability of
            switching block at each trial; a ``(low, high)`` tuple of ints: each block lasts
            a uniform number of trials in ``[low, high]``. Every block, the first included,
            lasts exactly its drawn number of trials (upstream's first block was one trial
            short).

    Attributes:
        curr_block: Index of the current block (None before the first trial of an episode).

    Raises:
        TypeError: If ``probs`` is not a list of lists of numbers, or ``block_dur`` has a
            wrong type.
        ValueError: If the shapes, sums or ranges are wrong.
        AttributeError: If the task has no ``choices``.
    """

    def __init__(
        self,
        env: gym.Env[Any, Any],
        probs: list[list[float]],
        block_dur: int | float | tuple[int, int] = 200,
    ) -> None:
        super().__init__(env)
        self.choices = _choices(self)
        self.choice_prob = _block_probs(probs, len(self.choices))
        self._cdfs = np.cumsum(self.choice_prob, axis=1)
        self.n_block = self.choice_prob.shape[0]
        self.block_dur = _checked_block_dur(block_dur)
        self.curr_block: int | None = None
        self._left = 0

    def reset_state(self) -> None:
        """Forgets the current block; the first trial of the episode draws a new one."""
        self.curr_block = None

    def _block_length(self) -> int:
        dur = self.block_dur
        if isinstance(dur, tuple):
            return int(self.task.rng.integers(dur[0], dur[1] + 1))
        return dur if isinstance(dur, int) else 0

    def _advance(self) -> None:
        rng = self.task.rng
        if self.curr_block is None:
            self.curr_block = int(rng.integers(self.n_block))
        elif isinstance(self.block_dur, float):
            if rng.random() < self.block_dur:
                self._switch()
            return
        elif self._left == 0:
            self._switch()
        else:
            self._left -= 1
            return
        self._left = self._block_length() - 1

    def _switch(self) -> None:
        assert self.curr_block is not None
        if self.n_block > 1:
            pick = int(self.task.rng.integers(self.n_block - 1))
            self.curr_block = pick + (pick >= self.curr_block)

    def new_trial(self, **kwargs: Any) -> dict[str, Any]:
        """Advances the block state, draws ``ground_truth`` and generates the trial."""
        self._advance()
        assert self.curr_block is not None
        probs = self.choice_prob[self.curr_block]
        kwargs["ground_truth"] = _pick(
            self.task.rng, self.choices, self._cdfs[self.curr_block], 1
        )[0]
        kwargs["probs"] = RecordOnly(probs)
        return super().new_trial(**kwargs)


def _block_probs(probs: Any, n_choices: int) -> np.ndarray:
    if (
        not isinstance(probs, list)
        or not all(isinstance(row, list) for row in probs)
        or not all(
            isinstance(p, int | float) and not isinstance(p, bool) for row in probs for p in row
        )
    ):
        raise TypeError(
            "probs must be a 2D list of lists (matrix) with shape (n_blocks, n_choices), got "
            f"{probs!r}"
        )
    matrix = np.array(probs, dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] == 0:
        raise ValueError(f"probs must be a non-empty 2D matrix, got {probs!r}")
    if matrix.shape[1] != n_choices:
        raise ValueError(
            f"probs has {matrix.shape[1]} columns but the task has {n_choices} choices"
        )
    if np.any(matrix < 0):
        raise ValueError("All probabilities in probs must be non-negative.")
    sums = matrix.sum(axis=1)
    bad = np.flatnonzero(~np.isclose(sums, 1.0, atol=1e-10))
    if bad.size:
        raise ValueError(
            f"Each row in probs must sum to 1.0. Rows {bad.tolist()} have sums "
            f"{sums[bad].tolist()}"
        )
    return matrix


def _checked_block_dur(block_dur: Any) -> int | float | tuple[int, int]:
    if isinstance(block_dur, bool):
        pass
    elif isinstance(block_dur, int):
        if block_dur < 1:
            raise ValueError(f"block_dur as int must be >= 1, got {block_dur}")
        return block_dur
    elif isinstance(block_dur, float):
        if not 0 < block_dur < 1:
            raise ValueError(f"block_dur as float must be in range (0, 1), got {block_dur}")
        return block_dur
    elif isinstance(block_dur, tuple):
        return _checked_range(block_dur)
    elif isinstance(block_dur, list):  # upstream raised TypeError too; the docs promise it
        raise TypeError(
            f"block_dur as a range is a (low, high) tuple, got the list {block_dur!r}; pass "
            f"{tuple(block_dur)!r}"
        )
    raise TypeError(
        "block_dur must be one of: int >= 1 (fixed duration), 0 < float < 1 (switch "
        f"probability), or (low, high) tuple of ints (random range); got {block_dur!r}"
    )


def _checked_range(block_dur: tuple[Any, ...]) -> tuple[int, int]:
    if len(block_dur) != 2:
        raise ValueError(
            f"block_dur as a tuple must have exactly 2 elements (low, high), got {block_dur}"
        )
    low, high = block_dur
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (low, high)):
        raise TypeError(f"block_dur range values must be integers, got {block_dur}")
    if low < 1:
        raise ValueError(f"block_dur range low value must be >= 1, got {block_dur}")
    if high < low:
        raise ValueError(f"block_dur range high value must be >= low value, got {block_dur}")
    return low, high


class ScheduleAttr(TrialWrapper):
    """Sets trial kwargs from a list of attribute sets chosen by a schedule.

    Each trial calls ``i = schedule(task.rng)`` and updates the trial's kwargs with
    ``attr_list[i]`` (the attribute set wins over kwargs given by outer wrappers). The
    schedule's counters are reset with the env.

    Args:
        env: The env to wrap.
        schedule: A schedule over ``len(attr_list)`` conditions (see
            :mod:`neurogym.wrappers.schedule`).
        attr_list: One dict of trial kwargs per condition.

    Raises:
        TypeError: If ``schedule`` is not a schedule or ``attr_list`` holds a non-mapping.
        ValueError: If ``schedule.n != len(attr_list)``.
    """

    def __init__(
        self,
        env: gym.Env[Any, Any],
        schedule: BaseSchedule,
        attr_list: Sequence[Mapping[str, Any]],
    ) -> None:
        super().__init__(env)
        if not isinstance(schedule, BaseSchedule):
            raise TypeError(f"schedule must be a neurogym schedule, got {schedule!r}")
        items: list[object] = list(attr_list)
        bad = [item for item in items if not isinstance(item, Mapping)]
        if bad:
            raise TypeError(f"attr_list must hold dicts of trial kwargs, got {bad!r}")
        if schedule.n != len(attr_list):
            raise ValueError(
                f"the schedule draws among {schedule.n} conditions but attr_list has "
                f"{len(attr_list)} entries"
            )
        self.schedule = schedule
        self.attr_list = [dict(item) for item in attr_list]

    def reset_state(self) -> None:
        """Resets the schedule's counters."""
        self.schedule.reset()

    def new_trial(self, **kwargs: Any) -> dict[str, Any]:
        """Applies the next scheduled attribute set and generates the trial."""
        i = self.schedule(self.task.rng)
        kwargs.update(self.attr_list[i])
        return super().new_trial(**kwargs)


class TrialHistoryV2(TrialWrapper):
    """Ground truths follow a Markov chain: ``probs[i, j]`` = P(choice j | previous choice i).

    Each trial draws the choice index from the row of the previous one and passes
    ``ground_truth = choices[index]`` and ``probs`` on; a ``probs=`` kwarg overrides the
    wrapper's matrix for that trial. The first previous choice of an episode is drawn
    uniformly.

    Args:
        env: The env to wrap; its task needs ``choices``.
        probs: ``n_choices x n_choices`` transition matrix; default uniform.

    Raises:
        AttributeError: If the task has no ``choices``.
        ValueError: If ``probs`` has the wrong shape, negative entries or rows not summing
            to 1.
    """

    def __init__(self, env: gym.Env[Any, Any], probs: Any = None) -> None:
        super().__init__(env)
        self.choices = _choices(self)
        self.n_ch = len(self.choices)
        self.probs = self._checked(
            np.full((self.n_ch, self.n_ch), 1 / self.n_ch) if probs is None else probs
        )
        self.prev_trial: int | None = None

    def _checked(self, probs: Any) -> np.ndarray:
        matrix = np.asarray(probs, dtype=float)
        n = self.n_ch
        if matrix.shape != (n, n):
            raise ValueError(f"probs has shape {matrix.shape}; it should be {(n, n)}")
        if np.any(matrix < 0) or not np.allclose(matrix.sum(axis=1), 1.0):
            raise ValueError(f"probs rows must be non-negative and sum to 1, got {matrix!r}")
        return matrix

    def reset_state(self) -> None:
        """Forgets the previous choice; the first trial of the episode draws one."""
        self.prev_trial = None

    def new_trial(self, **kwargs: Any) -> dict[str, Any]:
        """Draws the next choice from the chain and generates the trial."""
        rng = self.task.rng
        if self.prev_trial is None:
            self.prev_trial = int(rng.integers(self.n_ch))
        probs = self.probs if "probs" not in kwargs else self._checked(kwargs["probs"])
        cdf = np.cumsum(probs[self.prev_trial])
        self.prev_trial = int(_pick(rng, np.arange(self.n_ch), cdf, 1)[0])
        kwargs.update(ground_truth=self.choices[self.prev_trial], probs=RecordOnly(probs))
        return super().new_trial(**kwargs)
