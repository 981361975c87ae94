"""Tests of ToneDetection: structure, tone placement, rewards, forced conditions, the dt fix."""

from __future__ import annotations

import numpy as np
import pytest

from neurogym.testing import check_task
from neurogym_perceptual.tasks.tonedetection import ToneDetection


@pytest.mark.parametrize("dt", [50, 20, 3.2])
def test_check_task(dt):
    check_task(ToneDetection(dt=dt))


def test_spaces_and_metadata():
    env = ToneDetection()
    assert env.observation_space.shape == (1,)
    assert env.observation_space.dtype == np.float32
    assert env.observation_space.name == {"stimulus": 0}
    assert env.action_space.n == 4
    assert env.action_space.name == {"no_tone": 0, "tone": (1, 2, 3)}
    assert env.rewards == {"abort": -0.1, "correct": 1.0, "noresp": -0.1}
    assert env.timing == {"stimulus": 2000, "toneTiming": [500, 1000, 1500], "toneDur": 50}
    assert ToneDetection().metadata["tags"] == ["auditory", "perceptual", "supervised", "decision"]
    assert env.sigma == pytest.approx(0.2 / np.sqrt(50))


@pytest.mark.parametrize(
    ("dt", "steps", "onsets", "tone_steps"),
    [
        (50, 40, (10, 20, 30), 1),
        (20, 100, (25, 50, 75), 2),  # 50 / 20 = 2.5 -> 2 steps
        (10, 200, (50, 100, 150), 5),
    ],
)
def test_tone_position_and_gt_per_condition(dt, steps, onsets, tone_steps):
    env = ToneDetection(dt=dt, sigma=0.0)
    env.reset(seed=0)
    for condition in range(4):
        env.new_trial(ground_truth=condition)
        assert env.ob.shape == (steps, 1)
        assert (env.start_ind["stimulus"], env.end_ind["stimulus"]) == (0, steps)
        expected = np.zeros(steps, dtype=np.float32)
        if condition:
            first = onsets[condition - 1]
            expected[first : first + tone_steps] = 1
        np.testing.assert_array_equal(env.ob[:, 0], expected)
        np.testing.assert_array_equal(env.gt, np.full(steps, condition))


def test_noise_scales_with_sigma_over_sqrt_dt():
    env = ToneDetection(dt=10, sigma=0.5)
    env.reset(seed=1)
    batch = env.new_trials(500, ground_truth=0)
    std = batch.ob[..., 0].std()
    assert std == pytest.approx(0.5 / np.sqrt(10), rel=0.03)


def test_stimulus_encodes_the_condition():
    env = ToneDetection(dt=10)
    env.reset(seed=2)
    batch = env.new_trials(2000)
    conditions = batch.trial["ground_truth"]
    assert set(np.unique(conditions)) == {0, 1, 2, 3}
    counts = np.bincount(conditions, minlength=4) / 2000
    np.testing.assert_allclose(counts, 0.25, atol=0.04)
    ob = batch.ob[..., 0]
    for k, onset in enumerate((50, 100, 150), start=1):
        window = ob[:, onset : onset + 5].mean(axis=1)
        # the tone window is ~1 on condition-k trials and ~0 on every other trial
        assert window[conditions == k].mean() > 0.9
        assert abs(window[conditions != k].mean()) < 0.05
    # the gt of every step is the condition
    np.testing.assert_array_equal(batch.gt, np.repeat(conditions[:, None], 200, axis=1))
    assert batch.mask.all()


def test_rewards_are_always_zero_and_trials_end_by_timeout():
    env = ToneDetection()
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(3):
        condition = env.trial["ground_truth"]
        for step in range(40):
            action = condition if step % 2 else int(rng.integers(4))
            _, reward, terminated, truncated, info = env.step(action)
            assert reward == 0
            assert not terminated
            assert not truncated
            assert info["gt"] == condition
            assert info["new_trial"] == (step == 39)
        assert info["trial"]["ground_truth"] == condition
        assert info["performance"] == 1  # the last step (odd) reported the condition


def test_the_last_steps_action_is_the_report():
    # LastStepReport: performance 1 when the last action names the condition (upstream: 0)
    env = ToneDetection()
    env.reset(seed=5)
    for wrong in (False, True):
        condition = int(env.trial["ground_truth"])
        report = (condition + 1) % 4 if wrong else condition
        for step in range(40):
            _, reward, _, _, info = env.step(report if step == 39 else condition)
        assert reward == 0
        assert info["performance"] == (0 if wrong else 1)


@pytest.mark.parametrize(("dt", "steps"), [(50, 40), (30, 66), (3.2, 625)])
def test_trial_lengths(dt, steps):
    env = ToneDetection(dt=dt)
    env.reset(seed=4)
    assert np.all(env.new_trials(5000).lengths == steps)
    stats = env.trial_length_stats(2000)
    assert stats == {"mean": steps, "std": 0.0, "percentile_95": steps, "max": steps}


def test_variable_stimulus_duration():
    # upstream: int(timing["stimulus"] / dt) raised TypeError for a distribution
    env = ToneDetection(timing={"stimulus": ("uniform", (1600, 2400))})
    env.reset(seed=5)
    lengths = env.new_trials(5000).lengths
    assert lengths.min() == 32
    assert lengths.max() == 47
    assert lengths.mean() == pytest.approx(39.5, abs=0.2)
    stats = env.trial_length_stats(5000)
    assert stats["mean"] == pytest.approx(39.5, abs=0.2)
    assert stats["max"] == 47


def test_forced_conditions():
    env = ToneDetection()
    env.reset(seed=6)
    assert env.new_trial(ground_truth=2)["ground_truth"] == 2
    assert int(env.gt[0]) == 2
    trial = env.new_trial(condition=3)  # upstream's keyword
    assert trial["ground_truth"] == 3
    assert trial["condition"] == 3
    forced = np.array([0, 1, 2, 3, 3, 2])
    batch = env.new_trials(6, ground_truth=forced)
    np.testing.assert_array_equal(batch.trial["ground_truth"], forced)
    np.testing.assert_array_equal(batch.gt[:, 0], forced)


def test_bad_forced_condition_is_rejected():
    env = ToneDetection()
    env.reset(seed=6)
    with pytest.raises(
        ValueError,
        match=r"forced ground_truth=4 is not one of its values \[0, 1, 2, 3\]",
    ):
        env.new_trial(ground_truth=4)


def test_determinism():
    a, b = ToneDetection(), ToneDetection()
    a.reset(seed=11)
    b.reset(seed=11)
    for _ in range(5):
        np.testing.assert_array_equal(a.ob, b.ob)
        assert a.trial == b.trial
        a.new_trial()
        b.new_trial()
    np.testing.assert_array_equal(a.new_trials(8).ob, b.new_trials(8).ob)


@pytest.mark.parametrize("dt", [3.2, 1.6, 25, 45, 50])
def test_fix_any_dt_up_to_the_tone_duration(dt):
    # upstream sized the tone array with int(2000 / dt) and the trial with (2000 // dt) * dt,
    # so dt=3.2 or 1.6 raised a broadcast ValueError (625 vs 624 steps)
    env = ToneDetection(dt=dt, sigma=0.0)
    env.reset(seed=7)
    env.new_trial(ground_truth=3)
    steps = int(np.floor(2000 / dt + 1e-9))
    assert env.ob.shape == (steps, 1)
    tone = np.flatnonzero(env.ob[:, 0])
    assert tone[0] == int(np.floor(1500 / dt + 1e-9))
    assert len(tone) == int(np.floor(50 / dt + 1e-9)) >= 1


def test_dt_longer_than_the_tone_is_a_clear_error():
    with pytest.raises(ValueError, match=r"dt=100 ms is longer than the tone duration.*=50 ms"):
        ToneDetection(dt=100)
    env = ToneDetection(dt=100, timing={"toneDur": 100}, sigma=0.0)
    env.reset(seed=8)
    env.new_trial(ground_truth=1)
    assert np.flatnonzero(env.ob[:, 0]).tolist() == [5]


@pytest.mark.parametrize(
    ("timing", "message"),
    [
        ({"toneTiming": ("uniform", (0, 10))}, "expected a list of tone onsets"),
        ({"toneDur": 0}, "expected a tone duration in ms > 0"),
        ({"toneDur": [50, 100]}, "expected a tone duration in ms > 0"),
        ({"toneTiming": [500, 2500]}, "ends after the shortest stimulus"),
        ({"stimulus": ("uniform", (1000, 2000))}, "ends after the shortest stimulus"),
    ],
)
def test_invalid_tone_timing(timing, message):
    with pytest.raises(ValueError, match=message):
        ToneDetection(timing=timing)


def test_number_of_tone_positions_follows_tone_timing():
    env = ToneDetection(timing={"toneTiming": [200, 400]}, sigma=0.0)
    assert env.action_space.n == 3
    env.reset(seed=9)
    env.new_trial(ground_truth=2)
    assert np.flatnonzero(env.ob[:, 0]).tolist() == [8]
