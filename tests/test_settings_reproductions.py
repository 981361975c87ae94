"""Issue #46's reproductions on the real tasks: each was a silent wrong result at 3bb1caa."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import neurogym
from neurogym import TrialEnv
from neurogym.vector import TrialVectorEnv


def _make(task: str, **kwargs: Any) -> TrialEnv:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = neurogym.make(task, **kwargs).unwrapped
    assert isinstance(env, TrialEnv)
    return env


def test_an_in_place_edit_of_a_choice_timing_spec_raises_and_copies_agree():
    env = _make("PerceptualDecisionMakingDelayResponse", timing={"delay": ("choice", [300, 500])})
    with pytest.raises(TypeError, match="read-only"):
        env.timing["delay"][1][0] = 2000  # 3bb1caa: shown, ignored by the env, used by copies
    assert env.timing["delay"] == ("choice", [300, 500])
    for bad in (-500, 1e300):
        with pytest.raises(ValueError, match=r"timing\['delay'\]"):
            env.timing["delay"] = ("choice", [bad, 300])


def test_the_native_vector_env_pays_an_in_place_edit_of_the_rewards():
    vec = TrialVectorEnv(_make("PerceptualDecisionMaking", timing={"stimulus": 100}), 8)
    vec.reset(seed=0)
    vec.get_attr("rewards")[0]["correct"] = 10  # 3bb1caa: a single env paid 10, this 1.0
    paid: set[float] = set()
    for _ in range(40):
        gt = vec._gt.take(vec._pos)
        _, reward, _, _, info = vec.step(gt)
        paid.update(reward[info["new_trial"] & (gt != 0)].tolist())
    assert paid == {10.0}


@pytest.mark.parametrize("how", ["assign", "set_attr"])
def test_stim_scale_changes_the_coherences(how):
    env = _make("PerceptualDecisionMakingDelayResponse")
    if how == "assign":
        env.stim_scale = 0  # 3bb1caa: accepted, cohs unchanged
    else:
        TrialVectorEnv(env, 2).set_attr("stim_scale", 0)
    np.testing.assert_array_equal(env.cohs, 0.0)
    env.reset(seed=0)
    assert {float(env.new_trial()["coh"]) for _ in range(20)} == {0.0}


@pytest.mark.parametrize(
    ("task", "name", "bad", "message"),
    [
        ("MemoryRecall", "chance", 1.5, "chance must be"),
        ("AnnubesEnv", "noise_std", -1, "noise_std must be"),
        ("AnnubesEnv", "tau", 0, "tau must be"),
        ("AnnubesEnv", "catch_prob", 2, "catch_prob must be"),
        ("PerceptualDecisionMaking", "dt", 0, "dt must be"),  # 3bb1caa: ZeroDivisionError later
    ],
)
def test_a_reassigned_argument_is_checked_by_the_constructor(task, name, bad, message):
    env = _make(task)
    before = env.__dict__.get(name)
    with pytest.raises(ValueError, match=message):
        setattr(env, name, bad)
    assert env.__dict__.get(name) == before


def test_a_valid_reassigned_argument_takes_effect():
    env = _make("AnnubesEnv")
    env.noise_std = 0.0
    made = _make("AnnubesEnv", noise_std=0.0)
    for e in (env, made):
        e.reset(seed=3)
    for _ in range(5):
        np.testing.assert_array_equal(env.step(0)[0], made.step(0)[0])


def test_a_nan_noise_raises_instead_of_giving_nan_observations():
    env = _make("PerceptualDecisionMaking")
    with pytest.raises(AttributeError, match=r"env.configure\(sigma=\.\.\.\)"):
        env.sigma = float("nan")  # 3bb1caa: NaN observations
    with pytest.raises(ValueError, match="sigma must be a finite number"):
        env.configure(sigma=float("nan"))
    env.reset(seed=0)
    assert np.isfinite(env.new_trials(16).ob).all()
