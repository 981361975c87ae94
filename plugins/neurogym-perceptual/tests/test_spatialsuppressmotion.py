"""Tests of SpatialSuppressMotion: stimulus layout, human-data gt, zero rewards, fixes."""

from __future__ import annotations

import numpy as np
import pytest

from neurogym.testing import check_task
from neurogym_perceptual.tasks.spatialsuppressmotion import SpatialSuppressMotion

# Tadin et al. 2003 data as upstream lists them: 1-based frame numbers, P(true), P(opposite).
FRAMES_1BASED = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 15, 18, 21, 28, 36, 37, 38, 39]
PAD = [0.249] * 7
HIGH = (
    [*PAD, 0.249, 0.249, 0.249, 0.27, 0.32, 0.4583, 0.65, 0.85, 0.99, 0.99, 0.99, 0.99],
    [*PAD, 0.249, 0.29, 0.31, 0.4, 0.475, 0.4167, 0.3083, 0.075, 0.04, 0.04, 0.03, 0.03],
)
LOW = (
    [*PAD, 0.25, 0.26, 0.2583, 0.325, 0.45, 0.575, 0.875, 0.933, 0.99, 0.99, 0.99, 0.99],
    [*PAD, 0.25, 0.26, 0.2583, 0.267, 0.1417, 0.1167, 0.058, 0.016, 0.003, 0.003, 0.003, 0.003],
)


def reference_curves(frames, data):
    """Upstream's piecewise-linear curves at (0-based, possibly fractional) frame indices."""
    x = np.asarray(FRAMES_1BASED) - 1
    return np.interp(frames, x, data[0]), np.interp(frames, x, data[1])


def reference_gt(frames, direction, data):
    """A (T, 4) gt, clipping the orthogonal share at 0 and rescaling as the task documents."""
    correct, opposite = reference_curves(frames, data)
    total = np.maximum(correct + opposite, 1)
    orthogonal = np.maximum(1 - correct - opposite, 0) / 2
    correct, opposite = correct / total, opposite / total
    gt = np.repeat(orthogonal[:, None], 4, axis=1)
    anti = {1: 2, 2: 1, 3: 4, 4: 3}[direction]
    gt[:, direction - 1] = correct
    gt[:, anti - 1] = opposite
    return gt


@pytest.mark.parametrize("dt", [8.3, 16.6])
def test_check_task(dt):
    check_task(SpatialSuppressMotion(dt=dt))


def test_spaces_and_metadata():
    env = SpatialSuppressMotion()
    obs, act = env.observation_space, env.action_space
    assert obs.shape == (32,)
    assert obs.dtype == np.float32
    assert (float(obs.low.min()), float(obs.high.min())) == (0.0, np.inf)
    assert obs.name == {
        "left": tuple(range(8)),
        "right": tuple(range(8, 16)),
        "up": tuple(range(16, 24)),
        "down": tuple(range(24, 32)),
    }
    assert act.shape == (4,)
    assert act.dtype == np.float32
    assert (float(act.low.min()), float(act.high.max())) == (0.0, 1.0)
    assert act.name == {"left": 0, "right": 1, "up": 2, "down": 3}
    assert env.timing == {"stimulus": 300}
    assert env.rewards == {"abort": -0.1, "correct": 1.0, "fail": 0.0}
    assert SpatialSuppressMotion().metadata["tags"] == [
        "perceptual",
        "plaid",
        "motion",
        "center-surround",
    ]


@pytest.mark.parametrize(("dt", "steps"), [(8.3, 36), (16.6, 18), (10, 30)])
def test_trial_structure(dt, steps):
    env = SpatialSuppressMotion(dt=dt)
    env.reset(seed=0)
    assert env.ob.shape == (steps, 32)
    assert env.gt.shape == (steps, 4)
    assert (env.start_ind["stimulus"], env.end_ind["stimulus"]) == (0, steps)
    assert list(env.start_t) == ["stimulus"]
    batch = env.new_trials(5000)
    assert np.all(batch.lengths == steps)
    assert batch.mask.all()
    stats = env.trial_length_stats(1000)
    assert stats == {"mean": steps, "std": 0.0, "percentile_95": steps, "max": steps}


def test_variable_stimulus_lengths():
    env = SpatialSuppressMotion(dt=10, timing={"stimulus": ("choice", [200, 300, 400])})
    env.reset(seed=1)
    lengths = env.new_trials(5000).lengths
    assert set(np.unique(lengths)) == {20, 30, 40}
    for n in (20, 30, 40):
        assert np.mean(lengths == n) == pytest.approx(1 / 3, abs=0.03)
    assert env.trial_length_stats(5000)["mean"] == pytest.approx(30, abs=0.4)


@pytest.mark.parametrize(
    ("direction", "contrast", "diameter", "pools"),
    [
        # pools in the order left, right, up, down
        (1, 0.05, 1, (0.05, 0.0, 0.025, 0.025)),
        (2, 0.99, 8, (0.0, 0.99, 0.495, 0.495)),
        (3, 0.99, 8, (0.495, 0.495, 0.99, 0.0)),
        (4, 0.05, 1, (0.025, 0.025, 0.0, 0.05)),
    ],
)
def test_stimulus_layout(direction, contrast, diameter, pools):
    env = SpatialSuppressMotion()
    env.reset(seed=2)
    trial = env.new_trial(direction=direction, contrast=contrast)
    assert trial["diameter"] == diameter
    expected = np.zeros((4, 8))
    expected[:, :diameter] = np.asarray(pools)[:, None]
    for row in env.ob:  # constant over the stimulus
        np.testing.assert_allclose(row.reshape(4, 8), expected, atol=1e-7)
    np.testing.assert_allclose(env.ob[0, 8 * (direction - 1)], contrast, rtol=1e-6)


@pytest.mark.parametrize("direction", [1, 2, 3, 4])
@pytest.mark.parametrize(("contrast", "data"), [(0.05, LOW), (0.99, HIGH)])
def test_gt_follows_the_data_at_the_default_dt(direction, contrast, data):
    env = SpatialSuppressMotion()
    env.reset(seed=3)
    trial = env.new_trial(direction=direction, contrast=contrast)
    expected = reference_gt(np.arange(36), direction, data)
    np.testing.assert_allclose(env.gt, expected, atol=1e-6)
    np.testing.assert_allclose(trial["ground_truth"], env.gt)
    np.testing.assert_allclose(env.gt.sum(axis=1), 1, atol=1e-6)
    # first frame: chance (0.249 for the true and the opposite direction)
    np.testing.assert_allclose(env.gt[0, direction - 1], 0.249, atol=1e-6)
    # before frame 33 nothing is clipped: exactly upstream's curves
    correct, opposite = reference_curves(np.arange(33), data)
    np.testing.assert_allclose(env.gt[:33, direction - 1], correct, atol=1e-6)
    np.testing.assert_allclose(env.gt[:33, (direction - 1) ^ 1], opposite, atol=1e-6)


def test_the_science_spatial_suppression():
    env = SpatialSuppressMotion()
    env.reset(seed=4)
    batch = env.new_trials(2000)
    direction = batch.trial["direction"] - 1
    contrast = batch.trial["contrast"]
    assert set(np.unique(direction)) == {0, 1, 2, 3}
    assert np.mean(contrast == 0.99) == pytest.approx(0.5, abs=0.04)
    pools = batch.ob[:, 0].reshape(-1, 4, 8).sum(axis=2)
    # the stimulus drives the true direction's pool most
    assert np.all(pools.argmax(axis=1) == direction)
    rows = np.arange(2000)
    p_true = batch.gt[rows, :, direction]  # (B, T)
    high = contrast == 0.99
    # by the last frame both conditions report the true direction almost always
    assert np.all(batch.gt[:, -1].argmax(axis=1) == direction)
    assert np.all(p_true[:, -1] > 0.95)
    # spatial suppression: at ~150 ms a large high-contrast stimulus is reported less often
    # correctly than a small low-contrast one, and is more often seen moving backwards
    assert p_true[high, 18].mean() < p_true[~high, 18].mean() - 0.1
    p_opposite = batch.gt[rows, :, direction ^ 1]
    assert p_opposite[high, 14].mean() > p_opposite[~high, 14].mean() + 0.2


def test_rewards_are_zero_and_trials_end_by_timeout():
    env = SpatialSuppressMotion()
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(3):
        gt = env.gt.copy()
        trial = env.trial
        for step in range(36):
            action = gt[step] if step % 2 else rng.random(4).astype(np.float32)
            _, reward, terminated, truncated, info = env.step(action)
            assert reward == 0
            assert not terminated
            assert not truncated
            np.testing.assert_array_equal(info["gt"], gt[step])
            assert info["gt"].dtype == np.float32
            assert info["new_trial"] == (step == 35)
        assert info["trial"] is trial
        assert info["performance"] == pytest.approx(1.0)  # the last frame (odd) reported gt


def test_performance_is_the_agreement_of_the_last_report_with_the_observers():
    from neurogym_perceptual.tasks.spatialsuppressmotion import report_agreement

    gt = np.array([0.7, 0.1, 0.1, 0.1])
    assert report_agreement(gt, gt) == pytest.approx(1.0)
    assert report_agreement([2.0, 0, 0, 0], gt) == pytest.approx(0.7)  # always the majority
    assert report_agreement([0, 0, 0, 0], gt) == pytest.approx(1 - 0.5 * (0.45 + 3 * 0.15))
    env = SpatialSuppressMotion()
    env.reset(seed=6)
    last = env.gt[-1].copy()
    for _ in range(36):
        _, _, _, _, info = env.step(np.array([1.0, 0, 0, 0], dtype=np.float32))
    assert info["performance"] == pytest.approx(report_agreement([1.0, 0, 0, 0], last))


def test_info_gt_is_a_copy():
    env = SpatialSuppressMotion()
    env.reset(seed=5)
    info = env.step(np.zeros(4, np.float32))[4]
    info["gt"][:] = 7
    assert env.gt[0].max() < 1


def test_forced_kwargs_single_and_batch():
    env = SpatialSuppressMotion()
    env.reset(seed=6)
    trial = env.new_trial(direction=4, contrast=0.99)
    assert (trial["direction"], trial["contrast"], trial["diameter"]) == (4, 0.99, 8)
    directions = np.array([1, 2, 3, 4, 1])
    contrasts = np.array([0.05, 0.99, 0.05, 0.99, 0.99])
    batch = env.new_trials(5, direction=directions, contrast=contrasts)
    np.testing.assert_array_equal(batch.trial["direction"], directions)
    np.testing.assert_array_equal(batch.trial["diameter"], [1, 8, 1, 8, 8])
    np.testing.assert_array_equal(batch.gt[:, -1].argmax(axis=1), directions - 1)
    driven = (batch.ob[:, 0].reshape(5, 4, 8) > 0).sum(axis=2).max(axis=1)
    np.testing.assert_array_equal(driven, [1, 8, 1, 8, 8])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"direction": 5}, r"forced direction=5 is not one of its values \[1, 2, 3, 4\]"),
        ({"direction": 1.5}, "forced direction=1.5 is not one of its values"),
        ({"contrast": 1.2}, r"contrast=1\.2 is invalid; expected a number in \[0\.0, 1\.0\]"),
        ({"diameter": 0}, r"forced diameter=0 is not one of its values \[1, 2, .*, 8\]"),
    ],
)
def test_invalid_forced_values(kwargs, message):
    env = SpatialSuppressMotion()
    env.reset(seed=6)
    with pytest.raises(ValueError, match=message):
        env.new_trial(**kwargs)


def test_determinism():
    a, b = SpatialSuppressMotion(), SpatialSuppressMotion()
    a.reset(seed=12)
    b.reset(seed=12)
    for _ in range(5):
        np.testing.assert_array_equal(a.ob, b.ob)
        np.testing.assert_array_equal(a.gt, b.gt)
        assert a.trial["direction"] == b.trial["direction"]
        assert a.trial["contrast"] == b.trial["contrast"]
        a.new_trial()
        b.new_trial()
    np.testing.assert_array_equal(a.new_trials(10).gt, b.new_trials(10).gt)


def test_fix_gt_is_a_probability_vector():
    # upstream: P(orthogonal) = (1 - 0.99 - 0.04) / 2 = -0.015 on the last high-contrast frame,
    # a gt outside the Box(0, 1) action space
    env = SpatialSuppressMotion(dt=5, timing={"stimulus": 400})
    env.reset(seed=7)
    batch = env.new_trials(200, contrast=0.99)
    assert batch.gt.min() >= 0
    assert batch.gt.max() <= 1
    np.testing.assert_allclose(batch.gt.sum(axis=2), 1, atol=1e-6)
    last = batch.gt[0, -1]
    assert sorted(last.tolist())[:2] == [0.0, 0.0]
    assert last.max() == pytest.approx(0.99 / 1.02, abs=1e-6)


def test_fix_gt_keeps_its_time_course_at_another_dt():
    # upstream interpolated in frame indices: at dt=16.6 its step 9 (149.4 ms) got the value
    # of frame 9 (74.7 ms), 0.2583 for a low-contrast stimulus; ours is the 149.4 ms value
    env = SpatialSuppressMotion(dt=16.6)
    env.reset(seed=8)
    env.new_trial(direction=1, contrast=0.05)
    correct, _ = reference_curves(np.arange(18) * 2.0, LOW)
    np.testing.assert_allclose(env.gt[:, 0], correct, atol=1e-6)
    assert env.gt[9, 0] == pytest.approx(0.675, abs=1e-4)


def test_fix_any_contrast_and_forced_diameter():
    # upstream: contrast 0.5 matched neither branch (NameError) and a forced diameter was
    # overwritten for the contrasts 0.05 and 0.99
    env = SpatialSuppressMotion()
    env.reset(seed=9)
    trial = env.new_trial(direction=2, contrast=0.5, diameter=4)
    assert trial["diameter"] == 4
    np.testing.assert_allclose(env.ob[0].reshape(4, 8)[1], [0.5] * 4 + [0] * 4, atol=1e-7)
    np.testing.assert_allclose(env.gt, reference_gt(np.arange(36), 2, HIGH), atol=1e-6)
    env.new_trial(direction=2, contrast=0.05, diameter=6)
    assert (env.ob[0].reshape(4, 8)[1] > 0).sum() == 6
