"""PostDecisionWager: structure, inputs, rewards, timing distribution and the fixed reward bug."""

from __future__ import annotations

import itertools
import math
import re
from functools import partial

import numpy as np
import pytest

from neurogym.testing import check_task
from neurogym.testing.trials import (
    assert_lengths_follow,
    const_steps,
    convolve,
    in_period,
    pmf_stats,
    respond,
    run_trial,
    seeded,
    trunc_exp_steps,
)
from neurogym_perceptual.tasks.postdecisionwager import PostDecisionWager

fresh = partial(seeded, PostDecisionWager)

# ---------------------------------------------------------------------------------- helpers


CONSTANT_TIMING = {"stimulus": 300, "delay": 1300, "pre_sure": 600}

# ---------------------------------------------------------------------------------- contract


@pytest.mark.parametrize("kwargs", [{}, {"dt": 20}, {"dim_ring": 3, "sigma": 0.5}])
def test_check_task(kwargs):
    check_task(PostDecisionWager(**kwargs))


def test_spaces_and_metadata_match_upstream():
    env = PostDecisionWager()
    assert env.observation_space.shape == (4,)
    assert env.observation_space.dtype == np.float32
    assert env.observation_space.name == {"fixation": 0, "stimulus": (1, 2), "sure": 3}
    assert env.action_space.n == 4
    assert env.action_space.name == {"fixation": 0, "choice": (1, 2), "sure": 3}
    assert env.rewards == {"abort": -0.1, "correct": 1.0, "fail": 0.0, "sure": 0.7}
    assert PostDecisionWager().metadata["tags"] == ["perceptual", "delayed response", "confidence"]
    assert env.timing["fixation"] == 100
    assert env.timing["decision"] == 100
    assert set(env.timing) == {"fixation", "stimulus", "delay", "pre_sure", "decision"}


def test_spaces_grow_with_dim_ring():
    # Upstream hard-coded 4 dims / 4 actions and the sure action 3 for every dim_ring.
    env = PostDecisionWager(dim_ring=3)
    assert env.observation_space.name == {"fixation": 0, "stimulus": (1, 2, 3), "sure": 4}
    assert env.action_space.name == {"fixation": 0, "choice": (1, 2, 3), "sure": 4}
    assert env.sure_action == 4


def test_trial_dict_keys_and_marginals():
    batch = fresh(1).new_trials(6000)
    assert set(batch.trial) == {"wager", "ground_truth", "coh"}
    assert batch.trial["wager"].dtype == bool
    assert abs(batch.trial["wager"].mean() - 0.5) < 0.03
    assert abs(batch.trial["ground_truth"].mean() - 0.5) < 0.03
    cohs, counts = np.unique(batch.trial["coh"], return_counts=True)
    np.testing.assert_allclose(cohs, [0, 3.2, 6.4, 12.8, 25.6, 51.2])
    assert np.all(np.abs(counts / 6000 - 1 / 6) < 0.025)


# ---------------------------------------------------------------------------------- structure


@pytest.mark.parametrize("dt", [100, 50])
def test_period_boundaries_in_steps(dt):
    env = fresh(dt=dt, timing=CONSTANT_TIMING)
    batch = env.new_trials(2, wager=np.array([True, False]))
    k = 100 // dt  # steps per 100 ms
    expected = {
        "fixation": (0, 1),
        "stimulus": (1, 4),
        "delay": (4, 17),
        "decision": (17, 18),
    }
    for name, (start, end) in expected.items():
        np.testing.assert_array_equal(batch.periods[name][0], [k * start] * 2)
        np.testing.assert_array_equal(batch.periods[name][1], [k * end] * 2)
    # pre_sure overlaps the start of the delay on wager trials and is empty otherwise.
    np.testing.assert_array_equal(batch.periods["pre_sure"][0], [4 * k, 4 * k])
    np.testing.assert_array_equal(batch.periods["pre_sure"][1], [10 * k, 4 * k])
    np.testing.assert_array_equal(batch.lengths, [18 * k, 18 * k])


def test_random_period_durations_are_floored_samples():
    env = fresh(2, dt=100)
    batch = env.new_trials(3000)
    stim = np.diff(np.stack(batch.periods["stimulus"]), axis=0)[0]
    delay = np.diff(np.stack(batch.periods["delay"]), axis=0)[0]
    pre_sure = np.diff(np.stack(batch.periods["pre_sure"]), axis=0)[0]
    assert set(stim.tolist()) <= set(range(1, 10))
    assert set(delay.tolist()) <= {12, 13, 14, 15, 16, 17, 18}
    wager = batch.trial["wager"]
    assert set(pre_sure[wager].tolist()) == {5, 6, 7}  # floor(U(500, 750) / 100)
    assert np.all(pre_sure[~wager] == 0)
    # U(500, 750) floored: P(5) = P(6) = 0.4, P(7) = 0.2.
    assert abs(np.mean(pre_sure[wager] == 7) - 0.2) < 0.03


@pytest.mark.parametrize("wager", [True, False])
def test_observations_and_gt_per_period(wager):
    env = fresh(3, sigma=0.0, timing=CONSTANT_TIMING)
    trial = env.new_trial(wager=wager, ground_truth=1, coh=25.6)
    assert trial["wager"] == wager
    # 18 steps: fixation [0, 1), stimulus [1, 4), delay [4, 17) with pre_sure [4, 10) on
    # wager trials, decision [17, 18).
    expected = np.zeros((18, 4), dtype=np.float32)
    expected[0:17, 0] = 1  # fixation channel: fixation, stimulus and delay
    # ring: cos(theta - pi) * coh / 200 + 0.5 (ground_truth 1 is theta = pi)
    expected[1:4, 1:3] = [0.5 - 0.128, 0.5 + 0.128]
    if wager:
        expected[10:18, 3] = 1  # sure target: delay after pre_sure, and decision
    np.testing.assert_allclose(env.ob, expected, rtol=1e-6, atol=1e-7)
    # ground truth: the choice action (1 + ground_truth) in decision, 0 elsewhere
    np.testing.assert_array_equal(env.gt, [0] * 17 + [2])


def test_noise_on_all_channels_during_stimulus_only():
    env = fresh(4, timing={"stimulus": 500})
    batch = env.new_trials(2000, coh=0.0)
    stim = slice(1, 6)
    ob = batch.ob[:, stim]
    expected_std = 1 / math.sqrt(100)
    for dim, centre in ((0, 1.0), (1, 0.5), (2, 0.5), (3, 0.0)):
        assert abs((ob[..., dim] - centre).std() - expected_std) < 0.005
        assert abs((ob[..., dim] - centre).mean()) < 0.003
    delay = batch.ob[:, 6:10]
    assert np.all(delay[..., 1:3] == 0)
    assert np.all(delay[..., 0] == 1)


def test_stimulus_encodes_ground_truth_more_so_at_higher_coherence():
    env = fresh(5)
    batch = env.new_trials(6000)
    gt, coh = batch.trial["ground_truth"], batch.trial["coh"]
    start, end = batch.periods["stimulus"]
    steps = np.arange(batch.ob.shape[1])
    inside = (steps >= start[:, None]) & (steps < end[:, None])
    first, second = batch.ob[..., 1], batch.ob[..., 2]
    correct = np.where(gt[:, None] == 0, first, second)
    other = np.where(gt[:, None] == 0, second, first)
    diff = ((correct - other) * inside).sum(1) / inside.sum(1)
    means = [diff[coh == c].mean() for c in (0, 3.2, 6.4, 12.8, 25.6, 51.2)]
    # cos(0) - cos(pi) = 2, so the expected difference is coh / 100.
    np.testing.assert_allclose(means, [0, 0.032, 0.064, 0.128, 0.256, 0.512], atol=0.015)
    assert all(b > a for a, b in itertools.pairwise(means[1:]))


# ---------------------------------------------------------------------------------- rewards


@pytest.mark.parametrize("ground_truth", [0, 1])
def test_answering_gt_is_correct_and_ends_trial(ground_truth):
    # FIXED BUG: upstream compared the action with the 0-based ground_truth, so with
    # ground_truth=0 the gt action 1 was paid `fail`, and with ground_truth=1 action 1 (not
    # the gt action 2) was paid `correct`.
    env = fresh(6)
    env.new_trial(ground_truth=ground_truth, wager=False)
    first_decision_step = env.start_ind["decision"]
    rewards, info, steps = run_trial(env, respond(lambda e: e.gt_now))
    assert steps == first_decision_step + 1
    assert rewards[-1] == 1.0
    assert sum(rewards) == 1.0
    assert info["performance"] == 1
    assert info["gt"] == ground_truth + 1
    assert info["trial"]["ground_truth"] == ground_truth


@pytest.mark.parametrize("ground_truth", [0, 1])
def test_upstream_action_is_no_longer_rewarded(ground_truth):
    # Upstream paid `correct` for action == ground_truth (0/1); that action is now a fail
    # (ground_truth=1) or no response at all (ground_truth=0: action 0 just fixates).
    env = fresh(7)
    env.new_trial(ground_truth=ground_truth, wager=False)
    rewards, info, _ = run_trial(env, respond(lambda e: ground_truth))
    assert sum(rewards) == 0.0
    assert info["performance"] == 0


def test_other_choice_fails_and_ends_trial():
    env = fresh(8, rewards={"fail": -0.5})
    env.new_trial(ground_truth=0, wager=True)
    first_decision_step = env.start_ind["decision"]
    rewards, info, steps = run_trial(env, respond(lambda e: 2))
    assert rewards[-1] == -0.5
    assert sum(rewards) == -0.5
    assert info["performance"] == 0
    assert steps == first_decision_step + 1  # ended by the response, not by the timeout


def test_sure_option_on_wager_and_non_wager_trials():
    env = fresh(9)
    env.new_trial(wager=True)
    rewards, info, _ = run_trial(env, respond(lambda e: 3))
    assert rewards[-1] == pytest.approx(0.7)
    assert info["performance"] == pytest.approx(0.7)
    env.new_trial(wager=False)
    rewards, info, _ = run_trial(env, respond(lambda e: 3))
    assert rewards[-1] == pytest.approx(-0.1)
    assert info["performance"] == 0


def test_sure_reward_override_is_honoured():
    # Upstream overwrote rewards["sure"] with 0.7 * correct whatever the user passed.
    env = fresh(10, rewards={"sure": 0.4, "fail": -1.0})
    env.new_trial(wager=True)
    rewards, info, _ = run_trial(env, respond(lambda e: 3))
    assert rewards[-1] == pytest.approx(0.4)
    assert info["performance"] == pytest.approx((0.4 + 1.0) / 2.0)
    assert PostDecisionWager(rewards={"correct": 2.0}).rewards["sure"] == pytest.approx(1.4)


def test_breaking_fixation_aborts_only_when_abort_is_set():
    env = fresh(11, timing=CONSTANT_TIMING)
    rewards, info, steps = run_trial(env, lambda e: 1 if in_period(e, "fixation") else 0)
    assert rewards[0] == pytest.approx(-0.1)
    assert steps == 18  # the trial went on to its timeout
    env.abort = True
    rewards, info, steps = run_trial(env, lambda e: 1)
    assert rewards == [pytest.approx(-0.1)]
    assert steps == 1
    assert info["performance"] == 0


def test_responses_during_stimulus_and_delay_are_ignored_and_a_miss_pays_nothing():
    env = fresh(12, timing=CONSTANT_TIMING)
    policy = lambda e: 1 if (in_period(e, "stimulus") or in_period(e, "delay")) else 0  # noqa: E731
    rewards, info, steps = run_trial(env, policy)
    assert rewards == [0.0] * 18
    assert steps == 18
    assert info["performance"] == 0


# ---------------------------------------------------------------------------------- timing


@pytest.mark.parametrize("dt", [100, 20])
def test_trial_length_distribution(dt):
    env = fresh(13, dt=dt)
    pmf = convolve(
        const_steps(100, dt),
        trunc_exp_steps(180, 100, 900, dt),
        trunc_exp_steps(1350, 1200, 1800, dt),
        const_steps(100, dt),
    )
    assert_lengths_follow(env.new_trials(5000).lengths, pmf)
    stats = env.trial_length_stats(10000)
    mean, std, p95 = pmf_stats(pmf)
    assert abs(stats["mean"] - mean) < 4 * std / 100
    assert abs(stats["std"] - std) < 0.1 * std
    assert abs(stats["percentile_95"] - p95) <= 1
    assert stats["max"] <= max(pmf)


# ---------------------------------------------------------------------------------- kwargs, seeds


def test_forced_kwargs_single_and_batch():
    env = fresh(14)
    env.new_trial(ground_truth=1)
    assert env.gt[env.start_ind["decision"]] == 2
    batch = env.new_trials(
        4,
        ground_truth=np.array([0, 1, 1, 0]),
        coh=np.array([0.0, 51.2, 3.2, 6.4]),
        wager=np.array([True, True, False, False]),
    )
    np.testing.assert_array_equal(batch.trial["ground_truth"], [0, 1, 1, 0])
    np.testing.assert_array_equal(batch.trial["coh"], [0.0, 51.2, 3.2, 6.4])
    np.testing.assert_array_equal(batch.trial["wager"], [True, True, False, False])
    decision = batch.periods["decision"][0]
    np.testing.assert_array_equal(batch.gt[np.arange(4), decision], [1, 2, 2, 1])
    sure_on = batch.ob[np.arange(4), decision, 3]
    np.testing.assert_array_equal(sure_on, [1, 1, 0, 0])


def test_same_seed_same_trials():
    a, b = fresh(15), fresh(15)
    np.testing.assert_array_equal(a.ob, b.ob)
    np.testing.assert_array_equal(a.gt, b.gt)
    batch_a, batch_b = a.new_trials(50), b.new_trials(50)
    np.testing.assert_array_equal(batch_a.ob, batch_b.ob)
    c = fresh(16)
    assert not np.array_equal(c.new_trials(50).ob, batch_a.ob)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dim_ring": 1}, "dim_ring must be an int in [2, 4096], got 1"),
        ({"dim_ring": 2.0}, "dim_ring must be an int in [2, 4096], got 2.0"),
        ({"sigma": -1.0}, "sigma must be a finite number >= 0, got -1.0"),
        ({"rewards": {"fail": 1.0}}, "rewards['correct'] and rewards['fail'] must differ"),
        ({"timing": {"delay": -5}}, "timing['delay']"),
    ],
)
def test_bad_constructor_args(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=re.escape(message)):
        PostDecisionWager(**kwargs)


def test_forced_ground_truth_out_of_range():
    env = fresh(17)
    with pytest.raises(ValueError, match=r"forced ground_truth=2 is not one of its values \[0,"):
        env.new_trial(ground_truth=2)


def test_pre_sure_is_an_empty_period_of_non_wager_trials():
    # Listed under "Differences from NeuroGym 2.3.1": upstream had no pre_sure period at all.
    env = fresh(3)
    for _ in range(40):
        trial = env.new_trial()
        assert "pre_sure" in env.start_t
        empty = env.start_t["pre_sure"] == env.end_t["pre_sure"]
        assert empty == (not trial["wager"])
