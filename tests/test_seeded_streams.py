"""What a seed gives: the env's trial stream, and its relation to ``neurogym.batch``.

Stated once in docs/architecture.md §2: a single env of a batch-native task without
cross-trial state draws its trials in blocks of ``neurogym._env.prefetch.BLOCK``; for an int
seed, ``neurogym.batch(task, n, seed=s)`` draws the same blocks, so it is the env's first ``n``
trials after ``reset(seed=s)`` for every ``n``. No setting a user or task author can reach
changes the stream.
"""

from __future__ import annotations

import numpy as np
import pytest

import neurogym
from neurogym._data.sources import batch_source
from neurogym._env.prefetch import BLOCK
from neurogym.data import UnsupportedWrapperError

TASK_IDS = [spec.id for spec in neurogym.tasks()]


def _first_trials(task_id: str, n: int, seed: int) -> list[dict]:
    env = neurogym.make(task_id)
    env.reset(seed=seed)
    task = env.unwrapped
    trials = [dict(task.trial)]
    for _ in range(n - 1):
        trials.append(dict(task.new_trial()))
    return trials


def _same(a: object, b: object) -> bool:
    return np.array_equal(np.asarray(a), np.asarray(b))


def _blocked(task_id: str) -> bool:
    """Whether batches of the task (as made) are drawn in the single env's blocks."""
    env = neurogym.make(task_id)
    task = env.unwrapped
    try:
        source = batch_source(env)
    except UnsupportedWrapperError:  # a step wrapper (ReactionTime): no batches at all
        return False
    return source is task and task.prefetch == BLOCK and task.has_groundtruth


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_a_seeded_batch_is_the_envs_first_trials_for_every_size(task_id):
    env = neurogym.make(task_id)
    if not env.unwrapped.has_groundtruth or "roitman02" in task_id:
        pytest.skip("no supervised batches (no ground truth, or a step wrapper)")
    if not _blocked(task_id):  # one vectorised pass: reproducible, trial i depends on n
        first, again = neurogym.batch(task_id, 12, seed=5), neurogym.batch(task_id, 12, seed=5)
        np.testing.assert_array_equal(first.inputs, again.inputs)
        np.testing.assert_array_equal(first.targets, again.targets)
        return
    expected = _first_trials(task_id, 40, seed=5)
    for n in (1, 7, BLOCK, 40):
        batch = neurogym.batch(task_id, n, seed=5)
        for i in range(n):
            for key, value in expected[i].items():
                assert _same(batch.trial[key][i], value), (n, i, key)


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_no_speed_setting_can_change_a_seeded_stream(task_id):
    # the block size is one library constant: read-only on an env, refused on a task class
    env = neurogym.make(task_id)
    with pytest.raises(AttributeError):
        env.unwrapped.prefetch = 1  # type: ignore[misc]
    with pytest.raises(TypeError, match="sets prefetch, which is not a task setting"):
        type("Tuned", (type(env.unwrapped),), {"prefetch": 1})
    # and the stream after a seed is the one the env always gives (no state survives reset)
    assert [t.keys() for t in _first_trials(task_id, 3, seed=1)] == [
        t.keys() for t in _first_trials(task_id, 3, seed=1)
    ]
