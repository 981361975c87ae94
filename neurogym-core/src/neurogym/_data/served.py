"""The trials an env serves after ``reset(seed=s)``, as one batch (``docs/architecture.md`` §2).

``neurogym.batch(task, n, seed=s)`` is, for every registered task, the first ``n`` trials a
single env serves after ``env.reset(seed=s)`` (each later one at a trial boundary, i.e. by the
chain's ``new_trial``). A stateless batch-native task draws those trials in blocks, so the batch
draws the same blocks (``neurogym.data.seeded_blocks``, vectorised). Every other chain (trial
wrappers, task sets, tasks with cross-trial state or per-trial generation) serves its trials one
at a time, and :func:`served_trials` collects them from a private copy of the env, so the
relation holds for them too, at the cost of one trial generation per row.
"""

from __future__ import annotations

import copy
from typing import Any

import gymnasium as gym
import numpy as np

from neurogym._data.sources import batch_source
from neurogym._env.chain import iter_chain, stepping_task
from neurogym._trials.builder import TrialBatch
from neurogym._trials.stack import merge_trial_batches, stack_trials

__all__ = ["merge_switcher_rows", "served_trials"]


def served_trials(env: gym.Env[Any, Any], n: int, seed: int, *, private: bool) -> TrialBatch:
    """The first ``n`` trials ``env`` serves after ``env.reset(seed=seed)``, padded.

    Args:
        env: The env (its whole chain: trial wrappers and env switchers take part).
        n: Number of trials.
        seed: The reset seed.
        private: Whether ``env`` may be reset and advanced (an env made for this call); if
            False, a deep copy is used and ``env`` is left as it was.

    Returns:
        The trials as one batch; the trials of an env switcher (``TaskSet``) are laid out as
        its mixed batches are (:func:`~neurogym._trials.stack.merge_trial_batches`).
    """
    source = batch_source(env)
    if _without_batches(env, source):
        return source.new_trials(n)  # type: ignore[no-any-return]  # raises, naming why
    if not private:
        env = copy.deepcopy(env)
        source = batch_source(env)
    env.reset(seed=seed)
    switcher = getattr(type(source), "switches_envs", False)
    rows: list[tuple[int, TrialBatch, dict[str, Any]]] = []
    for i in range(n):
        if i:
            source.new_trial()  # what a trial boundary does
        task = stepping_task(env)
        row = task._current_builder().finish(None)
        rows.append((source.i_env if switcher else 0, row, task.trial or {}))
    if switcher:
        return merge_switcher_rows(source, rows)
    return stack_trials([(row, trial) for _, row, trial in rows], stepping_task(env))


def _without_batches(env: gym.Env[Any, Any], source: Any) -> bool:
    """Whether the chain switches envs where no batch can be built (as ``new_trials`` says).

    An env switcher (``MultiEnvs``, ``ScheduleEnvs``, ``TaskSet``) builds mixed batches itself
    when it is the chain's batch source; a trial wrapper outside one cannot (its looped batch
    would need the switcher's envs). The served trials follow the same rule.
    """
    for link in iter_chain(env):
        if getattr(type(link), "switches_envs", False):
            return link is not source
    return False


def merge_switcher_rows(
    switcher: Any, rows: list[tuple[int, TrialBatch, dict[str, Any]]]
) -> TrialBatch:
    """The rows ``(env index, trial, trial dict)`` of an env switcher, merged as a mixed batch."""
    index = np.array([i for i, _, _ in rows])
    parts = []
    for i in np.unique(index):
        positions = np.flatnonzero(index == i)
        task = stepping_task(switcher.envs[int(i)])
        mine = [(rows[k][1], rows[k][2]) for k in positions]
        parts.append((int(i), positions, stack_trials(mine, task)))
    rule_dims = len(switcher.envs) if switcher.env_input else 0
    return merge_trial_batches(len(rows), parts, switcher.observation_space.dtype, rule_dims)
