"""Behaviour of {{ cookiecutter.task_class }}: what each answer earns, and what the trials hold.

TODO: as your task takes shape, test what it does: that its inputs encode the trial
variables, that each answer earns its reward, that its periods last what the timing says
(neurogym.testing.trials has helpers for each).
"""

from __future__ import annotations

import neurogym
import numpy as np
from neurogym.testing.trials import correct, other_of_two, period_mask, respond, run_trial

TASK_ID = "{{ cookiecutter.namespace }}/{{ cookiecutter.task_class }}-v0"


def test_the_correct_choice_earns_correct_and_the_other_fail():
    env = neurogym.make(TASK_ID)
    env.reset(seed=0)
    for _ in range(5):  # fixate, then answer in the decision period
        rewards, info, _ = run_trial(env, respond(correct))
        assert (rewards[-1], info["performance"]) == (env.rewards["correct"], 1)
        rewards, info, _ = run_trial(env, respond(other_of_two))
        assert (rewards[-1], info["performance"]) == (env.rewards["fail"], 0)


def test_the_target_of_the_decision_is_the_ground_truth_choice():
    env = neurogym.make(TASK_ID)
    env.reset(seed=0)
    for ground_truth in (0, 1):
        batch = env.new_trials(20, ground_truth=ground_truth)  # 20 trials at once, forced
        assert (batch.trial["ground_truth"] == ground_truth).all()
        decision = period_mask(batch, "decision")
        choice = env.action_space.name["choice"][ground_truth]
        assert decision.any(axis=1).all()
        assert np.all(batch.gt[decision] == choice)
