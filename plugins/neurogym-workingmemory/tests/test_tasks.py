"""The working-memory tasks: structure, what the stimulus encodes, rewards, forced variables."""

from __future__ import annotations

import numpy as np
import pytest

import neurogym
from neurogym.testing import check_task
from neurogym.testing.trials import correct, other_of_two, period_mean, respond, run_trial, seeded
from neurogym_workingmemory.tasks.anglereproduction import AngleReproduction, circular_distance
from neurogym_workingmemory.tasks.cvlearning import CVLearning
from neurogym_workingmemory.tasks.delaycomparison import DelayComparison
from neurogym_workingmemory.tasks.delaymatchcategory import DelayMatchCategory
from neurogym_workingmemory.tasks.delaymatchsample import (
    DelayMatchSample,
    DelayMatchSampleDistractor1D,
)
from neurogym_workingmemory.tasks.delaypairedassociation import DelayPairedAssociation
from neurogym_workingmemory.tasks.dualdelaymatchsample import DualDelayMatchSample
from neurogym_workingmemory.tasks.intervaldiscrimination import IntervalDiscrimination
from neurogym_workingmemory.tasks.memoryrecall import MemoryRecall
from neurogym_workingmemory.tasks.reachingdelayresponse import ReachingDelayResponse

TASKS = (
    AngleReproduction,
    CVLearning,
    DelayComparison,
    DelayMatchCategory,
    DelayMatchSample,
    DelayMatchSampleDistractor1D,
    DelayPairedAssociation,
    DualDelayMatchSample,
    IntervalDiscrimination,
    MemoryRecall,
    ReachingDelayResponse,
)


@pytest.mark.parametrize("task", TASKS)
def test_check_task(task):
    check_task(task())


@pytest.mark.parametrize(
    ("task", "period", "steps"),
    [
        (DelayMatchSample, "decision", {100: 32, 50: 64}),
        (DelayMatchCategory, "test", {100: 27, 50: 56}),
        (DelayComparison, "decision", {100: 26, 50: 52}),
    ],
)
def test_trial_lengths_and_scripted_agents(task, period, steps):
    for dt, length in steps.items():
        env = seeded(task, seed=1, dt=dt)
        assert env.ob.shape[0] == length
        assert env.trial_length_stats(200)["max"] == length  # upstream DMC reported 28 for 27
    env = seeded(task, seed=2)
    for _ in range(20):
        rewards, info, _ = run_trial(env, respond(correct, period))
        assert (rewards[-1], info["performance"]) == (1.0, 1)
        rewards, info, _ = run_trial(env, respond(other_of_two, period))
        assert (rewards[-1], info["performance"]) == (0.0, 0)


@pytest.mark.parametrize(
    "task", [t for t in TASKS if t not in (ReachingDelayResponse, AngleReproduction, MemoryRecall)]
)
def test_breaking_fixation_costs_abort_and_the_trial_goes_on(task):
    # DelayPairedAssociation's fixation lasts 0 ms by default (as upstream): give it one.
    kwargs = {"timing": {"fixation": 200}} if task is DelayPairedAssociation else {}
    env = seeded(task, seed=3, **kwargs)
    _, reward, *_, info = env.step(1)
    assert reward == pytest.approx(-0.1)
    assert not info["new_trial"]


def test_delay_match_sample_test_is_the_sample_or_its_opposite():
    env = seeded(DelayMatchSample, seed=4, sigma=0.0, dim_ring=8)
    batch = env.new_trials(400)
    sample = period_mean(batch, "sample", range(1, 9))
    test = period_mean(batch, "test", range(1, 9))
    match = batch.trial["ground_truth"] == 1
    np.testing.assert_allclose(test[match], sample[match], atol=1e-6)
    np.testing.assert_allclose(test[~match], 1 - sample[~match], atol=1e-6)  # theta + pi
    assert abs(match.mean() - 0.5) < 0.1
    assert set(np.round(batch.trial["sample_theta"] / (np.pi / 4)).astype(int)) == set(range(8))


def test_delay_match_sample_forced_variables_single_and_batch():
    env = seeded(DelayMatchSample, seed=5)
    trial = env.new_trial(ground_truth=2, sample_theta=0.0)
    assert (trial["ground_truth"], trial["test_theta"]) == (2, pytest.approx(np.pi))
    assert env.gt[-1] == 2
    batch = env.new_trials(3, ground_truth=[1, 2, 1])
    np.testing.assert_array_equal(batch.trial["ground_truth"], [1, 2, 1])


@pytest.mark.parametrize("dim_ring", [2, 4])
def test_delay_match_category_compares_categories(dim_ring):
    env = seeded(DelayMatchCategory, seed=6, sigma=0.0, dim_ring=dim_ring)
    batch = env.new_trials(400)
    # Ring unit 1 sits at 0: above 0.5 exactly for directions in category 0, (-pi/2, pi/2);
    # on the default two-unit ring too (upstream's boundary at 0/pi was invisible there)
    sample_cat = (period_mean(batch, "sample", 1) < 0.5).astype(int)
    test_cat = (period_mean(batch, "test", 1) < 0.5).astype(int)
    np.testing.assert_array_equal(sample_cat, batch.trial["sample_category"])
    match = batch.trial["ground_truth"] == "match"
    np.testing.assert_array_equal(match, sample_cat == test_cat)
    test_steps = slice(batch.periods["test"][0][0], batch.periods["test"][1][0])
    np.testing.assert_array_equal(batch.gt[:, test_steps][:, 0], np.where(match, 1, 2))
    trial = env.new_trial(ground_truth="non-match", sample_category=1)
    assert env.gt[-1] == 2
    assert trial["sample_category"] == 1
    with pytest.raises(
        ValueError,
        match=r"forced ground_truth='same' is not one of its values \['match', 'non",
    ):
        env.new_trial(ground_truth="same")


def test_delay_comparison_encodes_which_frequency_is_higher():
    env = seeded(DelayComparison, seed=7, sigma=0.0)
    batch = env.new_trials(300)
    f1 = period_mean(batch, "stimulus1", 1)
    f2 = period_mean(batch, "stimulus2", 1)
    np.testing.assert_array_equal(batch.trial["ground_truth"], np.where(f1 > f2, 1, 2))
    np.testing.assert_allclose(f1, env.represent(batch.trial["v1"]), atol=1e-6)
    assert env.represent(10) == 0.5
    assert env.represent(34) == 1.0
    noisy = seeded(DelayComparison, seed=7).new_trials(200)
    fixation = noisy.ob[:, 5:10, 0]  # the stimulus1 steps: noise on every dim, fixation too
    assert fixation.std() == pytest.approx(1 / np.sqrt(100), rel=0.1)
    trial = env.new_trial(ground_truth=2, vpair=(30, 22))
    assert (trial["v1"], trial["v2"]) == (22, 30)
    with pytest.raises(ValueError, match=r"vpairs must be a non-empty sequence"):
        DelayComparison(vpairs=[(1, 2, 3)])


def test_interval_discrimination_reports_the_longer_interval():
    env = seeded(IntervalDiscrimination, seed=8)
    batch = env.new_trials(500)
    on1 = batch.ob[:, :, 1].sum(axis=1) * env.dt
    on2 = batch.ob[:, :, 2].sum(axis=1) * env.dt
    np.testing.assert_allclose(on1, batch.trial["duration1"])
    np.testing.assert_allclose(on2, batch.trial["duration2"])
    np.testing.assert_array_equal(batch.trial["ground_truth"], np.where(on1 > on2, 1, 2))
    assert np.all(batch.trial["duration1"] % env.dt == 0)  # floored, as upstream
    # 3 + [3, 7] + [10, 18] + [3, 7] + 6 + 3 steps of 80 ms (each duration floored)
    assert batch.lengths.min() >= 28
    assert batch.lengths.max() <= 44
    trial = env.new_trial(duration1=400, duration2=400)
    assert trial["ground_truth"] == 2  # ties go to the second interval
    _, info, _ = run_trial(seeded(IntervalDiscrimination, seed=9), respond(correct))
    assert info["performance"] == 1


@pytest.mark.parametrize(
    ("n", "forced"),
    [
        (1, {"duration1": -100}),
        (1, {"duration2": "x"}),
        (1, {"duration1": True}),
        (3, {"duration1": [400, -80, 200]}),
    ],
)
def test_interval_discrimination_refuses_a_bad_forced_duration_by_name(n, forced):
    env = seeded(IntervalDiscrimination, seed=0)
    (name,) = forced
    message = rf"forced {name} must be a duration in ms >= 0 \(one, or one per trial\), got "
    with pytest.raises(ValueError, match=message):
        env.new_trials(n, **forced) if n > 1 else env.new_trial(**forced)


def _go_in(period):
    """Go (1) while in ``period``, else fixate."""
    return respond(lambda env: 1, period)


def test_delay_paired_association_pairs_rewards_and_miss():
    env = seeded(DelayPairedAssociation, seed=10, sigma=0.0)
    batch = env.new_trials(400)
    first = period_mean(batch, "stim1", range(1, 5)).argmax(axis=1) + 1
    second = period_mean(batch, "stim2", range(1, 5)).argmax(axis=1) + 1
    np.testing.assert_array_equal(np.stack([first, second], 1), batch.trial["pair"])
    associated = ((first == 1) & (second == 3)) | ((first == 2) & (second == 4))
    np.testing.assert_array_equal(batch.trial["ground_truth"], associated.astype(int))
    assert batch.lengths.max() == 45
    assert seeded(DelayPairedAssociation, dt=50).ob.shape[0] == 90
    go = seeded(DelayPairedAssociation, seed=11)
    for _ in range(30):
        pair = tuple(go.trial["pair"])
        rewards, info, _ = run_trial(go, _go_in("decision"))
        expected = 1.0 if pair in ((1, 3), (2, 4)) else -1.0
        assert (rewards[-1], info["performance"]) == (expected, int(expected > 0))
        rewards, info, _ = run_trial(go, lambda env: 0)  # withhold to the end
        go_trial = bool(info["trial"]["ground_truth"])
        assert rewards[-1] == 0.0  # miss = 0 by default
        assert info["performance"] == int(not go_trial)
    miss = seeded(DelayPairedAssociation, seed=12, rewards={"miss": -0.5})
    miss.new_trial(pair=(1, 3))
    rewards, info, _ = run_trial(miss, lambda env: 0)
    assert rewards[-1] == -0.5


@pytest.mark.parametrize("task", [DelayPairedAssociation, DelayMatchSampleDistractor1D])
def test_sigma_adds_noise_to_the_stimulus(task):
    # Upstream accepted sigma but added no noise.
    quiet = seeded(task, seed=13, sigma=0.0).new_trials(50)
    noisy = seeded(task, seed=13, sigma=1.0).new_trials(50)
    stimulus = slice(1, None)
    difference = noisy.ob[:, :, stimulus] - quiet.ob[:, :, stimulus]
    assert difference.std() > 0.03
    np.testing.assert_array_equal(noisy.ob[:, :, 0], quiet.ob[:, :, 0])  # fixation untouched


def test_distractor_task_only_the_matching_test_repeats_the_sample():
    env = seeded(DelayMatchSampleDistractor1D, seed=14, sigma=0.0)
    batch = env.new_trials(200)
    sample = period_mean(batch, "sample", range(1, 33))
    for i in (1, 2, 3):
        test = period_mean(batch, f"test{i}", range(1, 33))
        same = np.all(np.isclose(test, sample, atol=1e-5), axis=1)
        np.testing.assert_array_equal(same, batch.trial["ground_truth"] == i)
    assert batch.lengths.max() == 53
    for _ in range(20):
        target = int(env.trial["ground_truth"])
        wrong = 1 + target % 3
        rewards, info, _ = run_trial(env, _go_in(f"test{wrong}"))
        assert (rewards[-1], info["performance"]) == (-1.0, 0)
        target = int(env.trial["ground_truth"])
        rewards, info, _ = run_trial(env, _go_in(f"test{target}"))
        assert (rewards[-1], info["performance"]) == (1.0, 1)
    trial = env.new_trial(ground_truth=2, sample=1.0)
    assert trial["test2"] == 1.0


def test_dual_delay_match_sample_cues_tests_and_scoring():
    env = seeded(DualDelayMatchSample, seed=15, sigma=0.0)
    batch = env.new_trials(300)
    first = batch.trial["test_order"] == 0
    # cue1 (dim 5) marks sample 1's test: in the first cue period when it is tested first.
    np.testing.assert_array_equal(period_mean(batch, "cue1", 5), first.astype(float))
    np.testing.assert_array_equal(period_mean(batch, "cue2", 6), first.astype(float))
    for i, dims in ((1, [1, 2]), (2, [3, 4])):
        sample = period_mean(batch, "sample", dims)
        tested_in = np.where(first == (i == 1), 1, 2)  # the test period of sample i
        shown = np.stack(
            [period_mean(batch, f"test{slot}", dims)[k] for k, slot in enumerate(tested_in)]
        )
        same = np.all(np.isclose(shown, sample, atol=1e-6), axis=1)
        np.testing.assert_array_equal(same, batch.trial[f"ground_truth{i}"] == 1)
    assert batch.lengths.max() == 40
    np.testing.assert_array_equal(batch.ob[:, :, 0], 1)  # fixation input on all trial long
    env.reset(seed=16)
    first_test = respond(correct, "test1")
    both = respond(correct, "test2")
    rewards, _, steps = run_trial(env, lambda e: first_test(e) or both(e))
    # Every response in test1 is scored (5 steps, as upstream) and the trial goes on; the
    # first response in test2 is scored and ends the trial.
    assert rewards.count(1.0) == 6
    assert steps == 36  # 7 periods of 5 steps, then the first step of test2


def test_reaching_delay_response_continuous_reward():
    env = seeded(ReachingDelayResponse, seed=17)
    batch = env.new_trials(300)
    target = batch.trial["ground_truth"]
    np.testing.assert_allclose(period_mean(batch, "stimulus", 1), target, rtol=1e-6)
    assert set(batch.lengths.tolist()) == {10, 20, 30}
    decision = batch.gt[np.arange(300), batch.lengths - 1]
    np.testing.assert_allclose(decision, np.stack([np.ones(300), target], 1), rtol=1e-6)
    env.reset(seed=18)
    target = float(env.trial["ground_truth"])

    def reach_with_error(error):
        return lambda e: np.array(
            [1.0 if e.in_period("decision") else -1.0, target + error], np.float32
        )

    rewards, info, _ = run_trial(env, reach_with_error(0.5))
    assert rewards[-1] == pytest.approx(1 / 1.5**2, rel=1e-5)
    assert info["performance"] == pytest.approx(1 / 1.5**2, rel=1e-5)
    target = float(env.trial["ground_truth"])
    rewards, info, _ = run_trial(env, lambda e: np.array([-1.0, 0.0], np.float32))
    assert rewards[-1] == -0.5  # miss: no reach before the trial timed out
    _, reward, *_ = env.step(np.array([0.5, 0.0], np.float32))  # go during the stimulus
    assert reward == pytest.approx(-0.1)
    with pytest.raises(ValueError, match="lowbound must be smaller than highbound"):
        ReachingDelayResponse(lowbound=1.0, highbound=0.5)


def test_ground_truth_wrappers_refuse_the_dual_task():
    from neurogym.wrappers import SideBias

    with pytest.raises(AttributeError, match="'choices'"):
        SideBias(DualDelayMatchSample(), probs=[[0.5, 0.5]], block_dur=10)


def test_angle_reproduction_pointer_reward_and_stored_trial_untouched():
    env = seeded(AngleReproduction, seed=19)
    stored = env.ob.copy()
    angle1 = float(env.trial["ground_truth1"])
    # Steer the pointer from pi to angle 1, the short way round, then hold it.
    turn = 1 if np.mod(angle1 - np.pi, 2 * np.pi) < np.pi else 2
    rewards = []
    for _ in range(15):  # up to the end of go1 (steps 25-29 are go1)
        error = circular_distance(env.state - angle1)
        action = turn if error > 0.05 else 0
        ob, reward, *_ = env.step(action)
        rewards.append(reward)
        np.testing.assert_allclose(ob[16:32], np.cos(env.theta - env.state), atol=1e-6)
    np.testing.assert_array_equal(env.ob, stored)  # the stored trial is never written to
    assert rewards[:14] == [0.0] * 14
    for _ in range(15):
        _, reward, *_ = env.step(0)
    assert reward == pytest.approx(max(1 - circular_distance(env.state - angle1), -0.1))
    assert circular_distance(np.array([0.1, 2 * np.pi - 0.1, np.pi])) == pytest.approx(
        [0.1, 0.1, np.pi]
    )
    batch = seeded(AngleReproduction, seed=20).new_trials(50)
    np.testing.assert_allclose(batch.ob[:, :, 16:32], np.cos(np.arange(16) * np.pi / 8 - np.pi)
                               * np.ones((50, 35, 1)), atol=1e-6)  # fmt: skip
    with pytest.raises(ValueError, match="needs supervised targets"):
        neurogym.batch(AngleReproduction(), 4)


def test_memory_recall_flags_cues_and_targets():
    env = seeded(MemoryRecall, seed=21, t_min=20, t_max=40, p_recall=0.25)
    batch = env.new_trials(300)
    for i in range(300):
        n, length = int(batch.trial["n_recall"][i]), int(batch.trial["length"][i])
        assert n == int(0.25 * length)
        assert batch.lengths[i] == length
        store = batch.ob[i, : length - n]
        flagged = np.flatnonzero(store[:, 10])
        assert flagged.size == n
        targets = batch.gt[i, length - n : length]
        # The flagged patterns come back in a random order (as upstream).
        assert sorted(map(tuple, targets)) == sorted(map(tuple, store[flagged, :10]))
        assert not batch.mask[i, : length - n].any()
        assert batch.mask[i, length - n : length].all()
    cues = np.concatenate(
        [batch.ob[i, batch.lengths[i] - batch.trial["n_recall"][i] : batch.lengths[i], :10]
         for i in range(300)]
    )  # fmt: skip
    assert np.mean(cues == 0) == pytest.approx(2 * (1 - 0.7), abs=0.03)  # hidden elements


def test_memory_recall_rewards_a_good_recall_more():
    # Upstream paid the mean absolute error itself: a worse recall earned more.
    env = seeded(MemoryRecall, seed=22)

    def recall(error):
        def policy(e):
            return (np.asarray(e.gt_now, dtype=np.float32) + error).astype(np.float32)

        return policy

    perfect, info, _ = run_trial(env, recall(0.0))
    assert sum(perfect) == 0.0
    assert info["performance"] == pytest.approx(1.0)
    sloppy, _, _ = run_trial(env, recall(0.5))
    assert sum(sloppy) < 0
    assert min(sloppy) == pytest.approx(-0.5)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"p_recall": 0.6}, r"p_recall must be a finite number in \(0, 0.5\], got 0.6"),
        ({"store_signal_dim": 2}, r"store_signal_dim must be an int in \[1, 1\], got 2"),
        ({"t_min": 20, "t_max": 10}, r"t_max must be >= t_min=20, got 10"),
        ({"t_distribution": "normal"}, r"t_distribution must be one of 'uniform'"),
        ({"p_recall": 0.01}, r"recalls no pattern of a 15-step sequence"),
    ],
)
def test_memory_recall_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        MemoryRecall(**kwargs)
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        MemoryRecall(foo=1)


def test_delay_match_category_ideal_observer():
    # noiseless: every category is visible on the default two-unit ring; with the default
    # noise only directions near the boundary are in doubt
    clean = neurogym.make("DelayMatchCategory", sigma=0.0)
    assert clean.unwrapped.ideal_observer(neurogym.batch(clean, 2000, seed=0)).mean() == 1.0
    noisy = neurogym.make("DelayMatchCategory")
    score = noisy.unwrapped.ideal_observer(neurogym.batch(noisy, 20_000, seed=0)).mean()
    assert 0.9 < score < 0.99


def test_delay_paired_association_honours_a_forced_ground_truth():
    # trial wrappers (RandomGroundTruth, SideBias, ...) force it: a pair of that kind is drawn
    forced = np.array([0, 1] * 500)
    data = neurogym.batch("DelayPairedAssociation", 1000, seed=0, ground_truth=forced)
    np.testing.assert_array_equal(data.trial["ground_truth"], forced)
    pairs = {tuple(pair) for pair in data.trial["pair"].tolist()}
    assert len(pairs) == 4  # both pairs of each kind occur
    kind = int(
        neurogym.batch("DelayPairedAssociation", 1, seed=0, pair=[1, 3]).trial["ground_truth"][0]
    )
    with pytest.raises(ValueError, match="disagrees with the forced pair"):
        neurogym.batch("DelayPairedAssociation", 1, seed=0, ground_truth=1 - kind, pair=[1, 3])
    with pytest.raises(ValueError, match=r"forced pair=\[1, 2\] is not one of its values"):
        neurogym.batch("DelayPairedAssociation", 1, seed=0, pair=[1, 2])


def test_interval_discrimination_honours_a_forced_ground_truth():
    # 1: the first interval is longer; floored durations can tie, so ties are drawn again
    forced = np.array([1, 2] * 500)
    data = neurogym.batch("IntervalDiscrimination", 1000, seed=0, ground_truth=forced)
    np.testing.assert_array_equal(data.trial["ground_truth"], forced)
    first, second = data.trial["duration1"], data.trial["duration2"]
    assert (first[forced == 1] > second[forced == 1]).all()
    assert (first[forced == 2] <= second[forced == 2]).all()
    with pytest.raises(ValueError, match="disagrees with the forced durations"):
        neurogym.batch(
            "IntervalDiscrimination", 1, seed=0, ground_truth=1, duration1=300.0, duration2=500.0
        )
    equal = {"timing": {"stim1": 400, "stim2": 400}}
    with pytest.raises(ValueError, match="cannot draw durations with duration1 > duration2"):
        neurogym.batch("IntervalDiscrimination", 1, seed=0, ground_truth=1, env_kwargs=equal)
