"""Detection: go/no-go structure, pulse onset, repaired no-go trials, noise, rewards, timing."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from functools import partial

import numpy as np
import pytest

import neurogym as ngym
from neurogym.testing import check_task
from neurogym.testing.trials import (
    assert_lengths_follow,
    pmf_stats,
    seeded,
    step_trial,
    trunc_exp_steps,
)
from neurogym_perceptual.tasks.detection import Detection

fresh = partial(seeded, Detection)

# ---------------------------------------------------------------------------------- helpers


def go_at(step: int) -> Callable[[Detection], int]:
    """Goes at step ``step`` of the trial (and fixates before)."""
    return lambda env: int(env.t_ind >= step)


CONSTANT_TIMING = {"stimulus": 1000}

# ---------------------------------------------------------------------------------- contract


@pytest.mark.parametrize("kwargs", [{}, {"dt": 20}, {"delay": 200, "stim_dur": 300}])
def test_check_task(kwargs):
    check_task(Detection(**kwargs))


def test_spaces_and_metadata_match_upstream():
    env = Detection()
    assert env.observation_space.shape == (2,)
    assert env.observation_space.dtype == np.float32
    assert env.observation_space.name == {"fixation": 0, "stimulus": 1}
    assert env.action_space.n == 2
    assert env.action_space.name == {"fixation": 0, "go": 1}
    assert env.rewards == {"abort": -0.1, "correct": 1.0, "fail": -1.0, "miss": -1.0}
    assert env.timing == {"fixation": 500, "stimulus": ngym.TruncExp(1000, 500, 1500)}
    assert env.stim_dur == 1
    assert env.extra_step == 1
    tags = ["perceptual", "reaction time", "go-no-go", "supervised"]
    assert Detection().metadata["tags"] == tags
    assert Detection().metadata["paper_name"]
    assert Detection().metadata["paper_link"]


def test_trial_variables():
    batch = fresh(1).new_trials(4000)
    assert set(batch.trial) == {"ground_truth", "delay"}
    assert abs(batch.trial["ground_truth"].mean() - 0.5) < 0.03
    assert np.all(batch.trial["delay"][batch.trial["ground_truth"] == 0] == 0)


# ---------------------------------------------------------------------------------- structure


@pytest.mark.parametrize("dt", [100, 50])
def test_period_boundaries_in_steps(dt):
    batch = fresh(2, dt=dt, timing=CONSTANT_TIMING).new_trials(4)
    k = 100 // dt
    assert list(batch.periods) == ["fixation", "stimulus"]
    np.testing.assert_array_equal(batch.periods["fixation"][0], [0] * 4)
    np.testing.assert_array_equal(batch.periods["fixation"][1], [5 * k] * 4)
    np.testing.assert_array_equal(batch.periods["stimulus"][0], [5 * k] * 4)
    np.testing.assert_array_equal(batch.periods["stimulus"][1], [15 * k] * 4)
    np.testing.assert_array_equal(batch.lengths, [15 * k] * 4)


@pytest.mark.parametrize(("stim_dur", "pulse_steps"), [(100, 1), (300, 3)])
def test_go_trial_observations_and_gt(stim_dur, pulse_steps):
    env = fresh(3, sigma=0.0, stim_dur=stim_dur, timing=CONSTANT_TIMING)
    trial = env.new_trial(ground_truth=1, delay=300.0)
    assert trial["delay"] == 300
    expected = np.zeros((15, 2), dtype=np.float32)
    expected[:5, 0] = 1  # fixation channel during fixation only
    expected[8 : 8 + pulse_steps, 1] = 0.5  # the pulse, 300 ms into the stimulus
    np.testing.assert_array_equal(env.ob, expected)
    np.testing.assert_array_equal(env.gt, [0] * 8 + [1] * 7)  # go from the onset on


def test_no_go_trial_has_a_ground_truth_of_zero():
    # REPAIRED: upstream set no ground truth on no-go trials, so step() raised
    # AttributeError (this is why upstream did not register the task).
    env = fresh(4, sigma=0.0, timing=CONSTANT_TIMING)
    env.new_trial(ground_truth=0)
    expected = np.zeros((15, 2), dtype=np.float32)
    expected[:5, 0] = 1
    np.testing.assert_array_equal(env.ob, expected)
    np.testing.assert_array_equal(env.gt, np.zeros(15))
    rewards, infos, steps = step_trial(env, lambda e: 0)
    assert steps == 15
    assert [info["gt"] for info in infos] == [0] * 15
    assert rewards == [0.0] * 15
    batch = env.new_trials(200)
    assert batch.mask[batch.valid].all()  # the supervised mask covers the whole trial
    nogo = batch.trial["ground_truth"] == 0
    assert not batch.gt[nogo].any()


def test_random_onset_is_uniform_and_leaves_time_to_respond():
    # 10 stimulus steps, a 1-step pulse and 1 extra step: onsets 0..7 (upstream's
    # randint(0, 10 - 1 - 1)), each with probability 1/8.
    batch = fresh(5, timing=CONSTANT_TIMING).new_trials(8000, ground_truth=1)
    onset = batch.trial["delay"] / 100
    counts = np.bincount(onset.astype(int), minlength=8)
    assert len(counts) == 8
    assert np.all(np.abs(counts / 8000 - 1 / 8) < 0.015)
    first_go = np.argmax(batch.gt == 1, axis=1)
    np.testing.assert_array_equal(first_go, 5 + onset)


def test_random_onset_without_extra_step():
    # At dt=20 the pulse lasts 5 steps: no extra step, onsets 0..(50 - 5 - 1).
    batch = fresh(6, dt=20, timing=CONSTANT_TIMING).new_trials(4000, ground_truth=1)
    onset = batch.trial["delay"] / 20
    assert onset.min() == 0
    assert onset.max() == 44
    assert abs(onset.mean() - 22) < 0.6


def test_random_onset_depends_on_each_trials_stimulus_length():
    batch = fresh(7).new_trials(4000, ground_truth=1)
    start, end = batch.periods["stimulus"]
    onset = (batch.trial["delay"] / 100).astype(int)
    assert np.all(onset <= end - start - 3)
    assert np.any(onset == end - start - 3)


def test_delay_argument_is_in_ms():
    # FIXED BUG: upstream used `delay` as a step index, so delay=300 put the pulse 300 steps
    # into the stimulus (outside the trial: never shown) instead of 300 ms.
    for dt, onset_step in ((100, 3), (20, 15)):
        env = fresh(8, dt=dt, sigma=0.0, delay=300, timing=CONSTANT_TIMING)
        env.new_trial(ground_truth=1)
        stimulus = env.ob[env.start_ind["stimulus"] :, 1]
        assert np.argmax(stimulus > 0) == onset_step
        assert env.trial["delay"] == 300


def test_fixed_delay_too_late_is_moved_back_into_the_stimulus():
    env = fresh(9, sigma=0.0, delay=5000, timing=CONSTANT_TIMING)
    env.new_trial(ground_truth=1)
    assert env.trial["delay"] == 800  # last onset leaving one step after the pulse
    assert env.ob[5 + 8, 1] == 0.5
    assert env.gt[-2:].tolist() == [1, 1]


# ---------------------------------------------------------------------------------- noise


def test_same_input_noise_on_go_and_no_go_trials():
    # FIXED BUG: upstream added a second, independent noise draw on no-go trials, so their
    # input variance was twice that of go trials (std ratio sqrt(2)) and gave the answer away.
    batch = fresh(10, timing=CONSTANT_TIMING).new_trials(4000)
    stim = batch.ob[:, 5:15, 1].astype(float)
    go = batch.trial["ground_truth"] == 1
    pulse = np.zeros_like(stim, dtype=bool)
    rows = np.flatnonzero(go)
    pulse[rows, (batch.trial["delay"][go] / 100).astype(int)] = True
    noise = stim - 0.5 * pulse
    expected_std = 1 / math.sqrt(100)
    std_go, std_nogo = noise[go].std(), noise[~go].std()
    assert abs(std_go - expected_std) < 0.003
    assert abs(std_nogo - expected_std) < 0.003
    assert abs(noise[go].mean()) < 0.002
    assert abs(noise[~go].mean()) < 0.002
    assert np.all(batch.ob[:, :5, 1] == 0)  # no noise during fixation


def test_the_pulse_reveals_a_go_trial():
    batch = fresh(11, timing=CONSTANT_TIMING).new_trials(3000, ground_truth=1)
    onset = 5 + (batch.trial["delay"] / 100).astype(int)
    at_pulse = batch.ob[np.arange(3000), onset, 1]
    before = batch.ob[:, 5, 1][onset > 5]
    assert abs(at_pulse.mean() - 0.5) < 0.01
    assert abs(before.mean()) < 0.01


# ---------------------------------------------------------------------------------- rewards


def test_going_at_or_after_the_pulse_is_correct():
    for go_step in (8, 12):
        env = fresh(12, timing=CONSTANT_TIMING)
        env.new_trial(ground_truth=1, delay=300.0)
        rewards, infos, steps = step_trial(env, go_at(go_step))
        assert steps == go_step + 1
        assert rewards == [0.0] * go_step + [1.0]
        assert infos[-1]["performance"] == 1
        assert infos[-1]["gt"] == 1


def test_going_before_the_pulse_fails():
    env = fresh(13, timing=CONSTANT_TIMING)
    env.new_trial(ground_truth=1, delay=300.0)
    rewards, infos, steps = step_trial(env, go_at(7))
    assert steps == 8
    assert rewards[-1] == -1.0
    assert infos[-1]["performance"] == 0


def test_going_on_a_no_go_trial_fails():
    env = fresh(14, timing=CONSTANT_TIMING)
    env.new_trial(ground_truth=0)
    rewards, infos, steps = step_trial(env, go_at(9))
    assert steps == 10
    assert rewards[-1] == -1.0
    assert infos[-1]["performance"] == 0


def test_a_missed_go_trial_pays_miss():
    env = fresh(15, timing=CONSTANT_TIMING, rewards={"miss": -0.5})
    env.new_trial(ground_truth=1)
    rewards, infos, steps = step_trial(env, lambda e: 0)
    assert steps == 15
    assert rewards == [0.0] * 14 + [-0.5]
    assert infos[-1]["performance"] == 0


def test_withheld_no_go_trials_score_performance_one_every_time():
    # FIXED BUG: upstream set performance = 1 when generating a no-go trial, and step() then
    # reset it to 0, so only the first trial after reset() scored 1.
    env = fresh(16, timing=CONSTANT_TIMING)
    for _ in range(3):
        env.new_trial(ground_truth=0)
        rewards, infos, _ = step_trial(env, lambda e: 0)
        assert sum(rewards) == 0.0
        assert infos[-1]["performance"] == 1
        assert infos[-1]["trial"]["ground_truth"] == 0


def test_breaking_fixation_aborts_only_when_abort_is_set():
    env = fresh(17, timing=CONSTANT_TIMING)
    env.new_trial(ground_truth=0)
    rewards, infos, steps = step_trial(env, lambda e: int(e.t_ind < 2))
    assert rewards[:2] == [pytest.approx(-0.1)] * 2
    assert steps == 15
    assert infos[-1]["performance"] == 1  # the no-go trial itself was withheld
    env.abort = True
    env.new_trial(ground_truth=0)
    rewards, infos, steps = step_trial(env, lambda e: 1)
    assert steps == 1
    assert rewards == [pytest.approx(-0.1)]
    assert infos[-1]["performance"] == 0


# ---------------------------------------------------------------------------------- timing


@pytest.mark.parametrize("dt", [100, 20])
def test_trial_length_distribution(dt):
    env = fresh(18, dt=dt)
    pmf = {k + 500 // dt: p for k, p in trunc_exp_steps(1000, 500, 1500, dt).items()}
    assert_lengths_follow(env.new_trials(5000).lengths, pmf)
    stats = env.trial_length_stats(10000)
    mean, std, p95 = pmf_stats(pmf)
    assert abs(stats["mean"] - mean) < 4 * std / 100
    assert abs(stats["std"] - std) < 0.1 * std
    assert abs(stats["percentile_95"] - p95) <= 1
    assert stats["max"] <= max(pmf)


# ---------------------------------------------------------------------------------- kwargs, seeds


def test_forced_kwargs_single_and_batch():
    env = fresh(19, timing=CONSTANT_TIMING)
    for gt in (0, 1):
        assert env.new_trial(ground_truth=gt)["ground_truth"] == gt
        assert env.gt.max() == gt
    batch = env.new_trials(
        3, ground_truth=np.array([1, 0, 1]), delay=np.array([0.0, 400.0, 700.0])
    )
    np.testing.assert_array_equal(batch.trial["delay"], [0, 0, 700])
    np.testing.assert_array_equal(np.argmax(batch.gt == 1, axis=1), [5, 0, 12])


def test_same_seed_same_trials():
    a, b = fresh(20), fresh(20)
    np.testing.assert_array_equal(a.ob, b.ob)
    batch_a, batch_b = a.new_trials(30), b.new_trials(30)
    np.testing.assert_array_equal(batch_a.ob, batch_b.ob)
    np.testing.assert_array_equal(batch_a.trial["delay"], batch_b.trial["delay"])
    other = fresh(21)
    other.new_trials(30)
    assert not np.array_equal(other.new_trials(30).trial["delay"], a.new_trials(30).trial["delay"])


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"stim_dur": 50}, ValueError, "stim_dur must be a finite number >= 100, got 50"),
        ({"dt": 200}, ValueError, "stim_dur must be a finite number >= 200, got 100"),
        ({"sigma": -0.1}, ValueError, "sigma must be a finite number >= 0, got -0.1"),
        ({"delay": -100}, ValueError, "delay must be a finite number >= 0, got -100"),
        ({"delay": "300"}, TypeError, "delay must be a finite number >= 0, got '300'"),
    ],
)
def test_bad_constructor_args(kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        Detection(**kwargs)


def test_bad_forced_values():
    env = fresh(22)
    with pytest.raises(
        ValueError, match=r"forced ground_truth=2 is not one of its values \[0, 1\]"
    ):
        env.new_trial(ground_truth=2)
    for bad in (-1.0, "x", True, [0.0, -100.0]):
        with pytest.raises(ValueError, match=re.escape("forced delay must be >= 0 ms (a number")):
            env.new_trials(2, ground_truth=1, delay=bad)
    with pytest.raises(ValueError, match=re.escape("forced delay must have shape () (one")):
        env.new_trial(ground_truth=1, delay=[100.0, 200.0])
