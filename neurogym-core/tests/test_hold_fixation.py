"""``hold_fixation``: fixation held until the decision and a break aborts, as labs train it."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from data_tasks import StepTask, VarTask

from neurogym import StandardDecision, TrialEnv
from neurogym.rules import FIXATE, NEUTRAL, RESPOND
from neurogym.vector import TrialVectorEnv


def _first_stimulus_step(env: TrialEnv) -> int:
    """Steps ``env`` (just reset) with fixation to its first stimulus step; returns it."""
    start = int(env._current.start_t["stimulus"] // env.dt)
    for _ in range(start):
        assert not env.step(0)[4]["new_trial"]
    return start


def test_off_by_default_a_response_during_the_stimulus_goes_unpunished():
    env = VarTask(abort=False)
    assert env.hold_fixation is False
    assert env.rule.hold_fixation is False
    env.reset(seed=0)
    _first_stimulus_step(env)
    _, reward, _, _, info = env.step(1)
    assert (reward, info["new_trial"]) == (0.0, False)  # the task's rule: a neutral step


def test_a_break_during_the_stimulus_ends_the_trial_with_the_abort_reward():
    env = VarTask(abort=False, rewards={"abort": -0.3, "correct": 1.0, "fail": 0.0})
    env.hold_fixation = True
    env.reset(seed=0)
    _first_stimulus_step(env)
    _, reward, _, _, info = env.step(1)
    assert reward == pytest.approx(-0.3)
    assert info["new_trial"] is True  # even with abort=False
    assert info["performance"] == 0


def test_a_held_trial_is_answered_and_scored_in_the_decision_period():
    env = VarTask(abort=False)
    env.hold_fixation = True
    env.reset(seed=1)
    decision = int(env._current.start_t["decision"] // env.dt)
    assert env._current.codes[:decision] == [FIXATE] * decision
    assert env._current.codes[decision] == RESPOND
    for _ in range(decision):
        assert env.step(0)[1] == 0.0
    _, reward, _, _, info = env.step(int(env._current.gt[decision]))
    assert (reward, info["new_trial"], info["performance"]) == (1.0, True, 1)


def test_the_setting_is_versioned_pickled_and_kept_by_configure():
    env = VarTask()
    rule, version = env.rule, env.config_version
    env.hold_fixation = True
    assert env.config_version != version
    assert pickle.loads(pickle.dumps(env)).hold_fixation is True
    env.configure(r_tmax=-1.0)  # VarTask sets its rule in __init__: made again, still held
    assert env.hold_fixation is True
    assert env.r_tmax == -1.0
    env.hold_fixation = False
    assert env.rule == rule


def test_the_native_vector_env_follows_it_step_by_step():
    n = 3

    def held() -> VarTask:
        env = VarTask(abort=False)
        env.hold_fixation = True
        return env

    singles, vec = [held() for _ in range(n)], TrialVectorEnv(held(), n)
    vec.reset(seed=4)
    for i, env in enumerate(singles):
        env.reset(seed=4 + i)
    rng, breaks = np.random.default_rng(0), 0
    for _ in range(400):
        actions = rng.choice(3, size=n, p=[0.9, 0.05, 0.05])
        codes = [env._current.codes[env.t_ind] for env in singles]
        _, rewards, _, _, info = vec.step(actions)
        for i, env in enumerate(singles):
            _, reward, _, _, own = env.step(int(actions[i]))
            assert (rewards[i], info["new_trial"][i]) == (reward, own["new_trial"])
            assert codes[i] != NEUTRAL  # every step before the decision is held
            if codes[i] == FIXATE and actions[i]:
                breaks += 1
                assert (reward, own["new_trial"], own["performance"]) == (-0.1, True, 0)
    assert breaks > 10


def test_set_attr_on_a_vector_env_holds_fixation_from_the_next_trial():
    vec = TrialVectorEnv(VarTask(abort=False), 2)
    vec.set_attr("hold_fixation", True)
    assert vec.get_attr("hold_fixation") == (True, True)
    vec.reset(seed=0)  # fixation lasts 100 ms or more: the second step is held
    vec.step(np.zeros(2, dtype=int))
    _, rewards, _, _, info = vec.step(np.ones(2, dtype=int))
    np.testing.assert_array_equal(info["new_trial"], [True, True])
    np.testing.assert_allclose(rewards, [-0.1, -0.1])


def test_codes_of_a_ragged_batch_are_held_to_the_decision_in_every_form():
    env = VarTask(dt=30)
    env.hold_fixation = True
    batch = env.new_trials(32)
    grid = env.rule.code_grid(batch.start_t, batch.end_t, batch.lengths, batch.dt)
    rows = env.rule.code_rows(
        {name: first.tolist() for name, (first, _) in batch.periods.items()},
        {name: stop.tolist() for name, (_, stop) in batch.periods.items()},
        batch.lengths.tolist(),
    )
    for i in range(batch.size):
        first, stop = (int(k[i]) for k in batch.periods["decision"])
        expected = [FIXATE] * first + [RESPOND] * (stop - first)
        expected += [NEUTRAL] * (int(batch.lengths[i]) - stop)
        assert grid[i, : batch.lengths[i]].tolist() == rows[i] == expected


def test_a_task_without_a_declarative_rule_is_refused_precisely():
    with pytest.raises(TypeError, match=r"StepTask steps with its own _step\(\)"):
        StepTask().hold_fixation = True
    no_rule = VarTask()
    no_rule.rule = None
    with pytest.raises(TypeError, match=r"VarTask steps with rule=None"):
        no_rule.hold_fixation = True
    with pytest.raises(TypeError, match="hold_fixation must be True or False, got 1"):
        VarTask().hold_fixation = 1
    undecided = VarTask()
    undecided.rule = StandardDecision(decision_periods=())
    with pytest.raises(ValueError, match=r"has none \(decision_periods=\(\)\)"):
        undecided.hold_fixation = True
