"""What a seed gives: the env's trial stream, and its relation to ``neurogym.batch``.

Stated once in docs/architecture.md §9.1: for every registered task (task sets and trial
wrappers included) and every ``n``, ``neurogym.batch(task, n, seed=s)`` with an int seed is the
first ``n`` trials a single env serves after ``reset(seed=s)``. A stateless batch-native task
draws them in blocks of ``neurogym._env.prefetch.BLOCK`` (the batch draws the same blocks);
other chains serve them one at a time (the batch collects them). No setting a user or task
author can reach changes the stream.
"""

from __future__ import annotations

import numpy as np
import pytest

import neurogym
from neurogym._data.sources import UnsupportedWrapperError, batch_source
from neurogym._env.chain import stepping_task
from neurogym._env.prefetch import BLOCK

TASK_IDS = [spec.id for spec in neurogym.tasks()]


def _first_trials(task_id: str, n: int, seed: int) -> list[tuple[dict, np.ndarray | None]]:
    """The env's first ``n`` trials after ``reset(seed)``: parameters and observations.

    Each later trial is the one a trial boundary serves (the chain's ``new_trial``: the task's,
    or that of the trial wrapper or task set that serves it).
    """
    env = neurogym.make(task_id)
    env.reset(seed=seed)
    try:
        source = batch_source(env)
    except UnsupportedWrapperError:  # a step wrapper (ReactionTime edits trials as they run)
        source = env.unwrapped
    trials = []
    for i in range(n):
        if i:
            source.new_trial()
        task = stepping_task(env)
        trials.append((dict(task.trial), None if task._current.ob is None else task.ob.copy()))
    return trials


def _same(a: object, b: object) -> bool:
    return np.array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_a_seeded_batch_is_the_envs_first_trials_for_every_size(task_id):
    env = neurogym.make(task_id)
    if not env.unwrapped.has_groundtruth or "roitman02" in task_id:
        pytest.skip("no supervised batches (no ground truth, or a step wrapper)")
    expected = _first_trials(task_id, BLOCK + 8, seed=5)
    for n in (1, 7, BLOCK, BLOCK + 8):  # the last crosses a block boundary
        batch = neurogym.batch(task_id, n, seed=5)
        for i in range(n):
            trial, ob = expected[i]
            for key, value in trial.items():
                assert _same(batch.trial[key][i], value), (n, i, key)
            if ob is not None:  # a task set appends its rule dims after the task's own
                steps, width = ob.shape[0], int(np.prod(ob.shape[1:]))
                inputs = batch.inputs[i, :steps].reshape(steps, -1)[:, :width]
                np.testing.assert_array_equal(inputs, ob.reshape(steps, -1), err_msg=f"{n} {i}")
                assert batch.lengths[i] == steps


def test_a_seeded_batch_of_an_env_instance_leaves_the_env_as_it_was():
    for task_id in ("neurogym/yang19.all-v0", "neurogym/IBLBlock-v0"):
        env = neurogym.make(task_id)
        env.reset(seed=1)
        before = [env.step(0) for _ in range(5)]
        env.reset(seed=1)
        neurogym.batch(env, 6, seed=3)
        after = [env.step(0) for _ in range(5)]
        for (ob_b, *rest_b), (ob_a, *rest_a) in zip(before, after, strict=True):
            np.testing.assert_array_equal(ob_b, ob_a)
            assert rest_b[:3] == rest_a[:3]


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_no_speed_setting_can_change_a_seeded_stream(task_id):
    # the block size is one library constant: read-only on an env, refused on a task class
    env = neurogym.make(task_id)
    with pytest.raises(AttributeError, match=r"prefetch cannot be set \(got 1\)"):
        env.unwrapped.prefetch = 1
    with pytest.raises(TypeError, match="sets prefetch, which is not a task setting"):
        type("Tuned", (type(env.unwrapped),), {"prefetch": 1})
    # and the stream after a seed is the one the env always gives (no state survives reset)
    for (trial_a, ob_a), (trial_b, ob_b) in zip(
        _first_trials(task_id, 3, seed=1), _first_trials(task_id, 3, seed=1), strict=True
    ):
        assert trial_a.keys() == trial_b.keys()
        assert all(_same(trial_a[key], trial_b[key]) for key in trial_a)
        assert (ob_a is None and ob_b is None) or np.array_equal(ob_a, ob_b)


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_episode_ends_go_on_with_a_pooled_tasks_trial_stream(task_id):
    # reset() without a seed (an episode end: trials_per_episode, gymnasium's autoreset) goes
    # on with the env's stream: the step that ends the episode serves the next trial (its first
    # observation is the terminal one) and the reset replaces it with the one after, so
    # one-trial episodes get trials 0, 2, 4, ... of the stream, not the first row of a new
    # block each. Tasks with cross-trial state or a trial wrapper may restart per-episode
    # state at a reset, so only pooled tasks (blocks of BLOCK) are held to it.
    env = neurogym.make(task_id, trials_per_episode=1)
    try:
        pooled = env.unwrapped.prefetch > 1 and batch_source(env) is env.unwrapped
    except UnsupportedWrapperError:  # a step wrapper (ReactionTime edits trials as they run)
        pooled = False
    if not pooled:
        pytest.skip("trials served one at a time, or edited by a step wrapper")
    stream = _first_trials(task_id, 11, seed=4)
    env.action_space.seed(4)
    env.reset(seed=4)
    for episode in range(6):
        if episode:
            terminated = truncated = False
            while not (terminated or truncated):  # the trial (and its episode) runs to its end
                *_, terminated, truncated, _ = env.step(env.action_space.sample())
            assert terminated  # one trial per episode
            env.reset()
        trial, ob = stream[2 * episode]
        task = env.unwrapped
        assert trial.keys() == task.trial.keys(), (episode, trial, task.trial)
        assert all(_same(trial[key], task.trial[key]) for key in trial), (episode, trial)
        assert (ob is None and task._current.ob is None) or np.array_equal(ob, task.ob)
