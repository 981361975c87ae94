"""``neurogym.make(..., hold_fixation=True)``: the env setting at make time, every make path."""

from __future__ import annotations

import gymnasium
import pytest

import neurogym

PDM = "neurogym/PerceptualDecisionMaking-v0"


def test_make_gymnasium_make_and_make_vec_take_it_as_an_argument():
    """``hold_fixation=True`` at make time is the same setting; False keeps the task's rule."""
    made = [
        neurogym.make("PerceptualDecisionMaking", hold_fixation=True),
        gymnasium.make(PDM, hold_fixation=True),
    ]
    assert [env.unwrapped.rule.hold_fixation for env in made] == [True, True]
    assert neurogym.make(PDM, hold_fixation=False).unwrapped.hold_fixation is False
    vec = gymnasium.make_vec(PDM, num_envs=3, hold_fixation=True)
    assert vec.get_attr("hold_fixation") == (True, True, True)
    env = made[0].unwrapped
    env.reset(seed=0)
    for _ in range(int(env._current.start_t["stimulus"] // env.dt)):  # the fixation period
        assert not env.step(0)[4]["new_trial"]
    _, reward, _, _, info = env.step(1)  # a response during the stimulus: a break
    assert (info["new_trial"], info["performance"], reward) == (True, 0, -0.1)


def test_make_refuses_a_non_bool_and_a_task_without_a_rule():
    with pytest.raises(TypeError, match="hold_fixation must be True or False, got 'yes'"):
        neurogym.make("PerceptualDecisionMaking", hold_fixation="yes")
    with pytest.raises(TypeError, match=r"Reaching1D steps with its own _step\(\)"):
        neurogym.make("Reaching1D", hold_fixation=True)
    assert neurogym.make("Reaching1D", hold_fixation=False).unwrapped.hold_fixation is False
