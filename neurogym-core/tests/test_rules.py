"""The one encoding of the standard decision rule: codes, outcome table, single and vector env."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from data_tasks import VarTask

from neurogym import GoNoGoDecision, StandardDecision
from neurogym.rules import FIXATE, NEUTRAL, RESPOND, LastStepReport
from neurogym.vector import TrialVectorEnv

NOTHING = (0.0, False, False)
CONFIGS = [
    {"rewards": {"abort": -0.1, "correct": 1.0, "fail": -0.5}, "abort": True, "r_tmax": 0.0},
    {"rewards": {"abort": -0.2, "correct": 2.0}, "abort": False, "r_tmax": -0.25},  # no "fail"
    {"rewards": {"abort": 0.0, "correct": 1.0, "fail": 0.5}, "abort": False, "r_tmax": 0.0},
]


def _configured(config, cls=VarTask):
    return cls(abort=config["abort"], r_tmax=config["r_tmax"], rewards=dict(config["rewards"]))


@pytest.mark.parametrize("config", CONFIGS)
def test_outcome_table_encodes_the_documented_rule(config):
    rewards, abort = config["rewards"], config["abort"]
    table = StandardDecision().outcome_table(rewards, abort)
    for hit, moved in itertools.product((0, 1), repeat=2):
        assert table[NEUTRAL][hit][moved] == NOTHING
        if not moved:  # holding fixation_action never earns or ends anything
            assert table[FIXATE][hit][moved] == table[RESPOND][hit][moved] == NOTHING
    assert table[FIXATE][0][1] == table[FIXATE][1][1] == (rewards["abort"], abort, False)
    assert table[RESPOND][1][1] == (rewards["correct"], True, True)
    assert table[RESPOND][0][1] == (rewards.get("fail", 0.0), True, False)


def test_outcome_table_reads_only_the_rewards_of_the_rule_periods():
    table = StandardDecision(fixation_periods=()).outcome_table({"correct": 1.0}, False)
    assert table[FIXATE] == [[NOTHING, NOTHING], [NOTHING, NOTHING]]
    with pytest.raises(KeyError):
        StandardDecision().outcome_table({"correct": 1.0}, False)  # fixation needs "abort"


@pytest.mark.parametrize("config", CONFIGS)
def test_single_env_vector_env_and_table_agree_on_every_step(config):
    """Each single-env step equals the table at its (code, gt, action), plus r_tmax on a
    timeout, and equals the same sub-env of the native vector env."""
    n, steps = 3, 600
    singles = [_configured(config) for _ in range(n)]
    vec = TrialVectorEnv(_configured(config), n)
    vec.reset(seed=5)
    for i, env in enumerate(singles):
        env.reset(seed=5 + i)
    table = singles[0].rule.outcome_table(config["rewards"], config["abort"])
    seen = set()
    rng = np.random.default_rng(1)
    for _ in range(steps):
        actions = rng.integers(0, 3, n)
        _, rewards, _, _, info = vec.step(actions)
        for i, env in enumerate(singles):
            a, k = int(actions[i]), env.t_ind
            code, gt = env._current.codes[k], int(env._current.gt[k])
            last = k == len(env._current.codes) - 1
            _, reward, _, _, single_info = env.step(a)
            expected, ends, correct = table[code][a == gt][a != 0]
            if last and not ends:  # the trial times out
                expected, ends = expected + config["r_tmax"], True
            assert reward == pytest.approx(expected)
            assert rewards[i] == reward
            assert single_info["new_trial"] == ends == info["new_trial"][i]
            if ends:
                assert single_info["performance"] == int(correct) == info["performance"][i]
            seen.add((code, a == gt, a != 0, last))
    # every outcome a trial can reach was stepped (gt is the fixation action 0 before the
    # decision and a choice, 1 or 2, in it), and so were timeouts
    reachable = {(NEUTRAL, False, True), (FIXATE, False, True), (FIXATE, True, False)}
    reachable |= {(RESPOND, False, False), (RESPOND, False, True), (RESPOND, True, True)}
    assert {(c, h, m) for c, h, m, _ in seen} >= reachable
    assert any(last for *_, last in seen)


def test_single_env_follows_reward_changes_within_a_trial():
    env = _configured(CONFIGS[0])
    env.reset(seed=0)
    assert env._current.codes[0] == FIXATE
    assert env.step(1)[1] == pytest.approx(-0.1)  # abort=True: the trial ends
    env.rewards["abort"] = -3.0
    env.abort = False
    assert env.t_ind == 0
    _, reward, _, _, info = env.step(1)
    assert reward == -3.0
    assert not info["new_trial"]


def test_codes_agree_with_period_steps_of_a_ragged_batch():
    env = VarTask(dt=30)  # bounds in ms that are not multiples of dt before flooring
    batch = env.new_trials(64)
    assert len(set(batch.lengths.tolist())) > 1
    grid = env.rule.code_grid(batch.start_t, batch.end_t, batch.lengths, batch.dt)
    for i in range(batch.size):
        expected = np.full(grid.shape[1], NEUTRAL)
        for code, name in ((RESPOND, "decision"), (FIXATE, "fixation")):
            start, end = batch.periods[name][0][i], batch.periods[name][1][i]
            expected[start:end] = code
        np.testing.assert_array_equal(grid[i], expected)
        single = env.rule.codes(
            {k: float(v[i]) for k, v in batch.start_t.items()},
            {k: float(v[i]) for k, v in batch.end_t.items()},
            int(batch.lengths[i]),
            batch.dt,
        )
        assert single == grid[i, : batch.lengths[i]].tolist()
    # the prefetch pool's per-row lists, from the periods' step indices
    rows = env.rule.code_rows(
        {name: first.tolist() for name, (first, _) in batch.periods.items()},
        {name: stop.tolist() for name, (_, stop) in batch.periods.items()},
        batch.lengths.tolist(),
    )
    assert rows == [grid[i, :steps].tolist() for i, steps in enumerate(batch.lengths)]


def test_code_rows_of_trials_with_the_same_spans_are_the_grid_rows():
    env = VarTask()
    env.timing = {"fixation": 200, "stimulus": 300, "delay": 0, "decision": 100}
    batch = env.new_trials(8)
    grid = env.rule.code_grid(batch.start_t, batch.end_t, batch.lengths, batch.dt)
    rows = env.rule.code_rows(
        {name: first.tolist() for name, (first, _) in batch.periods.items()},
        {name: stop.tolist() for name, (_, stop) in batch.periods.items()},
        batch.lengths.tolist(),
    )
    assert rows == grid.tolist()
    assert rows[0] == [FIXATE, FIXATE, NEUTRAL, NEUTRAL, NEUTRAL, RESPOND]


class _GoNoGoTask(VarTask):
    """VarTask with go (gt 1 or 2) and no-go (gt 0, fixate) trials under GoNoGoDecision."""

    def __init__(self, r_tmax: float = 0.0) -> None:
        super().__init__(abort=False, r_tmax=r_tmax)
        self.rule = GoNoGoDecision(("fixation",), ("decision",))
        self.rewards = {"abort": -0.1, "correct": 1.0, "fail": -0.5, "miss": -0.25}

    def _new_trials(self, b, **kwargs):
        go = b.choice("go", [0, 1, 2])
        b.add_period(["fixation", "stimulus", "delay", "decision"])
        b.add_input(1, ["fixation", "stimulus", "delay"], where="fixation")
        b.add_input(np.stack([go == 1, go == 2], axis=1).astype(float), "stimulus", "stimulus")
        b.set_target(go, "decision")
        return {}


def test_go_no_go_timeouts_follow_the_rule():
    rule = GoNoGoDecision()
    assert rule.timeout({"miss": -0.5}, hit=True, held=True) == (0.0, True)  # withheld no-go
    assert rule.timeout({"miss": -0.5}, hit=False, held=True) == (-0.5, False)  # missed go
    assert rule.timeout({}, hit=False, held=True) == (0.0, False)
    assert StandardDecision().timeout({"miss": -0.5}, hit=True, held=True) == (0.0, False)
    report = LastStepReport()
    assert report.timeout({}, hit=True, held=False) == (0.0, True)
    assert report.timeout({}, hit=False, held=True) == (0.0, False)
    # the step table is the standard rule's
    assert rule.outcome_table(CONFIGS[0]["rewards"], True) == StandardDecision().outcome_table(
        CONFIGS[0]["rewards"], True
    )


@pytest.mark.parametrize("r_tmax", [0.0, -0.125])
def test_go_no_go_single_and_vector_env_agree_and_withholding_a_no_go_trial_is_correct(r_tmax):
    n = 3
    singles = [_GoNoGoTask(r_tmax) for _ in range(n)]
    vec = TrialVectorEnv(_GoNoGoTask(r_tmax), n)
    assert vec.metadata["neurogym_vectorization"] == "native"
    vec.reset(seed=7)
    for i, env in enumerate(singles):
        env.reset(seed=7 + i)
    rng = np.random.default_rng(2)
    outcomes = set()
    for _ in range(800):
        actions = np.where(rng.random(n) < 0.9, 0, rng.integers(1, 3, n))
        _, rewards, _, _, info = vec.step(actions)
        for i, env in enumerate(singles):
            go, last = int(env.trial["go"]), env.t_ind == len(env._current.codes) - 1
            _, reward, _, _, single = env.step(int(actions[i]))
            assert rewards[i] == pytest.approx(reward)
            assert single["new_trial"] == info["new_trial"][i]
            if single["new_trial"]:
                assert single["performance"] == info["performance"][i]
                if last and actions[i] == 0:  # timed out holding fixation
                    assert single["performance"] == int(go == 0)
                    assert reward == pytest.approx(r_tmax + (-0.25 if go else 0.0))
                    outcomes.add(("timeout", go == 0))
    assert outcomes == {("timeout", True), ("timeout", False)}
