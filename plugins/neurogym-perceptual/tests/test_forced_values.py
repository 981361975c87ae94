"""Forced trial values of the wrong kind or shape are refused naming the variable."""

from __future__ import annotations

import re

import pytest

import neurogym


def _env(task):
    env = neurogym.make(f"neurogym/{task}-v0").unwrapped
    env.reset(seed=0)
    return env


@pytest.mark.parametrize(
    ("task", "forced", "message"),
    [
        ("AntiReach", {"anti": "x"}, "forced anti must be True or False (or 0/1), got 'x'"),
        ("AntiReach", {"anti": 2}, "forced anti must be True or False (or 0/1), got 2"),
        ("AntiReach", {"anti": [True, False, True]}, "forced anti must have shape () (one"),
        ("AnnubesEnv", {"catch": [True, False, True]}, "forced catch must be one bool or one per"),
        ("AnnubesEnv", {"stim_values": None}, "stim_values must be a dict of modality to"),
        ("AnnubesEnv", {"stim_values": -1}, "stim_values must be a dict of modality to"),
        (
            "PerceptualDecisionMakingDelayResponse",
            {"sigma": -0.5},
            "forced sigma must be >= 0 (the noise std), got -0.5",
        ),
        (
            "PerceptualDecisionMakingDelayResponse",
            {"sigma": "x"},
            "forced sigma must be a number (or one per trial): it is a quantity, got 'x'",
        ),
        ("PerceptualDecisionMaking", {"coh": "x"}, "forced coh must be a number (or one per"),
        ("PerceptualDecisionMaking", {"coh": None}, "forced coh must be a number (or one per"),
    ],
)
def test_a_bad_forced_value_is_refused_by_name(task, forced, message):
    env = _env(task)
    for n in (1, 2):
        with pytest.raises(ValueError, match=re.escape(message)):
            env.new_trials(n, **forced) if n > 1 else env.new_trial(**forced)


def test_good_forced_values_still_work():
    assert _env("AntiReach").new_trials(2, anti=[True, False]).trial["anti"].tolist() == [
        True,
        False,
    ]
    assert _env("AntiReach").new_trial(anti=0)["anti"] == False  # noqa: E712 (numpy bool)
    batch = _env("PerceptualDecisionMakingDelayResponse").new_trials(2, sigma=[0.0, 0.3])
    assert batch.trial["sigma"].tolist() == [0.0, 0.3]
