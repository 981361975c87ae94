"""The vector env: native lockstep stepping equals N single envs seeded as make_vec seeds them."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from data_tasks import PrefetchTask, SharedDraw, StepTask, VarTask
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from neurogym import Registry, TaskSpec, WrapperSpec
from neurogym._registry.gym import register_with_gymnasium
from neurogym._trials.rowrng import SharedDrawError
from neurogym.vector import TrialVectorEnv, make_vector_env, native_obstacle

ID = "neurogym/VecVarTask-v0"
STEP_ID = "neurogym/VecStepTask-v0"


@pytest.fixture
def registry(monkeypatch):
    """A registry with the test tasks, used by make_vector_env and gymnasium.make(_vec)."""
    reg = Registry()
    reg.register(TaskSpec(ID, "data_tasks:VarTask"))
    reg.register(TaskSpec(STEP_ID, "data_tasks:StepTask"))
    reg.register(WrapperSpec("Scale", "data_tasks:Scale"))
    monkeypatch.setattr("neurogym._registry.api.get_registry", lambda: reg)
    monkeypatch.setattr("neurogym._registry.gym.get_registry", lambda: reg)
    register_with_gymnasium(reg)
    yield reg
    for task_id in (ID, STEP_ID):
        gymnasium.registry.pop(task_id, None)


def _same_info(single, vector, i):
    """Single-env info ``single`` equals env ``i`` of the merged vector info."""
    for key, value in single.items():
        assert vector[f"_{key}"][i], key
        if isinstance(value, dict):
            _same_info(value, vector[key], i)
        else:
            np.testing.assert_array_equal(vector[key][i], value, err_msg=key)
    for key in vector:
        if key.startswith("_") and vector[key][i]:
            assert key[1:] in single, key


def _compare(vec, singles, seed, steps, rng):
    obs, info = vec.reset(seed=seed)
    for i, env in enumerate(singles):
        ob, _ = env.reset(seed=seed + i)
        np.testing.assert_array_equal(obs[i], ob)
    autoreset = np.zeros(len(singles), dtype=bool)
    for t in range(steps):
        actions = rng.integers(0, 3, len(singles))
        obs, rewards, terms, truncs, info = vec.step(actions)
        for i, env in enumerate(singles):
            if autoreset[i]:
                ob, single_info = env.reset()
                r, term, trunc = 0.0, False, False
            else:
                ob, r, term, trunc, single_info = env.step(int(actions[i]))
            np.testing.assert_array_equal(obs[i], ob, err_msg=f"step {t} env {i}")
            assert rewards[i] == r, (t, i)
            assert terms[i] == term, (t, i)
            assert truncs[i] == trunc, (t, i)
            _same_info(single_info, info, i)
        autoreset = terms | truncs


def test_native_vector_env_equals_single_envs_seeded_s_plus_i():
    n = 5
    vec = TrialVectorEnv(VarTask(r_tmax=-0.25), n)
    assert vec.metadata["neurogym_vectorization"] == "native"
    assert vec.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    singles = [VarTask(r_tmax=-0.25) for _ in range(n)]
    _compare(vec, singles, seed=11, steps=1500, rng=np.random.default_rng(0))


@pytest.mark.parametrize("limits", [{}, {"trials_per_episode": 3}, {"max_episode_steps": 23}])
def test_prefetching_tasks_get_whole_blocks_and_match_single_envs(limits):
    n = 4

    def make():
        env = PrefetchTask()
        for name, value in limits.items():
            setattr(env, name, value)
        return env

    vec = TrialVectorEnv(make(), n)
    _compare(vec, [make() for _ in range(n)], seed=3, steps=700, rng=np.random.default_rng(4))


def test_prefetching_partial_reset_rewinds_blocks_never_started():
    n = 3
    vec = TrialVectorEnv(PrefetchTask(), n)
    singles = [PrefetchTask() for _ in range(n)]
    vec.reset(seed=8)
    for i, env in enumerate(singles):
        env.reset(seed=8 + i)
    rng = np.random.default_rng(1)
    for t in range(400):
        actions = rng.integers(0, 3, n)
        obs, rewards, *_ = vec.step(actions)
        for i, env in enumerate(singles):
            ob, r, *_ = env.step(int(actions[i]))
            np.testing.assert_array_equal(obs[i], ob)
            assert rewards[i] == r
        if t % 37 == 5:  # reset one sub-env (no seed) at various points of its blocks
            mask = np.arange(n) == (t % n)
            obs, _ = vec.reset(options={"reset_mask": mask})
            np.testing.assert_array_equal(obs[t % n], singles[t % n].reset()[0])


def test_small_queue_forces_many_refills_and_stays_equal():
    vec = TrialVectorEnv(VarTask(), 3, queue=1)
    _compare(vec, [VarTask() for _ in range(3)], seed=2, steps=600, rng=np.random.default_rng(1))


@pytest.mark.parametrize(
    ("limits", "steps"),
    [({"trials_per_episode": 2}, 400), ({"max_episode_steps": 17}, 400)],
)
def test_episode_limits_autoreset_like_single_envs(limits, steps):
    n = 4

    def make():
        env = VarTask()
        for name, value in limits.items():
            setattr(env, name, value)
        return env

    vec = TrialVectorEnv(make(), n)
    _compare(vec, [make() for _ in range(n)], seed=7, steps=steps, rng=np.random.default_rng(3))


def test_matches_gymnasium_sync_vector_env_including_info_masks():
    n = 3
    envs = [VarTask() for _ in range(n)]
    for env in envs:
        env.trials_per_episode = 3
    sync = SyncVectorEnv([lambda e=e: e for e in envs])
    template = VarTask()
    template.trials_per_episode = 3
    vec = TrialVectorEnv(template, n)
    rng = np.random.default_rng(5)
    for seed in (4, None):
        a, _ = vec.reset(seed=seed)
        b, _ = sync.reset(seed=seed)
        if seed is not None:
            np.testing.assert_array_equal(a, b)
        for _ in range(200):
            actions = rng.integers(0, 3, n)
            got, want = vec.step(actions), sync.step(actions)
            if seed is None:
                continue  # unseeded: both run, values differ
            for x, y in zip(got[:4], want[:4], strict=True):
                np.testing.assert_array_equal(x, y)
            assert got[4].keys() == want[4].keys()
            for key in want[4]:
                if key.startswith("_") or key in ("new_trial", "gt", "performance"):
                    np.testing.assert_array_equal(got[4][key], want[4][key], err_msg=key)


def test_partial_reset_with_reset_mask():
    n = 3
    vec = TrialVectorEnv(VarTask(), n)
    singles = [VarTask() for _ in range(n)]
    vec.reset(seed=1)
    for i, env in enumerate(singles):
        env.reset(seed=1 + i)
    rng = np.random.default_rng(0)
    for _ in range(30):
        actions = rng.integers(0, 3, n)
        vec.step(actions)
        for env, a in zip(singles, actions, strict=True):
            env.step(int(a))
    mask = np.array([False, True, False])
    obs, _ = vec.reset(seed=[None, 40, None], options={"reset_mask": mask})
    np.testing.assert_array_equal(obs[1], singles[1].reset(seed=40)[0])
    for _ in range(100):
        actions = rng.integers(0, 3, n)
        obs, rewards, *_ = vec.step(actions)
        for i, env in enumerate(singles):
            ob, r, *_ = env.step(int(actions[i]))
            np.testing.assert_array_equal(obs[i], ob)
            assert rewards[i] == r


def test_make_vec_picks_native_or_the_loop_and_says_so(registry):
    vec = gymnasium.make_vec(ID, num_envs=4)
    assert isinstance(vec, TrialVectorEnv)
    loop = gymnasium.make_vec(STEP_ID, num_envs=3)
    assert isinstance(loop, SyncVectorEnv)
    assert loop.metadata["neurogym_vectorization"] == "loop"
    assert "overrides _step" in loop.metadata["neurogym_loop_reason"]
    with pytest.raises(ValueError, match="cannot be stepped natively"):
        gymnasium.make_vec(STEP_ID, num_envs=2, vectorization="native")
    forced = gymnasium.make_vec(ID, num_envs=2, vectorization="loop")
    assert isinstance(forced, SyncVectorEnv)
    wrapped = make_vector_env(2, task_id=ID, wrappers=["Scale"])
    assert isinstance(wrapped, SyncVectorEnv)
    assert "wrapped" in wrapped.metadata["neurogym_loop_reason"]


def test_loop_fallback_equals_single_envs(registry):
    vec = gymnasium.make_vec(STEP_ID, num_envs=3)
    singles = [StepTask() for _ in range(3)]
    _compare(vec, singles, seed=9, steps=300, rng=np.random.default_rng(2))


def test_make_vec_passes_task_arguments(registry):
    vec = gymnasium.make_vec(ID, num_envs=2, abort=False, trials_per_episode=1)
    assert isinstance(vec, TrialVectorEnv)
    assert vec.task.abort is False
    assert vec.task.trials_per_episode == 1


def test_native_obstacles_are_named():
    assert native_obstacle(VarTask()) is None
    assert "overrides _step" in native_obstacle(StepTask())
    assert "not a neurogym TrialEnv" in native_obstacle(gymnasium.make("CartPole-v1").unwrapped)
    with pytest.raises(ValueError, match="overrides _step"):
        TrialVectorEnv(StepTask(), 2)


class _CrossTrial(VarTask):
    cross_trial_state = True


def test_a_task_with_cross_trial_state_is_stepped_by_the_loop():
    # Its state (a context, a block) lives on the task object, which a native vector env
    # shares between all its sub-envs.
    assert "keeps state across trials" in native_obstacle(_CrossTrial())
    with pytest.raises(ValueError, match="cross_trial_state"):
        TrialVectorEnv(_CrossTrial(), 2)


def test_a_shared_draw_cannot_be_split_per_env():
    vec = TrialVectorEnv(SharedDraw(), 2)
    with pytest.raises(SharedDrawError, match="shared by the whole batch"):
        vec.reset(seed=0)


def test_invalid_actions_raise():
    vec = TrialVectorEnv(VarTask(), 2)
    vec.reset(seed=0)
    with pytest.raises(ValueError, match="actions must be integers"):
        vec.step(np.array([0, 3]))
    with pytest.raises(ValueError, match="expected 2 actions"):
        vec.step(np.array([0, 1, 2]))


def test_step_before_reset_raises():
    with pytest.raises(gymnasium.error.ResetNeeded):
        TrialVectorEnv(VarTask(), 2).step(np.zeros(2, dtype=int))


def test_set_attr_applies_to_every_env_and_refuses_differing_values():
    vec = TrialVectorEnv(VarTask(), 2)
    vec.reset(seed=0)
    vec.set_attr("rewards", {"abort": -1.0, "correct": 5.0, "fail": 0.0})
    assert vec.get_attr("rewards")[1]["correct"] == 5.0
    with pytest.raises(ValueError, match="vectorization='loop'"):
        vec.set_attr("abort", [True, False])
