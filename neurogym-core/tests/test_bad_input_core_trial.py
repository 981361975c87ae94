"""A refused forced value leaves the current trial as it was."""

from __future__ import annotations

import numpy as np
import pytest

from neurogym import BatchBuilder, StandardDecision, TrialEnv, spaces, validate


class _TwoChoice(TrialEnv):
    """Two-choice task whose forced ``ground_truth`` is validated.

    ## Description
    A test task.
    """

    rule = StandardDecision(fixation_periods=("fixation",), decision_periods=("decision",))

    def __init__(self) -> None:
        super().__init__(dt=100)
        self.rewards = {"abort": -0.1, "correct": 1.0, "fail": 0.0}
        self.timing = {"fixation": 200, "decision": 300}
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(2,), dtype=np.float32)
        self.action_space = spaces.Discrete(3)

    def _new_trials(self, b: BatchBuilder, **kwargs: object) -> dict[str, object]:
        gt = validate.integers_in_range(b.choice("ground_truth", [1, 2]), "ground_truth", 1, 2)
        b.add_period(["fixation", "decision"])
        b.add_input(1, "fixation", where=0)
        b.set_target(gt, "decision")
        return {}


def test_a_refused_forced_value_keeps_the_current_trial():
    env = _TwoChoice()
    env.reset(seed=0)
    env.step(0)
    trial, ob, t_ind, num_tr = dict(env.trial), env.ob.copy(), env.t_ind, env.num_tr
    with pytest.raises(ValueError, match="ground_truth"):
        env.new_trial(ground_truth=7)
    assert env.trial == trial
    np.testing.assert_array_equal(env.ob, ob)
    assert (env.t_ind, env.num_tr) == (t_ind, num_tr)
    assert dict(env.start_ind) == {"fixation": 0, "decision": 2}
    _, reward, *_, info = env.step(0)  # the trial goes on (it raised KeyError before)
    assert reward == 0.0
    assert not info["new_trial"]
    assert env.t_ind == 2


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        ("1", TypeError, r"rewards\['correct'\] of _TwoChoice must be a finite number, got '1'"),
        (float("nan"), ValueError, r"rewards\['correct'\] of _TwoChoice must be a finite"),
        (float("inf"), ValueError, r"got inf"),
        ([1, 2], TypeError, r"got \[1, 2\]"),
        (True, TypeError, r"got True"),
    ],
)
def test_a_reward_that_is_not_a_finite_number_is_refused(value, error, message):
    env = _TwoChoice()
    with pytest.raises(error, match=message):
        env.rewards.update({"correct": value})
    with pytest.raises(error, match=message):
        env.rewards["correct"] = value
    assert env.rewards["correct"] == 1.0  # unchanged


def test_rewards_must_be_a_mapping_and_are_stored_as_floats():
    env = _TwoChoice()
    with pytest.raises(TypeError, match=r"must be a mapping of reward names.*got \[1\]"):
        env.rewards.update([1])
    env.rewards.update({"correct": np.int64(2)})
    assert type(env.rewards["correct"]) is float
    env.reset(seed=0)
    env.step(0)
    env.step(0)
    _, reward, *_ = env.step(env.trial["ground_truth"])
    assert type(reward) is float
    assert reward == 2.0


class _Quantities(TrialEnv):
    """A task with a drawn coherence (real options), a uniform level and a forced offset."""

    def __init__(self) -> None:
        super().__init__(dt=100)
        self.timing = {"stimulus": 300}
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(1,), dtype=np.float32)
        self.action_space = spaces.Discrete(2)

    def _new_trials(self, b: BatchBuilder, **kwargs: object) -> dict[str, object]:
        coh = b.choice("coh", [0.0, 6.4, 12.8])
        level = b.uniform("level", 0.0, 1.0)
        offset = b.forced("offset", number=True)
        b.add_period("stimulus")
        b.add_input((coh + level + (0.0 if offset is None else offset))[:, None], "stimulus")
        return {}


@pytest.mark.parametrize("name", ["coh", "level", "offset"])
@pytest.mark.parametrize("bad", ["x", True, None, {"a": 1}, [True, False]])
def test_a_forced_quantity_that_is_not_a_number_is_refused_by_name(name, bad):
    env = _Quantities()
    env.reset(seed=0)
    message = rf"forced {name} must be a number \(or one per trial\): it is a quantity, got "
    with pytest.raises(ValueError, match=message):
        env.new_trials(2, **{name: bad})


def test_a_forced_quantity_may_be_any_number_off_the_grid():
    env = _Quantities()
    env.reset(seed=0)
    batch = env.new_trials(2, coh=[3, 51.2], level=2, offset=np.array([1, -1]))
    np.testing.assert_array_equal(batch.trial["coh"], [3, 51.2])
    np.testing.assert_array_equal(batch.trial["level"], [2, 2])
    np.testing.assert_allclose(batch.ob[:, 0, 0], [6, 52.2], rtol=1e-6)  # (float32 inputs)
