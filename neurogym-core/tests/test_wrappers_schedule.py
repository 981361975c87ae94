"""Schedules, ScheduleEnvs and MultiEnvs (nesting, rule inputs, determinism)."""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest
from wrapper_tasks import Counter, Toy

from neurogym import wrappers as ngw


def _draws(schedule, n, rng=None):
    return [schedule(rng) for _ in range(n)]


# ---------------------------------------------------------------------------------- schedules
def test_sequential_schedules_match_upstream_order():
    assert _draws(ngw.SequentialSchedule(3), 7) == [1, 2, 0, 1, 2, 0, 1]
    assert _draws(ngw.SequentialSchedule(1), 3) == [0, 0, 0]
    blocks = ngw.SequentialBlockSchedule(2, [2, 3])
    assert _draws(blocks, 8) == [0, 0, 1, 1, 1, 0, 0, 1]
    blocks.reset()
    assert (blocks.i, blocks.count, blocks.total_count) == (0, 0, 0)
    assert _draws(blocks, 3) == [0, 0, 1]


def test_random_schedule_repeats_unless_asked_not_to():
    rng = np.random.default_rng(0)
    draws = _draws(ngw.RandomSchedule(2), 200, rng)
    assert any(a == b for a, b in itertools.pairwise(draws))  # repeats happen
    strict = _draws(ngw.RandomSchedule(2, repeat=False), 200, rng)
    assert strict[1:] == [1 - strict[0], strict[0]] * 99 + [1 - strict[0]]  # upstream: alternate
    three = _draws(ngw.RandomSchedule(3, repeat=False), 300, rng)
    assert all(a != b for a, b in itertools.pairwise(three))
    assert set(three) == {0, 1, 2}


def test_random_block_schedule_switches_to_another_block():
    draws = _draws(ngw.RandomBlockSchedule(3, [2, 3, 4]), 90, np.random.default_rng(1))
    assert draws[:2] == [0, 0]  # the first block is 0, as upstream
    runs, start = [], 0
    for i in range(1, len(draws)):
        if draws[i] != draws[i - 1]:
            runs.append((draws[start], i - start))
            start = i
    assert all(length == (2, 3, 4)[block] for block, length in runs)


def test_schedules_reproducible_with_seed_or_a_generator():
    a, b = ngw.RandomSchedule(4), ngw.RandomSchedule(4)
    a.seed(0)
    b.seed(0)
    assert _draws(a, 50) == _draws(b, 50)
    c = ngw.RandomBlockSchedule(2, [1, 1])
    assert _draws(c, 20, np.random.default_rng(9)) == [0] + [1, 0] * 9 + [1]


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: ngw.RandomSchedule(0), ValueError, "n must be an int >= 1, got 0"),
        (lambda: ngw.RandomSchedule(2.5), TypeError, "n must be an int >= 1, got 2.5"),
        (lambda: ngw.SequentialBlockSchedule(2, [1]), ValueError, "one length per condition"),
        (lambda: ngw.RandomBlockSchedule(2, [1, 0]), ValueError, "each block length"),
        (lambda: ngw.RandomBlockSchedule(2, "ab"), TypeError, "block_lens must be a sequence"),
    ],
)
def test_schedules_validate(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_trunc_exp_helpers_are_reexported():
    value = ngw.TruncExp(100, 50, 200)(np.random.default_rng(0))
    assert 50 <= value < 200
    assert ngw.trunc_exp(np.random.default_rng(0), 100, 50, 200) == value


# ---------------------------------------------------------------------------------- ScheduleEnvs
def _values_env(values, schedule, env_input=True):
    return ngw.ScheduleEnvs([Counter(value=v) for v in values], schedule, env_input=env_input)


def test_schedule_envs_rule_input_marks_the_active_env():
    env = _values_env([10.0, 20.0, 30.0], ngw.RandomSchedule(3))
    assert env.observation_space.shape == (5,)
    assert env.observation_space.name == {"value": 0, "noise": 1, "rule": (2, 3, 4)}
    ob, _ = env.reset(seed=0)
    for _ in range(300):
        assert ob[0] == 10.0 * (env.i_env + 1)
        np.testing.assert_array_equal(ob[2:], np.eye(3)[env.i_env])
        ob, *_ = env.step(0)


def test_schedule_envs_follows_the_schedule_at_every_trial():
    env = _values_env([1.0, 2.0, 3.0], ngw.SequentialSchedule(3), env_input=False)
    ob, _ = env.reset(seed=0)
    values = [ob[0]]
    for _ in range(3 * 7 - 1):  # Counter trials last 3 steps
        ob, *_ = env.step(0)
        values.append(ob[0])
    assert values[::3] == [2.0, 3.0, 1.0, 2.0, 3.0, 1.0, 2.0]


def test_set_i_forces_the_next_trial_and_moves_the_schedule():
    env = _values_env([1.0, 2.0, 3.0], ngw.SequentialSchedule(3), env_input=False)
    env.reset(seed=0)
    env.set_i(0)
    env.new_trial()
    assert env.i_env == 0
    env.new_trial()
    assert env.i_env == 1  # the sequential schedule continues from 0
    with pytest.raises(IndexError, match="env index 3 out of range for 3 envs"):
        env.set_i(3)


def _leaf(value):
    # Trials of 2, 3 or 4 steps, so that boundaries of different envs do not line up.
    return Counter(value=float(value), steps=2 + value % 3)


def _nested():
    """3 levels: 3 x 2 x 2 = 12 Counter leaves with values 0..11, rule inputs at each level."""
    level2 = []
    for a in range(3):
        level3 = [
            ngw.ScheduleEnvs(
                [_leaf(4 * a + 2 * b), _leaf(4 * a + 2 * b + 1)],
                ngw.RandomSchedule(2),
                env_input=True,
            )
            for b in range(2)
        ]
        level2.append(ngw.ScheduleEnvs(level3, ngw.RandomBlockSchedule(2, [2, 3]), True))
    return ngw.ScheduleEnvs(level2, ngw.SequentialSchedule(3), env_input=True)


def test_nested_schedule_envs_keep_one_shape_and_the_outer_schedule():
    env = _nested()
    # Counter (2) + innermost rule (2) + middle rule (2) + outer rule (3)
    assert env.observation_space.shape == (9,)
    assert env.observation_space.name == {
        "value": 0,
        "noise": 1,
        "rule": (2, 3),
        "rule_2": (4, 5),
        "rule_3": (6, 7, 8),
    }
    ob, _ = env.reset(seed=2026)
    shapes, leaves, outer = set(), set(), []
    steps = 6000
    for _ in range(steps):
        shapes.add(ob.shape)
        leaf = int(ob[0])
        a, b, c = leaf // 4, (leaf // 2) % 2, leaf % 2
        np.testing.assert_array_equal(ob[2:4], np.eye(2)[c])
        np.testing.assert_array_equal(ob[4:6], np.eye(2)[b])
        np.testing.assert_array_equal(ob[6:9], np.eye(3)[a])
        leaves.add(leaf)
        ob, _, _, _, info = env.step(0)
        if info["new_trial"]:
            outer.append(int(ob[0]) // 4)
    assert shapes == {(9,)}
    assert leaves == set(range(12))
    assert len(outer) > 1500
    # The outermost (sequential) schedule picks every trial: 1, 2, 0, 1, ... (upstream bug 6)
    first = outer[0]
    assert outer == [(first + k) % 3 for k in range(len(outer))]


def test_nested_schedule_envs_are_reproducible_under_reset_seed():
    def run(seed):
        env = _nested()
        obs = [env.reset(seed=seed)[0]]
        obs += [env.step(k % 2)[0] for k in range(1500)]
        return np.stack(obs)

    np.testing.assert_array_equal(run(7), run(7))
    assert not np.array_equal(run(7), run(8))
    env = _nested()
    first = [env.reset(seed=7)[0]] + [env.step(k % 2)[0] for k in range(1500)]
    again = [env.reset(seed=7)[0]] + [env.step(k % 2)[0] for k in range(1500)]
    np.testing.assert_array_equal(np.stack(first), np.stack(again))  # same env, reset again


def test_reset_observation_passes_through_step_wrappers():
    env = ngw.PassAction(_values_env([1.0, 2.0], ngw.RandomSchedule(2)))
    assert env.observation_space.name["action"] == 4
    ob, _ = env.reset(seed=0)
    assert ob.shape == (5,)
    assert ob[4] == 0.0
    np.testing.assert_array_equal(ob[2:4], np.eye(2)[env.env.i_env])
    ob, *_ = env.step(1)
    assert ob[4] == 1.0


def test_switch_returns_the_new_envs_first_observation():
    env = ngw.ScheduleEnvs(
        [Toy(value=1.0), Toy(value=5.0)], ngw.SequentialSchedule(2), env_input=True
    )
    env.reset(seed=0)
    assert env.i_env == 1
    for _ in range(4):
        env.step(0)
    ob, *_ = env.step(0)  # timeout: the next trial comes from envs[0]
    assert env.i_env == 0
    np.testing.assert_array_equal(ob, [1, 0, 0, 1, 0])
    ob, *_ = env.step(0)
    assert ob[1:3].max() == 1.0  # Toy(value=1.0)'s stimulus


def test_schedule_envs_validates_its_envs():
    with pytest.raises(ValueError, match="one observation shape and dtype"):
        ngw.ScheduleEnvs([Toy(), Counter()], ngw.RandomSchedule(2))
    task = Toy()
    with pytest.raises(ValueError, match="the same task appears twice"):
        ngw.ScheduleEnvs([task, ngw.Monitor(task)], ngw.RandomSchedule(2))
    with pytest.raises(TypeError, match="its step wrapper PassAction changes observations"):
        ngw.ScheduleEnvs([ngw.PassAction(Toy()), ngw.PassAction(Toy())], ngw.RandomSchedule(2))
    with pytest.raises(ValueError, match="draws among 3 envs but 2 were given"):
        ngw.ScheduleEnvs([Toy(), Toy()], ngw.RandomSchedule(3))
    with pytest.raises(ValueError, match="needs at least one env"):
        ngw.MultiEnvs([])


def _served(env, n):
    """(env index, observation rows) of the next ``n`` trials ``env`` serves (on a copy)."""
    env = copy.deepcopy(env)
    rows = []
    for _ in range(n):
        env.new_trial()
        rows.append((env.i_env, env.active_env.unwrapped.ob.copy()))
    return rows


@pytest.mark.parametrize("env_input", [True, False])
def test_schedule_envs_batch_the_trials_new_trial_would_serve(env_input):
    # NeuroGym 2.3.1's Dataset over ScheduleEnvs (its yang19 tutorial) builds these batches.
    env = _values_env([1.0, 2.0, 3.0], ngw.RandomSchedule(3), env_input=env_input)
    env.reset(seed=0)
    current = [e.unwrapped.trial for e in env.envs], env.i_env
    expected = _served(env, 12)
    batch = env.new_trials(12)
    assert [e.unwrapped.trial for e in env.envs] == current[0]
    assert env.i_env == current[1]
    assert len({i for i, _ in expected}) == 3  # every env took part
    for row, (i, ob) in enumerate(expected):
        steps = len(ob)
        assert batch.lengths[row] == steps
        np.testing.assert_array_equal(batch.ob[row, :steps, : ob.shape[1]], ob)
        if env_input:
            np.testing.assert_array_equal(
                batch.ob[row, :steps, ob.shape[1] :], np.eye(3)[[i] * steps]
            )
    # The schedule advanced by the batch's 12 trials: the next served trial follows them.
    follow = _served(copy.deepcopy(env), 1)
    assert follow[0][0] == _served_after(env, 12)


def _served_after(env, n):
    """The env index of the trial served after ``n`` more served trials (on a copy)."""
    env = copy.deepcopy(env)
    env.reset(seed=0)
    for _ in range(n + 1):
        env.new_trial()
    return env.i_env


def test_a_dataset_over_schedule_envs_is_seeded_and_mixes_the_envs():
    import neurogym

    env = _values_env([1.0, 2.0], ngw.RandomSchedule(2))
    first = neurogym.Dataset(env, batch_size=4, seq_len=40, cache_len=80, seed=3)
    again = neurogym.Dataset(env, batch_size=4, seq_len=40, cache_len=80, seed=3)
    for _ in range(3):
        (a, b), (c, d) = next(first), next(again)
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)
    assert set(np.unique(a[..., 0])) >= {1.0, 2.0}


def test_sub_env_trial_wrappers_take_part():
    biased = ngw.RandomGroundTruth(Toy(), p=[0.0, 1.0])
    env = ngw.ScheduleEnvs([biased, Toy()], ngw.SequentialBlockSchedule(2, [4, 1]))
    env.reset(seed=0)
    gts = []
    for _ in range(60):
        *_, info = env.step(0)
        if info["new_trial"]:
            gts.append((env.i_env, int(env.active_env.unwrapped.trial["ground_truth"])))
    assert all(gt == 1 for i, gt in gts if i == 0)


# ---------------------------------------------------------------------------------- MultiEnvs
def test_multi_envs_switch_at_the_next_trial():
    env = ngw.MultiEnvs([Counter(1.0), Counter(2.0)], env_input=True)
    ob, _ = env.reset(seed=0)
    assert ob[0] == 1.0
    assert env.i_env == 0
    env.set_i(1)
    values = [env.step(0)[0] for _ in range(6)]
    assert [v[0] for v in values] == [1.0, 1.0, 2.0, 2.0, 2.0, 2.0]
    np.testing.assert_array_equal(values[-1][2:], [0, 1])
    assert str(env).startswith("<MultiEnvs")


def test_an_int_seeded_batch_of_schedule_envs_is_the_trials_it_serves_after_reset():
    import neurogym

    env = _values_env([1.0, 2.0], ngw.RandomSchedule(2))
    x, *_ = neurogym.batch(env, 6, seed=5)
    served = copy.deepcopy(env)
    served.reset(seed=5)
    for row in range(6):
        if row:
            served.new_trial()
        ob = served.active_env.unwrapped.ob
        np.testing.assert_array_equal(x[row, : len(ob), :2], ob)
