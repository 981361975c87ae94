"""Tests of AnnubesEnv: defaults, layout, per-step rewards, max_sequential, seeding, fixes."""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest

from neurogym.testing import check_task
from neurogym.testing.trials import run_trial
from neurogym_perceptual.tasks.annubes import AnnubesEnv


def longest_runs(stimuli):
    """Longest run of consecutive trials containing each modality (and of catch trials)."""
    best: dict[str, int] = {}
    run: dict[str, int] = {}
    for stim in stimuli:
        present = set(stim) if stim else {"catch"}
        for key in set(run) | present:
            run[key] = run.get(key, 0) + 1 if key in present else 0
            best[key] = max(best.get(key, 0), run[key])
    return best


def play_trial(env, policy):
    """Steps one whole trial with ``policy(step_index, gt)``; returns rewards and last info."""
    rewards, info, _ = run_trial(env, lambda e: policy(e.t_ind, e.gt[e.t_ind]), limit=10_000)
    return rewards, info


# ---------------------------------------------------------------------------------- contract
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"dt": 20},
        {"max_sequential": 2, "fix_time": ("uniform", (300, 700)), "iti": 200},
        {"session": {"v": 1, ("a", "v"): 2}, "catch_prob": 0.2, "max_sequential": {"v": 3}},
    ],
)
def test_check_task(kwargs):
    check_task(AnnubesEnv(**kwargs))


def test_defaults_spaces_and_metadata():
    env = AnnubesEnv()
    assert env.session == {("v",): 0.5, ("a",): 0.5}
    assert env.modalities == {"a", "v"}
    assert env.catch_prob == 0.5
    assert env.max_sequential == {"a": None, "v": None, "catch": None}
    assert env.timing == {"fixation": 500, "stimulus": 1000, "iti": 0}
    assert env.rewards == {"abort": -0.1, "correct": 1.0, "fail": 0.0}
    assert env.noise_factor == pytest.approx(0.01 * np.sqrt(2))
    obs = env.observation_space
    assert obs.shape == (4,)
    assert obs.dtype == np.float32
    assert obs.name == {"fixation": 0, "start": 1, "a": 2, "v": 3}
    assert env.action_space.n == 2
    assert env.action_space.name == {"fixation": 0, "choice": (1,)}
    assert AnnubesEnv().metadata["tags"] == ["n-alternative", "perceptual", "supervised"]
    assert AnnubesEnv(output_behavior=[0, 0.5, 1]).action_space.name == {
        "fixation": 0,
        "choice": (1, 2),
    }


@pytest.mark.parametrize(
    ("kwargs", "periods", "length"),
    [
        ({}, {"fixation": (0, 5), "stimulus": (5, 15), "iti": (15, 15)}, 15),
        ({"dt": 50}, {"fixation": (0, 10), "stimulus": (10, 30), "iti": (30, 30)}, 30),
        ({"dt": 30}, {"fixation": (0, 16), "stimulus": (16, 49), "iti": (49, 49)}, 49),
        ({"iti": 200}, {"fixation": (0, 5), "stimulus": (5, 15), "iti": (15, 17)}, 17),
    ],
)
def test_trial_structure(kwargs, periods, length):
    env = AnnubesEnv(**kwargs)
    env.reset(seed=0)
    assert env.ob.shape == (length, 4)
    assert {p: (env.start_ind[p], env.end_ind[p]) for p in periods} == periods
    batch = env.new_trials(200)
    assert np.all(batch.lengths == length)
    for name, (start, end) in periods.items():
        assert np.all(batch.periods[name][0] == start)
        assert np.all(batch.periods[name][1] == end)
    assert batch.mask[:, :length].all()


# ------------------------------------------------------------------------------ observations
@pytest.mark.parametrize("stim_types", [(), ("a",), ("v",), ("a", "v")])
def test_observations_and_gt_per_period(stim_types):
    env = AnnubesEnv(noise_std=0.0, fix_intensity=0.3, iti=300)
    env.reset(seed=1)
    trial = env.new_trial(stim_types=stim_types, stim_values={"a": 0.8, "v": 0.9})
    assert trial["catch"] == (stim_types == ())
    assert trial["stim_types"] == stim_types
    assert trial["stim_values"] == {m: {"a": 0.8, "v": 0.9}[m] for m in stim_types}
    fix, stim, iti = slice(0, 5), slice(5, 15), slice(15, 18)
    ob = env.ob
    np.testing.assert_allclose(ob[fix, 0], 0.3)
    np.testing.assert_array_equal(ob[stim, 0], 0)
    np.testing.assert_array_equal(ob[iti], 0)
    np.testing.assert_array_equal(ob[fix, 1], 0)
    np.testing.assert_array_equal(ob[stim, 1], 1)
    np.testing.assert_array_equal(ob[fix, 2:], 0)
    for dim, modality, value in ((2, "a", 0.8), (3, "v", 0.9)):
        expected = value if modality in stim_types else 0.0
        np.testing.assert_allclose(ob[stim, dim], expected, rtol=1e-6)
    expected_gt = np.zeros(18, dtype=int)
    if stim_types:
        expected_gt[stim] = 1
    np.testing.assert_array_equal(env.gt, expected_gt)


def test_noise_only_on_presented_modalities():
    env = AnnubesEnv(dt=20, noise_std=0.05, tau=100)
    env.reset(seed=2)
    batch = env.new_trials(400, stim_types="v", stim_values={"v": 0.9})
    stim = batch.ob[:, 25:75]
    factor = 0.05 * np.sqrt(2 * 0.2) / 0.2
    assert stim[..., 3].std() == pytest.approx(factor, rel=0.03)
    assert stim[..., 3].mean() == pytest.approx(0.9, abs=0.005)
    np.testing.assert_array_equal(stim[..., 2], 0)
    np.testing.assert_array_equal(batch.ob[:, :25, 2:], 0)


def test_the_stimulus_encodes_the_ground_truth():
    env = AnnubesEnv(session={"a": 1, "v": 1, ("a", "v"): 2})
    env.reset(seed=3)
    batch = env.new_trials(2000)
    catch = batch.trial["catch"].astype(bool)
    stimuli = batch.trial["stim_types"]
    assert np.mean(catch) == pytest.approx(0.5, abs=0.04)
    shares = {s: np.mean([x == s for x in stimuli[~catch]]) for s in [("a",), ("v",), ("a", "v")]}
    assert shares == pytest.approx({("a",): 0.25, ("v",): 0.25, ("a", "v"): 0.5}, abs=0.04)
    # gt is 1 during the stimulus exactly on non-catch trials
    np.testing.assert_array_equal(batch.gt[:, 5:15], np.repeat(~catch[:, None], 10, axis=1))
    np.testing.assert_array_equal(batch.gt[:, :5], 0)
    means = batch.ob[:, 5:15, 2:].mean(axis=1)
    for dim, modality in ((0, "a"), (1, "v")):
        shown = np.array([modality in s for s in stimuli])
        assert np.all(means[shown, dim] > 0.75)
        np.testing.assert_array_equal(means[~shown, dim], 0)
        values = [v[modality] for v in batch.trial["stim_values"][shown]]
        assert set(values) == {0.8, 0.9, 1.0}
        assert np.mean(values) == pytest.approx(0.9, abs=0.01)
        np.testing.assert_allclose(means[shown, dim], values, atol=0.02)


# ----------------------------------------------------------------------------------- rewards
def test_perfect_agent_is_paid_every_stimulus_step():
    env = AnnubesEnv()
    env.reset(seed=4)
    for stim_types in [("a",), ()]:
        env.new_trial(stim_types=stim_types)
        trial = env.trial
        rewards, info = play_trial(env, lambda k, gt: int(gt))
        assert len(rewards) == 15
        assert rewards == [0.0] * 5 + [1.0] * 10
        assert info["performance"] == 1
        assert info["trial"] is trial
        assert info["gt"] == (0 if stim_types == () else 1)


def test_a_trial_is_correct_only_when_every_stimulus_step_is():
    # upstream counted one correct step as a correct trial (a random policy scored 1.0)
    env = AnnubesEnv()
    env.reset(seed=7)
    for late in (5, 9, 14):  # miss one stimulus step: the first, a middle or the last
        env.new_trial(stim_types="v")
        rewards, info = play_trial(env, lambda k, gt, late=late: 0 if k == late else int(gt))
        assert rewards.count(1.0) == 9
        assert info["performance"] == 0
    env.new_trial(catch=True)
    _, info = play_trial(env, lambda k, gt: int(k == 7))  # one response on a catch trial
    assert info["performance"] == 0


def test_always_respond_agent():
    env = AnnubesEnv(rewards={"fail": -1.0})
    env.reset(seed=5)
    env.new_trial(stim_types="v")
    rewards, info = play_trial(env, lambda k, gt: 1)
    # breaking fixation pays abort at every step but does not end the trial
    assert rewards == [-0.1] * 5 + [1.0] * 10
    assert info["performance"] == 1
    env.new_trial(catch=True)
    rewards, info = play_trial(env, lambda k, gt: 1)
    assert rewards == [-0.1] * 5 + [-1.0] * 10
    assert info["performance"] == 0


def test_silent_agent_and_iti_aborts():
    env = AnnubesEnv(iti=300)
    env.reset(seed=6)
    env.new_trial(stim_types="a")
    rewards, info = play_trial(env, lambda k, gt: 0)
    assert rewards == [0.0] * 5 + [0.0] * 10 + [0.0] * 3
    assert info["performance"] == 0
    env.new_trial(stim_types="a")
    rewards, _ = play_trial(env, lambda k, gt: 1 if k >= 15 else int(gt))
    assert len(rewards) == 18  # the trial ends by timeout after the iti
    assert rewards == [0.0] * 5 + [1.0] * 10 + [-0.1] * 3


# ------------------------------------------------------------------------------ trial lengths
@pytest.mark.parametrize(("dt", "low", "high", "mean"), [(100, 13, 16, 14.5), (50, 26, 33, 29.5)])
def test_trial_lengths_with_a_random_fixation(dt, low, high, mean):
    env = AnnubesEnv(dt=dt, fix_time=("uniform", (300, 700)))
    env.reset(seed=7)
    lengths = env.new_trials(5000).lengths
    assert (lengths.min(), lengths.max()) == (low, high)
    assert lengths.mean() == pytest.approx(mean, abs=0.1)
    counts = np.bincount(lengths - low) / 5000
    np.testing.assert_allclose(counts, 1 / (high - low + 1), atol=0.03)
    stats = env.trial_length_stats(5000)
    assert stats["mean"] == pytest.approx(mean, abs=0.1)
    assert stats["max"] == high


def test_constant_trial_length_stats():
    env = AnnubesEnv()
    assert env.trial_length_stats(500) == {
        "mean": 15.0,
        "std": 0.0,
        "percentile_95": 15.0,
        "max": 15.0,
    }


# ------------------------------------------------------------------------------ forced kwargs
def test_forced_kwargs_single_trials():
    env = AnnubesEnv(session={"a": 1, "v": 1})
    env.reset(seed=8)
    assert env.new_trial(stim_types="v")["stim_types"] == ("v",)
    assert env.new_trial(stim_types=("v", "a"))["stim_types"] == ("a", "v")
    assert env.new_trial(stim_types=())["catch"]
    assert env.new_trial(catch=True)["stim_types"] == ()
    for _ in range(50):
        assert env.new_trial(catch=False)["stim_types"] in [("a",), ("v",)]
    trial = env.new_trial(stim_types="a", stim_values={"a": 0.42})
    assert trial["stim_values"] == {"a": 0.42}


def test_forced_kwargs_per_trial_in_a_batch():
    env = AnnubesEnv()
    env.reset(seed=9)
    forced = ["a", (), ("a", "v"), "v"]
    batch = env.new_trials(4, stim_types=forced, stim_values=[{}, {}, {"v": 0.5}, {"v": 0.6}])
    assert list(batch.trial["stim_types"]) == [("a",), (), ("a", "v"), ("v",)]
    np.testing.assert_array_equal(batch.trial["catch"], [False, True, False, False])
    assert batch.trial["stim_values"][2]["v"] == 0.5
    assert batch.trial["stim_values"][3] == {"v": 0.6}
    catch = np.array([True, False, True, False, False])
    batch = env.new_trials(5, catch=catch)
    np.testing.assert_array_equal(batch.trial["catch"], catch)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"stim_types": "x"}, ValueError, r"modalities outside this session's \['a', 'v'\]"),
        ({"stim_types": 3}, TypeError, "a stimulus is a modality name"),
        ({"stim_types": "v", "catch": True}, ValueError, "catch=True contradicts"),
        ({"stim_values": {"x": 1}}, ValueError, "unknown modality 'x'"),
        ({"stim_types": ["a", "v"]}, ValueError, "2 values for a batch of 1 trials"),
    ],
)
def test_bad_forced_kwargs(kwargs, error, message):
    env = AnnubesEnv()
    env.reset(seed=9)
    with pytest.raises(error, match=message):
        env.new_trial(**kwargs)


# ------------------------------------------------------------------------------ determinism
def test_reset_seed_fixes_every_trial():
    a, b = AnnubesEnv(), AnnubesEnv()
    a.reset(seed=10)
    b.reset(seed=10)
    for _ in range(20):
        np.testing.assert_array_equal(a.ob, b.ob)
        assert a.trial["stim_types"] == b.trial["stim_types"]
        assert a.trial["stim_values"] == b.trial["stim_values"]
        a.new_trial()
        b.new_trial()
    np.testing.assert_array_equal(a.new_trials(50).ob, b.new_trials(50).ob)


def test_random_seed_seeds_the_env_generator():
    seeded = AnnubesEnv(random_seed=3)
    seeded.reset()
    reference = AnnubesEnv()
    reference.reset(seed=3)
    np.testing.assert_array_equal(seeded.ob, reference.ob)
    assert seeded.trial == reference.trial
    other = AnnubesEnv(random_seed=3)
    other.reset()
    np.testing.assert_array_equal(other.ob, seeded.ob)


@pytest.mark.parametrize("frozen_seed", [False, True])
def test_copies_continue_the_generator(frozen_seed):
    env = AnnubesEnv(frozen_seed=frozen_seed)
    env.reset(seed=4)
    clone = copy.deepcopy(env)
    np.testing.assert_array_equal(env.new_trials(20).ob, clone.new_trials(20).ob)


# --------------------------------------------------------------------------- max_sequential
def test_max_sequential_holds_within_a_batch():
    env = AnnubesEnv(session={"v": 9, "a": 1}, catch_prob=0.1, max_sequential=2)
    env.reset(seed=11)
    stimuli = env.new_trials(5000).trial["stim_types"]
    runs = longest_runs(stimuli)
    assert runs["v"] == 2
    assert runs["a"] <= 2
    assert runs["catch"] >= 3  # an int limit does not apply to catch trials


def test_max_sequential_holds_across_single_trials_and_batches():
    env = AnnubesEnv(session={"v": 9, "a": 1}, catch_prob=0.1, max_sequential=2)
    env.reset(seed=12)
    stimuli = [env.trial["stim_types"]]
    for _ in range(300):
        stimuli.append(env.new_trial()["stim_types"])
    for _ in range(50):
        _, info = play_trial(env, lambda k, gt: int(gt))
        assert info["trial"]["stim_types"] == stimuli[-1]
        stimuli.append(env.trial["stim_types"])
    for n in (1, 3, 7, 200):  # consecutive batches continue the counts
        stimuli.extend(env.new_trials(n).trial["stim_types"])
    assert longest_runs(stimuli)["v"] == 2
    counts = env.new_trial()["sequential_count"]
    assert counts == env.sequential_count
    assert set(counts) == {"a", "v", "catch"}


def test_counts_restart_at_reset():
    env = AnnubesEnv(session={"v": 1}, catch_prob=0.5, max_sequential={"v": 1})
    env.reset(seed=13)
    env.new_trial(stim_types="v")
    assert env.sequential_count == {"v": 1, "catch": 0}
    env.reset(seed=13)
    assert env.sequential_count == env.trial["sequential_count"]
    assert max(env.trial["sequential_count"].values()) == 1


def test_sequential_count_snapshots():
    # upstream stored the one live dict in every trial, so all trial dicts showed the latest
    env = AnnubesEnv()
    env.reset(seed=14)
    batch = env.new_trials(30)
    snapshots = batch.trial["sequential_count"]
    for snapshot, stim in zip(snapshots, batch.trial["stim_types"], strict=True):
        present = set(stim) if stim else {"catch"}
        assert all(snapshot[k] >= 1 for k in present)
        assert all(snapshot[k] == 0 for k in set(snapshot) - present)
    assert snapshots[0] is not snapshots[1]


# ----------------------------------------------------------------------------- fixed bugs
def test_fix_buildable_with_defaults():
    # upstream 2.3.1: AnnubesEnv() raised TypeError (session and catch_prob required)
    env = AnnubesEnv()
    ob, _ = env.reset(seed=0)
    assert ob.shape == (4,)


def test_fix_env_seed_reaches_modality_and_intensity():
    # upstream drew modality and intensity from a private, unseeded generator: two envs reset
    # with the same seed showed different stimulus sequences
    sequences = []
    for _ in range(2):
        env = AnnubesEnv()
        env.reset(seed=21)
        batch = env.new_trials(100)
        sequences.append((list(batch.trial["stim_types"]), list(batch.trial["stim_values"])))
    assert sequences[0] == sequences[1]


def test_fix_per_modality_max_sequential_is_honoured():
    # upstream 2.3.1 turned every value of a max_sequential dict into None (no limit)
    env = AnnubesEnv(session={"v": 0.9, "a": 0.1}, catch_prob=0.05, max_sequential={"v": 1})
    env.reset(seed=22)
    stimuli = env.new_trials(5000).trial["stim_types"]
    runs = longest_runs(stimuli)
    assert runs["v"] == 1
    assert runs["a"] >= 2  # no limit on "a"


def test_fix_catch_limit_is_honoured():
    # upstream reset the catch count to 1 on every catch trial (and ignored the dict anyway),
    # so a limit of 2 never held
    env = AnnubesEnv(catch_prob=0.9, max_sequential={"catch": 2})
    env.reset(seed=23)
    stimuli = env.new_trials(5000).trial["stim_types"]
    assert longest_runs(stimuli)["catch"] == 2
    assert AnnubesEnv(catch_prob=0.9, max_sequential={None: 2}).max_sequential["catch"] == 2


def test_fix_observations_lie_in_the_observation_space():
    # upstream declared Box(0, 1) although intensity 1.0 plus noise exceeds 1
    env = AnnubesEnv(noise_std=0.1)
    env.reset(seed=24)
    batch = env.new_trials(200, stim_types="v", stim_values={"v": 1.0})
    assert batch.ob.max() > 1
    assert all(env.observation_space.contains(row) for row in batch.ob[0])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"session": {"v": 1}, "catch_prob": 0, "max_sequential": 3}, "can block every"),
        (
            {"session": {"a": 1, "v": 1, ("a", "v"): 1}, "catch_prob": 0, "max_sequential": 1},
            r"can block every stimulus after \('a', 'v'\)",
        ),
        ({"catch_prob": 1, "max_sequential": {"catch": 3}}, "catch_prob=1 makes every trial"),
    ],
)
def test_fix_infeasible_max_sequential_fails_at_construction(kwargs, message):
    # upstream only caught the single-modality case and otherwise failed while drawing
    with pytest.raises(ValueError, match=message):
        AnnubesEnv(**kwargs)


def test_feasible_limits_without_catch_trials():
    env = AnnubesEnv(session={"a": 1, "v": 1}, catch_prob=0, max_sequential=1)
    env.reset(seed=25)
    stimuli = env.new_trials(500).trial["stim_types"]
    assert not any(s == () for s in stimuli)
    assert all(a != b for a, b in itertools.pairwise(stimuli))  # strict alternation


# ------------------------------------------------------------------------ constructor errors
@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"catch_prob": 1.5},
            ValueError,
            r"catch_prob must be a finite number in \[0, 1\], got 1.5",
        ),
        ({"session": {}}, TypeError, "session must be a non-empty dict"),
        ({"session": {"v": -1}}, ValueError, r"session\['v'\] = -1: probabilities"),
        ({"session": {"v": 0}}, ValueError, "at least one probability must be > 0"),
        ({"session": {"Catch": 1}}, ValueError, "'catch' is reserved"),
        ({"session": {3: 1}}, TypeError, "a stimulus is a modality name"),
        ({"intensities": {"v": [1]}}, ValueError, r"one entry per modality \['a', 'v'\]"),
        ({"intensities": []}, ValueError, r"intensities\['.'\] = \[\]"),
        ({"max_sequential": 0}, ValueError, r"max_sequential\['\*'\] = 0: expected an int"),
        ({"max_sequential": {"x": 1}}, ValueError, "max_sequential key 'x' is neither"),
        ({"max_sequential": 1.5}, TypeError, "max_sequential must be an int, a dict or None"),
        ({"output_behavior": [0]}, ValueError, "output_behavior needs at least 2 levels"),
        ({"fix_time": "long"}, TypeError, "fix_time='long' is not a valid timing spec"),
        ({"iti": -5}, ValueError, "iti=-5 is not a valid timing spec"),
        ({"tau": 0}, ValueError, "tau must be a finite number > 0"),
        ({"random_seed": -1}, ValueError, "random_seed must be None or an int >= 0, got -1"),
        ({"fix_intensity": "x"}, TypeError, "fix_intensity must be a finite number"),
    ],
)
def test_constructor_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        AnnubesEnv(**kwargs)


def test_catch_prob_one_with_shown_stimuli_raises_as_upstream():
    with pytest.raises(ValueError, match=r"^catch_prob=1 makes every trial a catch trial"):
        AnnubesEnv(session={"a": 0.5, "v": 0.5}, catch_prob=1.0)
