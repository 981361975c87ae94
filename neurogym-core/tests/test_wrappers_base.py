"""TrialWrapper: ownership of trial generation, nesting, batches, make(wrappers=) and hooks."""

from __future__ import annotations

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest
from wrapper_tasks import Counter, Toy

import neurogym
from neurogym import TrialWrapper
from neurogym import wrappers as ngw
from neurogym.hookspecs import hookimpl
from neurogym.wrappers import RecordOnly


class ConstantOb(TrialWrapper):
    """Post-processes every trial: the whole observation becomes ``value``."""

    def __init__(self, env, value):
        super().__init__(env)
        self.value = value

    def new_trial(self, **kwargs):
        trial = super().new_trial(**kwargs)
        self.task.ob[:] = self.value
        return trial


class ForceGt(TrialWrapper):
    """Changes the kwargs: every trial has ``ground_truth = gt`` (and records who forced it)."""

    def __init__(self, env, gt):
        super().__init__(env)
        self.gt = gt
        self.calls = 0

    def new_trial(self, **kwargs):
        self.calls += 1
        kwargs.setdefault("ground_truth", self.gt)
        kwargs.setdefault("forced_by", RecordOnly(self.gt))
        return super().new_trial(**kwargs)


def test_trial_wrapper_needs_a_trial_env():
    with pytest.raises(TypeError, match="unwrapped task is a neurogym TrialEnv, got CartPole"):
        TrialWrapper(gym.make("CartPole-v1"))


def test_task_property_and_no_attribute_forwarding():
    task = Toy()
    env = TrialWrapper(task)
    assert env.task is task is env.unwrapped
    assert env.source is task
    with pytest.raises(AttributeError):
        _ = env.choices  # gymnasium 1.x forwards nothing, and neither do we


def test_wrapper_changes_show_in_reset_step_and_env_ob():
    # upstream test_reset_step: a wrapper's new_trial reaches reset() and step() obs.
    env = ConstantOb(Toy(), value=7.0)
    ob, _ = env.reset(seed=0)
    np.testing.assert_array_equal(ob, [7, 7, 7])
    np.testing.assert_array_equal(env.task.ob, np.full((5, 3), 7))
    for _ in range(12):  # crosses two trial boundaries (5-step trials)
        ob, *_ = env.step(0)
        np.testing.assert_array_equal(ob, [7, 7, 7])


def _attributes(task):
    """The task's attributes: its instance dict and its slots (TrialEnv keeps the per-step
    state in slots, which ``vars`` does not show)."""
    slots = {name for cls in type(task).__mro__ for name in getattr(cls, "__slots__", ())}
    assert {"_holder", "_current", "t_ind"} <= slots  # the slots this test must look at
    return {**vars(task), **{name: getattr(task, name) for name in slots if hasattr(task, name)}}


def test_wrapper_does_not_mutate_the_wrapped_env():
    task = Toy()
    before = set(_attributes(task))
    env = ForceGt(ConstantOb(task, 1.0), gt=1)
    env.reset(seed=0)
    env.step(0)
    assert set(_attributes(task)) - before <= {
        "_action_tables",
        "_where_cache",
        "_np_random_seed",
    }
    assert task._holder is None  # the serving wrapper, during its step or reset call only
    assert not any(isinstance(v, TrialWrapper) for v in _attributes(task).values())


def test_outermost_trial_wrapper_owns_generation_at_any_depth():
    task = Toy()
    inner = ForceGt(task, gt=0)
    middle = ngw.Monitor(inner, verbose=False)  # a step wrapper that leaves observations alone
    outer = ForceGt(ConstantOb(middle, 3.0), gt=1)
    outer.reset(seed=0)
    assert task.trial["ground_truth"] == 1
    assert task.trial["forced_by"] == 1
    assert (outer.calls, inner.calls) == (1, 1)  # the outer passed down through the inner
    for _ in range(5):
        ob, *_ = outer.step(0)
    assert (outer.calls, inner.calls) == (2, 2)
    assert task.trial["ground_truth"] == 1
    np.testing.assert_array_equal(ob, [3, 3, 3])  # the new trial's first ob, post-processed


def test_an_inner_chain_stepped_on_its_own_serves_its_own_trials():
    # whoever is stepped serves: wrapping never changes what the inner chain does on its own
    task = Toy()
    inner = ForceGt(task, gt=0)
    outer = ForceGt(inner, gt=1)
    outer.reset(seed=0)
    assert task.trial["forced_by"] == 1
    for _ in range(5):  # the trial ends: the inner wrapper, stepped, serves the next one
        inner.step(0)
    assert task.trial["forced_by"] == 0
    assert task._holder is None
    for _ in range(5):  # the task on its own generates its own
        task.step(0)
    assert "forced_by" not in task.trial
    for _ in range(5):
        outer.step(0)
    assert task.trial["forced_by"] == 1


def test_a_wrapper_that_fails_to_serve_releases_the_task():
    class Broken(TrialWrapper):
        def new_trial(self, **kwargs):
            raise ValueError("no trial today")

    task = Toy()
    task.reset(seed=0)
    broken = Broken(task)
    with pytest.raises(ValueError, match="no trial today"):
        broken.reset(seed=0)
    assert task._holder is None
    task.reset(seed=0)  # the task alone works as before
    for _ in range(12):
        task.step(0)


class _Doubled(gym.Wrapper):
    """Changes observations (a new space) without an observation(ob) method."""

    def __init__(self, env):
        super().__init__(env)
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (6,), np.float32)

    def step(self, action):
        ob, *rest = self.env.step(action)
        return np.concatenate([ob, ob]), *rest


def test_a_step_wrapper_changing_observations_without_observation_cannot_sit_inside():
    with pytest.raises(TypeError, match=r"_Doubled changes observations without an observation"):
        ForceGt(_Doubled(Toy()), gt=1)
    ForceGt(ngw.PassAction(Toy()), gt=1)  # PassAction shows the first observation itself


def _run(env, actions):
    ob, _ = env.reset(seed=3)
    steps = [(ob, 0.0, {})]
    for action in actions:
        ob, reward, _, _, info = env.step(action)
        steps.append((ob, reward, {k: v for k, v in info.items() if k != "trial"}))
    return steps


@pytest.mark.parametrize("inner_first", [True, False])
def test_2_3_1_order_trial_wrapper_outside_pass_action_and_pass_reward(inner_first):
    # NeuroGym 2.3.1's perceptualdecisionmaking notebook: SideBias(PassAction(PassReward(task))).
    # The trial wrapper serves the trials either way, so both orders step alike.
    def outside():
        return ngw.SideBias(
            ngw.PassAction(ngw.PassReward(Toy())), probs=[[0.9, 0.1], [0.1, 0.9]], block_dur=4
        )

    def inside():
        return ngw.PassAction(
            ngw.PassReward(ngw.SideBias(Toy(), probs=[[0.9, 0.1], [0.1, 0.9]], block_dur=4))
        )

    actions = np.random.default_rng(0).integers(0, 3, 300)
    a, b = (outside(), inside()) if inner_first else (inside(), outside())
    assert a.observation_space == b.observation_space
    for (ob_a, r_a, info_a), (ob_b, r_b, info_b) in zip(
        _run(a, actions), _run(b, actions), strict=True
    ):
        np.testing.assert_array_equal(ob_a, ob_b)
        assert r_a == r_b
        assert info_a.keys() == info_b.keys()
        assert all(np.array_equal(info_a[k], info_b[k]) for k in info_a)


def test_a_trial_wrapper_outside_noise_is_seeded_and_shows_noisy_first_observations():
    def make():
        return ngw.SideBias(ngw.Noise(Toy(), std_noise=0.5), probs=[[1.0, 0.0]], block_dur=5)

    first, second = _run(make(), [0] * 40), _run(make(), [0] * 40)
    for (ob_a, *_), (ob_b, *_) in zip(first, second, strict=True):
        np.testing.assert_array_equal(ob_a, ob_b)
    boundaries = [k for k, (_, _, info) in enumerate(first) if info.get("new_trial")]
    assert boundaries  # the first observation of each new trial is noisy, not the task's own
    assert all(not np.isin(first[k][0], [0.0, 1.0]).all() for k in boundaries)


def test_new_trial_called_directly_passes_down_the_chain():
    env = ForceGt(Toy(), gt=1)
    env.reset(seed=0)
    trial = env.new_trial(coh=RecordOnly(5))
    assert trial["ground_truth"] == 1
    assert trial["coh"] == 5
    assert env.task.trial is trial


def test_pass_through_wrapper_batches_through_the_task():
    plain, wrapped = Toy(), TrialWrapper(Toy())
    plain.reset(seed=3)
    wrapped.reset(seed=3)
    a, b = plain.new_trials(4), wrapped.new_trials(4)
    np.testing.assert_array_equal(a.ob, b.ob)


def test_overriding_wrapper_batches_by_calling_new_trial_and_restores_the_trial():
    env = ForceGt(Toy(), gt=1)
    env.reset(seed=0)
    current = env.task.trial
    batch = env.new_trials(3, coh=RecordOnly(np.array([1, 2, 3])))
    assert env.task.trial == current
    np.testing.assert_array_equal(batch.trial["ground_truth"], [1, 1, 1])
    np.testing.assert_array_equal(batch.trial["coh"], [1, 2, 3])
    np.testing.assert_array_equal(batch.gt[:, 4], [2, 2, 2])  # choice 1 is action 2
    assert env.calls == 4


def test_wrapped_envs_pickle_and_copy_mid_episode():
    env = ngw.ScheduleEnvs(
        [ForceGt(Toy(), 1), Toy(value=2.0)], ngw.RandomSchedule(2), env_input=True
    )
    env.reset(seed=5)
    for _ in range(7):
        env.step(0)
    for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        for _ in range(20):
            a, b = env.step(1), clone.step(1)
            np.testing.assert_array_equal(a[0], b[0])
            assert a[1] == b[1]
        env = clone


def test_make_applies_core_wrappers_by_name_with_kwargs():
    env = neurogym.make(
        "neurogym/Null-v0",
        wrappers=["PassAction", ("Noise", {"std_noise": 0.0}), ("Monitor", {"verbose": False})],
    )
    assert isinstance(env, ngw.Monitor)
    assert isinstance(env.env, ngw.Noise)
    assert env.env.std_noise == 0.0
    assert isinstance(env.env.env, ngw.PassAction)
    ob, _ = env.reset(seed=0)
    np.testing.assert_array_equal(ob, [0.0, 0.0])
    assert env.observation_space.name == {"action": 1}


def test_make_schedule_envs_by_name_with_others():
    other = neurogym.make("neurogym/Null-v0")
    env = neurogym.make(
        "neurogym/Null-v0",
        wrappers=[("ScheduleEnvs", {"others": [other], "schedule": ngw.SequentialSchedule(2)})],
    )
    assert isinstance(env, ngw.ScheduleEnvs)
    assert env.envs[1] is other


def test_gymnasium_make_accepts_wrappers():
    env = gym.make("neurogym/Null-v0", wrappers=["PassReward"])
    ob, _ = env.reset(seed=0)
    assert ob.shape == (2,)


def test_listing_the_core_wrappers():
    names = [spec.name for spec in neurogym.wrapper_specs()]
    assert names == [
        "Monitor",
        "MultiEnvs",
        "Noise",
        "PassAction",
        "PassReward",
        "RandomGroundTruth",
        "ReactionTime",
        "ScheduleAttr",
        "ScheduleEnvs",
        "SideBias",
        "TrialHistoryV2",
    ]
    assert all(spec.plugin == "core" and spec.description for spec in neurogym.wrapper_specs())
    for spec in neurogym.wrapper_specs():
        assert callable(spec.load())
    assert neurogym.wrappers.SideBias is ngw.SideBias  # the module is callable and a module


class _Recorder:
    def __init__(self):
        self.seen = []

    @hookimpl
    def neurogym_env_created(self, env, spec):
        self.seen.append((type(env).__name__, spec.id))


def test_env_created_hook_is_called_once_per_make(ngym_registry):
    recorder = _Recorder()
    ngym_registry.plugin_manager.register(recorder, name="recorder")
    env = ngym_registry.make("Null", wrappers=["PassAction"])
    env.reset(seed=0)
    for _ in range(50):
        env.step(0)
    assert recorder.seen == [("PassAction", "neurogym/Null-v0")]


def test_env_created_hook_errors_name_the_hook(ngym_registry):
    class Broken:
        @hookimpl
        def neurogym_env_created(self, env, spec):
            raise RuntimeError("boom")

    ngym_registry.plugin_manager.register(Broken(), name="broken")
    with pytest.raises(RuntimeError, match="boom") as info:
        ngym_registry.make("Null")
    assert "raised by a neurogym_env_created hook while making 'neurogym/Null-v0'" in (
        info.value.__notes__
    )


def test_no_pluggy_dispatch_on_the_step_path(ngym_registry, monkeypatch):
    env = ngym_registry.make("Null", wrappers=["PassAction", "Monitor"])
    env.reset(seed=0)
    hooks = ngym_registry.plugin_manager.hook

    def forbidden(*args, **kwargs):
        raise AssertionError("a hook was called while stepping")

    monkeypatch.setattr(hooks, "neurogym_env_created", forbidden)
    wrapped = ngw.ScheduleEnvs([ForceGt(Counter(1.0), 1), Counter(2.0)], ngw.RandomSchedule(2))
    wrapped.reset(seed=0)
    for _ in range(200):
        env.step(0)
        wrapped.step(0)


def test_looped_batches_refuse_a_chain_that_switches_envs():
    env = ForceGt(ngw.MultiEnvs([Toy(), Toy()]), gt=0)
    env.reset(seed=0)
    with pytest.raises(NotImplementedError, match="come from the several envs of MultiEnvs"):
        env.new_trials(2)


class _Appending(TrialWrapper):
    """Shows the task's observation with 7 extra dims (as docs/wrappers.md tells authors)."""

    def __init__(self, env):
        super().__init__(env)
        low = np.concatenate([env.observation_space.low, np.zeros(7, np.float32)])
        high = np.concatenate([env.observation_space.high, np.ones(7, np.float32)])
        self.observation_space = gym.spaces.Box(low, high, dtype=np.float32)

    def current_observation(self):
        return np.concatenate([super().current_observation(), np.ones(7, np.float32)])

    def step(self, action):
        ob, reward, terminated, truncated, info = super().step(action)
        return np.concatenate([ob, np.ones(7, np.float32)]), reward, terminated, truncated, info


def test_reset_returns_the_observation_an_overriding_wrapper_shows():
    env = _Appending(Toy())
    ob, _ = env.reset(seed=0)
    stepped, *_ = env.step(0)
    assert ob.shape == stepped.shape == env.observation_space.shape
    np.testing.assert_array_equal(ob[-7:], np.ones(7))
