"""HierarchicalReasoning: structure, 850 ms threshold, delay = interval, rule blocks, rewards."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

import numpy as np
import pytest

import neurogym as ngym
from neurogym.testing import check_task
from neurogym.testing.trials import (
    assert_lengths_follow,
    choice_steps,
    convolve,
    correct,
    in_period,
    pmf_stats,
    run_trial,
    seeded,
    trunc_exp_steps,
)
from neurogym_perceptual.tasks.hierarchicalreasoning import HierarchicalReasoning, median_ms

fresh = partial(seeded, HierarchicalReasoning)

DELAYS = (530, 610, 690, 770, 850, 930, 1010, 1090, 1170)
# fixation 600, rule_target 1000, fixation2 500, flash1 100, delay (forced), flash2 100,
# decision 700
CONSTANT_TIMING = {"fixation": 600, "fixation2": 500}

# ---------------------------------------------------------------------------------- helpers


def agent(rule_action: Callable[[HierarchicalReasoning], int], choice: Callable) -> Callable:
    """Plays ``rule_action`` in rule_target, ``choice`` in decision and fixates otherwise."""

    def policy(env: HierarchicalReasoning) -> int:
        if in_period(env, "rule_target"):
            return rule_action(env)
        if in_period(env, "decision"):
            return choice(env)
        return 0

    return policy


def runs(rules: np.ndarray) -> list[tuple[int, int]]:
    """(rule, run length) of each run of equal consecutive rules."""
    edges = np.flatnonzero(np.diff(rules)) + 1
    starts = np.concatenate([[0], edges])
    stops = np.concatenate([edges, [len(rules)]])
    return [(int(rules[a]), int(b - a)) for a, b in zip(starts, stops, strict=True)]


def assert_block_sequence(rules: np.ndarray, first_rule: int | None = 1) -> None:
    """Rules alternate in blocks of 10..20 trials (the last block may be unfinished)."""
    blocks = runs(rules)
    if first_rule is not None:
        assert blocks[0][0] == first_rule
    assert all(10 <= length <= 20 for _, length in blocks[:-1])
    assert blocks[-1][1] <= 20


# ---------------------------------------------------------------------------------- contract


@pytest.mark.parametrize("kwargs", [{}, {"dt": 20}])
def test_check_task(kwargs):
    check_task(HierarchicalReasoning(**kwargs))


def test_spaces_and_metadata_match_upstream():
    env = HierarchicalReasoning()
    assert env.observation_space.shape == (5,)
    assert env.observation_space.dtype == np.float32
    assert env.observation_space.name == {"fixation": 0, "rule": (1, 2), "stimulus": (3, 4)}
    assert env.action_space.n == 5
    assert env.action_space.name == {"fixation": 0, "rule": (1, 2), "choice": (3, 4)}
    assert env.rewards == {"abort": -0.1, "correct": 1.0, "fail": 0.0}
    assert env.timing["fixation"] == ngym.TruncExp(600, 400, 800)
    assert env.timing["fixation2"] == ngym.TruncExp(600, 400, 900)
    assert env.timing["delay"] == DELAYS
    assert HierarchicalReasoning().metadata["tags"] == [
        "perceptual",
        "two-alternative",
        "supervised",
    ]


def test_trial_dict_keys():
    trial = fresh(1).trial
    assert set(trial) == {
        "interval",
        "long_interval",
        "pro_choice",
        "rule",
        "stimulus",
        "ground_truth",
    }


# ---------------------------------------------------------------------------------- structure


@pytest.mark.parametrize("dt", [100, 50])
def test_period_boundaries_in_steps(dt):
    env = fresh(2, dt=dt, timing=CONSTANT_TIMING)
    batch = env.new_trials(3, interval=700.0)
    k = 100 // dt
    expected = {
        "fixation": (0, 6),
        "rule_target": (6, 16),
        "fixation2": (16, 21),
        "flash1": (21, 22),
        "delay": (22, 29),
        "flash2": (29, 30),
        "decision": (30, 37),
    }
    assert list(batch.periods) == list(expected)
    for name, (start, end) in expected.items():
        np.testing.assert_array_equal(batch.periods[name][0], [k * start] * 3)
        np.testing.assert_array_equal(batch.periods[name][1], [k * end] * 3)
    np.testing.assert_array_equal(batch.lengths, [37 * k] * 3)


@pytest.mark.parametrize(("rule", "stimulus"), [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_observations_and_gt_per_period(rule, stimulus):
    env = fresh(3, timing=CONSTANT_TIMING)
    trial = env.new_trial(rule=rule, stimulus=stimulus, interval=1000.0)
    assert trial["long_interval"]
    choice = stimulus if rule == 1 else 1 - stimulus  # long: pro under rule 1
    assert trial["pro_choice"] == (rule == 1)
    assert trial["ground_truth"] == choice
    expected = np.zeros((40, 5), dtype=np.float32)
    expected[:33, 0] = 1  # fixation channel: all but the decision period
    expected[6:16, 1:3] = 1  # both rule channels during rule_target (the rule is not cued)
    expected[21, 3 + stimulus] = 1  # flash1
    expected[32, 3 + stimulus] = 1  # flash2 after the 1000 ms delay [22, 32)
    np.testing.assert_array_equal(env.ob, expected)
    gt = np.zeros(40, dtype=np.int64)
    gt[6:16] = 1 + rule
    gt[33:40] = 3 + choice
    np.testing.assert_array_equal(env.gt, gt)


def test_long_short_threshold_is_the_median_delay():
    # FIXED BUG: upstream's threshold was np.median(timing["delay"][1]) = 610 ms, so a
    # 700 ms interval was "long" and two thirds of the trials at dt=100 were long.
    env = fresh(4)
    assert env.mid_delay == 850
    assert not env.new_trial(interval=700.0)["long_interval"]
    assert env.new_trial(interval=900.0)["long_interval"]
    batch = env.new_trials(9000)
    interval, long_interval = batch.trial["interval"], batch.trial["long_interval"]
    np.testing.assert_array_equal(long_interval, interval > 850)  # no ties at dt=100
    # at dt=100 the delays floor to 500, 600, 600, 700, 800 (short) and 900, 1000, 1000, 1100
    assert abs(long_interval.mean() - 4 / 9) < 0.02


def test_median_of_other_delay_specs():
    assert (
        median_ms(
            HierarchicalReasoning(timing={"delay": [500, 700, 900, 1100]}).timing.spec("delay")
        )
        == 800
    )
    env = HierarchicalReasoning(timing={"delay": ("uniform", (400, 1000))})
    assert env.mid_delay == 700
    env = HierarchicalReasoning(timing={"delay": ngym.TruncExp(500, 300, 1500)})
    samples = ngym.timing.trunc_exp(np.random.default_rng(0), 500, 300, 1500, size=200_000)
    assert abs(np.mean(samples < env.mid_delay) - 0.5) < 0.005
    with pytest.raises(ValueError, match=re.escape("the long/short threshold is the median")):
        HierarchicalReasoning(timing={"delay": lambda: 800.0})


@pytest.mark.parametrize("dt", [100, 10])
def test_delay_period_lasts_the_interval_that_sets_the_ground_truth(dt):
    # FIXED BUG: upstream drew the delay period's duration a second time, independently of
    # trial["interval"], so the flashes' separation did not determine the ground truth.
    batch = fresh(5, dt=dt).new_trials(3000)
    start, end = batch.periods["delay"]
    np.testing.assert_array_equal((end - start) * dt, batch.trial["interval"])
    np.testing.assert_allclose(
        batch.end_t["delay"] - batch.start_t["delay"], batch.trial["interval"]
    )
    shown_long = (end - start) * dt > 850
    if dt == 10:  # every delay is shown exactly; the 850 ms one is a coin flip
        tie = (end - start) * dt == 850
        assert 0.4 < batch.trial["long_interval"][tie].mean() < 0.6
        shown_long, long_interval = shown_long[~tie], batch.trial["long_interval"][~tie]
    else:
        long_interval = batch.trial["long_interval"]
    np.testing.assert_array_equal(long_interval, shown_long)


def test_choice_follows_rule_interval_and_stimulus():
    batch = fresh(6).new_trials(3000)
    trial = batch.trial
    np.testing.assert_array_equal(trial["pro_choice"], trial["long_interval"] == trial["rule"])
    expected = np.where(trial["pro_choice"], trial["stimulus"], 1 - trial["stimulus"])
    np.testing.assert_array_equal(trial["ground_truth"], expected)
    decision = batch.periods["decision"][0]
    np.testing.assert_array_equal(batch.gt[np.arange(3000), decision], 3 + expected)
    flash = batch.periods["flash1"][0]
    np.testing.assert_array_equal(
        batch.ob[np.arange(3000), flash, 3:5].argmax(axis=1), trial["stimulus"]
    )
    assert abs(trial["stimulus"].mean() - 0.5) < 0.03
    assert abs(trial["pro_choice"].mean() - 0.5) < 0.03


# ---------------------------------------------------------------------------------- blocks


def test_blocks_when_trials_are_generated_one_at_a_time():
    env = fresh(7)
    rules = [env.trial["rule"]] + [env.new_trial()["rule"] for _ in range(2999)]
    rules = np.array(rules)
    assert_block_sequence(rules)
    lengths = [length for _, length in runs(rules)[:-1]]
    assert set(lengths) == set(range(10, 21))
    assert abs(np.mean(lengths) - 15) < 0.7


def test_blocks_in_a_batch_continue_the_sequence():
    env = fresh(8)
    single = [env.trial["rule"]] + [env.new_trial()["rule"] for _ in range(6)]
    batch = env.new_trials(500).trial["rule"]
    after = [env.new_trial()["rule"] for _ in range(40)]
    second_batch = env.new_trials(300).trial["rule"]
    assert_block_sequence(np.concatenate([single, batch, after, second_batch]))
    lengths = [length for _, length in runs(batch)[1:-1]]
    assert all(10 <= length <= 20 for length in lengths)
    assert len(lengths) > 20


def test_a_batch_of_one_advances_the_blocks_like_new_trial():
    env = fresh(9)
    rules = [env.trial["rule"]] + [int(env.new_trials(1).trial["rule"][0]) for _ in range(400)]
    assert_block_sequence(np.array(rules))
    assert env.trial_in_block == (401 - sum(n for _, n in runs(np.array(rules))[:-1]))


def test_reset_restarts_the_block_sequence_and_length_stats_do_not_advance_it():
    env = fresh(10)
    for _ in range(13):
        env.new_trial()
    state = (env.block_rule, env.block_size, env.trial_in_block)
    env.trial_length_stats(2000)
    assert (env.block_rule, env.block_size, env.trial_in_block) == state
    env.reset(seed=10)
    assert env.trial["rule"] == 1
    assert env.block_rule == 1
    assert env.trial_in_block == 1
    assert env.rule is None  # the step logic is custom, not a declarative rule


def test_forced_rule_still_advances_the_blocks():
    env = fresh(11)
    assert env.trial_in_block == 1
    assert env.new_trial(rule=0)["rule"] == 0
    assert env.trial_in_block == 2


# ---------------------------------------------------------------------------------- rewards


def test_correct_rule_and_choice_is_rewarded_and_ends_trial():
    env = fresh(12)
    first_decision_step = env.start_ind["decision"]
    rewards, info, steps = run_trial(env, agent(correct, correct))
    assert steps == first_decision_step + 1
    assert rewards == [0.0] * first_decision_step + [1.0]
    assert info["performance"] == 1
    assert info["gt"] in (3, 4)


@pytest.mark.parametrize(
    "rule_action",
    [
        lambda e: 3 - int(e.gt_now),  # the other rule
        lambda e: 0,  # no rule chosen
        # the right rule except at the last rule_target step: the last step counts
        lambda e: int(e.gt_now) if e.t_ind < e.end_ind["rule_target"] - 1 else 3 - int(e.gt_now),
    ],
)
def test_right_choice_with_wrong_rule_fails(rule_action):
    env = fresh(13, rewards={"fail": -0.2})
    first_decision_step = env.start_ind["decision"]
    rewards, info, steps = run_trial(env, agent(rule_action, correct))
    assert steps == first_decision_step + 1
    assert rewards[-1] == pytest.approx(-0.2)
    assert sum(rewards) == pytest.approx(-0.2)  # choosing a rule is never an abort
    assert info["performance"] == 0


def test_wrong_choice_fails():
    env = fresh(14)
    rewards, info, _ = run_trial(env, agent(correct, lambda e: 7 - int(e.gt_now)))
    assert rewards[-1] == 0.0
    assert info["performance"] == 0


def test_breaking_fixation_aborts_only_when_abort_is_set():
    env = fresh(15, timing=CONSTANT_TIMING)
    env.new_trial(interval=700.0)
    rewards, _, steps = run_trial(env, lambda e: 1 if in_period(e, "fixation2") else 0)
    assert rewards == [0.0] * 16 + [pytest.approx(-0.1)] * 5 + [0.0] * 16
    assert steps == 37
    env.abort = True
    env.new_trial(interval=700.0)
    rewards, info, steps = run_trial(env, lambda e: 1 if in_period(e, "delay") else 0)
    assert steps == 23
    assert rewards[-1] == pytest.approx(-0.1)
    assert info["performance"] == 0


def test_a_miss_pays_nothing():
    env = fresh(16, timing=CONSTANT_TIMING)
    env.new_trial(interval=700.0)
    rewards, info, steps = run_trial(env, agent(correct, lambda e: 0))
    assert rewards == [0.0] * 37
    assert steps == 37
    assert info["performance"] == 0


def test_rule_choice_is_forgotten_after_a_timed_out_trial():
    # Upstream kept chose_correct_rule across a trial that ended without a response, so with
    # an empty rule_target a later trial could be paid for the previous trial's rule choice.
    env = fresh(17, timing={**CONSTANT_TIMING, "rule_target": 0})
    env.chose_correct_rule = True  # as left by a trial answered correctly in rule_target
    env.new_trial(interval=700.0)
    rewards, info, _ = run_trial(env, agent(correct, correct))
    assert rewards[-1] == 0.0
    assert info["performance"] == 0


# ---------------------------------------------------------------------------------- timing


@pytest.mark.parametrize("dt", [100, 20])
def test_trial_length_distribution(dt):
    env = fresh(18, dt=dt)
    pmf = convolve(
        trunc_exp_steps(600, 400, 800, dt),
        choice_steps((1000,), dt),
        trunc_exp_steps(600, 400, 900, dt),
        choice_steps((100,), dt),
        choice_steps(DELAYS, dt),
        choice_steps((100,), dt),
        choice_steps((700,), dt),
    )
    assert_lengths_follow(env.new_trials(5000).lengths, pmf)
    stats = env.trial_length_stats(10000)
    mean, std, p95 = pmf_stats(pmf)
    assert abs(stats["mean"] - mean) < 4 * std / 100
    assert abs(stats["std"] - std) < 0.1 * std
    assert abs(stats["percentile_95"] - p95) <= 1
    assert stats["max"] <= max(pmf)


# ---------------------------------------------------------------------------------- kwargs, seeds


def test_forced_ground_truth_sets_the_flashed_location():
    env = fresh(19)
    for gt in (0, 1, 1, 0):
        trial = env.new_trial(ground_truth=gt)
        assert trial["ground_truth"] == gt
        assert env.gt[env.start_ind["decision"]] == 3 + gt
        flashed = trial["stimulus"]
        assert env.ob[env.start_ind["flash1"], 3 + flashed] == 1
        assert (flashed == gt) == trial["pro_choice"]


def test_forced_per_trial_arrays_in_a_batch():
    env = fresh(20)
    batch = env.new_trials(
        4,
        interval=np.array([530.0, 1170.0, 530.0, 1170.0]),
        rule=np.array([0, 0, 1, 1]),
        stimulus=np.array([1, 1, 0, 0]),
    )
    np.testing.assert_array_equal(batch.trial["long_interval"], [False, True, False, True])
    np.testing.assert_array_equal(batch.trial["pro_choice"], [True, False, False, True])
    np.testing.assert_array_equal(batch.trial["ground_truth"], [1, 0, 1, 0])
    start, end = batch.periods["delay"]
    np.testing.assert_array_equal((end - start) * 100, [500, 1100, 500, 1100])
    np.testing.assert_allclose(batch.end_t["delay"] - batch.start_t["delay"], [530, 1170] * 2)


def test_contradictory_forced_stimulus_and_ground_truth():
    env = fresh(21)
    with pytest.raises(ValueError, match="contradict each other"):
        env.new_trial(rule=1, interval=1170.0, stimulus=0, ground_truth=1)
    with pytest.raises(ValueError, match=re.escape("rule must hold ints in [0, 1], got [2]")):
        env.new_trial(rule=2)


def test_same_seed_same_trials_whatever_came_before():
    a = fresh(22)
    trials_a = [a.trial] + [a.new_trial() for _ in range(30)]
    b = fresh(0)
    for _ in range(37):
        b.new_trial()
    b.reset(seed=22)
    trials_b = [b.trial] + [b.new_trial() for _ in range(30)]
    for ta, tb in zip(trials_a, trials_b, strict=True):
        assert ta == tb
    np.testing.assert_array_equal(a.new_trials(20).ob, b.new_trials(20).ob)


@pytest.mark.parametrize(
    ("n", "interval", "message"),
    [
        (1, "x", r"forced interval must be the delay in ms \(a number, or one per trial\), "),
        (1, True, r"forced interval must be the delay in ms .*got True"),
        (1, [1000, 2000], r"forced interval must have shape \(\) .* or \(1,\) .*got shape \(2,\)"),
        (4, [700.0] * 3, r"forced interval must have shape \(\) .* or \(4,\) .*got shape \(3,\)"),
        (1, -100, r"forced interval must be >= 0 ms \(it is the delay's duration\), got \[-100\]"),
        (4, [-100, 500, 600, -7], r"must be >= 0 ms .*got \[-100, -7\]"),
    ],
)
def test_a_bad_forced_interval_is_refused_by_name(n, interval, message):
    env = fresh(0)
    with pytest.raises(ValueError, match=message):
        env.new_trials(n, interval=interval) if n > 1 else env.new_trial(interval=interval)


def test_a_forced_interval_per_trial_sets_each_delay():
    env = fresh(0, timing=CONSTANT_TIMING)
    batch = env.new_trials(3, interval=[0.0, 500.0, 1500.0])
    np.testing.assert_array_equal(batch.trial["interval"], [0.0, 500.0, 1500.0])
    np.testing.assert_array_equal(batch.end_t["delay"] - batch.start_t["delay"], [0, 500, 1500])
    np.testing.assert_array_equal(batch.trial["long_interval"], [False, False, True])


# ---------------------------------------------------------------------------------- rule_cue


def test_rule_cue_defaults_to_the_uncued_task_and_draws_nothing():
    plain, zero = fresh(22).new_trials(300), fresh(22, rule_cue=0.0).new_trials(300)
    np.testing.assert_array_equal(plain.ob, zero.ob)
    assert "rule_cued" not in zero.trial
    start, end = zero.periods["rule_target"]
    for at in (start, end - 1):  # both rule inputs throughout: no cue
        assert (zero.ob[np.arange(300), at, 1:3] == 1).all()


def test_a_cued_trial_shows_its_rule_one_hot_during_rule_target():
    batch = fresh(23, rule_cue=1.0).new_trials(400)
    assert batch.trial["rule_cued"].all()
    start, end = batch.periods["rule_target"]
    rows = np.arange(400)
    for at in (start, end - 1):
        np.testing.assert_array_equal(batch.ob[rows, at, 1:3].argmax(axis=1), batch.trial["rule"])
        np.testing.assert_array_equal(batch.ob[rows, at, 1:3].sum(axis=1), np.ones(400))
    assert (batch.ob[rows, end, 1:3] == 0).all()  # only during rule_target
    np.testing.assert_array_equal(batch.gt[rows, start], 1 + batch.trial["rule"])  # same target


def test_rule_cue_is_a_seeded_per_trial_probability():
    batch = fresh(24, rule_cue=0.3).new_trials(4000)
    cued = batch.trial["rule_cued"]
    assert abs(cued.mean() - 0.3) < 0.03
    start = batch.periods["rule_target"][0]
    shown = batch.ob[np.arange(4000), start, 1:3].sum(axis=1)
    np.testing.assert_array_equal(shown, np.where(cued, 1, 2))
    np.testing.assert_array_equal(
        fresh(24, rule_cue=0.3).new_trials(4000).trial["rule_cued"], cued
    )
    assert_block_sequence(batch.trial["rule"], first_rule=None)  # the blocks are unchanged


def test_rule_cued_can_be_forced_and_bad_values_are_refused():
    env = fresh(25)
    assert env.new_trial(rule_cued=True)["rule_cued"]
    np.testing.assert_array_equal(
        env.new_trials(2, rule_cued=np.array([True, False])).trial["rule_cued"], [True, False]
    )
    with pytest.raises(ValueError, match=re.escape("forced rule_cued must be True or False")):
        env.new_trial(rule_cued=1)
    with pytest.raises(ValueError, match="rule_cue"):
        HierarchicalReasoning(rule_cue=1.5)


def test_observers_know_the_rule_of_a_cued_trial():
    env = fresh(26, rule_cue=1.0)
    batch = ngym.batch(env, 3000, seed=0)
    judged = np.where(batch.trial["interval"] == env.mid_delay, 0.5, 1.0)  # ties at dt=100: none
    np.testing.assert_array_equal(env.ideal_observer(batch), judged)
    np.testing.assert_array_equal(env.stream_observer(batch), judged)
    half = fresh(27, rule_cue=0.5)
    data = ngym.batch(half, 3000, seed=0)
    uncued = fresh(27)
    plain = ngym.batch(uncued, 3000, seed=0)
    # a cue helps both observers: above their uncued scores (0.5 and about 0.94)
    assert half.ideal_observer(data).mean() > uncued.ideal_observer(plain).mean() + 0.15
    assert half.stream_observer(data).mean() > uncued.stream_observer(plain).mean() + 0.02


@pytest.mark.parametrize("rule_cue", [0.5, 1.0])
def test_check_task_with_a_rule_cue(rule_cue):
    check_task(HierarchicalReasoning(rule_cue=rule_cue))
