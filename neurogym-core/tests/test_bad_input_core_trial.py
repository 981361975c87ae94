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
        b.add_ob(1, "fixation", where=0)
        b.set_groundtruth(gt, "decision")
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
