"""neurogym/yang19.all-v0: the 20 tasks with a rule input, stepped, vectorised and batched."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import neurogym
from neurogym.testing import check_task
from neurogym.wrappers import TaskSet
from neurogym_multitask._plugin import YANG19_IDS
from neurogym_multitask.collection import YANG19_NAMES

ALL = "neurogym/yang19.all-v0"


def test_check_task():
    check_task(ALL, steps=400)


def test_observation_shape_is_fixed_and_the_rule_names_every_trials_task():
    # upstream's nested ScheduleEnvs gave observations of shape (53,) and (33,)
    env = neurogym.make(ALL)
    assert env.observation_space.shape == (53,)
    assert env.observation_space.name["rule"] == tuple(range(33, 53))
    ob, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = []
    for _ in range(3000):
        task = env.active_env.unwrapped.trial["task"]
        assert ob.shape == (53,)
        np.testing.assert_array_equal(ob[33:], np.eye(20)[YANG19_NAMES.index(task)])
        action = int(rng.integers(17)) if rng.random() < 0.1 else 0
        ob, _, _, _, info = env.step(action)
        if info["new_trial"]:
            assert info["trial"]["task"] == task  # the trial that just ended
            ended.append(task)
    assert set(ended) == set(YANG19_NAMES)


def test_vector_env_equals_seeded_single_envs():
    n = 3
    vec = gymnasium.make_vec(ALL, num_envs=n)
    singles = [gymnasium.make(ALL) for _ in range(n)]
    obs, _ = vec.reset(seed=10)
    for i, env in enumerate(singles):
        np.testing.assert_array_equal(obs[i], env.reset(seed=10 + i)[0])
    rng = np.random.default_rng(1)
    for _ in range(300):
        actions = rng.integers(0, 17, n)
        actions[rng.random(n) < 0.7] = 0
        obs, rewards, _, _, info = vec.step(actions)
        for i, env in enumerate(singles):
            ob, reward, _, _, single = env.step(int(actions[i]))
            np.testing.assert_array_equal(obs[i], ob)
            assert rewards[i] == reward
            if single["new_trial"]:
                assert info["trial"]["task"][i] == single["trial"]["task"]


def test_mixed_batch_has_every_task_a_task_field_and_the_rule_input():
    batch = neurogym.batch(ALL, 2000, seed=0)
    names = batch.trial["task"]
    assert set(names.tolist()) == set(YANG19_NAMES)
    index = np.array([YANG19_NAMES.index(name) for name in names])
    rule = batch.inputs[..., 33:]
    np.testing.assert_array_equal(rule.argmax(-1)[:, 0], index)
    np.testing.assert_array_equal(rule.sum(-1), batch.valid)
    assert set(batch.lengths[names == "rtgo"].tolist()) == {10}
    assert set(batch.lengths[names == "dms"].tolist()) == {32}
    np.testing.assert_array_equal(batch.mask.sum(1)[names == "go"], 5)  # the decision period


def test_rows_of_one_task_are_that_tasks_own_batch():
    env = neurogym.make(ALL)
    i = YANG19_NAMES.index("ctxdlydm1")
    mixed = neurogym.batch(env, 6, seed=4, task="ctxdlydm1")
    alone = neurogym.batch(env.envs[i], 6, seed=np.random.default_rng(4))  # one pass, as mixed
    t = alone.inputs.shape[1]
    np.testing.assert_array_equal(mixed.inputs[:, :t, :33], alone.inputs)
    np.testing.assert_array_equal(mixed.targets[:, :t], alone.targets)


def test_task_probabilities_and_kwargs_reach_every_task():
    p = np.zeros(20)
    p[YANG19_NAMES.index("dm2")] = p[YANG19_NAMES.index("anti")] = 0.5
    batch = neurogym.batch(ALL, 200, seed=1, env_kwargs={"p": p, "dt": 50})
    assert set(batch.trial["task"].tolist()) == {"dm2", "anti"}
    assert batch.dt == 50
    assert set(batch.lengths[batch.trial["task"] == "anti"].tolist()) == {30}


def test_a_subset_set_and_a_precise_error_for_tasks_that_do_not_share_spaces():
    subset = TaskSet.from_ids(YANG19_IDS[:3], names=YANG19_NAMES[:3])
    assert subset.observation_space.shape == (36,)
    assert set(neurogym.batch(subset, 100, seed=0).trial["task"].tolist()) == {
        "go",
        "anti",
        "rtgo",
    }
    small = neurogym.make("neurogym/yang19.dm1-v0", dim_ring=8)
    with pytest.raises(ValueError, match=r"the observation_space of 'dm1 \(8 units\)' is Box"):
        TaskSet([neurogym.make("neurogym/yang19.go-v0"), small], names=["go", "dm1 (8 units)"])


def test_yang19_cost_mask_on_a_mixed_batch():
    batch = neurogym.batch(ALL, 200, seed=2, task="go")
    # go at dt=100: 10 steps before the decision (first unchecked), 1 grace step, then 4 at 5
    expected = np.array([0] + [1] * 9 + [0] + [5] * 4, dtype=np.float32)
    np.testing.assert_array_equal(batch.cost_mask(), np.tile(expected, (200, 1)))
    mixed = neurogym.batch(ALL, 200, seed=3)
    weights = mixed.cost_mask(outputs=17)
    assert weights.shape == (200, mixed.inputs.shape[1], 17)
    assert not weights[~mixed.valid].any()
