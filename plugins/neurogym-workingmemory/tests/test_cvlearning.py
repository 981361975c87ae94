"""CVLearning: each stage's trials and payoffs; the curriculum moves on the agent's outcomes."""

from __future__ import annotations

import copy
import math
import pickle

import numpy as np
import pytest

import neurogym
from neurogym.testing.trials import correct, other_of_two, period_mean, respond, run_trial, seeded
from neurogym_workingmemory.tasks.cvlearning import CVLearning


def _always(side):
    return respond(lambda env: side)


def _run(env, policy, trials):
    """Steps ``trials`` trials; returns the stage each was drawn at and its performance."""
    stages, perfs = [], []
    for _ in range(trials):
        _, info, _ = run_trial(env, policy)
        stages.append(int(info["trial"]["stage"]))
        perfs.append(info["performance"])
    return np.array(stages), np.array(perfs)


@pytest.mark.parametrize(
    ("stage", "dt", "lengths"),
    [
        (0, 100, {17}),  # fixation 2 + decision 15: no stimulus, no delay
        (1, 100, {28}),  # + stimulus 11 (1150 ms floors to 1100)
        (2, 100, {28}),
        (3, 100, {28}),  # a new env's delays are 0 ms long
        (0, 50, {34}),
        (2, 50, {57}),  # 4 + 23 + 30
    ],
)
def test_trial_lengths_per_stage(stage, dt, lengths):
    env = seeded(CVLearning, seed=1, stage=stage, dt=dt)
    seen = set()
    for _ in range(30):
        env.new_trial()
        seen.add(len(env.ob))
    assert seen == lengths


def test_full_task_delays_are_uniform_1000_to_3000_ms():
    for dt, fixed in ((100, 2 + 11 + 15), (50, 4 + 23 + 30)):
        env = seeded(CVLearning, seed=2, stage=4, dt=dt)
        lengths = env.new_trials(4000).lengths - fixed
        assert lengths.min() == 1000 // dt
        assert lengths.max() == 3000 // dt - 1
        # uniform over the floored delays: every value occurs, none much more than another
        counts = np.bincount(lengths)[1000 // dt :]
        assert counts.min() > 0.5 * counts.mean()


def test_stimulus_encodes_the_ground_truth():
    env = seeded(CVLearning, seed=3, stage=1)
    batch = env.new_trials(200)
    gt = batch.trial["ground_truth"]
    stim = period_mean(batch, "stimulus", range(1, 11))
    np.testing.assert_allclose(stim[:, 0], gt == 1)  # coherence 100: the right side is 1
    np.testing.assert_allclose(stim[:, 1], gt == 2)
    np.testing.assert_allclose(stim[:, 2:], 0.5)
    np.testing.assert_allclose(period_mean(batch, "stimulus", 0), 1.0)
    np.testing.assert_allclose(period_mean(batch, "decision", range(0, 11)), 0.0)
    assert (batch.periods["delay"][1] == batch.periods["delay"][0]).all()  # no delay yet
    assert set(batch.trial["coh"]) == {100.0}
    assert set(batch.trial["sigma"]) == {0.0}

    env = seeded(CVLearning, seed=3, stage=4, sigma=0.0, stim_scale=1.5)
    batch = env.new_trials(300)
    coh, gt = batch.trial["coh"], batch.trial["ground_truth"]
    assert set(coh) == set(np.array([0, 6.4, 12.8, 25.6, 51.2]) * 1.5)
    stim = period_mean(batch, "stimulus", [1, 2])
    rows = np.arange(len(gt))
    np.testing.assert_allclose(stim[rows, gt - 1], (1 + coh / 100) / 2)
    np.testing.assert_allclose(stim[rows, 2 - gt], (1 - coh / 100) / 2)


def test_full_task_noise_has_the_documented_std():
    env = seeded(CVLearning, seed=4, stage=4, sigma=1.0, dt=100)
    batch = env.new_trials(400, coh=0.0)
    start, end = batch.periods["stimulus"]
    noise = np.concatenate(
        [batch.ob[i, start[i] : end[i], 1:] - 0.5 for i in range(400)], axis=None
    )
    assert noise.std() == pytest.approx(1.0 / np.sqrt(100), rel=0.03)
    assert abs(noise.mean()) < 0.005


def test_stage0_both_sides_pay_until_the_repeat_cap():
    env = seeded(CVLearning, seed=5, stage=0, max_num_reps=3)
    for trial in range(3):
        rewards, info, _ = run_trial(env, _always(1))
        assert info["trial"]["both_rewarded"]
        assert (rewards[-1], info["performance"]) == (1.0, 1), trial
    # three choices of side 1 in a row: only side 2 pays now, and a repeat pays 0
    assert not env.trial["both_rewarded"]
    assert env.trial["ground_truth"] == 2
    rewards, info, steps = run_trial(env, _always(1))
    assert (rewards[-1], info["performance"], steps) == (0.0, 0, 3)
    rewards, info, _ = run_trial(env, _always(2))
    assert (rewards[-1], info["performance"]) == (1.0, 1)
    assert env.trial["both_rewarded"]  # the run on side 1 was broken


def test_stage0_a_trial_without_a_choice_is_no_repeat():
    env = seeded(CVLearning, seed=6, stage=0, max_num_reps=2)
    run_trial(env, _always(1))
    run_trial(env, lambda env: 0)  # times out: upstream counted side 1 again
    assert env.trial["both_rewarded"]
    assert env.curriculum.day == [1, 0]


def test_stage1_a_wrong_choice_pays_nothing_and_the_trial_goes_on():
    env = seeded(CVLearning, seed=7, stage=1)

    def agent(env):  # wrong at the first decision step, right at the next
        if env.t_ind < env.start_ind["decision"]:
            return 0
        return other_of_two(env) if env.t_ind == env.start_ind["decision"] else correct(env)

    rewards, info, _ = run_trial(env, agent)
    assert rewards.count(0.0) == len(rewards) - 1
    assert rewards[-1] == 1.0
    assert info["performance"] == 0  # the first choice counts
    assert env.rewards == {"abort": -0.1, "correct": 1.0, "fail": -1.0}  # never rewritten


@pytest.mark.parametrize("stage", [2, 3, 4])
def test_later_stages_first_choice_ends_the_trial(stage):
    env = seeded(CVLearning, seed=8, stage=stage)
    rewards, info, _ = run_trial(env, respond(other_of_two))
    assert (rewards[-1], info["performance"]) == (-1.0, 0)
    rewards, info, _ = run_trial(env, respond(correct))
    assert (rewards[-1], info["performance"]) == (1.0, 1)
    _, reward, *_, info = env.step(1)  # breaking fixation
    assert (reward, info["new_trial"], info["stage"]) == (pytest.approx(-0.1), False, stage)


def test_a_perfect_agent_climbs_every_stage_in_keep_days_plus_one_days():
    env = seeded(CVLearning, seed=9, trials_day=40, perf_len=10, keep_days=1)
    stages, perfs = _run(env, respond(correct), 40 * 10)
    assert perfs.all()
    counts = {s: int((stages == s).sum()) for s in range(5)}
    assert counts == {0: 80, 1: 80, 2: 80, 3: 80, 4: 80}
    assert env.stage == 4
    assert env.curriculum.delay_fraction == 1.0


def test_stage3_delays_grow_with_performance_and_are_seeded():
    def delays(seed):
        env = seeded(CVLearning, seed=seed, stage=3, trials_day=1000, perf_len=5)
        out = []
        for _ in range(40):
            run_trial(env, respond(correct))
            out.append(env.end_ind["delay"] - env.start_ind["delay"])  # the next trial's
        return out, env.curriculum.delay_fraction

    first, fraction = delays(10)
    assert fraction == 1.0  # +0.25 after every 6 trials at window performance 1
    assert set(first[-10:]) <= {10, 30}
    assert len(set(first[-10:])) == 2
    assert delays(10)[0] == first  # upstream drew these from an unseeded generator
    assert delays(11)[0] != first


def test_stage2_reminder_sends_a_failing_agent_back_to_stage1_and_up_again():
    env = seeded(CVLearning, seed=12, stage=2, trials_day=1000, perf_len=10)
    stages, _ = _run(env, respond(other_of_two), 12)
    assert list(stages[:11]) == [2] * 11
    assert env.stage == 1
    assert env.curriculum.reminder
    stages, _ = _run(env, respond(correct), 30)
    assert env.stage == 2
    assert not env.curriculum.reminder
    assert 1 in stages


def test_a_bad_day_resets_the_count_of_good_days():
    env = seeded(CVLearning, seed=13, stage=2, stages=(2, 4), trials_day=20, perf_len=5)
    _run(env, respond(correct), 20)  # good day 1
    _run(env, respond(other_of_two), 20)  # bad day
    _run(env, respond(correct), 20)  # good day 1 again
    assert env.stage == 2
    _run(env, respond(correct), 20)  # good day 2: advance
    assert env.stage == 4


def test_reset_restarts_the_curriculum_unless_asked_to_keep_it():
    env = seeded(CVLearning, seed=14, trials_day=10, perf_len=5, keep_days=0)
    _run(env, respond(correct), 10)
    assert env.stage == 1
    env.reset(seed=14, options={"keep_curriculum": True})
    assert env.stage == 1
    assert env.trial["stage"] == 1
    env.reset(seed=14)
    assert env.stage == 0
    assert env.curriculum.day == []


def test_pickled_and_copied_envs_carry_the_curriculum():
    env = seeded(CVLearning, seed=15, trials_day=10, perf_len=5, keep_days=0)
    _run(env, respond(correct), 14)
    for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert clone.curriculum == env.curriculum
        a, _ = _run(clone, respond(correct), 30)
        b, _ = _run(copy.deepcopy(env), respond(correct), 30)
        np.testing.assert_array_equal(a, b)


def test_batches_are_drawn_at_the_given_stage_and_move_nothing():
    x, y, mask, trial = neurogym.batch("CVLearning", 64, seed=0, env_kwargs={"stage": 4})
    assert set(trial["stage"]) == {4}
    assert x.shape[0] == 64
    assert set(np.unique(y[mask])) == {1, 2}
    env = seeded(CVLearning, seed=0, stage=2)
    env.new_trials(500)
    assert env.stage == 2
    assert env.curriculum.day == []


def test_forced_variables_win():
    env = seeded(CVLearning, seed=16, stage=0, max_num_reps=1)
    run_trial(env, _always(1))
    assert env.trial["ground_truth"] == 2
    assert not env.trial["both_rewarded"]
    env.new_trial(ground_truth=1)  # a forced side wins over the repeat cap
    assert env.trial["ground_truth"] == 1
    batch = seeded(CVLearning, seed=16, stage=4).new_trials(8, coh=25.6, ground_truth=[1, 2] * 4)
    assert list(batch.trial["ground_truth"]) == [1, 2] * 4
    assert set(batch.trial["coh"]) == {25.6}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"stages": (2, 1)}, "strictly increasing"),
        ({"stages": ()}, "strictly increasing"),
        ({"stages": (0, 5)}, "stages"),
        ({"stage": 3, "stages": (0, 1, 2)}, "stage must be one of 0, 1, 2, got 3"),
        ({"stage": 2.0}, "stage must be an int"),
        ({"th_stage": 1.5}, "th_stage"),
        ({"n_ch": 1}, "n_ch"),
        ({"trials_day": 0}, "trials_day"),
        ({"max_num_reps": 0}, "max_num_reps"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        CVLearning(**kwargs)


def test_forced_ground_truth_must_be_a_side():
    env = seeded(CVLearning, seed=17)
    with pytest.raises(ValueError, match="ground_truth"):
        env.new_trial(ground_truth=3)


def test_no_curriculum_starts_at_the_last_stage():
    env = seeded(CVLearning, seed=18, th_stage=-1)
    assert env.stage == 4
    assert env.trial["stage"] == 4


def test_the_stage_4_ideal_observer_is_noise_limited_and_halves_zero_coherence():
    n = 20_000
    env = neurogym.make("CVLearning", stage=4)
    for coh, expected in ((0.0, 0.5), (6.4, None), (51.2, 1.0)):
        if expected is None:  # 11 stimulus steps of a coh/100 difference, 0.1 noise per dim
            d = (coh / 100) * 11 / (0.1 * math.sqrt(2) * math.sqrt(11))
            expected = 0.5 * (1 + math.erf(d / math.sqrt(2)))
        data = neurogym.batch(env, n, seed=0, coh=np.full(n, coh))
        assert env.unwrapped.ideal_observer(data).mean() == pytest.approx(expected, abs=0.012)
    stage0 = neurogym.make("CVLearning", stage=0)
    assert stage0.unwrapped.ideal_observer(neurogym.batch(stage0, 10, seed=0)) is None
