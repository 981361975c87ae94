"""The value-based tasks: structure, rewards, seeding, bad input, supervised-data contract."""

from __future__ import annotations

import ast
import hashlib
import pickle
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import neurogym
from neurogym.testing import check_task
from neurogym.testing.trials import (
    assert_lengths_follow,
    choice_steps,
    const_steps,
    convolve,
    correct,
    respond,
    run_trial,
    seeded,
)
from neurogym_valuebased.tasks.bandit import Bandit
from neurogym_valuebased.tasks.changingenvironment import ChangingEnvironment
from neurogym_valuebased.tasks.dawtwostep import DawTwoStep
from neurogym_valuebased.tasks.economicdecisionmaking import EconomicDecisionMaking
from neurogym_valuebased.tasks.ibl import IBL, IBLBlock
from neurogym_valuebased.tasks.matchingpenny import MatchingPenny

TASKS = (
    Bandit,
    ChangingEnvironment,
    DawTwoStep,
    EconomicDecisionMaking,
    IBL,
    IBLBlock,
    MatchingPenny,
)


@pytest.mark.parametrize("task", TASKS)
def test_check_task(task):
    check_task(task())


@pytest.mark.parametrize(
    ("task", "kwargs"),
    [
        (Bandit, {"n": 3, "p": (0.1, 0.5, 0.9), "arm_rewards": (1, 2, 3)}),
        (ChangingEnvironment, {"cxt_cue": True, "cxt_ch_prob": 0.2}),
        (MatchingPenny, {"opponent_type": "random"}),
    ],
)
def test_check_task_variants(task, kwargs):
    check_task(task(**kwargs))


def test_plugin_lists_its_seven_tasks():
    ids = [spec.id for spec in neurogym.tasks(plugin="valuebased")]
    assert ids == [f"neurogym/{t.__name__}-v0" for t in TASKS]


# ------------------------------------------------------------------ seeding


def _episode_digest(task_id, seed=7, steps=300):
    env = neurogym.make(task_id)
    ob, _ = env.reset(seed=seed)
    space = env.action_space
    space.seed(seed)
    parts = [ob.tobytes()]
    for _ in range(steps):
        ob, reward, *_ = env.step(space.sample())
        parts.append(ob.tobytes() + np.float64(reward).tobytes())
    return hashlib.sha256(b"".join(parts)).hexdigest()


_DIGESTS = """
import sys
sys.path.insert(0, {path!r})
from test_tasks import _episode_digest
print([_episode_digest(f"neurogym/{{name}}-v0") for name in {names!r}])
"""


def test_reset_seed_fixes_whole_episodes_across_processes_and_pickling():
    names = [t.__name__ for t in TASKS]
    here = [_episode_digest(f"neurogym/{name}-v0") for name in names]
    code = _DIGESTS.format(path=str(Path(__file__).parent), names=names)
    other = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert ast.literal_eval(other.stdout) == here  # a fresh process replays every episode
    for name in names:  # and a pickled env continues exactly as the original
        env_a = neurogym.make(name)
        env_a.reset(seed=3)
        for _ in range(50):
            env_a.step(env_a.action_space.sample())
        env_b = pickle.loads(pickle.dumps(env_a))
        for action in [0, 1, 1, 0, 1] * 20:
            a, b = env_a.step(action), env_b.step(action)
            np.testing.assert_array_equal(a[0], b[0])
            assert a[1] == b[1]


@pytest.mark.parametrize("task", ["ChangingEnvironment", "IBL", "IBLBlock", "DawTwoStep"])
def test_make_vec_equals_n_seeded_single_envs(task):
    n, steps = 3, 120
    vec = gymnasium.make_vec(f"neurogym/{task}-v0", num_envs=n)
    singles = [neurogym.make(task) for _ in range(n)]
    obs, _ = vec.reset(seed=10)
    for i, env in enumerate(singles):
        np.testing.assert_array_equal(obs[i], env.reset(seed=10 + i)[0])
    rng = np.random.default_rng(0)
    for _ in range(steps):
        actions = rng.integers(0, singles[0].action_space.n, size=n)
        obs, rewards, *_ = vec.step(actions)
        for i, env in enumerate(singles):
            ob, reward, *_ = env.step(int(actions[i]))
            np.testing.assert_array_equal(obs[i], ob)
            assert rewards[i] == reward


# ------------------------------------------------------------------ supervised data


@pytest.mark.parametrize("task", ["Bandit", "DawTwoStep", "MatchingPenny"])
def test_tasks_without_ground_truth_refuse_supervised_data(task):
    message = (
        rf"needs supervised targets, but {task} declares has_groundtruth = False.*"
        "reinforcement learning"
    )
    with pytest.raises(ValueError, match=message):
        neurogym.batch(task, 4, seed=0)
    with pytest.raises(ValueError, match=message):
        neurogym.Dataset(task, batch_size=4, seq_len=10, seed=0)


@pytest.mark.parametrize(
    "task", ["EconomicDecisionMaking", "ChangingEnvironment", "IBL", "IBLBlock"]
)
def test_tasks_with_ground_truth_make_supervised_batches(task):
    inputs, targets, mask, _ = neurogym.batch(task, 16, seed=0)
    assert inputs.dtype == np.float32
    assert mask.any()
    assert set(np.unique(targets[mask])) <= set(range(1, 5)) | {0}
    batch = neurogym.Dataset(task, batch_size=8, seq_len=30, seed=1).next_batch()
    assert batch.inputs.shape[:2] == (30, 8)
    assert batch.mask.any()


# ------------------------------------------------------------------ Bandit


def test_bandit_observations_are_float32_and_rewards_follow_p():
    # Upstream returned float64 observations against a float32 space.
    env = seeded(Bandit, seed=0, p=(0.9, 0.2), arm_rewards=(1.0, 5.0))
    ob, _ = env.reset(seed=0)
    assert ob.dtype == np.float32
    assert env.arm_rewards.tolist() == [1.0, 5.0]  # public (upstream: private _rewards)
    n = 4000
    for arm, (p, magnitude) in enumerate([(0.9, 1.0), (0.2, 5.0)]):
        results = [env.step(arm) for _ in range(n)]
        assert all(r[0].dtype == np.float32 and r[4]["new_trial"] for r in results)
        rewards = np.array([r[1] for r in results])
        assert set(np.unique(rewards)) <= {0.0, magnitude}
        assert abs((rewards > 0).mean() - p) < 4 * np.sqrt(p * (1 - p) / n)
    # performance: 1 for an arm of highest expected reward (0.2 * 5 > 0.9 * 1)
    assert env.step(1)[4]["performance"] == 1
    assert env.step(0)[4]["performance"] == 0


def test_bandit_fail_reward_and_forced_probabilities():
    env = seeded(Bandit, seed=1, rewards={"fail": -1.0})
    env.new_trial(p=(0.0, 1.0), arm_rewards=(3.0, 2.0))
    assert env.step(0)[1] == -1.0
    env.new_trial(p=(0.0, 1.0), arm_rewards=(3.0, 2.0))
    assert env.step(1)[1] == 2.0
    with pytest.raises(ValueError, match=r"forced p\[1\] must be a finite number in \[0, 1\]"):
        env.new_trial(p=(0.5, 1.5))
    with pytest.raises(ValueError, match=r"forced arm_rewards must hold one value per arm"):
        env.new_trial(arm_rewards=(1.0, 2.0, 3.0))


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"timing": {"fixation": 100}}, ValueError, r"Bandit has no timed periods"),
        ({"rewards": [1.0, 2.0]}, TypeError, r"the per-arm magnitudes are arm_rewards="),
        ({"p": (0.5, 0.3, 0.2)}, ValueError, r"p must hold one value per arm \(n=2\)"),
        ({"p": (0.5, 1.2)}, ValueError, r"p\[1\] must be a finite number in \[0, 1\]"),
        ({"n": 0}, ValueError, r"n must be an int >= 1, got 0"),
        ({"arm_rewards": (1.0,)}, ValueError, r"arm_rewards must hold one value per arm"),
        ({"rewards": {"correct": 1.0}}, ValueError, r"has no key 'correct'; valid keys: 'fail'"),
    ],
)
def test_bandit_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        Bandit(**kwargs)


# ------------------------------------------------------------------ EconomicDecisionMaking


def test_economic_decision_making_inputs_ground_truth_and_values():
    env = seeded(EconomicDecisionMaking, seed=2)
    batch = env.new_trials(400)
    juice, offer = batch.trial["juice"], batch.trial["offer"]
    first_a = juice[:, 0] == "a"
    n1 = np.where(first_a, offer[:, 1], offer[:, 0])
    n2 = np.where(first_a, offer[:, 0], offer[:, 1])
    offer_steps = slice(15, 25)  # fixation 1500 ms; offer_on at least 1000 ms
    shown = batch.ob[:, offer_steps]
    amounts = np.stack([n1, n2], axis=1)[:, None, :] / 5.0
    np.testing.assert_allclose(shown[:, :, 5:], np.broadcast_to(amounts, (400, 10, 2)), rtol=1e-6)
    identity = np.stack([first_a, ~first_a, ~first_a, first_a], 1)
    np.testing.assert_array_equal(shown[:, 0, 1:5], identity)
    np.testing.assert_array_equal(batch.ob[:, :15, 0], 1)  # fixation input
    value_a, value_b = 0.22, 0.22 / 2.2
    v1 = n1 * np.where(first_a, value_a, value_b)
    v2 = n2 * np.where(first_a, value_b, value_a)
    np.testing.assert_allclose(batch.trial["value1"], v1)
    better = np.where(v1 > v2, 1, 2)
    decision = batch.gt[np.arange(400), batch.lengths - 1]
    np.testing.assert_array_equal(decision, better)  # upstream had no ground truth (gt 0)
    np.testing.assert_array_equal(batch.mask.sum(1), 7)  # the decision period: 700 ms


def test_economic_decision_making_ties_are_masked_and_both_choices_count():
    env = seeded(EconomicDecisionMaking, seed=3)
    batch = env.new_trials(2, offer=[(0, 0), (2, 1)], juice=("a", "b"))
    assert not batch.mask[0].any()  # a tie: no target to learn
    assert batch.mask[1].sum() == 7
    assert batch.trial["ground_truth"].tolist() == [0, 1]
    for choice in (1, 2):
        env.new_trial(offer=(0, 0))
        rewards, info, _ = run_trial(env, respond(lambda e, c=choice: c))
        assert (rewards[-1], info["performance"]) == (0.0, 1)


def test_economic_decision_making_rewards_are_the_chosen_value():
    env = seeded(EconomicDecisionMaking, seed=4)
    for _ in range(30):
        values = (env.trial["value1"], env.trial["value2"])
        target = int(env.trial["ground_truth"])
        rewards, info, _ = run_trial(env, respond(correct))
        assert rewards[-1] == pytest.approx(values[target - 1])
        assert info["performance"] == 1
        rewards, info, _ = run_trial(env, respond(lambda e: 3 - int(e.gt_now)))
        assert info["performance"] == 0
    _, reward, *_, info = env.step(1)  # responding during fixation
    assert reward == pytest.approx(-0.1)
    assert not info["new_trial"]


def test_economic_decision_making_trial_lengths():
    # fixation 15 steps + offer_on floor(U(1000, 2000) / 100) + decision 7 (750 floors to 700)
    lengths = seeded(EconomicDecisionMaking, seed=5).new_trials(4000).lengths
    offer = dict.fromkeys(range(10, 20), 0.1)
    assert_lengths_follow(lengths, convolve(const_steps(1500, 100), offer, const_steps(700, 100)))
    assert lengths.min() == 32
    assert lengths.max() == 41
    assert choice_steps((750,), 100) == {7: 1.0}


# ------------------------------------------------------------------ DawTwoStep


def test_daw_two_step_transitions_come_from_the_seeded_generator():
    # Upstream left transition[0] uninitialised (np.empty): it depended on the process.
    a, b = seeded(DawTwoStep, seed=6), seeded(DawTwoStep, seed=6)
    ta = [a.new_trial()["transition"] for _ in range(2000)]
    tb = [b.new_trial()["transition"] for _ in range(2000)]
    np.testing.assert_array_equal(ta, tb)
    transitions = np.array(ta)
    assert (transitions[:, 0] == 0).all()
    common = np.mean(transitions[:, 1] == 1), np.mean(transitions[:, 2] == 2)
    assert all(abs(c - 0.8) < 4 * np.sqrt(0.16 / 2000) for c in common)


def test_daw_two_step_observations_rewards_and_aborts():
    env = DawTwoStep()
    ob, _ = env.reset(seed=7)
    np.testing.assert_array_equal(ob, [1, 0, 0])  # stage 1 (upstream: a hidden random step)
    assert ob.dtype == np.float32
    for _ in range(40):
        trial = env.trial
        action = 1 + int(env.np_random.random() < 0.5)
        ob, reward, _, _, info = env.step(action)
        state = int(trial["transition"][action])
        np.testing.assert_array_equal(ob, np.eye(3, dtype=np.float32)[state])
        assert ob.dtype == np.float32
        assert reward == trial["reward"][state - 1]
        assert not info["new_trial"]
        ob, reward, _, _, info = env.step(0)
        assert (reward, info["new_trial"]) == (0.0, True)
        assert info["performance"] == int(action == trial["hi_state"] + 1)
        np.testing.assert_array_equal(ob, [1, 0, 0])
    ob, reward, _, _, info = env.step(0)  # fixating at stage 1 aborts the trial
    assert (reward, info["new_trial"]) == (-0.1, True)
    np.testing.assert_array_equal(ob, [1, 0, 0])  # upstream showed zeros here
    env.step(1)
    assert env.step(2)[1] == -0.1  # acting at stage 2


def test_daw_two_step_high_state_switches_at_its_rate_and_restarts_on_reset():
    env = seeded(DawTwoStep, seed=8)
    hi = np.array([env.new_trial()["hi_state"] for _ in range(20000)])
    rate = np.mean(hi[1:] != hi[:-1])
    assert abs(rate - 0.025) < 4 * np.sqrt(0.025 * 0.975 / 20000)
    for _ in range(10):
        env.new_trial()
    assert not env.state1_high_reward  # state 2 is high after these 20010 trials
    env.reset(seed=8)  # and the high state restarts at state 1
    fresh = seeded(DawTwoStep, seed=8)
    for _ in range(200):
        assert env.new_trial()["hi_state"] == fresh.new_trial()["hi_state"]
    with pytest.raises(ValueError, match="DawTwoStep has no timed periods"):
        DawTwoStep(timing={"stage1": 100})


# ------------------------------------------------------------------ MatchingPenny


def test_matching_penny_shows_the_opponents_previous_choice():
    env = MatchingPenny(opponent_type="random")
    ob, _ = env.reset(seed=9)
    first = int(env.trial["previous_opponent"])
    np.testing.assert_array_equal(ob, np.eye(2)[first])
    for _ in range(50):
        opponent = int(env.trial["opponent_action"])
        ob, reward, _, _, info = env.step(1)
        assert info["gt"] == opponent
        assert reward == float(opponent == 1)
        np.testing.assert_array_equal(ob, np.eye(2)[opponent])
        assert ob.dtype == np.float32
    firsts = {int(seeded(MatchingPenny, seed=s).trial["previous_opponent"]) for s in range(20)}
    assert firsts == {0, 1}  # drawn from the seed (upstream: at construction, unseeded)


def test_matching_penny_reset_restarts_the_opponent():
    env = seeded(MatchingPenny, seed=10)
    for _ in range(10):
        env.step(1)
    assert env.mean_action > 0.8
    env.reset(seed=10)
    assert env.mean_action == 0.0
    assert env.trial["opponent_action"] == 1


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"opponent_type": "mean"}, ValueError, r"opponent_type must be one of 'mean_action'"),
        ({"learning_rate": 1.5}, ValueError, r"learning_rate must be a finite number in \[0, 1\]"),
        ({"timing": {"choice": 100}}, ValueError, r"MatchingPenny has no timed periods"),
    ],
)
def test_matching_penny_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        MatchingPenny(**kwargs)


# ------------------------------------------------------------------ ChangingEnvironment


def test_changing_environment_stimulus_and_ground_truth():
    env = seeded(ChangingEnvironment, seed=11, sigma=0.0, cxt_ch_prob=0.3)
    batch = env.new_trials(500)
    side, coh, context = (batch.trial[k] for k in ("side", "coh", "context"))
    np.testing.assert_array_equal(batch.trial["ground_truth"], side + 2 * context)
    stim = batch.ob[:, 5]  # the first stimulus step (fixation: 5 steps)
    high = (1 + coh / 100) / 2
    np.testing.assert_allclose(stim[np.arange(500), side], high, rtol=1e-6)
    np.testing.assert_allclose(stim[np.arange(500), 3 - side], 1 - high, rtol=1e-6)
    np.testing.assert_array_equal(batch.ob[:, :5, 0], 1)
    decision = batch.gt[np.arange(500), batch.lengths - 1]
    np.testing.assert_array_equal(decision, side + 2 * context)
    env.reset(seed=12)
    for _ in range(20):
        rewards, info, _ = run_trial(env, respond(correct))
        assert (rewards[-1], info["performance"]) == (1.0, 1)


def test_changing_environment_context_cue_shows_each_side_on_its_own_channel():
    # Upstream wrote side 1 onto the fixation channel (index 1) when cxt_cue was on.
    env = seeded(ChangingEnvironment, seed=13, sigma=0.0, cxt_cue=True, cxt_ch_prob=0.3)
    batch = env.new_trials(300)
    side, coh, context = (batch.trial[k] for k in ("side", "coh", "context"))
    stim = batch.ob[:, 5]
    np.testing.assert_allclose(stim[np.arange(300), side + 1], (1 + coh / 100) / 2, rtol=1e-6)
    np.testing.assert_array_equal(stim[:, 1], 0)  # the fixation channel is off
    np.testing.assert_array_equal(stim[:, 0], context)  # the cue
    np.testing.assert_array_equal(batch.ob[:, :5, 1], 1)
    np.testing.assert_array_equal(batch.ob[:, :5, 0], 0)  # no cue during fixation (upstream)


def test_changing_environment_forced_variables():
    env = seeded(ChangingEnvironment, seed=14)
    context = env.trial["context"]
    trial = env.new_trial(ground_truth=2 + 2 * context)
    assert (trial["side"], trial["ground_truth"]) == (2, 2 + 2 * context)
    with pytest.raises(ValueError, match=r"needs context .* the answer of side s in context c"):
        env.new_trial(ground_truth=1 + 2 * (1 - context))
    with pytest.raises(TypeError, match="cxt_cue must be True or False"):
        ChangingEnvironment(cxt_cue="yes")


# ------------------------------------------------------------------ IBL


def test_ibl_observation_is_the_trial_answered_next_and_only_the_side_pays():
    env = IBL()
    ob, _ = env.reset(seed=15)
    for _ in range(200):
        side = int(env.trial["ground_truth"])
        coh = float(env.trial["coh"])
        expected = 0.5 + np.where(np.arange(2) == side, 1, -1) * coh / 200
        assert np.all(np.abs(ob - expected) < 0.6)  # noise std 0.1
        np.testing.assert_array_equal(ob, env.ob[0])
        wrong = 1 - side
        ob, reward, _, _, info = env.step(wrong)  # upstream paid correct for any action
        assert (reward, info["performance"], info["new_trial"]) == (0.0, 0, True)
    noise = seeded(IBL, seed=16).new_trials(4000)
    centred = noise.ob[:, 0] - (
        0.5
        + np.where(noise.trial["ground_truth"][:, None] == [0, 1], 1, -1)
        * noise.trial["coh"][:, None]
        / 200
    )
    assert centred.std() == pytest.approx(0.1, rel=0.05)
    env.reset(seed=17)
    rewards = [env.step(int(env.trial["ground_truth"]))[1] for _ in range(20)]
    assert rewards == [1.0] * 20


def test_ibl_sides_are_unbiased_and_every_env_differs():
    sides = seeded(IBL, seed=18).new_trials(4000).trial["ground_truth"]
    assert abs(sides.mean() - 0.5) < 4 * np.sqrt(0.25 / 4000)
    a, b = seeded(IBL, seed=19), seeded(IBL, seed=20)  # upstream: default_rng(0) in every env
    assert not np.array_equal(a.new_trials(50).ob, b.new_trials(50).ob)


def test_ground_truth_wrappers_refuse_changing_environment():
    # A wrapper forcing ground_truth from `choices` (the sides) would answer side s with action
    # s whatever the context; upstream recorded such a value over its own ground truth.
    from neurogym.wrappers import SideBias

    with pytest.raises(AttributeError, match="'choices'"):
        SideBias(ChangingEnvironment(), probs=[[0.5, 0.5]], block_dur=10)


def test_ibl_block_takes_rewards_and_returns_float32():
    env = seeded(IBLBlock, seed=21, rewards={"fail": -1.0})
    side = int(env.trial["ground_truth"])
    ob, reward, *_ = env.step(1 - side)
    assert reward == -1.0
    assert ob.dtype == np.float32
    assert env.trial["p_right"] == IBLBlock().probs[env.trial["block"], 1]


def test_ibl_block_priors_set_the_block_types():
    env = neurogym.make("IBLBlock", block_priors=[(0.5, 0.5), (0.1, 0.9)])
    batch = neurogym.batch(env, 4000, seed=0)
    assert set(batch.trial["p_right"].tolist()) == {0.5, 0.9}  # the two types, by index
    right = batch.trial["ground_truth"][batch.trial["block"] == 1].mean()
    assert right == pytest.approx(0.9, abs=0.03)
    unbiased = neurogym.make("IBLBlock", block_priors=[(0.5, 0.5)])
    stream = neurogym.batch(unbiased, 2000, seed=0)
    # no prior to learn: the stream's observer is the memoryless one
    task = unbiased.unwrapped
    np.testing.assert_array_equal(task.stream_observer(stream), task.ideal_observer(stream))


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ([], "must be a non-empty list of"),
        ("LR", "must be a non-empty list of"),
        ([(0.5, 0.5), (0.3, 0.3)], r"block_priors\[1\] must be 2 non-negative probabilities"),
        ([(0.5,)], r"block_priors\[0\] must be 2 non-negative"),
        ([(1.0, 0.0)], "strictly between 0 and 1"),
    ],
)
def test_ibl_block_refuses_bad_block_priors(bad, message):
    with pytest.raises(ValueError, match=message):
        IBLBlock(block_priors=bad)


def test_matching_penny_forced_opponent_choice():
    env = seeded(MatchingPenny, seed=22)
    trial = env.new_trial(opponent_action=0)
    assert trial["opponent_action"] == 0
    assert env.step(0)[1] == 1.0
    with pytest.raises(ValueError, match="opponent_action"):
        env.new_trial(opponent_action=2)


def test_bandit_arms_change_by_checked_assignment_only():
    env = seeded(Bandit, seed=0, p=(0.9, 0.2))
    assert env.trial["p"] == (0.9, 0.2)  # a tuple: every trial may share it
    with pytest.raises(ValueError, match=r"read-only"):
        env.p[0] = 0.1  # an in-place edit would change what recorded trials show
    with pytest.raises(ValueError, match=r"p must hold one value per arm \(n=2\)"):
        env.p = (0.5,)
    env.p = (0.1, 0.8)
    env.arm_rewards = (2.0, 3.0)
    trial = env.new_trial()
    assert trial == {"p": (0.1, 0.8), "arm_rewards": (2.0, 3.0)}
    assert env.p.tolist() == [0.1, 0.8]
    assert not env.p.flags.writeable
