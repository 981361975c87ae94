"""TrialEnv: step/ob alignment, trial boundaries, episodes, seeding, the declarative rule,
trial_length_stats and new_trials on upstream-style tasks (architecture.md §2, §5, §6)."""

from __future__ import annotations

import copy
import json
import pickle
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from neurogym import OBNOW, StandardDecision, TrialEnv, spaces
from neurogym.errors import InvalidActionError
from neurogym.rules import FIXATE, NEUTRAL, RESPOND
from neurogym.wrappers import RecordOnly

INF = np.inf


# =========================================================================== tasks
class Decision(TrialEnv):
    """Fixate, watch a noisy stimulus, report its side (batch-native, StandardDecision rule)."""

    metadata = {  # noqa: RUF012
        "paper_name": "A test task",
        "paper_link": "https://example.org",
        "tags": ["test"],
    }
    rule = StandardDecision(fixation_periods=("fixation",), decision_periods=("decision",))

    def __init__(self, dt=100, timing=None, rewards=None, abort=False):
        super().__init__(dt=dt)
        self.timing = {"fixation": 200, "stimulus": ("uniform", (100, 400)), "decision": 200}
        self.timing.update(timing)
        self.rewards = {"abort": -0.1, "correct": 1.0, "fail": -1.0}
        self.rewards.update(rewards or {})
        self.abort = abort
        self.observation_space = spaces.Box(
            -INF, INF, shape=(3,), name={"fixation": 0, "stimulus": [1, 2]}
        )
        self.action_space = spaces.Discrete(3, name={"fixation": 0, "choice": [1, 2]})

    def _new_trials(self, b, **kwargs):
        b.add_period(["fixation", "stimulus", "decision"])
        gt = b.choice("ground_truth", [0, 1])
        coh = b.choice("coh", [0.1, 0.5])
        b.add_input(1, ["fixation", "stimulus"], "fixation")
        b.add_input(np.stack([coh, -coh], axis=-1), "stimulus", "stimulus")
        b.add_noise(0, 0.5, "stimulus", "stimulus")
        b.set_target(gt, "decision", "choice")
        return {}


FIXED = {"fixation": 200, "stimulus": 200, "decision": 200}  # steps: fix 0-1, stim 2-3, dec 4-5


class Go(TrialEnv):
    """Upstream-style: the ob one-hot-codes the rewarded action (test_one_step_mismatch)."""

    def __init__(self, dt=100, timing=None):
        super().__init__(dt=dt)
        self.timing = timing or {"fixation": ("choice", [100, 200, 300]), "go": (100, 200)}
        self.observation_space = spaces.Box(-INF, INF, shape=(2,), name={"fixation": 0, "go": 1})
        self.action_space = spaces.Discrete(2)
        self.count = 0

    def _new_trial(self, **kwargs):
        self.count += 1
        self.add_period(["fixation", "go"])
        self.add_ob(1, "fixation", where="fixation")
        self.add_ob(1, "go", where="go")
        self.set_groundtruth(0, "fixation")
        self.set_groundtruth(1, "go")
        trial = {"id": self.count, "fixation_ms": self._current.durations["fixation"]}
        trial.update(kwargs)
        return trial

    def _step(self, action):
        reward = float(action == self.gt_now)
        return self.ob_now, reward, False, False, {}


class AddObInStep(TrialEnv):
    """Upstream's test_addob_instep: add_ob(1) inside _step changes the returned ob."""

    def __init__(self, dt=100):
        super().__init__(dt=dt)
        self.timing = {"go": 500}
        self.observation_space = spaces.Box(-INF, INF, shape=(1,))
        self.action_space = spaces.Discrete(2)

    def _new_trial(self, **kwargs):
        self.add_period("go")
        self.add_ob(1)
        return {}

    def _step(self, action):
        self.add_ob(1)
        return self.ob_now, 0.0, False, False, {}


class NoArrays(TrialEnv):
    """The tutorial's first trial env: no periods, no ob array, one-step trials."""

    def __init__(self):
        super().__init__()
        self.observation_space = gymnasium.spaces.Box(-1.0, 1.0, shape=(1,))
        self.action_space = gymnasium.spaces.Discrete(2)

    def _new_trial(self, **kwargs):
        return {"ground_truth": int(self.rng.integers(2))}

    def _step(self, action):
        ob = np.array([self.trial["ground_truth"] - 0.5], dtype=np.float32)
        return ob, float(action == self.trial["ground_truth"]), False, False, {"new_trial": True}


def make_decision(**kwargs):
    env = Decision(**kwargs)
    env.reset(seed=0)
    return env


def run(env, actions):
    return [env.step(a) for a in actions]


def assert_same_steps(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x[0], y[0])
        assert x[1:4] == y[1:4]
        assert x[4].keys() == y[4].keys()
        assert x[4].get("gt") == y[4].get("gt")
        assert x[4].get("new_trial") == y[4].get("new_trial")


# =========================================================================== alignment
def test_reset_returns_the_first_ob_without_a_hidden_step():
    env = Go()
    ob, info = env.reset(seed=1)
    assert info == {}
    assert env.t == 0
    assert env.t_ind == 0
    assert env.num_tr == 1
    np.testing.assert_array_equal(ob, env.ob[0])
    np.testing.assert_array_equal(ob, [1.0, 0.0])


def test_one_step_mismatch():
    """The policy argmax(last ob) is rewarded on every step, the first one included."""
    env = Go()
    ob, _ = env.reset(seed=0)
    rewards, boundaries = [], 0
    for _ in range(200):
        ob, reward, terminated, truncated, info = env.step(int(np.argmax(ob)))
        rewards.append(reward)
        boundaries += info["new_trial"]
        assert not terminated
        assert not truncated
    assert rewards == [1.0] * 200
    assert boundaries > 30


def test_addob_instep():
    env = AddObInStep()
    ob, _ = env.reset(seed=0)
    assert ob[0] == 1
    for i in range(20):
        ob, *_ = env.step(0)
        assert ob[0] == (i + 1) % 5 + 1


def test_returned_ob_is_ob_at_the_next_index_or_the_new_trials_first_row():
    env = Go()
    env.reset(seed=3)
    for _ in range(60):
        k, current = env.t_ind, env.ob.copy()
        ob, _, _, _, info = env.step(0)
        if info["new_trial"]:
            assert k == len(current) - 1
            np.testing.assert_array_equal(ob, env.ob[0])
            assert env.t_ind == 0
        else:
            np.testing.assert_array_equal(ob, current[k + 1])
            assert env.t_ind == k + 1
            assert env.t == (k + 1) * env.dt


def test_info_gt_is_the_gt_of_the_step_before_the_increment():
    env = Go()
    env.reset(seed=4)
    expected, seen = [], []
    for _ in range(50):
        expected.append(int(env.gt[env.t_ind]))
        seen.append(env.step(0)[4]["gt"])
    assert seen == expected
    assert set(seen) == {0, 1}


class RewritesGt(TrialEnv):
    """Upstream-style task whose _step rewrites the rest of the trial's gt (action 1)."""

    def __init__(self):
        super().__init__()
        self.timing = {"a": 300, "b": 300}
        self.observation_space = spaces.Box(-INF, INF, shape=(1,))
        self.action_space = spaces.Discrete(3)

    def _new_trial(self, **kwargs):
        self.add_period(["a", "b"])
        self.set_groundtruth(0)
        return {}

    def _step(self, action):
        if action == 1:
            self.set_groundtruth(2, "b")
        return np.zeros(1, np.float32), 0.0, False, False, {}


def test_info_gt_follows_a_gt_rewritten_inside_step():
    env = RewritesGt()
    env.reset(seed=0)
    seen = [env.step(action)[4]["gt"] for action in [1, 0, 0, 0]]
    np.testing.assert_array_equal(env.gt, [0, 0, 0, 2, 2, 2])
    assert seen == [0, 0, 0, 2]


def test_info_gt_is_absent_without_a_gt_and_new_trial_defaults_to_false():
    env = AddObInStep()
    env.reset(seed=0)
    info = env.step(0)[4]
    assert info == {"new_trial": False}


def test_info_trial_at_a_boundary_is_the_trial_that_ended():
    env = Go()
    env.reset(seed=5)
    ended = 0
    for _ in range(80):
        before = env.trial
        _, _, _, _, info = env.step(0)
        if info["new_trial"]:
            ended += 1
            assert info["trial"] is before
            assert info["trial"]["id"] == env.trial["id"] - 1
            assert info["performance"] == 0
        else:
            assert "trial" not in info
            assert "performance" not in info
    assert ended > 5


def test_timeout_adds_r_tmax_only_when_the_task_did_not_end_the_trial():
    env = Go(timing={"fixation": 200, "go": 200})
    env.r_tmax = -3
    ob, _ = env.reset(seed=0)
    rewards = []
    for _ in range(8):
        ob, reward, _, _, info = env.step(int(np.argmax(ob)))
        rewards.append((reward, info["new_trial"]))
    assert rewards == [(1.0, False), (1.0, False), (1.0, False), (-2.0, True)] * 2
    decision = make_decision(timing=FIXED)
    decision.r_tmax = -7
    run(decision, [0, 0, 0, 0])
    gt = decision.gt[4]
    _, reward, _, _, info = decision.step(int(gt))
    assert info["new_trial"]
    assert reward == 1.0  # the task ended the trial: no r_tmax


def test_returned_obs_are_copies():
    env = Go(timing={"fixation": 200, "go": 200})
    ob, _ = env.reset(seed=0)
    ob += 100
    np.testing.assert_array_equal(env.ob[0], [1, 0])
    for _ in range(6):
        ob, *_ = env.step(0)
        snapshot = env.ob.copy()
        ob += 100
        np.testing.assert_array_equal(env.ob, snapshot)
        assert not np.shares_memory(ob, env.ob)


def test_ob_now_without_an_ob_array_raises():
    class Broken(NoArrays):
        def _step(self, action):
            return self.ob_now, 0.0, False, False, {}

    env = Broken()
    env.reset(seed=0)
    assert env.ob_now is OBNOW
    with pytest.raises(
        RuntimeError, match=r"Broken\._step returned ob_now but the trial has no ob array"
    ):
        env.step(0)


def test_post_step_runs_last_and_sees_the_final_info():
    class Posting(Go):
        def post_step(self, ob, reward, terminated, truncated, info):
            self.seen = dict(info)
            return ob * 10, reward, terminated, truncated, info

    env = Posting(timing={"fixation": 100, "go": 100})
    env.reset(seed=0)
    env.step(0)
    ob, *_ = env.step(1)
    assert env.seen["new_trial"] is True
    assert "trial" in env.seen
    np.testing.assert_array_equal(ob, [10, 0])


# =========================================================================== seeding
def trajectory(env, seed, steps=80):
    ob, _ = env.reset(seed=seed)
    out = [ob.tolist()]
    actions = np.random.default_rng(1234).integers(0, 3, size=steps)
    for a in actions:
        ob, reward, _, _, info = env.step(int(a))
        out.append([ob.tolist(), float(reward), bool(info["new_trial"]), int(info.get("gt", -1))])
    return out


def test_reset_seed_is_deterministic():
    a = trajectory(Decision(), 7)
    assert a == trajectory(Decision(), 7)
    env = Decision()
    first = trajectory(env, 7)
    trajectory(env, 8)
    assert trajectory(env, 7) == first
    assert trajectory(Decision(), 8) != a


def test_reset_without_seed_continues_the_generator():
    env = Decision()
    env.reset(seed=7)
    first = env.ob.copy()
    env.reset()
    assert not np.array_equal(env.ob, first)


def test_every_draw_goes_through_env_rng():
    env = Decision()
    env.reset(seed=3)
    assert env.rng is env.np_random
    state = env.rng.bit_generator.state
    for _ in range(env.prefetch):  # the rest of the first block, then the next block's draw
        env.new_trial()
    assert env.rng.bit_generator.state != state
    replacement = np.random.default_rng(99)
    env.rng = replacement
    assert env.np_random is replacement


def test_reset_seed_is_deterministic_across_processes():
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); "
        "import test_env as t; print(json.dumps(t.trajectory(t.Decision(), 7)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(Path(__file__).parent)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert json.loads(result.stdout) == json.loads(json.dumps(trajectory(Decision(), 7)))


@pytest.mark.parametrize(
    "clone", [lambda e: pickle.loads(pickle.dumps(e)), copy.deepcopy], ids=["pickle", "deepcopy"]
)
@pytest.mark.parametrize("task", [Decision, Go])
def test_a_copy_continues_identically(clone, task):
    env = task()
    env.reset(seed=3)
    actions = np.random.default_rng(0).integers(0, 2, size=60).tolist()
    run(env, actions[:13])
    other = clone(env)
    assert other.t_ind == env.t_ind
    assert other.trial == env.trial
    assert_same_steps(run(env, actions[13:]), run(other, actions[13:]))


def test_there_is_no_seed_method_and_the_old_call_names_the_new_one():
    # gymnasium's check_env flags an env with a callable seed: 2.3.1's seed() is gone, and
    # calling it says what to write instead (neurogym._deprecation.RemovedAttributeHints).
    env = Decision()
    assert not hasattr(env, "seed")
    with pytest.raises(AttributeError, match=r"'seed'.*use env\.reset\(seed=s\)"):
        env.seed(0)


def test_timing_truncexp_is_seeded_by_reset():
    from neurogym import TruncExp

    timing = {"stimulus": TruncExp(300, 100, 1000)}
    a, b = Decision(timing=timing), Decision(timing=timing)
    a.reset(seed=2)
    b.reset(seed=2)
    assert a.end_t["stimulus"] == b.end_t["stimulus"]
    batch_a, batch_b = a.new_trials(200), b.new_trials(200)
    np.testing.assert_array_equal(batch_a.end_t["stimulus"], batch_b.end_t["stimulus"])
    assert len(np.unique(batch_a.end_t["stimulus"])) > 3


# =========================================================================== episodes
def test_trials_chain_in_one_endless_episode_by_default():
    env = make_decision()
    assert env.max_episode_steps is None
    assert env.trials_per_episode is None
    for _ in range(300):
        _, _, terminated, truncated, _ = env.step(0)
        assert not terminated
        assert not truncated


def test_trials_per_episode_terminates_after_k_trials():
    env = Decision(timing=FIXED)  # 6-step trials, action 0 always times out
    env.trials_per_episode = 3
    for _episode in range(2):
        env.reset(seed=0)
        flags = [env.step(0)[2] for _ in range(18)]
        assert flags == [False] * 17 + [True]
    env.reset(seed=0)
    ends = [(info["new_trial"], term) for _, _, term, _, info in run(env, [0] * 12)]
    assert ends.count((True, False)) == 2


def test_max_episode_steps_truncates():
    env = Decision(timing=FIXED)
    env.max_episode_steps = 7
    for _episode in range(2):
        env.reset(seed=0)
        flags = [env.step(0)[3] for _ in range(7)]
        assert flags == [False] * 6 + [True]


def test_tasks_without_ob_arrays_reset_to_the_initial_observation():
    env = NoArrays()
    ob, info = env.reset(seed=0)
    assert info == {}
    np.testing.assert_array_equal(ob, [0.0])
    assert ob.dtype == np.float32
    assert env.observation_space.contains(ob)
    assert env.tmax == 10000  # no periods: upstream's default trial length
    _, reward, _, _, info = env.step(1)
    assert info["new_trial"]
    assert "gt" not in info
    assert reward == float(info["trial"]["ground_truth"] == 1)

    class Custom(NoArrays):
        def initial_observation(self):
            return np.array([0.25], dtype=np.float32)

    np.testing.assert_array_equal(Custom().reset(seed=0)[0], [0.25])
    filled = NoArrays()
    filled._default_ob_value = -1
    np.testing.assert_array_equal(filled.reset(seed=0)[0], [-1.0])


# =========================================================================== the rule
def decision_at(step, ground_truth=1, **kwargs):
    """A fixed-timing Decision env with a forced gt, advanced (fixating) to ``step``."""
    env = Decision(timing=FIXED, **kwargs)
    env.reset(seed=0)
    env.new_trial(ground_truth=ground_truth)
    run(env, [0] * step)
    assert env.t_ind == step
    return env


def test_fixation_break_pays_abort_and_continues_when_abort_is_false():
    env = decision_at(0)
    _, reward, _, _, info = env.step(2)
    assert reward == -0.1
    assert info["new_trial"] is False
    assert env.t_ind == 1


def test_fixation_break_ends_the_trial_when_abort_is_true():
    env = decision_at(1, abort=True)
    ended = env.trial
    _, reward, _, _, info = env.step(1)
    assert reward == -0.1
    assert info["new_trial"] is True
    assert info["performance"] == 0
    assert info["trial"] is ended
    assert env.t_ind == 0


def test_fixating_and_acting_in_neutral_periods_pay_nothing():
    env = decision_at(0)
    assert [r for _, r, *_ in run(env, [0, 0])] == [0.0, 0.0]
    _, reward, _, _, info = env.step(2)  # stimulus: neutral
    assert reward == 0
    assert info["new_trial"] is False


def test_correct_response_pays_correct_with_performance_one():
    env = decision_at(4, ground_truth=1)
    _, reward, _, _, info = env.step(2)
    assert reward == 1.0
    assert info["new_trial"] is True
    assert info["performance"] == 1
    assert info["gt"] == 2
    assert env.performance == 0  # reset for the new trial


def test_wrong_response_pays_fail():
    env = decision_at(5, ground_truth=0)
    _, reward, _, _, info = env.step(2)
    assert reward == -1.0
    assert info["new_trial"] is True
    assert info["performance"] == 0


class DecisionWithoutFail(Decision):
    """A task whose rewards have no ``fail`` key (removed while it is made)."""

    def __init__(self, timing=None):
        super().__init__(timing=timing)
        del self.rewards["fail"]


def test_missing_fail_reward_means_zero():
    env = DecisionWithoutFail(timing=FIXED)
    env.reset(seed=0)
    env.new_trial(ground_truth=0)
    run(env, [0] * 4)
    _, reward, _, _, info = env.step(2)
    assert reward == 0
    assert info["new_trial"]


def test_fixating_through_the_decision_times_out():
    env = decision_at(4)
    env.r_tmax = -0.5
    assert env.step(0)[1] == 0
    _, reward, _, _, info = env.step(0)
    assert reward == -0.5
    assert info["new_trial"]
    assert info["performance"] == 0


def test_rule_codes_cover_the_steps_the_builder_writes():
    rule = StandardDecision(fixation_periods=("fixation",), decision_periods=("decision",))
    start = {"fixation": 0.0, "decision": 150.0, "other": 0.0}
    end = {"fixation": 150.0, "decision": 350.0, "other": 400.0}
    # floor(t / dt), the builder's rule: fixation writes step 0, decision steps 1-2
    assert rule.codes(start, end, 4, 100) == [FIXATE, RESPOND, RESPOND, NEUTRAL]
    overlap = rule.codes(
        {"fixation": 0.0, "decision": 200.0}, {"fixation": 300.0, "decision": 400.0}, 4, 100
    )
    assert overlap == [FIXATE, FIXATE, FIXATE, RESPOND]  # fixation is checked first
    assert rule.codes({}, {}, 3, 100) == [NEUTRAL] * 3
    env = Decision(timing={"fixation": 250, "stimulus": 130, "decision": 330})
    env.reset(seed=0)
    codes = [
        FIXATE
        if env.start_ind["fixation"] <= k < env.end_ind["fixation"]
        else RESPOND
        if env.start_ind["decision"] <= k < env.end_ind["decision"]
        else NEUTRAL
        for k in range(round(env.tmax / env.dt))
    ]
    assert env._current.codes == codes


# =========================================================================== trial_length_stats
class Periods(TrialEnv):
    """Adds the periods named in ``added``; other timing keys are never used."""

    def __init__(self, timing, added, dt=100):
        super().__init__(dt=dt)
        self.timing = timing
        self.added = added
        self.observation_space = spaces.Box(-INF, INF, shape=(1,))
        self.action_space = spaces.Discrete(2)

    def _new_trials(self, b, **kwargs):
        if self.added:
            b.add_period(self.added)
        return {}


class PeriodsUpstream(Periods):
    _new_trials = TrialEnv._new_trials

    def _new_trial(self, **kwargs):
        if self.added:
            self.add_period(self.added)
        return {}


@pytest.mark.parametrize("task", [Periods, PeriodsUpstream])
def test_trial_length_stats_is_exact_for_constants_not_multiple_of_dt(task):
    env = task({"fixation": 650, "stimulus": 650}, ["fixation", "stimulus"])
    stats = env.trial_length_stats(num_trials=100)
    assert stats == {"mean": 12.0, "std": 0.0, "percentile_95": 12.0, "max": 12.0}


@pytest.mark.parametrize("task", [Periods, PeriodsUpstream])
def test_trial_length_stats_ignores_non_period_timing_keys(task):
    timing = {"fixation": 300, "stimulus": 500, "toneTiming": 1000}
    env = task(timing, ["fixation", "stimulus"])
    assert env.trial_length_stats(50) == {
        "mean": 8.0,
        "std": 0.0,
        "percentile_95": 8.0,
        "max": 8.0,
    }


def test_trial_length_stats_without_periods_is_zero():
    stats = Periods({}, []).trial_length_stats(10)
    assert stats == {"mean": 0.0, "std": 0.0, "percentile_95": 0.0, "max": 0.0}


def test_trial_length_stats_for_random_timing():
    env = Decision()  # 2 + {1, 2, 3} + 2 steps, uniform
    env.reset(seed=0)
    stats = env.trial_length_stats(num_trials=10000)
    assert abs(stats["mean"] - 6.0) < 0.05
    assert abs(stats["std"] - np.sqrt(2 / 3)) < 0.02
    assert stats["percentile_95"] == 7.0
    assert stats["max"] == 7.0


def snapshot(env):
    return {
        "rng": env.rng.bit_generator.state,
        "trial": dict(env.trial),
        "ob": env.ob.copy(),
        "t_ind": env.t_ind,
        "num_tr": env.num_tr,
        "start_t": dict(env.start_t),
        "tmax": env.tmax,
    }


def assert_same_snapshot(a, b):
    np.testing.assert_array_equal(a.pop("ob"), b.pop("ob"))
    assert a.keys() == b.keys()
    for key in a:
        if key == "trial":
            assert a[key].keys() == b[key].keys()
            for k in a[key]:
                np.testing.assert_array_equal(a[key][k], b[key][k])
        else:
            assert a[key] == b[key], key


@pytest.mark.parametrize("task", [Decision, Go])
def test_trial_length_stats_leaves_the_env_untouched(task):
    env, twin = task(), task()
    for e in (env, twin):
        e.reset(seed=11)
        run(e, [0, 0, 0])
    before = snapshot(env)
    env.trial_length_stats(num_trials=500)
    assert_same_snapshot(snapshot(env), before)
    assert_same_steps(run(env, [0] * 40), run(twin, [0] * 40))


def test_trial_length_stats_leaves_the_rng_untouched_with_callable_timing():
    class Callable(Periods):
        def __init__(self):
            super().__init__({"a": lambda: self.rng.uniform(100, 500)}, ["a"])

    env = Callable()
    env.reset(seed=0)
    state = env.rng.bit_generator.state
    env.trial_length_stats(num_trials=20)
    assert env.rng.bit_generator.state == state


# =========================================================================== new_trials
def test_new_trials_on_an_upstream_style_task_pads_and_leaves_the_current_trial():
    env, twin = Go(), Go()
    for e in (env, twin):
        e.reset(seed=2)
        run(e, [0])
    before = snapshot(env)
    current = env.trial
    count = env.count
    batch = env.new_trials(40, color="red", level=np.arange(40))
    assert env.trial == current
    assert_same_snapshot({**snapshot(env), "rng": None}, {**before, "rng": None})
    assert env.count == count + 40  # the task's own counter did run
    # the rest of the current trial is unchanged
    remaining = round(env.tmax / env.dt) - env.t_ind
    assert_same_steps(run(env, [0] * remaining), run(twin, [0] * remaining))

    assert batch.size == 40
    fix_steps = (batch.trial["fixation_ms"] // 100).astype(int)
    go_steps = batch.periods["go"][1] - batch.periods["go"][0]
    np.testing.assert_array_equal(batch.lengths, fix_steps + go_steps)
    assert len(np.unique(batch.lengths)) > 1
    steps = int(batch.lengths.max())
    assert batch.ob.shape == (40, steps, 2)
    assert batch.gt.shape == (40, steps)
    for i in range(40):
        n, f = batch.lengths[i], fix_steps[i]
        expected_ob = np.zeros((steps, 2), np.float32)
        expected_ob[:f, 0] = 1
        expected_ob[f:n, 1] = 1
        np.testing.assert_array_equal(batch.ob[i], expected_ob)
        expected_gt = np.zeros(steps, np.int64)
        expected_gt[f:n] = 1
        np.testing.assert_array_equal(batch.gt[i], expected_gt)
        np.testing.assert_array_equal(batch.mask[i], np.arange(steps) < n)
        np.testing.assert_array_equal(batch.periods["fixation"][1][i], f)
    np.testing.assert_array_equal(batch.trial["id"], np.arange(count + 1, count + 41))
    np.testing.assert_array_equal(batch.trial["color"], ["red"] * 40)
    np.testing.assert_array_equal(batch.trial["level"], np.arange(40))
    np.testing.assert_array_equal(batch.start_t["go"], batch.trial["fixation_ms"])


def test_list_kwargs_mean_the_same_on_both_paths():
    native, upstream = Decision(), Go()
    native.reset(seed=0)
    upstream.reset(seed=0)
    expected = native.new_trials(3, level=RecordOnly([1, 2, 3])).trial["level"]
    np.testing.assert_array_equal(expected, [1, 2, 3])
    np.testing.assert_array_equal(
        upstream.new_trials(3, level=RecordOnly([1, 2, 3])).trial["level"], expected
    )


def test_new_trials_on_a_batch_native_task_leaves_the_current_trial():
    env = make_decision()
    run(env, [0, 0])
    before = snapshot(env)
    batch = env.new_trials(16)
    assert batch.ob.shape[0] == 16
    assert_same_snapshot({**snapshot(env), "rng": None}, {**before, "rng": None})


# =========================================================================== misc contract
def test_str_and_metadata():
    env = Decision()
    assert str(env) == "<Decision>"
    assert str(Go()) == "<Go>"
    assert env.metadata["render_modes"] == []
    assert Decision.metadata["render_modes"] == []
    assert TrialEnv.metadata["render_modes"] == []
    assert Go.metadata["render_modes"] == []
    assert env.render() is None


def test_subclass_metadata_gets_render_modes_without_losing_keys():
    class Meta(Go):
        metadata = {"paper_name": "p", "tags": ["a"]}  # noqa: RUF012

    assert Meta.metadata == {"render_modes": [], "paper_name": "p", "tags": ["a"]}


@pytest.mark.parametrize("dt", [0, -10, True, "100", None, float("inf"), float("nan")])
def test_dt_must_be_a_positive_number(dt):
    with pytest.raises(ValueError, match=rf"^dt must be a finite number of ms > 0, got {dt!r}$"):
        Go(dt=dt)


def test_float_dt_works():
    env = Go(dt=8.3, timing={"fixation": 100, "go": 50})
    env.reset(seed=0)
    assert env.end_ind == {"fixation": 12, "go": 18}
    assert env.ob.shape == (18, 2)


@pytest.mark.filterwarnings("ignore:.*Box observation space (minimum|maximum) value is")
@pytest.mark.parametrize("task", [Decision, Go, NoArrays])
def test_gymnasium_check_env_passes(task):
    check_env(task(), skip_render_check=True)


@pytest.mark.parametrize("copier", [lambda env: pickle.loads(pickle.dumps(env)), copy.deepcopy])
def test_a_copy_keeps_in_place_edits_of_its_current_trial(copier):
    # ReactionTime edits the trial's gt in place and calls refresh_trial(); in a pickled or
    # deep-copied env the edit used to be lost (the rows were no longer views of the trial).
    from data_tasks import OneAtATime, VarTask

    for task in (OneAtATime, VarTask):  # a trial built on its own, and a pool row
        env = task()
        env.reset(seed=0)
        clone = copier(env)
        answer = clone.gt[-1]
        assert answer != clone.gt[0]
        clone.gt[:] = answer
        clone.refresh_trial()
        *_, info = clone.step(0)
        assert info["gt"] == answer


# ====================================================== edits of the current trial (§5)
def _pool_and_built():
    """A prefetched-row trial (Decision) and one built on its own (Go)."""
    pooled = Decision(timing=FIXED)
    pooled.reset(seed=0)
    built = Go(timing={"fixation": 200, "go": 300})
    built.reset(seed=0)
    return pooled, built


@pytest.mark.parametrize("which", [0, 1], ids=["pool-row", "built"])
def test_an_edit_of_env_ob_during_a_trial_is_what_step_returns(which):
    env = _pool_and_built()[which]
    env.step(0)  # the fast per-trial copy of the observations is taken here
    ob = env.ob
    ob[2:] = 7.0
    for t in range(2, len(ob)):
        returned, *_ = env.step(0)
        np.testing.assert_array_equal(returned, env.ob[t])
        assert np.all(returned == 7.0)
    next_first, *_ = env.step(0)  # a new trial: its own, unedited observations
    np.testing.assert_array_equal(next_first, env.ob[0])
    assert not np.all(next_first == 7.0)


def test_an_edit_of_env_gt_during_a_trial_is_scored_and_reported():
    env = Decision(timing=FIXED)
    env.reset(seed=0)
    for _ in range(4):
        env.step(0)  # fixation and stimulus
    answer = int(env.gt[4])
    other = 3 - answer  # the other choice (actions 1 and 2)
    env.gt[4:] = other
    _, reward, _, _, info = env.step(other)
    assert info["gt"] == other
    assert type(info["gt"]) is int
    assert (reward, info["new_trial"], info["performance"]) == (1.0, True, 1)


def test_edits_of_a_trial_keep_returned_observations_private():
    env, _ = _pool_and_built()
    env.gt  # noqa: B018 (reading the arrays makes the trial live)
    ob, *_ = env.step(0)
    ob += 100
    assert not np.shares_memory(ob, env.ob)
    assert np.all(env.ob < 100)


def test_upstream_style_step_writing_self_ob_runs_as_ported():
    # docs/porting.md, "A _step that writes observations": the upstream code runs unchanged.
    class Counter(TrialEnv):
        def __init__(self, dt=100):
            super().__init__(dt=dt)
            self.timing = {"count": 400}
            self.observation_space = spaces.Box(-INF, INF, shape=(1,))
            self.action_space = spaces.Discrete(2)

        def _new_trial(self, **kwargs):
            self.add_period("count")
            self.add_ob(1)
            return {}

        def _step(self, action):
            if self.t_ind + 1 < len(self.ob):
                self.ob[self.t_ind + 1, 0] = 10 + self.t_ind
            return self.ob_now, 0.0, False, False, {}

    env = Counter()
    first, _ = env.reset(seed=0)
    returned = [first[0]] + [env.step(0)[0][0] for _ in range(3)]
    assert returned == [1, 10, 11, 12]
    np.testing.assert_array_equal(env.ob[:, 0], returned)


@pytest.mark.parametrize("copier", [lambda env: pickle.loads(pickle.dumps(env)), copy.deepcopy])
def test_a_copy_of_an_edited_trial_steps_as_the_original(copier):
    for env in _pool_and_built():
        env.ob[1:] = 5.0
        clone = copier(env)
        expected = [env.step(0) for _ in range(3)]
        got = [clone.step(0) for _ in range(3)]
        for (ob_e, *rest_e), (ob_g, *rest_g) in zip(expected, got, strict=True):
            np.testing.assert_array_equal(ob_e, ob_g)
            assert rest_e[:3] == rest_g[:3]


class Reach(TrialEnv):
    """A Box action of two values; the trial times out after tmax (any dt)."""

    def __init__(self, dt=100):
        super().__init__(dt=dt)
        self.observation_space = spaces.Box(-INF, INF, shape=(1,))
        self.action_space = gymnasium.spaces.Box(-1.0, 1.0, shape=(2,))

    def _new_trial(self, **kwargs):
        return {}

    def _step(self, action):
        self.seen = action
        return np.zeros(1, np.float32), 0.0, False, False, {}


def test_box_actions_inline_and_in_full_agree():
    # step accepts a small finite float array inline and sends the rest to checked_action
    env = Reach()
    env.reset(seed=0)
    huge = np.full(2, np.finfo(np.float64).max)  # finite values whose sum overflows
    for action in (huge, -huge, np.zeros(2, np.int64), np.array([0.5, -0.5], np.float32)):
        env.step(action)
        assert env.seen is action  # accepted unchanged, whichever path took it
    for action in (np.array([np.nan, 0.0]), np.array([np.inf, -np.inf]), np.zeros(3), [0.0]):
        with pytest.raises(InvalidActionError):
            env.step(action)


@pytest.mark.parametrize(("dt", "tmax", "steps"), [(100, 10000, 100), (30, 10000, 333),
                                                   (0.1, 0.3, 3), (7, 700, 100)])  # fmt: skip
def test_a_trial_without_periods_times_out_at_floor_tmax_over_dt(dt, tmax, steps):
    # the trial ends at the step whose successor would start past tmax: floor(tmax / dt)
    env = Reach(dt=dt)
    env.tmax = tmax  # before any trial: the length of trials that add no period
    env.reset(seed=0)
    ends = [env.step(np.zeros(2, np.float32))[4]["new_trial"] for _ in range(steps)]
    assert ends == [False] * (steps - 1) + [True]
    assert (env.t_ind, env.t) == (0, 0)
    env.step(np.zeros(2, np.float32))
    assert (env.t_ind, env.t) == (1, dt)


def test_setting_tmax_during_a_trial_moves_its_end():
    env = Reach()
    env.reset(seed=0)
    env.step(np.zeros(2, np.float32))
    env.tmax = 300  # three steps: this trial ends at the third
    infos = [env.step(np.zeros(2, np.float32))[4] for _ in range(2)]
    assert [info["new_trial"] for info in infos] == [False, True]


def test_null_serves_a_dropped_row_again_zeroed_and_never_one_still_held():
    import pickle

    from neurogym._env.null import Null

    env = Null(dt=1000)  # 10 steps a trial
    env.reset(seed=0)
    held = [env.step(0)[0] for _ in range(10)]  # the whole first trial, kept
    second = [env.step(0)[0] for _ in range(10)]
    assert not any(np.shares_memory(a, b) for a in held for b in second)
    for ob in second:
        ob[0] = 5.0  # written, then dropped: the next trial may serve the same rows again
    ids = {id(ob) for ob in second}
    del ob, second
    third = [env.step(0)[0] for _ in range(10)]
    assert {id(ob) for ob in third} == ids  # reused ...
    assert all(ob.tolist() == [0.0] for ob in third)  # ... and zeroed
    assert not any(np.shares_memory(a, b) for a in held for b in third)
    assert all(ob.tolist() == [0.0] for ob in held)
    clone = pickle.loads(pickle.dumps(env))  # its rows lost their common base: made anew
    del third
    obs = [clone.step(0)[0] for _ in range(20)]
    assert all(ob.tolist() == [0.0] for ob in obs)
    assert not any(np.shares_memory(a, b) for i, a in enumerate(obs) for b in obs[i + 1 :])


def test_null_returns_a_fresh_zero_row_every_step_even_past_a_raised_tmax():
    from neurogym._env.null import Null

    env = Null()
    env.reset(seed=0)
    obs = [env.step(0)[0] for _ in range(3)]
    assert all(ob.shape == (1,) and ob.dtype == np.float32 and ob[0] == 0 for ob in obs)
    assert not any(np.shares_memory(a, b) for a, b in [(obs[0], obs[1]), (obs[1], obs[2])])
    env.tmax = 200 * env.dt  # this trial now runs past the rows made for 100 steps
    for _ in range(150):
        ob, _, _, _, info = env.step(0)
        assert ob.tolist() == [0.0]
    assert not info["new_trial"]


def test_null_runs_trials_of_infinite_length():
    from neurogym._env.null import Null

    env = Null()
    env.tmax = float("inf")  # before any trial: trials never time out
    env.reset(seed=0)
    for _ in range(5000):  # past the rows a trial keeps (4096)
        ob, _, _, _, info = env.step(0)
        assert ob.tolist() == [0.0]
        assert not info["new_trial"]


def test_the_ob_now_sentinel_survives_pickling_and_copying():
    # step recognises ob_now by identity: a copy must hold the very object, or _step's
    # return value would reach the caller as the string "ob_unknown_yet"
    env = Go()
    env.reset(seed=0)
    assert env.ob_now is OBNOW
    assert OBNOW == "ob_unknown_yet"  # upstream's value
    for twin in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env), copy.copy(env)):
        assert twin.ob_now is OBNOW
        ob = twin.step(0)[0]
        assert isinstance(ob, np.ndarray)
