"""Trial wrappers over one task: SideBias, RandomGroundTruth, TrialHistoryV2, ScheduleAttr."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from gymnasium.utils.seeding import np_random
from wrapper_tasks import Toy

from neurogym import wrappers as ngw


def _gts(env, n):
    """Ground truths of the reset trial and the next ``n - 1`` trials made by stepping."""
    env.reset(seed=0)
    out = [int(env.unwrapped.trial["ground_truth"])]
    while len(out) < n:
        *_, info = env.step(0)
        if info["new_trial"]:
            out.append(int(env.unwrapped.trial["ground_truth"]))
    return out


# ---------------------------------------------------------------------------------- SideBias
MATRIX_MSG = "probs must be a 2D list of lists (matrix) with shape (n_blocks, n_choices)"


@pytest.mark.parametrize(
    ("probs", "error", "match"),
    [
        (None, TypeError, re.escape(MATRIX_MSG)),
        (0.8, TypeError, re.escape(MATRIX_MSG)),
        ([0.8, 0.2], TypeError, re.escape(MATRIX_MSG)),
        ([[0.8, 0.1, 0.1], [0.2, 0.4, 0.4]], ValueError, "probs has 3 columns but the task has 2"),
        ([[0.8, 0.1], [0.2, 0.9]], ValueError, r"Rows \[0, 1\] have sums \[0.9, 1.1\]"),
        ([[1.2, -0.2]], ValueError, "All probabilities in probs must be non-negative."),
    ],
)
def test_side_bias_validates_probs(probs, error, match):
    with pytest.raises(error, match=match):
        ngw.SideBias(Toy(), probs=probs)


@pytest.mark.parametrize(
    ("block_dur", "error", "match"),
    [
        (0, ValueError, "must be >= 1"),
        (-10, ValueError, "must be >= 1"),
        (0.0, ValueError, r"must be in range \(0, 1\)"),
        (1.5, ValueError, r"must be in range \(0, 1\)"),
        ((100,), ValueError, "exactly 2 elements"),
        ((100.5, 200), TypeError, "must be integers"),
        ((0, 200), ValueError, "low value must be >= 1"),
        ((300, 200), ValueError, "high value must be >= low"),
        ("invalid", TypeError, "block_dur must be one of"),
        ([100, 200], TypeError, r"block_dur as a range is a \(low, high\) tuple, got the list"),
        (True, TypeError, "block_dur must be one of"),
    ],
)
def test_side_bias_validates_block_dur(block_dur, error, match):
    with pytest.raises(error, match=match):
        ngw.SideBias(Toy(), probs=[[0.8, 0.2]], block_dur=block_dur)


def test_side_bias_fixed_blocks_last_exactly_block_dur_trials():
    env = ngw.SideBias(Toy(), probs=[[1.0, 0.0], [0.0, 1.0]], block_dur=5)
    first = int(np_random(0)[0].integers(2))  # the first draw of the episode picks the block
    assert _gts(env, 15) == [first] * 5 + [1 - first] * 5 + [first] * 5
    np.testing.assert_array_equal(env.unwrapped.trial["probs"], np.eye(2)[first])


def test_side_bias_switches_to_a_different_block():
    env = ngw.SideBias(Toy(), probs=[[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]], block_dur=2)
    env.reset(seed=3)
    blocks = [env.curr_block]
    for _ in range(59):
        env.new_trial()
        blocks.append(env.curr_block)
    assert [len(run) for run in _runs(blocks)] == [2] * 30
    assert set(blocks) == {0, 1, 2}


def _runs(values):
    start = 0
    for i in range(1, len(values) + 1):
        if i == len(values) or values[i] != values[start]:
            yield values[start:i]
            start = i


def test_side_bias_probabilistic_and_range_blocks():
    env = ngw.SideBias(Toy(), probs=[[0.8, 0.2], [0.2, 0.8]], block_dur=0.5)
    env.reset(seed=42)
    blocks = [env.curr_block]
    for _ in range(500):
        env.new_trial()
        blocks.append(env.curr_block)
    switches = sum(a != b for a, b in itertools.pairwise(blocks))
    assert 200 <= switches <= 300  # Binomial(500, 0.5): mean 250, sd 11
    env = ngw.SideBias(Toy(), probs=[[0.8, 0.2], [0.2, 0.8]], block_dur=(2, 4))
    env.reset(seed=123)
    blocks = [env.curr_block]
    for _ in range(300):
        env.new_trial()
        blocks.append(env.curr_block)
    lengths = [len(run) for run in _runs(blocks)][:-1]  # the last block is cut
    assert set(lengths) == {2, 3, 4}


def test_side_bias_is_reproducible_under_reset_seed():
    env = ngw.SideBias(Toy(), probs=[[0.9, 0.1], [0.1, 0.9]], block_dur=(3, 7))
    assert _gts(env, 60) == _gts(env, 60)


# ------------------------------------------------------------------------- RandomGroundTruth
def test_random_ground_truth_draws_with_p_and_keeps_other_kwargs():
    env = ngw.RandomGroundTruth(Toy(), p=[0.0, 1.0])
    env.reset(seed=0)
    trial = env.new_trial(coh=ngw.RecordOnly(25))
    assert trial["ground_truth"] == 1
    assert trial["coh"] == 25
    np.testing.assert_array_equal(trial["p"], [0.0, 1.0])


def test_random_ground_truth_single_draw_equals_a_batch_of_one():
    single, batched = ngw.RandomGroundTruth(Toy()), ngw.RandomGroundTruth(Toy())
    single.reset(seed=5)
    batched.reset(seed=5)
    trial = single.new_trial()
    batch = batched.new_trials(1)
    assert batch.trial["ground_truth"][0] == trial["ground_truth"]
    np.testing.assert_array_equal(batch.ob[0], single.unwrapped.ob)
    batch = batched.new_trials(64, coh=ngw.RecordOnly(np.arange(64)))
    assert set(batch.trial["ground_truth"]) == {0, 1}
    np.testing.assert_array_equal(batch.trial["coh"], np.arange(64))
    assert batch.trial["p"].shape == (64, 2)


def test_random_ground_truth_validates_p():
    with pytest.raises(
        ValueError,
        match=r"^RandomGroundTruth: p \(one probability per choice\) must be 2 non-negative",
    ):
        ngw.RandomGroundTruth(Toy(), p=[0.5, 0.6])
    with pytest.raises(AttributeError, match="needs a task with a 'choices' attribute"):
        ngw.RandomGroundTruth(_NoChoices())


class _NoChoices(Toy):
    def __init__(self):
        super().__init__()
        del self.choices


def test_schedule_attr_over_random_ground_truth_gives_block_priors():
    # The ibl20 composition: blocks of p=(1,0) and p=(0,1), three trials each.
    env = ngw.ScheduleAttr(
        ngw.RandomGroundTruth(Toy()),
        ngw.SequentialBlockSchedule(2, [3, 3]),
        attr_list=[{"p": (1.0, 0.0)}, {"p": (0.0, 1.0)}],
    )
    assert _gts(env, 9) == [0, 0, 0, 1, 1, 1, 0, 0, 0]


# ---------------------------------------------------------------------------------- ScheduleAttr
def test_schedule_attr_applies_attribute_sets_in_schedule_order():
    env = ngw.ScheduleAttr(
        Toy(), ngw.SequentialSchedule(2), [{"ground_truth": 0}, {"ground_truth": 1}]
    )
    assert _gts(env, 5) == [1, 0, 1, 0, 1]  # as upstream, a sequential schedule starts at 1
    assert _gts(env, 5) == [1, 0, 1, 0, 1]  # reset restarts the schedule


def test_schedule_attr_validates():
    with pytest.raises(ValueError, match="draws among 3 conditions but attr_list has 2"):
        ngw.ScheduleAttr(Toy(), ngw.RandomSchedule(3), [{}, {}])
    with pytest.raises(TypeError, match="schedule must be a neurogym schedule"):
        ngw.ScheduleAttr(Toy(), lambda: 0, [{}])
    with pytest.raises(TypeError, match="attr_list must hold dicts"):
        ngw.ScheduleAttr(Toy(), ngw.RandomSchedule(1), [3])


# ---------------------------------------------------------------------------------- TrialHistoryV2
def test_trial_history_follows_the_transition_matrix():
    env = ngw.TrialHistoryV2(Toy(), probs=np.array([[0.0, 1.0], [1.0, 0.0]]))
    first = 1 - int(np_random(0)[0].integers(2))  # the drawn "previous" choice, then flipped
    gts = _gts(env, 8)
    assert gts == [first, 1 - first] * 4
    np.testing.assert_array_equal(env.unwrapped.trial["probs"], [[0.0, 1.0], [1.0, 0.0]])
    trial = env.new_trial(probs=np.array([[1.0, 0.0], [1.0, 0.0]]))
    assert trial["ground_truth"] == 0


def test_trial_history_validates_probs():
    with pytest.raises(ValueError, match=r"probs has shape \(3,\); it should be \(2, 2\)"):
        ngw.TrialHistoryV2(Toy(), probs=np.ones(3))
    with pytest.raises(ValueError, match="rows must be non-negative and sum to 1"):
        ngw.TrialHistoryV2(Toy(), probs=np.ones((2, 2)))


def test_trial_history_batches_continue_the_chain():
    env = ngw.TrialHistoryV2(Toy(), probs=np.array([[0.0, 1.0], [1.0, 0.0]]))
    env.reset(seed=0)
    current = int(env.unwrapped.trial["ground_truth"])
    batch = env.new_trials(4)
    np.testing.assert_array_equal(batch.trial["ground_truth"], [1 - current, current] * 2)
    assert env.unwrapped.trial["ground_truth"] == current
