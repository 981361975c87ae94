"""A trial no verb made is renewed, not made again, and nobody can tell (architecture §4.2)."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest

import neurogym
from neurogym import StandardDecision, TrialEnv, spaces
from neurogym._env.current import NO_PERIODS, CurrentTrial


class SometimesPeriods(TrialEnv):
    """Upstream-style: most trials call no verb; some add periods, some set their length.

    Kinds: 0 plain, 1 periods and arrays, 2 ``tmax`` set in ``_new_trial``, 3 ``tmax`` set
    during the trial, 4 ``env.ob`` read during the trial (it makes the array and hands it
    out). Every trial records the previous trial's kind, which ``env.trial`` must still be
    while ``_new_trial`` runs. Action 1 ends a trial from its third step on.
    """

    def __init__(self) -> None:
        super().__init__(dt=100)
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(2,), dtype=np.float32)
        self.action_space = spaces.Discrete(2)

    def _new_trial(self, **kwargs: Any) -> dict[str, Any]:
        previous = None if self.trial is None else self.trial["kind"]
        kind = int(self.rng.choice(5, p=[0.6, 0.1, 0.1, 0.1, 0.1]))
        if kind == 1:
            self.add_period(["a", "b"], duration=[100, 200])
            self.add_ob(float(self.rng.random()), "b", where=1)
            self.set_groundtruth(1, "b")
        elif kind == 2:
            self.tmax = 300
        return {"kind": kind, "previous": previous, **kwargs}

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        kind = self.trial["kind"]
        if kind == 3 and self.t_ind == 0:
            self.tmax = 200
        if kind == 4 and self.t_ind == 1:
            assert not self.ob.any()
        if self._has_gt:
            ob = self.ob[self.t_ind].copy()
        else:
            ob = np.array([self.t_ind, kind], dtype=np.float32)
        ends = self.t_ind >= 2 and action == 1
        return ob, float(action == kind % 2), False, False, {"new_trial": ends}


def _run(env: TrialEnv, steps: int, hold: bool) -> tuple[list[Any], int]:
    """Steps ``env`` with seeded actions; ``hold`` keeps every trial object (no renewal)."""
    held: list[CurrentTrial] = []
    renewed = 0
    env.reset(seed=3)
    if hold:
        held.append(env._current)
    actions = np.random.default_rng(4).integers(2, size=steps)
    record: list[Any] = []
    for action in actions:
        before = id(env._current)
        ob, reward, terminated, truncated, info = env.step(int(action))
        if info["new_trial"]:
            renewed += id(env._current) == before
            if hold:
                held.append(env._current)
        record.append(
            (
                ob.tolist(),
                reward,
                terminated,
                truncated,
                info["new_trial"],
                info.get("gt"),
                info.get("trial"),
                env.trial,
                env.tmax,
                dict(env.start_t),
                env.t_ind,
                env.num_tr,
                None if env._current.ob is None else env._current.ob.tolist(),
            )
        )
    return record, renewed


def test_renewing_a_trial_gives_the_same_steps_and_trials_as_making_a_new_one():
    renewing, renewed = _run(SometimesPeriods(), 600, hold=False)
    kept, none_renewed = _run(SometimesPeriods(), 600, hold=True)
    assert none_renewed == 0  # each trial object held: every boundary made a new one
    assert renewed > 50  # most boundaries after a verb-free, unedited trial renewed it
    assert renewing == kept
    previous = [step[7]["previous"] for step in renewing]
    kinds = [step[7]["kind"] for step in renewing]
    for i in range(1, len(renewing)):  # each trial saw the trial before it as env.trial
        if renewing[i][4]:
            assert previous[i] == kinds[i - 1]


def test_a_trial_somebody_holds_is_never_renewed_and_keeps_its_state():
    env = neurogym.make("neurogym/Null-v0").unwrapped
    env.reset(seed=0)
    env.new_trial()
    assert env._current.renewable
    env.new_trial(n=2)  # forced values: a new object (kept_forced's dict)
    assert env.trial == {"n": 2}
    env.new_trial()
    renewed_id = id(env._current)
    env.new_trial()
    assert id(env._current) == renewed_id  # nobody held it: the same object, renewed
    held = env._current
    trial = held.trial
    env.new_trial()
    assert env._current is not held
    assert held.trial is trial
    assert held.renewable
    assert held.tmax == 10000
    assert held.ob is None
    assert held.start_t is NO_PERIODS


@pytest.mark.parametrize(
    "edit",
    [
        lambda env: setattr(env, "tmax", 500),
        lambda env: env.ob,  # handed out: the trial goes live
        lambda env: env.view_groundtruth(),
    ],
    ids=["tmax", "ob", "view_groundtruth"],
)
def test_an_edited_trial_is_not_renewed_and_the_next_trial_is_as_new(edit):
    env = neurogym.make("neurogym/Null-v0").unwrapped
    env.reset(seed=0)
    env.new_trial()
    edited = env._current
    edit(env)
    assert not edited.renewable
    del edited
    env.new_trial()
    current = env._current
    assert current.renewable
    assert not current.live
    assert current.tmax == 10000
    assert current.end_step == 100
    assert current._builder is None
    assert current.ob is None


def test_a_changed_dt_makes_a_new_trial_of_the_new_step():
    env = neurogym.make("neurogym/Null-v0").unwrapped
    env.reset(seed=0)
    env.new_trial()
    env.dt = 50
    env.new_trial()
    assert env._current.dt == 50
    assert env._current.end_step == 200


class FailsOnRequest(TrialEnv):
    """Upstream-style, verb-free unless asked to fail: then a verb, then an error."""

    def __init__(self) -> None:
        super().__init__(dt=100)
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(1,), dtype=np.float32)
        self.action_space = spaces.Discrete(1)
        self.fail = False

    def _new_trial(self, **kwargs: Any) -> dict[str, Any]:
        if self.fail:
            self.add_period("half", duration=500)
            raise RuntimeError("the task failed after a verb")
        return {"count": self.num_tr}

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return np.zeros(1, dtype=np.float32), 0.0, False, False, {}


def test_a_renewed_trial_whose_new_trial_fails_leaves_the_last_trial_as_it_was():
    env = FailsOnRequest()
    env.reset(seed=0)
    env.new_trial()
    assert env._current.renewable
    env.fail = True
    with pytest.raises(RuntimeError, match="failed after a verb"):
        env.new_trial()
    assert env.trial == {"count": 1}
    assert env.start_t == {}
    assert env.tmax == 10000
    assert env._current._builder is None
    assert env._current.ob is None
    env.fail = False
    for _ in range(100):
        env.step(0)
    assert env.trial == {"count": 2}  # the trial timed out at 10 s: the next one came


def test_a_pickled_renewable_trial_goes_on_as_the_original():
    env = neurogym.make("neurogym/Null-v0")
    env.reset(seed=0)
    for _ in range(250):
        env.step(0)
    assert env.unwrapped._current.renewable
    clone = pickle.loads(pickle.dumps(env))
    for _ in range(250):
        first, second = env.step(0), clone.step(0)
        assert first[0].tolist() == second[0].tolist()
        assert first[1:4] == second[1:4]
        assert first[4] == second[4]
    assert env.unwrapped.num_tr == clone.unwrapped.num_tr == 6  # reset made the first


def test_a_rule_set_after_a_renewable_trial_gets_its_step_tables_at_the_next():
    env = FailsOnRequest()
    env.reset(seed=0)
    env.new_trial()
    assert env._current.renewable
    assert env._current.codes is None
    env.rule = StandardDecision(("fixation",), ("decision",))
    env.new_trial()
    assert env._current.codes == [0] * 100  # no period of the rule's: every step neutral
    assert not env._current.renewable  # a trial with step tables is always made anew


def test_a_batch_that_borrows_the_env_gives_back_its_renewable_trial_untouched():
    env = FailsOnRequest()
    env.reset(seed=0)
    env.new_trial()
    before = env._current
    trial = before.trial
    assert before.renewable
    env._loop_trials(5, {})  # the batch's trials are renewed among themselves
    assert env._current is before
    assert before.trial is trial
    assert trial == {"count": 1}
