"""The perceptualdecisionmaking.* collection: roitman02 (reaction time) and ibl20 (priors)."""

import numpy as np
import pytest

import neurogym
from neurogym.testing import check_task

ROITMAN = "neurogym/perceptualdecisionmaking.roitman02-v0"
IBL = "neurogym/perceptualdecisionmaking.ibl20-v0"


@pytest.mark.parametrize("task_id", [ROITMAN, IBL])
def test_collection_tasks_pass_check_task(task_id):
    check_task(task_id)


def test_roitman02_ends_the_trial_at_the_end_of_the_stimulus():
    env = neurogym.make(ROITMAN)
    env.reset(seed=0)
    task = env.unwrapped
    # fixation 100 ms + stimulus 2000 ms at dt=100: the trial ends after 21 steps, not 22.
    lengths = []
    steps = 0
    for _ in range(200):
        _, _, _, _, info = env.step(0)
        steps += 1
        if info["new_trial"]:
            lengths.append(steps)
            steps = 0
    assert set(lengths) == {21}
    assert task.end_t["stimulus"] == 2100


def test_roitman02_scores_a_response_during_the_stimulus():
    env = neurogym.make(ROITMAN)
    env.reset(seed=3)
    gt_choice = int(env.unwrapped.trial["ground_truth"]) + 1
    rewards = []
    for _ in range(2):  # fixation step, then the first stimulus step (decision not open yet)
        _, reward, _, _, info = env.step(0)
        rewards.append(reward)
    _, reward, _, _, info = env.step(gt_choice)  # one step after stimulus onset: open
    assert info["new_trial"]
    assert reward == 1.0
    assert info["performance"] == 1
    assert info["tr_dur"] == 3


def test_roitman02_wrong_answer_during_the_stimulus_fails():
    env = neurogym.make(ROITMAN)
    env.reset(seed=3)
    wrong = 3 - (int(env.unwrapped.trial["ground_truth"]) + 1)
    env.step(0)
    env.step(0)
    _, reward, _, _, info = env.step(wrong)
    assert info["new_trial"]
    assert reward == 0.0
    assert info["performance"] == 0


def _ground_truths(env, n_trials):
    env.reset(seed=11)
    out = []
    while len(out) < n_trials:
        _, _, _, _, info = env.step(0)
        if info["new_trial"]:
            out.append(int(info["trial"]["ground_truth"]))
    return np.array(out)


def test_ibl20_alternates_biased_blocks_of_90_trials():
    gts = _ground_truths(neurogym.make(IBL), 90 * 8)
    block_means = gts.reshape(8, 90).mean(axis=1)
    # each block is biased to one side (p = 0.8 of its side): mean 0.2 or 0.8, sd ~0.042
    assert np.all((np.abs(block_means - 0.2) < 0.15) | (np.abs(block_means - 0.8) < 0.15))
    sides = block_means > 0.5
    assert np.all(sides[1:] != sides[:-1]), "two blocks: the schedule switches every block"


def test_ibl20_is_reproducible_under_reset_seed():
    first = _ground_truths(neurogym.make(IBL), 300)
    second = _ground_truths(neurogym.make(IBL), 300)
    assert np.array_equal(first, second)


def test_collection_factories_forward_task_kwargs():
    env = neurogym.make(ROITMAN, dt=50, cohs=[51.2])
    env.reset(seed=0)
    assert env.unwrapped.dt == 50
    assert env.unwrapped.trial["coh"] == 51.2
