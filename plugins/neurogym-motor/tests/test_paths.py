"""Every path a user takes: single env, wrappers, vector envs, batches and Dataset streams.

The reaching tasks write the pointer into the observation in ``post_step`` and the timing
tasks score in ``_step``: vector envs of them loop over single envs. GoNogo declares the
go/no-go rule and is stepped natively. Either way they must equal N seeded single envs step
for step.
"""

from __future__ import annotations

import itertools

import gymnasium
import numpy as np
import pytest

import neurogym
from neurogym import wrappers as ngw

IDS = [
    "neurogym/GoNogo-v0",
    "neurogym/MotorTiming-v0",
    "neurogym/OneTwoThreeGo-v0",
    "neurogym/Reaching1D-v0",
    "neurogym/Reaching1DWithSelfDistraction-v0",
    "neurogym/ReadySetGo-v0",
]
REACHING = IDS[3:5]
SUPERVISED = [task_id for task_id in IDS if task_id not in REACHING]


def test_the_plugin_registers_its_six_tasks():
    specs = neurogym.tasks(plugin="motor")
    assert [spec.id for spec in specs] == IDS
    assert {spec.distribution for spec in specs} == {"neurogym-motor"}
    # GoNogo declares the go/no-go rule; the five others score in their own _step
    assert [spec.id for spec in specs if spec.vectorized] == ["neurogym/GoNogo-v0"]


@pytest.mark.parametrize("task_id", IDS)
def test_vector_env_equals_seeded_single_envs(task_id):
    n, seed = 3, 40
    vec = gymnasium.make_vec(task_id, num_envs=n)
    expected = "native" if task_id == "neurogym/GoNogo-v0" else "loop"
    assert vec.metadata["neurogym_vectorization"] == expected
    singles = [gymnasium.make(task_id) for _ in range(n)]
    obs, _ = vec.reset(seed=seed)
    for i, env in enumerate(singles):
        np.testing.assert_array_equal(obs[i], env.reset(seed=seed + i)[0])
    rng = np.random.default_rng(1)
    n_actions = int(vec.single_action_space.n)
    ended = 0
    for t in range(300):
        actions = rng.integers(0, n_actions, n)
        actions[rng.random(n) < 0.8] = 0  # mostly wait, so trials reach their response periods
        obs, rewards, _, _, info = vec.step(actions)
        for i, env in enumerate(singles):
            ob, reward, _, _, single = env.step(int(actions[i]))
            np.testing.assert_array_equal(obs[i], ob, err_msg=f"{task_id} step {t} env {i}")
            assert rewards[i] == reward
            assert info["new_trial"][i] == single["new_trial"]
            if single["new_trial"]:
                ended += 1
                assert info["performance"][i] == single["performance"]
    assert ended >= 3 * n


@pytest.mark.parametrize("task_id", REACHING)
def test_vector_env_shows_each_pointer(task_id):
    vec = gymnasium.make_vec(task_id, num_envs=2)
    vec.reset(seed=0)
    for _ in range(4):
        obs, *_ = vec.step(np.array([1, 2]))
    pointers = vec.get_attr("state")
    np.testing.assert_allclose(pointers, [np.pi + 0.2, np.pi - 0.2])
    assert not np.allclose(obs[0], obs[1])


@pytest.mark.parametrize("task_id", REACHING)
def test_step_wrappers_see_the_pointer(task_id):
    env = neurogym.make(task_id, wrappers=["PassAction", "PassReward"])
    bare = neurogym.make(task_id)
    task = env.unwrapped
    ob, _ = env.reset(seed=2)
    np.testing.assert_array_equal(ob[:32], bare.reset(seed=2)[0])
    stored = task.ob.copy()
    assert ob.shape == (34,)
    for _ in range(7):
        ob, reward, *_ = env.step(2)
        np.testing.assert_array_equal(ob[:32], bare.step(2)[0])  # as the bare task shows it
        assert (ob[32], ob[33]) == (2.0, np.float32(reward))
    assert task.state == pytest.approx(np.pi - 0.35)
    moved = np.flatnonzero(ob[:32] != stored[7])
    assert moved.size >= 16  # the pointer's dims differ from the stored trial's
    np.testing.assert_array_equal(task.ob, stored)
    noisy = neurogym.make(task_id, wrappers=[("Noise", {"std_noise": 0.5})])
    noisy.reset(seed=3)
    stored = noisy.unwrapped.ob.copy()
    for _ in range(9):
        noisy.step(1)
    np.testing.assert_array_equal(noisy.unwrapped.ob, stored)  # noise never reaches the trial


def test_trial_wrappers_force_go_nogo_trials_in_envs_and_batches():
    env = ngw.ScheduleAttr(
        neurogym.make("neurogym/GoNogo-v0"),
        ngw.SequentialSchedule(2),
        [{"ground_truth": 1}, {"ground_truth": 0}],
    )
    env.reset(seed=4)
    seen = []
    for _ in range(4):
        seen.append(int(env.unwrapped.trial["ground_truth"]))
        while not env.step(0)[-1]["new_trial"]:
            pass
    assert seen in ([1, 0, 1, 0], [0, 1, 0, 1])
    batch = neurogym.batch(
        ngw.SideBias(neurogym.make("GoNogo"), probs=[[1.0, 0.0]], block_dur=5), 64, seed=5
    )
    np.testing.assert_array_equal(batch.trial["ground_truth"], 0)
    np.testing.assert_array_equal(batch.targets, 0)


@pytest.mark.parametrize("task_id", REACHING)
def test_reaching_batches_refuse_and_trials_hold_the_start_pointer(task_id):
    with pytest.raises(ValueError, match=r"needs supervised targets.*reinforcement learning"):
        neurogym.batch(task_id, 4, seed=0)
    with pytest.raises(ValueError, match=r"needs supervised targets"):
        neurogym.Dataset(task_id, batch_size=4, seq_len=20, seed=0)
    task = neurogym.make(task_id).unwrapped
    task.reset(seed=6)
    trials = task.new_trials(32)
    assert trials.gt is None
    dims = list(task.observation_space.name[task.agent_dependent_dims[0]])
    start = np.cos(task.theta - np.pi)
    if task_id.endswith("SelfDistraction-v0"):  # the target adds to the same dims in reach
        np.testing.assert_allclose(trials.ob[:, :5, dims], np.broadcast_to(start, (32, 5, 32)))
    else:
        np.testing.assert_allclose(trials.ob[:, :, dims], np.broadcast_to(start, (32, 10, 16)))


@pytest.mark.parametrize("task_id", SUPERVISED)
def test_batches_hold_the_single_envs_trials(task_id):
    env = neurogym.make(task_id).unwrapped
    env.reset(seed=7)
    batch = neurogym.batch(task_id, env.prefetch, seed=7)
    for row in range(4):
        if row:
            env.new_trial()
        steps = int(batch.lengths[row])
        np.testing.assert_array_equal(batch.inputs[row, :steps], env.ob)
        np.testing.assert_array_equal(batch.targets[row, :steps], env.gt)
        assert not batch.valid[row, steps:].any()


@pytest.mark.parametrize("task_id", ["neurogym/ReadySetGo-v0", "neurogym/MotorTiming-v0"])
def test_dataset_streams_one_go_step_per_production_period(task_id):
    ds = neurogym.Dataset(task_id, batch_size=8, seq_len=400, seed=8)
    batch = ds.next_batch()
    starts = np.flatnonzero(batch.trial_start[:, 0])
    assert len(starts) >= 5
    for first, last in itertools.pairwise(starts):  # whole trials in column 0
        targets = batch.targets[first:last, 0]
        mask = batch.mask[first:last, 0]
        assert targets.sum() == 1  # exactly one go step ...
        assert mask[targets.argmax()]  # ... inside the loss mask (the production period)
        production = int(mask.sum())
        assert targets.argmax() - np.flatnonzero(mask)[0] == production // 2
    again = neurogym.Dataset(task_id, batch_size=8, seq_len=400, seed=8).next_batch()
    np.testing.assert_array_equal(again.inputs, batch.inputs)
