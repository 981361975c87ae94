"""ProbabilisticReasoning: structure, accumulating display, stochastic gt, rewards, timing."""

from __future__ import annotations

import itertools
import math
import re
from functools import partial

import numpy as np
import pytest

from neurogym.testing import check_task
from neurogym.testing.trials import in_period, run_trial, seeded
from neurogym_perceptual.tasks.probabilisticreasoning import ProbabilisticReasoning

fresh = partial(seeded, ProbabilisticReasoning)

WEIGHTS = np.array([-10, -0.9, -0.7, -0.5, -0.3, 0.3, 0.5, 0.7, 0.9, 10])

# ---------------------------------------------------------------------------------- helpers


def uniform_steps(low: float, high: float, dt: float) -> dict[int, float]:
    """Exact pmf of floor(U / dt), U ~ U(low, high)."""
    pmf = {}
    for k in range(math.floor(low / dt), math.floor(high / dt) + 1):
        overlap = min((k + 1) * dt, high) - max(k * dt, low)
        if overlap > 0:
            pmf[k] = overlap / (high - low)
    return pmf


def shifted(pmf: dict[int, float], steps: int) -> dict[int, float]:
    return {k + steps: p for k, p in pmf.items()}


# ---------------------------------------------------------------------------------- contract


@pytest.mark.parametrize(
    "kwargs", [{}, {"dt": 50}, {"n_loc": 2, "shape_weight": [-1.0, 0.0, 1.0]}, {"n_loc": 6}]
)
def test_check_task(kwargs):
    check_task(ProbabilisticReasoning(**kwargs))


def test_spaces_and_metadata_match_upstream():
    env = ProbabilisticReasoning()
    assert env.observation_space.shape == (41,)
    assert env.observation_space.dtype == np.float32
    names = env.observation_space.name
    assert names["fixation"] == 0
    for i in range(4):
        assert names[f"loc{i}"] == tuple(range(1 + 10 * i, 11 + 10 * i))
    assert env.action_space.n == 3
    assert env.action_space.name == {"fixation": 0, "choice": (1, 2)}
    assert env.rewards == {"abort": -0.1, "correct": 1.0, "fail": 0.0}
    np.testing.assert_array_equal(env.shape_weight, WEIGHTS)
    assert ProbabilisticReasoning().metadata["tags"] == [
        "perceptual",
        "two-alternative",
        "supervised",
    ]


def test_trial_variables_distribution():
    batch = fresh(1).new_trials(5000)
    assert set(batch.trial) == {"locs", "shapes", "log_odd", "ground_truth"}
    locs, shapes = batch.trial["locs"], batch.trial["shapes"]
    assert locs.shape == shapes.shape == (5000, 4)
    np.testing.assert_array_equal(np.sort(locs, axis=1), np.tile(np.arange(4), (5000, 1)))
    # each location is equally likely at each draw position
    for position in range(4):
        counts = np.bincount(locs[:, position], minlength=4) / 5000
        assert np.all(np.abs(counts - 0.25) < 0.025)
    counts = np.bincount(shapes.ravel(), minlength=10) / shapes.size
    assert np.all(np.abs(counts - 0.1) < 0.012)
    np.testing.assert_allclose(batch.trial["log_odd"], WEIGHTS[shapes].sum(axis=1))


# ---------------------------------------------------------------------------------- structure


@pytest.mark.parametrize("dt", [100, 50])
def test_period_boundaries_in_steps(dt):
    env = fresh(2, dt=dt, timing={"delay": 500})
    batch = env.new_trials(3)
    k = 500 // dt  # steps per 500 ms
    order = ["fixation", "stimulus0", "stimulus1", "stimulus2", "stimulus3", "delay", "decision"]
    assert list(batch.periods) == order
    for i, name in enumerate(order):
        np.testing.assert_array_equal(batch.periods[name][0], [i * k] * 3)
        np.testing.assert_array_equal(batch.periods[name][1], [(i + 1) * k] * 3)
    np.testing.assert_array_equal(batch.lengths, [7 * k] * 3)


def test_observations_and_gt_per_period():
    env = fresh(3)
    env.new_trial(locs=[2, 0, 3, 1], shapes=[0, 9, 4, 5], ground_truth=1)
    ob, gt = env.ob, env.gt
    n_delay = env.end_ind["delay"] - env.start_ind["delay"]
    length = 25 + n_delay + 5
    assert ob.shape == (length, 41)
    expected = np.zeros((length, 41), dtype=np.float32)
    expected[: length - 5, 0] = 1  # fixation channel: everything but the decision period
    # draw i shows shape shapes[i] at location locs[i] from stimulus{i} to stimulus3
    for i, (loc, shape) in enumerate([(2, 0), (0, 9), (3, 4), (1, 5)]):
        expected[5 + 5 * i : 25, 1 + 10 * loc + shape] = 1
    np.testing.assert_array_equal(ob, expected)
    np.testing.assert_array_equal(gt, [0] * (length - 5) + [2] * 5)


def test_final_display_encodes_the_log_odds():
    batch = fresh(4).new_trials(3000)
    last = batch.periods["stimulus3"][0]
    display = batch.ob[np.arange(3000), last, 1:].reshape(3000, 4, 10)
    assert np.all(display.sum(axis=2) == 1)  # one shape per location
    decoded = display.sum(axis=1) @ WEIGHTS
    np.testing.assert_allclose(decoded, batch.trial["log_odd"], atol=1e-5)
    # and each earlier stimulus period shows one shape fewer
    for j in range(4):
        start = batch.periods[f"stimulus{j}"][0]
        shown = batch.ob[np.arange(3000), start, 1:].sum(axis=1)
        np.testing.assert_array_equal(shown, j + 1)


def test_ground_truth_is_drawn_from_the_log_odds():
    env = fresh(5)
    log_odd, gt = [], []
    for _ in range(4):
        batch = env.new_trials(5000)
        log_odd.append(batch.trial["log_odd"])
        gt.append(batch.trial["ground_truth"])
        decision = batch.periods["decision"][0]
        np.testing.assert_array_equal(batch.gt[np.arange(5000), decision], gt[-1] + 1)
    log_odds, truth = np.concatenate(log_odd), np.concatenate(gt)
    p_second = 1 / (10.0 ** (-np.clip(log_odds, -30, 30)) + 1)
    edges = [0, 0.05, 0.3, 0.5, 0.7, 0.95, 1.0001]
    for low, high in itertools.pairwise(edges):
        inside = (p_second >= low) & (p_second < high)
        assert inside.sum() > 300
        expected = p_second[inside].mean()
        se = math.sqrt(expected * (1 - expected) / inside.sum()) + 1e-3
        assert abs(truth[inside].mean() - expected) < 4 * se
    # The gt is random given the stimuli: near-even evidence gives both answers.
    balanced = np.abs(log_odds) < 0.35
    assert 0.35 < truth[balanced].mean() < 0.65


def test_huge_weights_do_not_overflow():
    # 10 ** 400 overflows a float; the probability must still come out as 0 or 1, silently
    # (pytest turns numpy's overflow RuntimeWarning into an error).
    env = fresh(6, shape_weight=[-400.0, 400.0])
    batch = env.new_trials(2000)
    log_odd, truth = batch.trial["log_odd"], batch.trial["ground_truth"]
    decided = log_odd != 0
    np.testing.assert_array_equal(truth[decided], log_odd[decided] > 0)
    assert 0.4 < truth[~decided].mean() < 0.6  # two +400 and two -400 shapes: a coin flip


# ---------------------------------------------------------------------------------- rewards


def test_answering_gt_is_correct_and_ends_trial():
    env = fresh(7)
    env.new_trial(ground_truth=0)
    first_decision_step = env.start_ind["decision"]
    policy = lambda e: int(e.gt_now) if in_period(e, "decision") else 0  # noqa: E731
    rewards, info, steps = run_trial(env, policy)
    assert steps == first_decision_step + 1
    assert rewards == [0.0] * first_decision_step + [1.0]
    assert info["performance"] == 1
    assert info["gt"] == 1


def test_other_choice_fails_and_ends_trial():
    env = fresh(8, rewards={"fail": -0.3})
    env.new_trial(ground_truth=0)
    first_decision_step = env.start_ind["decision"]
    rewards, info, steps = run_trial(env, lambda e: 2 if in_period(e, "decision") else 0)
    assert steps == first_decision_step + 1
    assert rewards[-1] == pytest.approx(-0.3)
    assert info["performance"] == 0


@pytest.mark.parametrize("period", ["fixation", "stimulus1", "delay"])
def test_breaking_fixation_aborts_only_when_abort_is_set(period):
    env = fresh(9, timing={"delay": 500})
    rewards, info, steps = run_trial(env, lambda e: 1 if in_period(e, period) else 0)
    assert rewards.count(pytest.approx(-0.1)) == 5  # 500 ms of broken fixation
    assert steps == 35  # no abort: the trial times out
    assert info["performance"] == 0
    env.abort = True
    env.new_trial()
    first = env.start_ind[period]
    rewards, info, steps = run_trial(env, lambda e: 1 if in_period(e, period) else 0)
    assert steps == first + 1
    assert rewards[-1] == pytest.approx(-0.1)


@pytest.mark.parametrize("n_loc", [6, 40])
def test_every_stimulus_period_is_a_fixation_period(n_loc):
    env = fresh(10, n_loc=n_loc, timing={"delay": 500})
    assert env.rule.fixation_periods == (
        "fixation",
        *(f"stimulus{i}" for i in range(n_loc)),
        "delay",
    )
    assert env.rule.decision_periods == ("decision",)
    last = f"stimulus{n_loc - 1}"
    rewards, _, steps = run_trial(env, lambda e: 1 if in_period(e, last) else 0)
    assert rewards.count(pytest.approx(-0.1)) == 5
    assert steps == 5 * (1 + n_loc + 1 + 1)


def test_a_miss_pays_nothing():
    env = fresh(11, timing={"delay": 500})
    rewards, info, steps = run_trial(env, lambda e: 0)
    assert rewards == [0.0] * 35
    assert steps == 35
    assert info["performance"] == 0


# ---------------------------------------------------------------------------------- timing


@pytest.mark.parametrize("dt", [100, 50])
def test_trial_length_distribution(dt):
    env = fresh(12, dt=dt)
    fixed = (500 + 4 * 500 + 500) // dt
    pmf = shifted(uniform_steps(450, 550, dt), fixed)
    assert pmf == {fixed + 450 // dt: 0.5, fixed + 500 // dt: 0.5}
    lengths = env.new_trials(5000).lengths
    assert set(np.unique(lengths).tolist()) == set(pmf)
    assert abs(np.mean(lengths == min(pmf)) - 0.5) < 0.03
    stats = env.trial_length_stats(10000)
    assert abs(stats["mean"] - (min(pmf) + 0.5)) < 0.02
    assert abs(stats["std"] - 0.5) < 0.01
    assert stats["max"] == max(pmf)


# ---------------------------------------------------------------------------------- kwargs, seeds


def test_forced_ground_truth_is_honoured():
    # Upstream overwrote a forced ground_truth with its own draw: with four +10 shapes
    # (log odds 40) it always returned 1.
    env = fresh(13)
    trial = env.new_trial(shapes=[9, 9, 9, 9], ground_truth=0)
    assert trial["ground_truth"] == 0
    assert trial["log_odd"] == 40
    assert env.gt[env.start_ind["decision"]] == 1
    batch = env.new_trials(3, shapes=[9, 9, 9, 9], ground_truth=np.array([0, 1, 0]))
    np.testing.assert_array_equal(batch.trial["ground_truth"], [0, 1, 0])


def test_forced_locations_and_shapes_single_row_and_per_trial():
    env = fresh(14)
    locs = np.array([[0, 1, 2, 3], [3, 2, 1, 0]])
    shapes = np.array([[1, 2, 3, 4], [5, 6, 7, 8]])
    batch = env.new_trials(2, locs=locs, shapes=shapes)
    np.testing.assert_array_equal(batch.trial["locs"], locs)
    np.testing.assert_array_equal(batch.trial["shapes"], shapes)
    np.testing.assert_allclose(batch.trial["log_odd"], WEIGHTS[shapes].sum(axis=1))
    last = batch.periods["stimulus3"][0]
    shown = batch.ob[np.arange(2), last, 1:].reshape(2, 4, 10)
    assert shown[0, 0, 1] == shown[0, 3, 4] == shown[1, 3, 5] == shown[1, 0, 8] == 1
    same = env.new_trials(4, locs=[1, 0, 3, 2])  # one row for all trials, even when B == n_loc
    np.testing.assert_array_equal(same.trial["locs"], np.tile([1, 0, 3, 2], (4, 1)))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"locs": [0, 1, 2]}, "locs must have shape (4,) or (1, 4) for a batch of 1, got (3,)"),
        ({"shapes": [0, 1, 2, 10]}, "shapes must hold ints in 0..9, got [[0, 1, 2, 10]]"),
        ({"ground_truth": 2}, "ground_truth must hold ints in [0, 1], got"),
    ],
)
def test_bad_forced_values(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        fresh(15).new_trial(**kwargs)


def test_same_seed_same_trials():
    a, b = fresh(16), fresh(16)
    np.testing.assert_array_equal(a.ob, b.ob)
    assert a.trial["log_odd"] == b.trial["log_odd"]
    batch_a, batch_b = a.new_trials(40), b.new_trials(40)
    np.testing.assert_array_equal(batch_a.ob, batch_b.ob)
    np.testing.assert_array_equal(batch_a.trial["ground_truth"], batch_b.trial["ground_truth"])
    other = fresh(17)
    other.new_trials(40)  # same history as a and b, different seed
    assert not np.array_equal(
        other.new_trials(40).trial["shapes"], a.new_trials(40).trial["shapes"]
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"n_loc": 0}, ValueError, "n_loc must be an int >= 1, got 0"),
        ({"n_loc": 2.0}, TypeError, "n_loc must be an int >= 1, got 2.0"),
        ({"shape_weight": []}, ValueError, "shape_weight must be a non-empty 1-D sequence"),
        ({"shape_weight": [[1, 2]]}, ValueError, "shape_weight must be a non-empty 1-D"),
        ({"shape_weight": [0.1, np.nan]}, ValueError, "of finite numbers, got [0.1, nan]"),
        ({"shape_weight": ["a"]}, TypeError, "shape_weight must be a sequence of numbers"),
    ],
)
def test_bad_constructor_args(kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        ProbabilisticReasoning(**kwargs)
