"""Behaviour of {{ cookiecutter.task_class }}: its evidence and its reward rule."""

from __future__ import annotations

import neurogym
import numpy as np
import pytest

TASK_ID = "{{ cookiecutter.namespace }}/{{ cookiecutter.task_class }}-v0"


def integrator_accuracy(coh, n=400):
    """Accuracy of an observer that picks the channel with the larger summed stimulus."""
    env = neurogym.make(TASK_ID)
    env.reset(seed=0)
    batch = env.unwrapped.new_trials(n, coh=coh)  # n trials in one call
    stimulus = list(env.observation_space.name["stimulus"])
    evidence = batch.ob[:, :, stimulus].sum(axis=1)  # padding and other periods are 0
    return np.mean(evidence.argmax(axis=1) == batch.trial["ground_truth"])


def test_strong_stimuli_are_easy_and_zero_coherence_is_chance():
    assert integrator_accuracy(51.2) > 0.95
    assert integrator_accuracy(0.0) == pytest.approx(0.5, abs=0.1)


def test_fixating_then_reporting_the_ground_truth_earns_the_correct_reward():
    env = neurogym.make(TASK_ID)
    env.reset(seed=1)
    task = env.unwrapped
    outcomes = []
    while len(outcomes) < 5:
        _, reward, _, _, info = env.step(task.gt_now)  # 0 (fixate) until the decision
        if info["new_trial"]:
            outcomes.append((reward, info["performance"]))
    assert outcomes == [(task.rewards["correct"], 1)] * 5
