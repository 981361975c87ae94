"""An ideal observer scored on a closed loop's own trials (observer_on_run): a paired ceiling."""

from __future__ import annotations

import dataclasses

import gymnasium as gym
import numpy as np
import pytest

import neurogym
from neurogym_apps.train._closed_loop import (
    Guess,
    baseline_policies,
    observer_on_run,
    run_closed_loop,
)


def _run(task: str, trials: int, seed: int = 5):
    def make() -> gym.Env:
        return neurogym.make(task)

    guess = Guess.of(make())
    assert guess is not None
    return make, run_closed_loop(make, guess, trials, seed=seed, fixation_action=guess.fixation)


def test_the_observer_is_scored_on_the_run_s_own_trials_in_their_order():
    make, run = _run("yang19.dm1", 400)
    assert run.streams.shape == (400,)
    assert set(run.streams) == set(range(len(run.seeds)))  # every env served some trials
    correct = observer_on_run(run, make)
    assert correct is not None
    assert correct.shape == (400,)
    # the observer errs only where the evidence is weak: on the run's trials of the two
    # weakest coherences, never on the strongest (a shuffled pairing would put its errors
    # on any trial)
    gap = np.array([abs(t["coh1_mod1"] - t["coh2_mod1"]) for t in run.trials])
    assert correct[gap >= 0.3].all()
    assert correct[gap < 0.2].mean() < 0.97
    assert 0.9 < correct.mean() < 0.99  # the 20,000-trial ceiling is 0.950


def test_a_task_without_an_observer_has_none():
    make, run = _run("DelayMatchSample", 50)
    assert observer_on_run(run, make) is None


def test_trials_that_are_not_the_seeds_own_are_refused():
    make, run = _run("yang19.dm1", 40)
    moved = dataclasses.replace(run, seeds=run.seeds + 1)  # not the seeds the envs had
    with pytest.raises(ValueError, match=r"trial 0 of stream 0 is not the one its seed draws"):
        observer_on_run(moved, make)


def test_a_policy_s_run_records_which_env_served_each_trial():
    def make() -> gym.Env:
        return neurogym.make("PerceptualDecisionMaking")

    policy = baseline_policies(make())["random"]
    run = run_closed_loop(make, policy, 130, seed=2)
    seeds = np.random.SeedSequence(2).generate_state(64)
    assert np.array_equal(run.seeds, seeds)  # env i was reset with seeds[i]
    assert run.streams.min() == 0
    assert run.streams.max() == 63
