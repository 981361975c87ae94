"""The motor and timing tasks: structure, rewards by hand, scripted agents, forced variables."""

from __future__ import annotations

import numpy as np
import pytest

from neurogym import TruncExp
from neurogym.testing import check_task
from neurogym.testing.trials import (
    assert_lengths_follow,
    choice_steps,
    const_steps,
    convolve,
    run_trial,
    seeded,
    step_trial,
    trunc_exp_steps,
)
from neurogym_motor.tasks._production import production_reward
from neurogym_motor.tasks.gonogo import GoNogo
from neurogym_motor.tasks.motortiming import MotorTiming
from neurogym_motor.tasks.onetwothreego import OneTwoThreeGo
from neurogym_motor.tasks.reaching import Reaching1D, Reaching1DWithSelfDistraction
from neurogym_motor.tasks.readysetgo import ReadySetGo

TIMING_TASKS = (ReadySetGo, MotorTiming, OneTwoThreeGo)


@pytest.mark.parametrize(
    ("task", "kwargs"),
    [
        (GoNogo, {}),
        (GoNogo, {"dt": 50, "timing": {"fixation": 200}}),
        (MotorTiming, {}),
        (MotorTiming, {"dt": 100, "prod_margin": 0.5}),
        (OneTwoThreeGo, {}),
        (OneTwoThreeGo, {"dt": 40}),
        (Reaching1D, {}),
        (Reaching1D, {"dim_ring": 61, "dt": 50}),
        (Reaching1DWithSelfDistraction, {}),
        (ReadySetGo, {}),
        (ReadySetGo, {"gain": 1.5, "dt": 40}),
    ],
)
def test_check_task(task, kwargs):
    check_task(task(**kwargs))


def _go_at(step):
    """Go (1) at step ``step`` of the trial, fixate (0) before it."""
    return lambda env: int(env.t_ind == step)


def _reward_at(env, step):
    """The last reward and info of a trial in which the agent goes at ``step``."""
    rewards, info, steps = run_trial(env, _go_at(step))
    assert steps == step + 1  # the go ended the trial
    return rewards[-1], info


def _graded(eps, threshold):
    return max((1 - eps / threshold) ** 1.5, 0.1)


# ----------------------------------------------------------------------------- defaults, spaces


@pytest.mark.parametrize(
    ("task", "dt", "rewards", "obs", "obs_names", "n_actions", "action_names"),
    [
        (GoNogo, 100, {"abort": -0.1, "correct": 1.0, "fail": -0.5, "miss": -0.5}, 3,
         {"fixation": 0, "nogo": 1, "go": 2}, 2, {"fixation": 0, "go": 1}),
        (MotorTiming, 80, {"abort": -0.1, "correct": 1.0, "fail": 0.0}, 4, None, 2, None),
        (OneTwoThreeGo, 80, {"abort": -0.1, "correct": 1.0, "fail": 0.0}, 3,
         {"fixation": 0, "stimulus": 1, "target": 2}, 2, {"fixation": 0, "go": 1}),
        (Reaching1D, 100, {"correct": 1.0, "fail": -0.1}, 32,
         {"self": tuple(range(16, 32)), "target": tuple(range(16))}, 3,
         {"fixation": 0, "left": 1, "right": 2}),
        (Reaching1DWithSelfDistraction, 100, {"correct": 1.0, "fail": -0.1}, 32,
         {"ring": tuple(range(32))}, 3, None),
        (ReadySetGo, 80, {"abort": -0.1, "correct": 1.0, "fail": 0.0}, 3,
         {"fixation": 0, "ready": 1, "set": 2}, 2, {"fixation": 0, "go": 1}),
    ],
)  # fmt: skip
def test_defaults_and_spaces(task, dt, rewards, obs, obs_names, n_actions, action_names):
    env = task()
    assert env.dt == dt
    assert env.rewards == rewards
    assert env.observation_space.shape == (obs,)
    assert env.observation_space.dtype == np.float32
    assert (env.observation_space.name or None) == obs_names
    assert env.action_space.n == n_actions
    assert (env.action_space.name or None) == action_names
    assert env.abort is False


def test_default_timing_dicts():
    assert dict(GoNogo().timing) == {"fixation": 0, "stimulus": 500, "delay": 500, "decision": 500}
    assert dict(ReadySetGo().timing) == {
        "fixation": 100, "ready": 83, "measure": ("uniform", (800, 1500)), "set": 83,
    }  # fmt: skip
    assert dict(MotorTiming().timing) == {
        "fixation": 500, "cue": ("uniform", (1000, 3000)), "set": 50,
    }  # fmt: skip
    timing = OneTwoThreeGo().timing
    assert timing["fixation"] == TruncExp(400, 100, 800)
    assert timing["target"] == TruncExp(1000, 500, 1500)
    assert timing["interval1"] == (600, 700, 800, 900, 1000)
    assert dict(Reaching1D().timing) == {"fixation": 500, "reach": 500}
    assert (MotorTiming().intervals, MotorTiming().production_ind) == ([800, 1500], [0, 1])
    assert (ReadySetGo().gain, ReadySetGo().prod_margin) == (1.0, 0.2)


@pytest.mark.parametrize(
    ("task", "kwargs", "error", "message"),
    [
        (ReadySetGo, {"gain": 0}, ValueError, r"gain must be a finite number > 0, got 0"),
        (ReadySetGo, {"prod_margin": -0.1}, ValueError, r"prod_margin must be a finite number"),
        (MotorTiming, {"prod_margin": "0.2"}, TypeError, r"prod_margin must be a finite number"),
        (OneTwoThreeGo, {"timing": {"interval3": 500}}, ValueError,
         r"timing\['interval3'\] cannot be set \(got 500; only its placeholder 0\): "
         r"interval2 and interval3 last as long as interval1"),
        (Reaching1D, {"dim_ring": 1}, ValueError, r"dim_ring must be an int in .2, 4096., got 1"),
        (Reaching1D, {"rewards": {"fail": 1.0}}, ValueError,
         r"rewards\['correct'\] must be greater than rewards\['fail'\]"),
    ],
)  # fmt: skip
def test_bad_arguments_raise(task, kwargs, error, message):
    with pytest.raises(error, match=message):
        task(**kwargs)


# ---------------------------------------------------------------------------------- graded reward


@pytest.mark.parametrize(
    ("produced", "target", "margin", "expected"),
    [
        (800, 800, 0.2, (1.0, True)),
        (880, 800, 0.2, ((1 - 80 / 185) ** 1.5, True)),  # 0.4276
        (720, 800, 0.2, ((1 - 80 / 185) ** 1.5, True)),  # symmetric
        (960, 800, 0.2, (0.1, True)),  # (25/185)^1.5 = 0.0497 is raised to the 0.1 floor
        (985, 800, 0.2, (0.1, True)),  # eps == thr: still inside
        (986, 800, 0.2, (0.0, False)),
        (1440, 1500, 0.2, ((1 - 60 / 325) ** 1.5, True)),  # 0.7363
        (880, 800, 0.5, ((1 - 80 / 425) ** 1.5, True)),
    ],
)
def test_graded_reward_by_hand(produced, target, margin, expected):
    reward, within = production_reward(produced, target, margin, {"correct": 1.0, "fail": 0.0})
    assert (reward, within) == (pytest.approx(expected[0], abs=1e-12), expected[1])
    scaled, _ = production_reward(produced, target, margin, {"correct": 2.0, "fail": -1.0})
    assert scaled == pytest.approx(2 * expected[0] if within else -1.0)


# ------------------------------------------------------------------------------------- GoNogo


def test_go_nogo_trial_structure():
    env = seeded(GoNogo, seed=1)
    for go in (0, 1):
        env.new_trial(ground_truth=go)
        cue = [0.0, 1.0] if go else [1.0, 0.0]
        expected = [[1.0, *cue]] * 5 + [[1.0, 0.0, 0.0]] * 5 + [[0.0, 0.0, 0.0]] * 5
        np.testing.assert_array_equal(env.ob, expected)
        np.testing.assert_array_equal(env.gt, [0] * 10 + [go] * 5)
    assert seeded(GoNogo, dt=50).ob.shape == (30, 3)
    batch = seeded(GoNogo, seed=2).new_trials(400)
    assert abs(batch.trial["ground_truth"].mean() - 0.5) < 0.1
    np.testing.assert_array_equal(batch.mask[:, 10:], True)  # the decision is the loss mask
    np.testing.assert_array_equal(batch.mask[:, :10], False)


def test_go_nogo_withheld_nogo_trials_are_correct_in_every_trial():
    # Upstream set the performance when it generated a trial, and its step then reset it to 0
    # right after generating the next trial: only an episode's first trial kept it.
    env = seeded(GoNogo, seed=8)
    outcomes = []
    for _ in range(12):
        rewards, info, _ = run_trial(env, lambda e: 0)
        go = int(info["trial"]["ground_truth"])
        outcomes.append((go, info["performance"], rewards[-1]))
    assert sum(go == 0 for go, _, _ in outcomes[1:]) >= 2
    assert outcomes == [(go, 1 - go, -0.5 * go) for go, _, _ in outcomes]


def test_go_nogo_contingencies_and_miss_in_every_trial():
    env = seeded(GoNogo, seed=3)
    outcomes = {}
    for _ in range(3):
        for go in (1, 0):
            for respond in (True, False):
                env.new_trial(ground_truth=go)
                policy = (lambda e: int(e.t_ind >= 10)) if respond else (lambda e: 0)
                rewards, info, steps = run_trial(env, policy)
                outcome = (rewards[-1], info["performance"], steps, sum(rewards[:-1]))
                assert outcomes.setdefault((go, respond), outcome) == outcome
    assert outcomes == {
        (1, True): (1.0, 1, 11, 0.0),  # go on a go trial: correct, ends the trial
        (1, False): (-0.5, 0, 15, 0.0),  # a missed go trial pays miss at its last step
        (0, True): (-0.5, 0, 11, 0.0),  # go on a no-go trial: fail
        (0, False): (0.0, 1, 15, 0.0),  # a withheld no-go trial is correct, reward 0
    }
    custom = seeded(GoNogo, seed=4, rewards={"miss": -2.0, "fail": -1.0})
    custom.new_trial(ground_truth=1)
    assert run_trial(custom, lambda e: 0)[0][-1] == -2.0
    custom.new_trial(ground_truth=0)
    assert run_trial(custom, lambda e: 1)[0][-1] == -1.0


def test_go_nogo_early_go_costs_nothing_and_fixation_breaks_abort():
    env = seeded(GoNogo, seed=5)
    env.new_trial(ground_truth=1)
    rewards, _, _ = run_trial(env, lambda e: 1 if e.t_ind < 10 else 0)
    assert rewards == [0.0] * 14 + [-0.5]  # going before the decision is not a response
    timed = seeded(GoNogo, seed=6, timing={"fixation": 200})
    _, reward, *_, info = timed.step(1)
    assert (reward, info["new_trial"]) == (pytest.approx(-0.1), False)


def test_go_nogo_forced_ground_truth_is_checked():
    env = seeded(GoNogo, seed=7)
    with pytest.raises(ValueError, match=r"forced ground_truth=2 is not one of its values"):
        env.new_trial(ground_truth=2)
    batch = env.new_trials(4, ground_truth=[1, 0, 0, 1])
    np.testing.assert_array_equal(batch.gt[:, -1], [1, 0, 0, 1])


# ----------------------------------------------------------------------------------- ReadySetGo


def _measure_pmf(dt, low=800, high=1500):
    """Exact pmf of floor(U(low, high) / dt) (the floored measure, in steps)."""
    pmf = {}
    for k in range(int(low // dt), int(high // dt) + 1):
        overlap = min(high, (k + 1) * dt) - max(low, k * dt)
        if overlap > 0:
            pmf[k] = overlap / (high - low)
    return pmf


@pytest.mark.parametrize(
    ("dt", "pulse_steps"),
    [(80, 1), (40, 2)],  # 100 ms fixation and 83 ms pulses floor to 80 ms at both
)
def test_ready_set_go_periods_overlap_and_lengths(dt, pulse_steps):
    env = seeded(ReadySetGo, seed=1, dt=dt)
    measure = float(env.trial["measure"])
    m = round(measure / dt)
    spans = {name: (env.start_ind[name], env.end_ind[name]) for name in env.start_ind}
    p = pulse_steps
    assert spans == {
        "fixation": (0, p),
        "ready": (p, 2 * p),
        "measure": (p, p + m),  # starts with the ready pulse: the two overlap (upstream)
        "set": (p + m, 2 * p + m),
        "production": (2 * p + m, 2 * p + 3 * m),
    }
    np.testing.assert_array_equal(env.ob[:, 0], [1] * (2 * p + m) + [0] * (2 * m))
    np.testing.assert_array_equal(np.flatnonzero(env.ob[:, 1]), range(p, 2 * p))
    np.testing.assert_array_equal(np.flatnonzero(env.ob[:, 2]), range(p + m, 2 * p + m))
    np.testing.assert_array_equal(np.flatnonzero(env.gt), [2 * p + m + m])  # int(P / dt) in
    lengths = env.new_trials(4000).lengths
    pmf = {2 * p + 3 * k: q for k, q in _measure_pmf(dt).items()}
    assert_lengths_follow(lengths, pmf)
    if dt == 80:
        assert (lengths.min(), lengths.max()) == (32, 56)  # upstream: 32-56 steps


def test_ready_set_go_graded_reward_by_hand():
    # measure 800 at dt=80: fixation [0, 80), measure [80, 880), set [880, 960), production
    # [960, 2560) = steps 12..31. A go at step k produced 80 k - 880 ms (from the end of the
    # measure), the tolerance is 0.2 * 800 + 25 = 185 ms.
    env = seeded(ReadySetGo, seed=2)
    expected = {
        11: (0.0, None),  # in the set period: not a response, the trial goes on
        12: (0.0, 0),  # produced 80 ms: far outside the tolerance, fail
        19: (0.1, 1),  # eps 160: (25/185)^1.5 = 0.05, raised to 0.1
        20: (_graded(80, 185), 1),  # eps 80
        21: (1.0, 1),  # eps 0: the full reward
        22: (_graded(80, 185), 1),  # eps 80: the ground truth's go step (one set pulse late)
        23: (0.1, 1),
        24: (0.0, 0),  # eps 240
    }
    for step, (reward, performance) in expected.items():
        env.new_trial(measure=800)
        if performance is None:
            rewards, _, steps = run_trial(env, lambda e, s=step: int(e.t_ind == s))
            assert rewards[step] == 0.0
            assert steps == 32  # timed out without a response
            continue
        assert np.flatnonzero(env.gt).tolist() == [22]
        got, info = _reward_at(env, step)
        assert (got, info["performance"]) == (pytest.approx(reward, abs=1e-12), performance)
    env.new_trial(measure=800, gain=1.5)  # production 1200 ms, tolerance 265 ms
    assert _reward_at(env, 26)[0] == 1.0  # 80 * 26 - 880 = 1200
    env.new_trial(measure=800, gain=1.5)
    assert _reward_at(env, 27)[0] == pytest.approx(_graded(80, 265))
    early = seeded(ReadySetGo, seed=3, rewards={"fail": -1.0})
    early.new_trial(measure=800)
    assert _reward_at(early, 12)[0] == -1.0


def test_ready_set_go_fixation_break_and_abort_flag():
    env = seeded(ReadySetGo, seed=4)
    _, reward, *_, info = env.step(1)
    assert (reward, info["new_trial"]) == (pytest.approx(-0.1), False)


def _produce_what_was_measured(env, gain):
    """A scripted agent that only reads the observations: it times ready onset to set onset
    and goes ``gain`` times that interval after the set onset. Returns (measured, reward)."""
    ob = env.ob[0]
    ready = set_on = None
    while True:
        if ready is None and ob[1] == 1:
            ready = env.t_ind
        if set_on is None and ob[2] == 1:
            set_on = env.t_ind
        go = set_on is not None and env.t_ind == set_on + round(gain * (set_on - ready))
        ob, reward, _, _, info = env.step(int(go))
        if info["new_trial"]:
            return (set_on - ready) * env.dt, reward


@pytest.mark.parametrize("gain", [1.0, 1.5])
def test_ready_set_go_production_scales_with_measure_and_gain(gain):
    env = seeded(ReadySetGo, seed=5, gain=gain)
    measured, rewards = [], []
    for _ in range(40):
        trial = dict(env.trial)
        measure, reward = _produce_what_was_measured(env, gain)
        assert measure == trial["measure"]  # the ready onset starts the measure period
        assert trial["production"] == gain * trial["measure"]
        measured.append(measure)
        rewards.append(reward)
    # Whole steps of gain * measure: the produced interval is exact or 40 ms off.
    assert min(rewards) >= _graded(40, 0.2 * 800 * gain + 25) - 1e-12
    assert len(set(measured)) > 5
    batch = seeded(ReadySetGo, seed=6, gain=gain).new_trials(300)
    go_step = batch.gt.argmax(axis=1) - batch.periods["production"][0]
    slope = np.polyfit(batch.trial["measure"], go_step * env.dt, 1)[0]
    assert slope == pytest.approx(gain, abs=0.02)


def test_ready_set_go_forced_measure_sets_the_period():
    # Upstream recorded a forced measure but built the measure period and the production from
    # the sampled one.
    env = seeded(ReadySetGo, seed=7)
    trial = env.new_trial(measure=1000.0)
    assert (env.start_t["measure"], env.end_t["measure"]) == (80, 1080)
    assert trial["production"] == 1000.0
    batch = env.new_trials(3, gain=[1.0, 1.5, 2.0], measure=800)
    np.testing.assert_array_equal(batch.trial["production"], [800, 1200, 1600])
    with pytest.raises(
        ValueError, match=r"production cannot be forced: it is derived from measure and gain"
    ):
        env.new_trial(production=900)
    with pytest.raises(ValueError, match=r"forced gain must be finite numbers > 0"):
        env.new_trial(gain=0)
    with pytest.raises(ValueError, match=r"forced measure must be finite durations >= 0"):
        env.new_trial(measure=-5)
    for name in ("gain", "measure"):  # not numbers: named too (numpy's float() error before)
        with pytest.raises(ValueError, match=rf"forced {name} must be a number \(or one per"):
            env.new_trial(**{name: "x"})


# ---------------------------------------------------------------------------------- MotorTiming


@pytest.mark.parametrize(
    ("dt", "set_steps", "fixation_steps", "production_steps"),
    [
        (80, 1, 6, (20, 37)),  # 50 ms set: 0 steps upstream (never shown), 1 step here
        (100, 1, 5, (16, 30)),  # the same at dt=100
        (20, 2, 25, (80, 150)),  # 50 ms floors to 40 ms: two steps, as any period
    ],
)
def test_motor_timing_set_cue_is_shown_and_lengths(
    dt, set_steps, fixation_steps, production_steps
):
    env = seeded(MotorTiming, seed=1, dt=dt)
    for index in (0, 1):
        env.new_trial(production_ind=index)
        start, end = env.start_ind["set"], env.end_ind["set"]
        assert end - start == set_steps
        np.testing.assert_array_equal(env.ob[start:end, 3], 1)  # the set cue is visible
        np.testing.assert_array_equal(env.ob[:, 3].sum(), set_steps)
        assert env.end_ind["production"] - env.start_ind["production"] == production_steps[index]
    lengths = env.new_trials(4000).lengths
    cue = _measure_pmf(dt, 1000, 3000)
    pmf = convolve({fixation_steps + set_steps: 1.0}, cue, choice_steps(production_steps, 1))
    assert_lengths_follow(lengths, pmf)
    if dt == 80:
        assert (lengths.min(), lengths.max()) == (39, 81)  # upstream: 38-80


def test_motor_timing_zero_set_stays_empty():
    env = seeded(MotorTiming, seed=2, timing={"set": 0})
    assert env.end_ind["set"] == env.start_ind["set"]
    assert env.ob[:, 3].sum() == 0


def test_motor_timing_observations_and_target():
    env = seeded(MotorTiming, seed=3)
    for index in (0, 1):
        env.new_trial(production_ind=index)
        cue, prod = env.start_ind["cue"], env.start_ind["production"]
        indicator = [0.0, 0.0]
        indicator[index] = 1.0
        np.testing.assert_array_equal(env.ob[:cue], [[1, 0, 0, 0]] * cue)
        np.testing.assert_array_equal(
            env.ob[cue : prod - 1], [[1, *indicator, 0]] * (prod - 1 - cue)
        )
        np.testing.assert_array_equal(env.ob[prod - 1], [1, *indicator, 1])  # the set step
        np.testing.assert_array_equal(env.ob[prod:], 0)
        go = prod + [10, 18][index]  # int(800 / 80), int(1500 / 80)
        np.testing.assert_array_equal(np.flatnonzero(env.gt), [go])
        assert env.trial["production"] == [800, 1500][index]
    batch = env.new_trials(400)
    assert abs(batch.trial["production_ind"].mean() - 0.5) < 0.1
    np.testing.assert_array_equal(batch.trial["production"], np.where(
        batch.trial["production_ind"] == 1, 1500, 800))  # fmt: skip


@pytest.mark.parametrize(
    ("index", "offset", "reward", "performance"),
    [
        (0, 10, 1.0, 1),  # produced 800 ms after the end of the set cue
        (0, 9, _graded(80, 185), 1),
        (0, 12, 0.1, 1),  # eps 160: 0.05 raised to the floor
        (0, 13, 0.0, 0),  # eps 240 > 185: fail
        (1, 18, _graded(60, 325), 1),  # the ground truth's go step: 1440 ms
        (1, 19, _graded(20, 325), 1),
        (1, 14, 0.0, 0),  # eps 380 > 325
    ],
)
def test_motor_timing_graded_reward_by_hand(index, offset, reward, performance):
    env = seeded(MotorTiming, seed=4)
    env.new_trial(production_ind=index)
    got, info = _reward_at(env, env.start_ind["production"] + offset)
    assert (got, info["performance"]) == (pytest.approx(reward, abs=1e-12), performance)


def test_motor_timing_agent_reading_the_cue_produces_the_named_interval():
    # Reads only observations: the indicator dim names the interval; time it from the end of
    # the set cue (dim 3), to the nearest step.
    env = seeded(MotorTiming, seed=7)
    rewards = {800: set(), 1500: set()}
    for _ in range(30):
        ob, named, set_end = env.ob[0], None, None
        while True:
            if ob[1] or ob[2]:
                named = 800 if ob[1] else 1500
            if named and set_end is None and ob[3] == 0 and ob[0] == 0:
                set_end = env.t_ind  # the first production step: the set cue has ended
            go = set_end is not None and env.t_ind == set_end + round(named / env.dt)
            ob, reward, *_, info = env.step(int(go))
            if info["new_trial"]:
                assert info["trial"]["production"] == named
                rewards[named].add(round(reward, 4))
                break
    assert rewards == {800: {1.0}, 1500: {round(_graded(20, 325), 4)}}  # 1520 ms: 19 steps


def test_motor_timing_forced_variables_are_checked():
    env = seeded(MotorTiming, seed=5)
    with pytest.raises(ValueError, match=r"forced production_ind=2 is not one of its values"):
        env.new_trial(production_ind=2)
    with pytest.raises(ValueError, match=r"production cannot be forced: .* production_ind"):
        env.new_trial(production=1000)
    _, reward, *_ = seeded(MotorTiming, seed=6).step(1)
    assert reward == pytest.approx(-0.1)  # a go in the fixation period


# -------------------------------------------------------------------------------- OneTwoThreeGo


def test_one_two_three_go_structure():
    env = seeded(OneTwoThreeGo, seed=1)
    for _ in range(20):
        env.new_trial()
        interval = float(env.trial["interval"])
        assert interval in (560, 640, 800, 880, 960)  # 600..1000 floored to 80 ms
        for period in ("interval1", "interval2", "interval3"):
            assert env.end_t[period] - env.start_t[period] == interval
        for period in ("s1", "s2", "s3"):
            assert env.end_ind[period] - env.start_ind[period] == 1  # 100 ms -> 80 ms
        pulses = [env.start_ind[p] for p in ("s1", "s2", "s3")]
        np.testing.assert_array_equal(np.flatnonzero(env.ob[:, 1]), pulses)
        assert np.diff(pulses).tolist() == [interval / 80 + 1] * 2
        np.testing.assert_array_equal(env.ob[:, 0], 1)  # fixation input all trial long
        fixation = env.end_ind["fixation"]
        np.testing.assert_array_equal(
            env.ob[:, 2], [0] * fixation + [1] * (len(env.ob) - fixation)
        )
        response = env.start_ind["response"]
        np.testing.assert_array_equal(env.gt, [0] * response + [1] * 12)


@pytest.mark.parametrize(("dt", "pulse", "response"), [(80, 1, 12), (40, 2, 25)])
def test_one_two_three_go_lengths(dt, pulse, response):
    lengths = seeded(OneTwoThreeGo, seed=2, dt=dt).new_trials(4000).lengths
    intervals = {3 * k: p for k, p in choice_steps((600, 700, 800, 900, 1000), dt).items()}
    pmf = convolve(
        trunc_exp_steps(400, 100, 800, dt),
        trunc_exp_steps(1000, 500, 1500, dt),
        {3 * pulse + response: 1.0},
        intervals,
    )
    assert_lengths_follow(lengths, pmf)
    assert const_steps(100, dt) == {pulse: 1.0}


@pytest.mark.parametrize(
    ("offset", "reward", "performance"),
    [
        (0, 1.0, 1),  # the first response step: one interval after the end of s3
        (-1, _graded(80, 185), 1),  # the last step of interval3
        (2, 0.1, 1),  # eps 160
        (-10, 0.0, 0),  # the first step of interval3: produced 0 ms, fail
    ],
)
def test_one_two_three_go_graded_reward_by_hand(offset, reward, performance):
    env = seeded(OneTwoThreeGo, seed=3)
    env.new_trial(interval=800.0)
    assert env.start_ind["response"] - env.end_ind["s3"] == 10
    got, info = _reward_at(env, env.start_ind["response"] + offset)
    assert (got, info["performance"]) == (pytest.approx(reward, abs=1e-12), performance)


def test_one_two_three_go_agent_reproducing_the_pulse_interval_earns_full_reward():
    # Reads only observations: the steps from the first to the second pulse give the interval
    # (plus one pulse step); it goes that interval after the third pulse ends.
    env = seeded(OneTwoThreeGo, seed=5)
    seen = set()
    for _ in range(30):
        ob, pulses, go_at = env.ob[0], [], None
        while True:
            if ob[1] and (not pulses or pulses[-1] != env.t_ind - 1):
                pulses.append(env.t_ind)
            if len(pulses) == 3 and go_at is None:
                go_at = pulses[2] + (pulses[1] - pulses[0])  # end of s3 + interval
            ob, reward, *_, info = env.step(int(env.t_ind == go_at))
            if info["new_trial"]:
                seen.add(float(info["trial"]["interval"]))
                assert (reward, info["performance"]) == (1.0, 1)
                break
    assert len(seen) == 5  # every interval of the timing spec came up


def test_one_two_three_go_early_go_aborts_and_forced_interval_sets_periods():
    env = seeded(OneTwoThreeGo, seed=4)
    env.new_trial(interval=1000.0)  # not a multiple of dt: used as given
    # Upstream scored against a forced interval but kept the sampled interval periods.
    for period in ("interval1", "interval2", "interval3"):
        assert env.end_t[period] - env.start_t[period] == 1000.0
    s2, length = env.start_ind["s2"], len(env.ob)
    rewards, infos, steps = step_trial(env, lambda e: int(e.t_ind == s2))
    assert rewards[s2] == pytest.approx(-0.1)  # a go outside interval3/response: abort
    assert not infos[s2]["new_trial"]  # the trial goes on (abort is False) ...
    assert steps == length  # ... and times out without a response, reward 0
    assert sum(rewards) == pytest.approx(-0.1)
    assert infos[-1]["performance"] == 0


# ------------------------------------------------------------------------------------- Reaching

REACHING = (Reaching1D, Reaching1DWithSelfDistraction)


def _circular(angle):
    return abs((angle + np.pi) % (2 * np.pi) - np.pi)


def _toward(target):
    """A scripted agent that turns the pointer the short way to ``target``, then holds it."""

    def policy(env):
        error = (target - env.state + np.pi) % (2 * np.pi) - np.pi
        if abs(error) <= 0.025:
            return 0
        return 1 if error > 0 else 2

    return policy


def _away(target):
    toward = _toward(target)
    return lambda env: {0: 1, 1: 2, 2: 1}[toward(env)]


@pytest.mark.parametrize("task", REACHING)
def test_reaching_rewards_the_float_target_angle(task):
    # Upstream stored the target in an int64 ground-truth array: 2.9 rad was scored as 2, so a
    # pointer held at pi earned max(1 - 1.14, -0.1) = -0.1 instead of 1 - 0.24 = 0.76.
    env = seeded(task, seed=1)
    trial = env.new_trial(ground_truth=2.9)
    assert trial["ground_truth"] == 2.9
    rewards, infos, steps = step_trial(env, lambda e: 0)
    assert steps == 10
    assert rewards == [0.0] * 5 + [pytest.approx(1 - (np.pi - 2.9))] * 5
    assert infos[-1]["performance"] == pytest.approx((1 - (np.pi - 2.9) + 0.1) / 1.1)
    assert all("gt" not in info for info in infos)  # no ground truth: the actions are steps
    assert env.has_groundtruth is False


@pytest.mark.parametrize("task", REACHING)
def test_scripted_reacher_earns_the_documented_reward(task):
    env = seeded(task, seed=2)
    for _ in range(10):
        target = float(env.trial["ground_truth"])
        pointer, expected = np.pi, []
        for step in range(10):
            action = _toward(target)(env)
            pointer = (pointer + {0: 0, 1: 0.05, 2: -0.05}[action]) % (2 * np.pi)
            if step >= 5:
                expected.append(max(1 - _circular(pointer - target), -0.1))
            _, reward, *_, info = env.step(action)
            assert env.state == pytest.approx(pointer if step < 9 else np.pi)
        assert reward == pytest.approx(expected[-1])
        assert info["performance"] == pytest.approx(np.mean([(r + 0.1) / 1.1 for r in expected]))
        env.new_trial(ground_truth=target)  # the same target, and an agent moving away
        away, _, _ = run_trial(env, _away(target))
        floor = [-0.1] * 5
        assert sum(away) < sum(expected) or expected == away[5:] == floor
        assert min(away) >= -0.1


@pytest.mark.parametrize("task", REACHING)
def test_moving_toward_earns_more_than_moving_away(task):
    env = seeded(task, seed=3)
    env.new_trial(ground_truth=np.pi + 0.4)
    toward, _, _ = run_trial(env, _toward(np.pi + 0.4))
    env.new_trial(ground_truth=np.pi + 0.4)
    away, _, _ = run_trial(env, _away(np.pi + 0.4))
    env.new_trial(ground_truth=np.pi + 0.4)
    still, _, _ = run_trial(env, lambda e: 0)
    assert sum(toward) > sum(still) > sum(away)
    # The pointer turns from the first step (in fixation): it is at pi + 0.4 from step 7 on.
    assert toward[5:] == pytest.approx([1 - 0.1, 1 - 0.05, 1.0, 1.0, 1.0], abs=1e-9)


def test_reaching_observations_show_target_and_pointer_without_touching_the_trial():
    env = seeded(Reaching1D, seed=4)
    stored = env.ob.copy()
    target = float(env.trial["ground_truth"])
    theta = np.arange(16) * 2 * np.pi / 16
    np.testing.assert_allclose(stored[:, 16:], [np.cos(theta - np.pi)] * 10, atol=1e-6)
    np.testing.assert_allclose(stored[5:, :16], [np.cos(theta - target)] * 5, atol=1e-6)
    np.testing.assert_array_equal(stored[:5, :16], 0)
    for step in range(9):
        ob, *_ = env.step(1)
        np.testing.assert_allclose(ob[16:], np.cos(theta - env.state), atol=1e-6)
        np.testing.assert_array_equal(ob[:16], stored[step + 1, :16])
    assert env.state == pytest.approx(np.pi + 0.45)
    np.testing.assert_array_equal(env.ob, stored)  # upstream wrote the pointer into env.ob
    ob, *_, info = env.step(1)
    assert info["new_trial"]
    np.testing.assert_array_equal(ob, env.ob[0])  # the next trial starts with the pointer at pi
    again = seeded(Reaching1D, seed=4)
    np.testing.assert_array_equal(again.ob, stored)  # a seeded trial reads the same
    assert seeded(Reaching1D, dt=50).ob.shape == (20, 32)
    assert seeded(Reaching1D, timing={"fixation": 300}).ob.shape == (8, 32)


def test_self_distraction_pointer_input_overshadows_the_target():
    env = seeded(Reaching1DWithSelfDistraction, seed=5)
    stored = env.ob.copy()
    target = float(env.trial["ground_truth"])
    theta = np.arange(32) * 2 * np.pi / 32
    weak = 0.3 * np.cos(theta - target)
    np.testing.assert_allclose(stored, [np.cos(theta - np.pi)] * 5 + [
        weak + np.cos(theta - np.pi)] * 5, atol=1e-6)  # fmt: skip
    for step in range(9):
        ob, *_ = env.step(2)
        shown = np.cos(theta - env.state) + (weak if step + 1 >= 5 else 0)
        np.testing.assert_allclose(ob, shown, atol=1e-6)
    np.testing.assert_array_equal(env.ob, stored)  # upstream added into env.ob in place


@pytest.mark.parametrize("dim_ring", [16, 61, 122])
def test_reaching_any_ring_size(dim_ring):
    # Upstream's np.arange(0, 2 pi, 2 pi / n) gives n + 1 angles for n = 61 and 122, so its
    # add_ob failed to broadcast the target into the n ring dims.
    env = seeded(Reaching1D, seed=6, dim_ring=dim_ring)
    np.testing.assert_allclose(env.theta, 2 * np.pi * np.arange(dim_ring) / dim_ring)
    assert env.ob.shape == (10, 2 * dim_ring)
    ob, *_ = env.step(1)
    assert ob.shape == (2 * dim_ring,)
