"""Step-level wrappers: PassAction, PassReward, Noise and ReactionTime, with exact values."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.seeding import np_random
from wrapper_tasks import Counter, Toy

from neurogym import wrappers as ngw

FIX, STIM, DEC = [1, 0, 0], None, [0, 0, 0]


def _reference(seed):
    """The generator a Toy reset with ``seed`` uses (gymnasium's np_random)."""
    return np_random(seed)[0]


def _toy_rows(gt, value=1.0):
    stim = [0.0, 0.0, 0.0]
    stim[1 + gt] = value
    return [FIX, stim, stim, stim, DEC]


# ---------------------------------------------------------------------------------- PassAction
def test_pass_action_appends_a_named_action_dim_and_zero_at_reset():
    env = ngw.PassAction(Toy())
    assert env.observation_space.shape == (4,)
    assert env.observation_space.name == {"fixation": 0, "stimulus": (1, 2), "action": 3}
    ob, _ = env.reset(seed=0)
    gt = int(_reference(0).random(1)[0] * 2)
    rows = _toy_rows(gt)
    np.testing.assert_array_equal(ob, [*FIX, 0])
    for k, action in enumerate([0, 1, 0, 0]):
        ob, *_ = env.step(action)
        np.testing.assert_array_equal(ob, [*rows[k + 1], action])
        assert ob.dtype == np.float32


def test_pass_action_twice_gets_a_second_name():
    env = ngw.PassAction(ngw.PassAction(Toy()))
    assert env.observation_space.name["action"] == 3
    assert env.observation_space.name["action_2"] == 4


def test_pass_action_needs_a_vector_box():
    with pytest.raises(TypeError, match="PassAction needs a 1-D Box observation space"):
        ngw.PassAction(_DiscreteObs())


class _DiscreteObs(Counter):
    def __init__(self):
        super().__init__()
        from neurogym import spaces

        self.observation_space = spaces.Discrete(3)


# ---------------------------------------------------------------------------------- PassReward
def test_pass_reward_appends_the_reward():
    env = ngw.PassReward(Toy())
    assert env.observation_space.name == {"fixation": 0, "stimulus": (1, 2), "reward": 3}
    ob, _ = env.reset(seed=0)
    np.testing.assert_array_equal(ob, [*FIX, 0])
    ob, reward, *_ = env.step(1)  # breaks fixation: abort reward, trial goes on
    assert reward == pytest.approx(-0.1)
    np.testing.assert_allclose(ob[3], -0.1, rtol=1e-6)
    for _ in range(3):
        ob, reward, *_ = env.step(0)
        assert ob[3] == reward == 0
    gt_action = int(env.unwrapped.gt[4])
    ob, reward, _, _, info = env.step(gt_action)
    assert info["new_trial"]
    assert reward == 1.0
    assert ob[3] == 1.0
    np.testing.assert_array_equal(ob[:3], FIX)  # first row of the next trial


# ---------------------------------------------------------------------------------- Noise
def test_noise_reset_with_seed_works_and_draws_from_the_task_generator():
    env = ngw.Noise(Toy(), std_noise=0.5)
    ob, _ = env.reset(seed=0)
    ref = _reference(0)
    gt = int(ref.random(128)[0] * 2)  # the first of a block of 128 (neurogym._env.prefetch)
    expected0 = (np.array(FIX) + ref.normal(0.0, 0.5, 3)).astype(np.float32)
    np.testing.assert_array_equal(ob, expected0)
    ob, *_ = env.step(0)
    expected1 = (np.array(_toy_rows(gt)[1]) + ref.normal(0.0, 0.5, 3)).astype(np.float32)
    np.testing.assert_array_equal(ob, expected1)
    # The task's trial is untouched (the noise went into a copy).
    np.testing.assert_array_equal(env.unwrapped.ob, np.array(_toy_rows(gt), dtype=np.float32))
    again, _ = env.reset(seed=0)
    np.testing.assert_array_equal(again, expected0)


def test_noise_space_is_unbounded_with_names():
    env = ngw.Noise(Toy())
    assert env.observation_space.name == {"fixation": 0, "stimulus": (1, 2)}
    assert np.all(np.isinf(env.observation_space.low))


def test_noise_adaptive_mode_follows_the_windowed_performance():
    env = ngw.Noise(Toy(), std_noise=0.1, perf_th=0.5, w=2, step_noise=0.05)
    env.reset(seed=1)
    task = env.unwrapped
    seen = []
    for correct in (True, True, True, False, False, False):
        for _ in range(4):
            env.step(0)
        answer = int(task.gt[4]) if correct else 3 - int(task.gt[4])
        *_, info = env.step(answer)
        seen.append((info["perf_mean"], round(info["std_noise"], 10)))
    assert seen == [
        (1.0, 0.1),  # window not full yet: no change
        (1.0, 0.15),
        (1.0, 0.2),
        (0.5, 0.2),  # at the threshold: no change
        (0.0, 0.15),
        (0.0, 0.1),
    ]
    env.reset(seed=1)
    assert env.std_noise == 0.1
    assert env.perf == []


def test_noise_validates_its_arguments():
    with pytest.raises(ValueError, match="std_noise and step_noise must be >= 0"):
        ngw.Noise(Toy(), std_noise=-1)
    with pytest.raises(ValueError, match="w must be a positive number of trials"):
        ngw.Noise(Toy(), w=0)


# ---------------------------------------------------------------------------------- ReactionTime
def _rt_run(env, actions):
    env.reset(seed=0)
    return [env.step(a) for a in actions]


def test_reaction_time_opens_the_decision_one_step_after_stimulus_onset():
    env = ngw.ReactionTime(Toy(), urgency=-0.01)
    env.reset(seed=0)
    task = env.unwrapped
    gt_action = int(task.gt[4])
    _, reward, _, _, info = env.step(0)  # first step: the trial is adjusted before stepping
    assert task.start_t["decision"] == 200
    assert task.tmax == 400
    np.testing.assert_array_equal(task.gt, [0, 0, gt_action, gt_action, gt_action])
    assert reward == pytest.approx(-0.01)
    assert info["gt"] == 0
    _, reward, _, _, info = env.step(gt_action)  # stimulus step 1: not yet a decision step
    assert reward == pytest.approx(-0.01)
    assert not info["new_trial"]
    assert info["gt"] == 0
    _, reward, _, _, info = env.step(gt_action)  # step 2: an early, correct response
    assert info["new_trial"]
    assert info["performance"] == 1
    assert reward == pytest.approx(1 - 0.01)
    assert info["tr_dur"] == 3
    assert info["gt"] == gt_action


def test_reaction_time_ends_the_trial_with_the_stimulus_or_keeps_the_timing():
    ends = [info.get("new_trial") for *_, info in _rt_run(ngw.ReactionTime(Toy()), [0] * 8)]
    assert ends == [False, False, False, True, False, False, False, True]
    kept = ngw.ReactionTime(Toy(), end_on_stimulus=False)
    results = _rt_run(kept, [0] * 5)
    assert [info["new_trial"] for *_, info in results] == [False] * 4 + [True]
    assert results[-1][-1]["tr_dur"] == 5


def test_reaction_time_needs_stimulus_and_decision_periods():
    # refused when made (was: at every step), naming what the task's timing lacks
    with pytest.raises(ValueError, match=r"Counter's timing has no \['decision'\]"):
        ngw.ReactionTime(Counter())


def test_reaction_time_refuses_to_sit_outside_an_env_switch():
    multi = ngw.MultiEnvs([Toy(), Toy()])
    with pytest.raises(TypeError, match="wrap each of its envs with ReactionTime instead"):
        ngw.ReactionTime(multi)
    inside = ngw.ScheduleEnvs(
        [ngw.ReactionTime(Toy()), ngw.ReactionTime(Toy(value=2.0))], ngw.RandomSchedule(2)
    )
    inside.reset(seed=0)
    ends = [inside.step(0)[-1]["new_trial"] for _ in range(8)]
    assert ends == [False, False, False, True] * 2
