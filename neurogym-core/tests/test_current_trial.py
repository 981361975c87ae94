"""The current trial is one object, and prefetched trials follow one rule (issue #12)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from data_tasks import PrefetchTask, VarTask

from neurogym._env.current import CurrentTrial


def test_each_trial_boundary_replaces_the_current_trial_as_one_object():
    env = VarTask()
    env.reset(seed=0)
    first = env._current
    assert isinstance(first, CurrentTrial)
    assert env.trial is first.trial
    assert env.start_t is first.start_t
    assert env.tmax == first.tmax
    np.testing.assert_array_equal(env.ob, first.ob)
    env.new_trial()
    assert env._current is not first
    assert env.trial is env._current.trial
    assert set(vars(env)).isdisjoint({"trial", "start_t", "end_t", "tmax", "ob", "gt"})


def test_a_refused_forced_value_keeps_the_same_current_trial_object():
    env = VarTask()
    env.reset(seed=0)
    before = env._current
    with pytest.raises(ValueError, match="cohh"):
        env.new_trial(cohh=0.5)
    assert env._current is before


@pytest.mark.parametrize("env_class", [VarTask, PrefetchTask])
def test_batches_restore_the_current_trial_object_and_count(env_class):
    env = env_class()
    env.reset(seed=0)
    before, count = env._current, env.num_tr
    env._loop_trials(3, {})
    assert env._current is before
    assert env.num_tr == count


def _ground_truths(env, n):
    return [int(env.new_trial()["ground_truth"]) for _ in range(n)]


def test_prefetched_trials_are_dropped_when_an_attribute_is_reassigned():
    env = PrefetchTask()
    env.reset(seed=0)
    env.new_trial()  # mid-block: 126 of 128 prefetched trials left
    env.cohs = np.array([0.7])
    assert {float(env.new_trial()["coh"]) for _ in range(6)} == {0.7}


def test_prefetched_trials_are_dropped_when_timing_is_edited_in_place():
    env = PrefetchTask()
    env.reset(seed=0)
    env.timing["decision"] = 300
    env.new_trial()
    assert env.end_t["decision"] - env.start_t["decision"] == 300


def test_prefetched_trials_are_dropped_when_timing_is_replaced():
    env = PrefetchTask()
    env.reset(seed=0)
    env.new_trial()
    version = env._pool.version
    env.timing = {**env.timing, "decision": 700}  # a made env's timing is updated in place
    assert env.config_version != version
    env.new_trial()
    assert env.end_t["decision"] - env.start_t["decision"] == 700


@pytest.mark.parametrize(
    "edit",
    [
        lambda env: env.cohs.__setitem__(slice(None), 0.9),  # a derived array, in place
        lambda env: env.timing["delay"][1].__setitem__(0, 5),  # a timing spec, in place
    ],
)
def test_an_edit_inside_a_setting_raises_and_changes_nothing(edit):
    env = PrefetchTask()
    env.reset(seed=0)
    env.new_trial()
    pool, version = env._pool, env.config_version
    with pytest.raises((ValueError, TypeError), match="read-only"):
        edit(env)
    assert env.config_version == version
    env.new_trial()
    assert env._pool is pool


class _ClassDefaultTask(PrefetchTask):
    scale = 1.0  # a class default: not in the instance dict until an env sets it

    def _new_trials(self, b, **kwargs):
        out = super()._new_trials(b, **kwargs)
        b.set_param("scale", np.full(b.n, self.scale))
        return out


def test_a_class_default_set_on_the_env_drops_prefetched_trials_and_a_private_one_does_not():
    env = _ClassDefaultTask()
    env.reset(seed=0)
    env.new_trial()
    pool = env._pool
    env._scratch = "private"  # an implementation detail: the stream goes on from the pool
    env.new_trial()
    assert env._pool is pool
    env.scale = 3.0  # shadows the class default: the next trial is generated with it
    assert float(env.new_trial()["scale"]) == 3.0
    assert env._pool is not pool
    assert _ClassDefaultTask.scale == 1.0


@pytest.mark.parametrize("clone", [lambda e: pickle.loads(pickle.dumps(e)), copy.deepcopy])
def test_a_copy_keeps_its_prefetched_trials_and_version(clone):
    env = PrefetchTask()
    env.rewards["correct"] = 2.0
    env.reset(seed=4)
    env.new_trial()
    other = clone(env)
    assert other.config_version == env.config_version == other._pool.version
    assert _ground_truths(other, 8) == _ground_truths(env, 8)
    assert other._pool.version == other.config_version  # served from the copied pool


def test_a_pooled_trial_of_a_hand_written_step_becomes_a_plain_trial_at_its_first_step():
    # Served from the pool its period dicts are lazy (a trial generated but never stepped
    # does not pay for them); its first step turns it into a plain CurrentTrial holding the
    # same trial, with the period dicts made.
    from data_tasks import StepTask

    from neurogym._env.current import LazyTrial

    env = StepTask()
    env.reset(seed=2)
    pooled = env._current
    assert type(pooled) is LazyTrial
    assert "start_ind" not in vars(pooled)  # not made yet
    expected = {
        name: dict(getattr(pooled, name))
        for name in ("start_t", "end_t", "start_ind", "end_ind", "durations")
    }  # (the first read makes all five)
    state = {name: getattr(pooled, name) for name in ("trial", "ob", "gt", "codes")}
    env.step(0)
    plain = env._current
    assert type(plain) is CurrentTrial
    for name, value in expected.items():
        assert getattr(plain, name) == value
    for name, value in state.items():
        assert getattr(plain, name) is value  # the same trial, not a copy of its data
    assert (plain.end_step, plain.tmax, plain.tmax_ms) == (
        pooled.end_step, pooled.tmax, pooled.tmax_ms
    )  # fmt: skip
    assert env.t_ind == 1
    assert env.in_period("fixation") == (
        plain.start_ind["fixation"] <= 1 < plain.end_ind["fixation"]
    )


def test_a_plain_trial_steps_as_the_pooled_one_would():
    # The same seed stepped with the conversion and with the periods made at once (an eager
    # trial, as before the conversion existed) gives the same rewards and observations.
    from data_tasks import StepTask

    from neurogym._env.current import CurrentTrial as Plain
    from neurogym._env.current import LazyTrial

    def run(eager):
        env = StepTask()
        env.reset(seed=5)
        out = []
        rng = np.random.default_rng(0)
        for _ in range(400):
            if eager and type(env._current) is LazyTrial:
                env._current = env._current.plain()
                assert type(env._current) is Plain
            ob, reward, *_ = env.step(int(rng.integers(3)))
            out.append((ob.tobytes(), reward))
        return out

    assert run(True) == run(False)


def test_a_trial_built_on_its_own_makes_its_periods_on_first_read():
    # A batch-native task with cross-trial state builds each trial alone: a LazyTrial whose
    # period dicts come from its builder on first read, plain at the first step of a
    # hand-written _step; a trial without periods is plain at once, with empty dicts.
    from data_tasks import OneAtATime

    from neurogym import OBNOW
    from neurogym._env.current import LazyTrial

    class Stepped(OneAtATime):  # no declared rule: nothing reads the periods at new_trial
        def __init__(self):
            super().__init__()
            self.rule = None

        def _step(self, action):
            return OBNOW, 0.0, False, False, {}

    env = Stepped()
    env.reset(seed=3)
    built = env._current
    assert type(built) is LazyTrial
    assert built._pool is None
    assert "start_ind" not in vars(built)
    builder = built._builder
    expected_start = {name: float(start) for name, start in builder.start_t.items()}
    assert built.start_t == expected_start  # made from the builder on this first read
    assert built.start_ind == {name: int(t // 100) for name, t in expected_start.items()}
    assert built.tmax_ms == float(builder.tmax_ms)
    env.step(0)
    assert type(env._current) is CurrentTrial
    assert env._current.start_t == expected_start


def test_a_built_trial_without_periods_is_plain_with_empty_period_dicts():
    import neurogym

    env = neurogym.make("neurogym/Null-v0").unwrapped
    env.reset(seed=0)
    for _ in range(3):
        env.new_trial()
        current = env._current
        assert type(current) is CurrentTrial
        assert current.start_t == current.end_t == current.start_ind == {}
        assert current.end_ind == current.durations == {}
