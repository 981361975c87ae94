"""Supervised data: whole batches of trials (:func:`batch`) and streams (:class:`Dataset`).

Both build trials with the task's batch path (``env.new_trials(n)``, one vectorised builder
pass for many trials) through the trial wrappers of the env's chain, and both are seeded.
``docs/data.md`` is the user guide; ``docs/architecture.md`` §9 the contract.

Masks. ``mask`` is the *loss mask*: True on the steps where the task set a ground truth
(``set_groundtruth``), i.e. where a supervised target is defined. ``valid`` is True on every
step that belongs to a trial (not padding). Tasks that leave the fixation target implicit (0
outside the decision period, as upstream NeuroGym does) are trained upstream-style with a loss
over ``valid`` instead.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.utils import seeding

from neurogym import validate
from neurogym._data.served import served_trials
from neurogym._data.sources import UnsupportedWrapperError, batch_source, resolve_env, to_torch
from neurogym._data.stream import Dataset, StreamBatch
from neurogym._deprecation import as_task_generator, task_generator
from neurogym._env.contract import require_groundtruth
from neurogym._env.env import TrialEnv
from neurogym._trials.builder import TRIAL_BYTES, TrialBatch
from neurogym._trials.stack import concat_batches

__all__ = [
    "Dataset",
    "StreamBatch",
    "TrainingBatch",
    "UnsupportedWrapperError",
    "batch",
    "batch_source",
]


@contextlib.contextmanager
def using_generator(task: TrialEnv, rng: np.random.Generator | None) -> Iterator[None]:
    """Makes ``task`` (and its trial wrappers) draw from ``rng`` during the block."""
    if rng is None:
        yield
        return
    saved = (task._np_random, task._np_random_seed)
    task._np_random = as_task_generator(rng)  # the same stream, with 2.3.1's RandomState names
    try:
        yield
    finally:
        task._np_random, task._np_random_seed = saved


def generator_for(seed: int | np.random.Generator | None) -> np.random.Generator | None:
    """The generator a seed stands for: the one ``env.reset(seed=seed)`` would create."""
    if seed is None or isinstance(seed, np.random.Generator):
        return seed
    return seeding.np_random(int(seed))[0]


def _is_int_seed(seed: object) -> bool:
    return seed is not None and not isinstance(seed, np.random.Generator)


def seeded_blocks(task: TrialEnv, n: int) -> TrialBatch:
    """``n`` trials drawn as a single env draws them: blocks of ``task.prefetch``, in order.

    From the generator ``reset(seed=s)`` creates, these are exactly that env's first ``n``
    trials (``neurogym._env.prefetch``), whatever ``n``.
    """
    block = task.prefetch
    batches = [task.new_trials(block)]
    if n > block:  # refused before the other blocks when the whole would not fit in memory
        arrays = (batches[0].ob, batches[0].gt, batches[0].mask)
        per_trial = sum(a.nbytes for a in arrays if a is not None) / block + TRIAL_BYTES
        validate.allocation(
            n * per_trial, f"a batch of {n:,} trials of {type(task).__name__}", "n"
        )
    batches += [task.new_trials(block) for _ in range(-(-n // block) - 1)]
    fill = 0 if task._default_ob_value is None else task._default_ob_value
    return concat_batches(batches, n, fill)


@dataclass
class TrainingBatch:
    """``B`` complete trials padded to the longest, for a supervised training step.

    Iterating gives ``(inputs, targets, mask, trial)`` (PsychRNN calls the fourth ``params``;
    here it is the :attr:`trial` field).

    Attributes:
        inputs: Observations, ``(B, T, *obs)`` (``(T, B, *obs)`` if ``time_major``).
        targets: Ground truth, ``(B, T, *act)``; zeros if the task sets none.
        mask: Loss mask ``(B, T)`` bool: steps where the task set a ground truth.
        valid: ``(B, T)`` bool: steps that belong to a trial (False on padding).
        lengths: Steps of each trial, ``(B,)``.
        trial: Trial parameters, one row per trial (``(B, ...)`` arrays).
        periods: Period name to ``(start, end)`` step indices (end exclusive), ``(B,)`` each.
        time_major: Whether the time axis comes first.
        dt: Step size in ms.
    """

    inputs: Any
    targets: Any
    mask: Any
    valid: Any
    lengths: Any
    trial: dict[str, Any] = field(default_factory=dict)
    periods: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    time_major: bool = False
    dt: float = 100.0

    def __iter__(self) -> Iterator[Any]:
        return iter((self.inputs, self.targets, self.mask, self.trial))

    def period_sum(self, period: str | Sequence[str], dims: Any = None) -> np.ndarray:
        """Per trial, the inputs summed over the steps of ``period`` (numpy ``(B, *obs)``).

        What an observer that integrates a period's evidence sees (ideal observers, see
        :meth:`neurogym.TrialEnv.ideal_observer`).

        Args:
            period: A period name, or several (their steps are summed together).
            dims: Observation dims to keep (an index, a slice or a list of indices); None:
                all.

        Raises:
            ValueError: If a period is not one of the batch's periods.
        """
        names = [period] if isinstance(period, str) else list(period)
        unknown = [name for name in names if name not in self.periods]
        if unknown:
            raise ValueError(f"unknown period {unknown[0]!r}; periods: {sorted(self.periods)}")
        inputs = np.asarray(self.inputs)
        if self.time_major:
            inputs = np.swapaxes(inputs, 0, 1)
        steps = np.arange(inputs.shape[1])[None, :]
        inside = np.zeros(inputs.shape[:2], dtype=bool)
        for name in names:
            start, end = (np.asarray(bound)[:, None] for bound in self.periods[name])
            inside |= (steps >= start) & (steps < end)
        chosen = inputs if dims is None else inputs[:, :, dims]
        weights = inside.reshape(inside.shape + (1,) * (chosen.ndim - 2))
        summed: np.ndarray = (chosen * weights).sum(axis=1)
        return summed

    @property
    def size(self) -> int:
        """The number of trials ``B``."""
        return int(self.lengths.shape[0])

    def cost_mask(
        self,
        response: str = "decision",
        outputs: int | None = None,
        *,
        skip: float = 100.0,
        grace: float = 100.0,
        pre: float = 1.0,
        post: float = 5.0,
        fixation: float = 2.0,
    ) -> Any:
        """Yang et al. (2019)'s cost mask: loss weights per step (and output), beside ``mask``.

        Per trial, with ``r`` the first step of the ``response`` period: weight 0 on the steps
        before ``int(skip / dt)`` (the first 100 ms are never checked), ``pre`` (1) from there
        to ``r``, 0 for a grace period of ``int(grace / dt)`` steps from ``r`` (the saccade may
        take 100 ms), then ``post`` (5) until the trial ends; 0 on padding. With ``outputs``,
        the mask is per output unit and column 0 (the fixation output) is multiplied by
        ``fixation`` (2).

        This is ``Trial.add_c_mask`` of the authors' code (github.com/gyyang/multitask,
        ``task.py``), called by every task with ``pre_offs`` = fixation offset (the response
        period's start here) and ``post_ons`` = that + 100 ms. The per-output form with the
        fixation output doubled is the code's squared-error (``lsq``) branch; its cross-entropy
        branch uses the ``(B, T)`` form without the fixation factor and divides it by its mean
        over the batch (do that yourself if you want it). Paper: Yang, Joglekar, Song, Newsome &
        Wang, "Task representations in neural networks trained to perform many cognitive
        tasks", Nat. Neurosci. 22:297-306 (2019), Methods (training).

        Args:
            response: The period in which the response is made.
            outputs: Number of output units for a per-output mask (e.g. ``action_space.n``);
                None for one weight per step.
            skip: Unchecked time at the start of each trial (ms).
            grace: Unchecked time after the response period starts (ms).
            pre: Weight before the response period.
            post: Weight after the grace period.
            fixation: Factor on output 0 (per-output mask only).

        Returns:
            float32 weights ``(B, T)`` or ``(B, T, outputs)`` (time first if ``time_major``),
            numpy or torch like :attr:`inputs`.

        Raises:
            ValueError: If the trials have no ``response`` period.
        """
        if response not in self.periods:
            raise ValueError(
                f"no {response!r} period to anchor the cost mask; periods: {sorted(self.periods)}"
            )
        lengths = np.asarray(self.lengths)
        start = np.asarray(self.periods[response][0])
        steps = np.arange(int(np.asarray(self.valid).shape[0 if self.time_major else 1]))
        first = int(skip / self.dt)
        check = start + int(grace / self.dt)
        k, inside = steps[None, :], steps[None, :] < lengths[:, None]
        weights = np.where((k >= first) & (k < start[:, None]), pre, 0.0)
        weights = np.where((k >= check[:, None]) & inside, post, weights).astype(np.float32)
        if outputs is not None:
            weights = np.repeat(weights[..., None], validate.positive_int(outputs, "outputs"), -1)
            weights[..., 0] *= fixation
        weights = _major(weights, self.time_major)
        return weights if isinstance(self.inputs, np.ndarray) else to_torch(weights)

    def to_torch(self) -> TrainingBatch:
        """The same batch with torch tensors (sharing memory) instead of numpy arrays."""
        return TrainingBatch(
            to_torch(self.inputs),
            to_torch(self.targets),
            to_torch(self.mask),
            to_torch(self.valid),
            to_torch(self.lengths),
            self.trial,
            self.periods,
            self.time_major,
            self.dt,
        )


def _major(array: np.ndarray, time_major: bool) -> np.ndarray:
    if not time_major:
        return array
    return np.ascontiguousarray(np.swapaxes(array, 0, 1))


def training_batch(trials: TrialBatch, task: TrialEnv, time_major: bool) -> TrainingBatch:
    """Turns a :class:`TrialBatch` into a :class:`TrainingBatch` (no copy unless time-major)."""
    if trials.ob is None:
        raise ValueError(
            f"{type(task).__name__} builds no observation array; it cannot make supervised batches"
        )
    gt = trials.gt
    if gt is None:
        act_shape = task.action_space.shape or ()
        gt = np.zeros((trials.size, trials.ob.shape[1], *act_shape), task.action_space.dtype)
    return TrainingBatch(
        inputs=_major(trials.ob, time_major),
        targets=_major(gt, time_major),
        mask=_major(trials.mask, time_major),
        valid=_major(trials.valid, time_major),
        lengths=trials.lengths,
        trial=trials.trial,
        periods=trials.periods,
        time_major=time_major,
        dt=trials.dt,
    )


def batch(
    env: str | gym.Env[Any, Any],
    n: int,
    *,
    seed: int | np.random.Generator | None = None,
    time_major: bool = False,
    as_torch: bool = False,
    env_kwargs: dict[str, Any] | None = None,
    **kwargs: Any,
) -> TrainingBatch:
    """``n`` complete trials, padded to the longest.

    What the batch holds follows the task's supervised-data declaration (architecture §9.6):
    a task with ``has_groundtruth = False`` raises; ``agent_dependent_dims`` hold what the
    trial builder wrote (the state before any action); with ``cross_trial_state`` the ``n``
    trials are consecutive trials of the env, advancing its state in order.

    Example::

        x, y, mask, trial = neurogym.batch("PerceptualDecisionMaking-v0", 256, seed=0)
        loss = (cross_entropy(model(x), y) * mask).sum() / mask.sum()

    Args:
        env: A task id (made with ``env_kwargs``) or an env; an env's trial wrappers are
            honoured, step-level wrappers raise :class:`UnsupportedWrapperError`.
        n: Number of trials ``B``.
        seed: An int: without forced values, the batch is the first ``n`` trials a single
            env serves after ``env.reset(seed=seed)``, for every task and ``n`` (an env
            instance is left untouched; architecture §2). A ``Generator`` (drawn from and
            advanced) or None (an id draws fresh entropy, an env instance draws from and
            advances its own ``rng``): one vectorised pass of the chain's ``new_trials(n)``,
            the fastest batch.
        time_major: Return ``(T, B, ...)`` arrays instead of ``(B, T, ...)``.
        as_torch: Return torch tensors (sharing memory with the numpy arrays).
        env_kwargs: Constructor arguments when ``env`` is an id (``wrappers=`` included).
        **kwargs: Forced trial parameters: scalars or arrays with a leading axis of ``n``.

    Returns:
        A :class:`TrainingBatch`.

    Raises:
        ValueError: If the task declares no ground truth (``has_groundtruth = False``).
    """
    n = validate.positive_int(n, "n")
    time_major = validate.boolean(time_major, "time_major")
    as_torch = validate.boolean(as_torch, "as_torch")
    if seed is not None and not isinstance(seed, np.random.Generator):
        validate.integer(seed, "seed", minimum=0)
    made = resolve_env(env, env_kwargs, copy=False)
    source = batch_source(made)
    task = made.unwrapped
    assert isinstance(task, TrialEnv)
    require_groundtruth(task, "neurogym.batch")
    if _is_int_seed(seed) and not kwargs:  # the env's own first n trials after reset(seed)
        if source is task and task.prefetch > 1:  # drawn in the env's blocks, vectorised
            with using_generator(task, generator_for(seed)):
                trials = seeded_blocks(task, n)
        else:  # served one at a time: collected from the env (a copy of an instance)
            trials = served_trials(made, n, int(seed), private=isinstance(env, str))  # type: ignore[arg-type]
    else:
        rng = generator_for(seed)
        if rng is None and isinstance(env, str):
            rng = task_generator()[0]
        with using_generator(task, rng):
            trials = source.new_trials(n, **kwargs)
    out = training_batch(trials, task, time_major)
    return out.to_torch() if as_torch else out
