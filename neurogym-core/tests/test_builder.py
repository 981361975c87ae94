"""BatchBuilder / TrialBatch (through env.new_trials(n)) and the per-trial authoring verbs
(through env.new_trial()): exact arrays for every verb, ragged batches, forced kwargs, errors."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from gymnasium.utils.seeding import np_random

import neurogym
from neurogym import EmptyPeriodWarning, InvalidOperationError, TrialEnv, spaces
from neurogym.wrappers import RecordOnly

INF = np.inf
OBS_NAMES = {"fixation": 0, "stimulus": [1, 2], "extra": 3}
ACT_NAMES = {"fixation": 0, "choice": [1, 2]}
# At dt=100: fixation = steps [0, 2), stimulus = [2, 5), decision = [5, 6); T = 6.
TIMING = {"fixation": 200, "stimulus": 300, "decision": 100}
PERIODS = ["fixation", "stimulus", "decision"]
FIX, STIM, DEC = slice(0, 2), slice(2, 5), slice(5, 6)


def _spaces(env, action_space):
    env.observation_space = spaces.Box(-INF, INF, shape=(4,), name=OBS_NAMES)
    env.action_space = action_space or spaces.Discrete(3, name=ACT_NAMES)


class BatchTask(TrialEnv):
    """Batch-native task whose ``_new_trials`` body is given by the test."""

    def __init__(self, body, timing=None, dt=100, action_space=None):
        super().__init__(dt=dt)
        self.body = body
        self.timing = TIMING if timing is None else timing
        _spaces(self, action_space)

    def _new_trials(self, b, **kwargs):
        return self.body(b, **kwargs)


class SingleTask(TrialEnv):
    """Upstream-style task whose ``_new_trial`` body (called with the env) is given by the test."""

    def __init__(self, body, timing=None, dt=100, action_space=None):
        super().__init__(dt=dt)
        self.body = body
        self.timing = TIMING if timing is None else timing
        _spaces(self, action_space)

    def _new_trial(self, **kwargs):
        return self.body(self, **kwargs) or {}


def make_batch(body, n=2, timing=None, seed=0, action_space=None, **kwargs):
    env = BatchTask(body, timing, action_space=action_space)
    env.rng = np.random.default_rng(seed)
    return env.new_trials(n, **kwargs)


def single_batch_native(body, timing=None, seed=0, action_space=None, **kwargs):
    """The single-trial path of a batch-native task: env.new_trial() (a batch of one)."""
    env = BatchTask(body, timing, action_space=action_space)
    env.rng = np.random.default_rng(seed)
    env.new_trial(**kwargs)
    return env


def single(body, timing=None, seed=0, action_space=None, **kwargs):
    env = SingleTask(body, timing, action_space=action_space)
    env.rng = np.random.default_rng(seed)
    env.new_trial(**kwargs)
    return env


def zeros(n=2, steps=6, dims=4):
    return np.zeros((n, steps, dims), dtype=np.float32)


def periods_only(b, **kwargs):
    b.add_period(PERIODS)
    return {}


# =========================================================================== periods
def test_add_period_list_form_in_a_batch():
    batch = make_batch(periods_only, n=3)
    assert batch.size == 3
    assert batch.dt == 100.0
    np.testing.assert_array_equal(batch.lengths, [6, 6, 6])
    expected_steps = {"fixation": (0, 2), "stimulus": (2, 5), "decision": (5, 6)}
    expected_ms = {"fixation": (0, 200), "stimulus": (200, 500), "decision": (500, 600)}
    assert list(batch.periods) == PERIODS
    for name in PERIODS:
        start, end = batch.periods[name]
        np.testing.assert_array_equal(start, [expected_steps[name][0]] * 3)
        np.testing.assert_array_equal(end, [expected_steps[name][1]] * 3)
        np.testing.assert_array_equal(batch.start_t[name], [expected_ms[name][0]] * 3)
        np.testing.assert_array_equal(batch.end_t[name], [expected_ms[name][1]] * 3)
    assert batch.ob is None
    assert batch.gt is None
    assert batch.mask.shape == (3, 6)
    assert not batch.mask.any()
    assert batch.valid.all()
    assert batch.trial == {}


@pytest.mark.parametrize("build", [single, single_batch_native])
def test_add_period_list_form_in_a_single_trial(build):
    env = build(lambda e: e.add_period(PERIODS)) if build is single else build(periods_only)
    assert env.start_t == {"fixation": 0.0, "stimulus": 200.0, "decision": 500.0}
    assert env.end_t == {"fixation": 200.0, "stimulus": 500.0, "decision": 600.0}
    assert env.start_ind == {"fixation": 0, "stimulus": 2, "decision": 5}
    assert env.end_ind == {"fixation": 2, "stimulus": 5, "decision": 6}
    assert env.tmax == 600
    assert env._current.tmax_ms == 600
    assert env.num_tr == 1


def test_add_period_list_with_explicit_durations_and_a_start_time():
    def body(b):
        b.add_period(["a", "b"], duration=[100, 250], after=50)

    batch = make_batch(body, timing={})
    np.testing.assert_array_equal(batch.start_t["a"], [50, 50])
    np.testing.assert_array_equal(batch.end_t["a"], [150, 150])
    np.testing.assert_array_equal(batch.start_t["b"], [150, 150])
    np.testing.assert_array_equal(batch.end_t["b"], [400, 400])
    np.testing.assert_array_equal(batch.periods["a"][0], [0, 0])
    np.testing.assert_array_equal(batch.periods["b"][0], [1, 1])
    np.testing.assert_array_equal(batch.lengths, [4, 4])


@pytest.mark.parametrize(
    ("duration", "shown"),
    [(-100, "[-100.0]"), (float("nan"), "[nan]"), (np.array([200.0, -50.0]), "[-50.0]")],
)
def test_an_explicit_duration_not_at_least_zero_is_refused_naming_the_period(duration, shown):
    def body(b):
        b.add_period("fixation", duration=100)
        b.add_period("stimulus", duration=duration, after="fixation")

    message = re.escape(f"period 'stimulus' was given a duration that is not >= 0 ms: {shown}; ")
    with pytest.raises(ValueError, match=message):
        make_batch(body, timing={})
    if np.ndim(duration) == 0:  # the single-trial path of an upstream-style task too
        with pytest.raises(ValueError, match=message):
            single(lambda env: body(env), timing={})


def test_a_zero_duration_is_a_valid_empty_period():
    batch = make_batch(lambda b: b.add_period(["a", "b"], duration=[0, 100]), timing={})
    np.testing.assert_array_equal(batch.end_t["a"], [0, 0])
    np.testing.assert_array_equal(batch.lengths, [1, 1])


def before_after(b, add_ob="add_input"):
    """A body for a batch (``b``) or a single trial (``add_ob="add_ob"``, ``b`` the env)."""
    b.add_period("fixation")  # [0, 200)
    b.add_period("stimulus", after="fixation")  # [200, 500)
    b.add_period("cue", duration=100, before="stimulus")  # [100, 200)
    b.add_period("probe", duration=200, after=350)  # [350, 550)
    b.add_period("decision", after="probe")  # [550, 650)
    getattr(b, add_ob)(1, "probe", "extra")
    getattr(b, add_ob)(2, "cue", 0)


def test_before_and_after_names_and_numbers_in_a_batch():
    batch = make_batch(before_after, timing=TIMING)
    ms = {k: (float(batch.start_t[k][0]), float(batch.end_t[k][0])) for k in batch.start_t}
    assert ms == {
        "fixation": (0, 200),
        "stimulus": (200, 500),
        "cue": (100, 200),
        "probe": (350, 550),
        "decision": (550, 650),
    }
    steps = {k: (int(s[0]), int(e[0])) for k, (s, e) in batch.periods.items()}
    assert steps == {
        "fixation": (0, 2),
        "stimulus": (2, 5),
        "cue": (1, 2),
        "probe": (3, 5),
        "decision": (5, 6),
    }
    np.testing.assert_array_equal(batch.lengths, [6, 6])
    expected = zeros()
    expected[:, 3:5, 3] = 1
    expected[:, 1, 0] = 2
    np.testing.assert_array_equal(batch.ob, expected)


def test_before_and_after_names_and_numbers_in_a_single_trial():
    env = single(lambda e: before_after(e, "add_ob"))
    assert env.start_t["cue"] == 100
    assert env.end_t["probe"] == 550
    assert env.start_ind["probe"] == 3
    assert env.end_ind["decision"] == 6
    assert env._current.tmax_ms == 650
    assert env.tmax == 600  # floored to dt, as upstream
    expected = zeros(1)[0]
    expected[3:5, 3] = 1
    expected[1, 0] = 2
    np.testing.assert_array_equal(env.ob, expected)


def test_explicit_durations_are_not_floored_sampled_ones_are():
    def body(b):
        b.add_period("a")  # timing 150 -> floored to 100
        b.add_period("x", duration=150, after="a")  # explicit, kept
        b.add_period("b", after="x")  # timing 150 -> 100

    timing = {"a": 150, "b": 150}
    batch = make_batch(body, timing=timing)
    assert [float(batch.end_t[k][0]) for k in ("a", "x", "b")] == [100.0, 250.0, 350.0]
    assert [int(batch.periods[k][0][0]) for k in ("a", "x", "b")] == [0, 1, 2]
    np.testing.assert_array_equal(batch.lengths, [3, 3])
    env = single(lambda e: body(e), timing=timing)
    assert env.end_t == {"a": 100.0, "x": 250.0, "b": 350.0}
    assert env._current.durations == {"a": 100.0, "x": 150.0, "b": 100.0}
    assert env.tmax == 300


def test_sampled_durations_are_floored_draws_of_one_call_per_period():
    timing = {"fixation": 250, "stimulus": ("uniform", (150, 450)), "decision": (100, 250)}
    n = 2000
    batch = make_batch(periods_only, n=n, timing=timing, seed=3)
    reference = np.random.default_rng(3)
    specs = {name: BatchTask(None, timing).timing.spec(name) for name in PERIODS}
    for name in PERIODS:
        raw = specs[name].sample(reference, n)
        np.testing.assert_array_equal(
            batch.end_t[name] - batch.start_t[name], np.floor(raw / 100) * 100
        )
    stim = batch.end_t["stimulus"] - batch.start_t["stimulus"]
    assert set(np.unique(stim)) == {100.0, 200.0, 300.0, 400.0}
    assert set(np.unique(batch.end_t["decision"] - batch.start_t["decision"])) == {100.0, 200.0}
    assert set(np.unique(batch.start_t["stimulus"])) == {200.0}
    np.testing.assert_array_equal(batch.lengths, batch.end_t["decision"] // 100)


def test_until_ends_every_trial_at_the_same_time():
    timing = {
        "fixation": 300,
        "stimulus": ("uniform", (100, 500)),
        "decision": ("until", 1000),
    }
    batch = make_batch(periods_only, n=50, timing=timing, seed=1)
    np.testing.assert_array_equal(batch.end_t["decision"], [1000.0] * 50)
    np.testing.assert_array_equal(batch.start_t["decision"], batch.end_t["stimulus"])
    assert len(np.unique(batch.end_t["stimulus"])) > 1
    np.testing.assert_array_equal(batch.lengths, [10] * 50)
    env = single(lambda e: e.add_period(PERIODS), timing=timing)
    assert env.end_t["decision"] == 1000
    assert env.tmax == 1000


def test_until_in_the_past_raises():
    timing = {"fixation": 1200, "decision": ("until", 1000)}
    message = re.escape(
        "timing['decision'] = ('until', 1000): the trial already lasts 1200.0 ms, past the "
        "'until' time 1000.0 ms"
    )
    with pytest.raises(ValueError, match=message):
        make_batch(lambda b: b.add_period(["fixation", "decision"]), timing=timing)
    with pytest.raises(ValueError, match=message):
        single(lambda e: e.add_period(["fixation", "decision"]), timing=timing)


def test_non_period_timing_keys_are_never_sampled():
    with_extra = {**TIMING, "toneTiming": ("uniform", (0, 1000)), "junk": (1, 2, 3)}

    def body(b):
        b.add_period(PERIODS)
        b.add_noise(0, 1, "stimulus")

    a = make_batch(body, n=3, timing=TIMING, seed=8)
    b = make_batch(body, n=3, timing=with_extra, seed=8)
    np.testing.assert_array_equal(a.ob, b.ob)
    assert "toneTiming" not in b.periods


def test_per_trial_state_is_cleared_between_trials():
    calls = []

    def body(env):
        calls.append(1)
        env.add_period(PERIODS if len(calls) == 1 else ["fixation"])

    env = single(body)
    assert "decision" in env.start_t
    env.new_trial()
    assert env.start_t == {"fixation": 0.0}
    assert env.end_ind == {"fixation": 2}
    assert env.tmax == 200


def test_in_period_uses_ms_with_half_open_bounds():
    env = single(lambda e: before_after(e, "add_ob"))
    assert env.in_period("probe", 350)
    assert env.in_period("probe", 549.9)
    assert not env.in_period("probe", 550)
    assert not env.in_period("probe", 300)
    env.t = 100  # t is t_ind * dt: setting it sets the step index
    assert env.t_ind == 1
    assert env.in_period("cue")
    with pytest.raises(
        ValueError, match=r"t must be a whole number of steps of dt=100 ms .* got 150"
    ):
        env.t = 150
    assert not env.in_period("fixation", 200)
    with pytest.raises(KeyError, match="unknown period 'nope'"):
        env.in_period("nope")


def test_zero_length_periods_are_never_in_and_write_nothing():
    timing = {"fixation": 200, "delay": 0, "decision": 100}

    def body(env):
        env.add_period(["fixation", "delay", "decision"])
        env.add_ob(5, "delay")
        env.add_randn(0, 1, "delay")

    env = single(body, timing=timing)
    assert not env.in_period("delay", 200)
    assert env.start_ind["delay"] == env.end_ind["delay"] == 2
    np.testing.assert_array_equal(env.ob, np.zeros((3, 4), np.float32))


# =========================================================================== observations
def stim_body(*calls):
    """A batch body adding the periods then making ``calls``: (method, args, kwargs)."""

    def body(b, **kwargs):
        b.add_period(PERIODS)
        for method, args, kw in calls:
            getattr(b, method)(*args, **kw)
        return {}

    return body


def trial_body(*calls):
    def body(env, **kwargs):
        env.add_period(PERIODS)
        for method, args, kw in calls:
            getattr(env, method)(*args, **kw)

    return body


def test_add_ob_scalar_over_the_whole_trial():
    batch = make_batch(stim_body(("add_input", (2.5,), {})))
    np.testing.assert_array_equal(batch.ob, np.full((2, 6, 4), 2.5, np.float32))
    assert batch.ob.dtype == np.float32


def test_add_ob_per_dim_vector():
    batch = make_batch(stim_body(("add_input", ([0.5, -0.5], "stimulus", "stimulus"), {})))
    expected = zeros()
    expected[:, STIM, 1:3] = [0.5, -0.5]
    np.testing.assert_array_equal(batch.ob, expected)


def test_add_ob_per_trial_rows():
    value = np.array([[1.0, 2.0], [3.0, 4.0]])
    batch = make_batch(stim_body(("add_input", (value, "stimulus", "stimulus"), {})))
    expected = zeros()
    expected[0, STIM, 1:3] = [1, 2]
    expected[1, STIM, 1:3] = [3, 4]
    np.testing.assert_array_equal(batch.ob, expected)


def test_add_ob_per_trial_scalar_at_one_dim():
    batch = make_batch(stim_body(("add_input", (np.array([7.0, 8.0]), "decision", 3), {})))
    expected = zeros()
    expected[0, DEC, 3] = 7
    expected[1, DEC, 3] = 8
    np.testing.assert_array_equal(batch.ob, expected)


def test_add_ob_per_step_shared_by_all_trials():
    value = np.arange(6.0).reshape(3, 2)
    batch = make_batch(
        stim_body(("add_input", (value, "stimulus", "stimulus"), {"per_step": True}))
    )
    expected = zeros()
    expected[:, STIM, 1:3] = value
    np.testing.assert_array_equal(batch.ob, expected)


def test_add_ob_per_step_per_trial():
    value = np.arange(12.0).reshape(2, 3, 2)
    batch = make_batch(
        stim_body(("add_input", (value, "stimulus", "stimulus"), {"per_step": True}))
    )
    expected = zeros()
    expected[:, STIM, 1:3] = value
    np.testing.assert_array_equal(batch.ob, expected)


def test_add_ob_per_step_at_one_dim():
    batch = make_batch(
        stim_body(("add_input", ([1, 2, 3], "stimulus", "extra"), {"per_step": True}))
    )
    expected = zeros()
    expected[:, STIM, 3] = [1, 2, 3]
    np.testing.assert_array_equal(batch.ob, expected)


WHERE_FORMS = [
    ("stimulus", [1, 2]),
    ("extra", [3]),
    (3, [3]),
    (np.int64(0), [0]),
    (-1, [3]),
    ([0, 3], [0, 3]),
    ([1], [1]),
    ((1, 2), [1, 2]),
    (range(1, 3), [1, 2]),
    (slice(2, 4), [2, 3]),
    (slice(None), [0, 1, 2, 3]),
    (np.array([3, 0]), [3, 0]),
    (None, [0, 1, 2, 3]),
]


@pytest.mark.parametrize(("where", "dims"), WHERE_FORMS)
def test_where_forms_in_a_batch(where, dims):
    batch = make_batch(stim_body(("add_input", (1, "stimulus", where), {})))
    expected = zeros()
    expected[:, STIM, dims] = 1
    np.testing.assert_array_equal(batch.ob, expected)


@pytest.mark.parametrize(("where", "dims"), WHERE_FORMS)
def test_where_forms_in_a_single_trial(where, dims):
    env = single(trial_body(("add_ob", (1, "stimulus", where), {})))
    expected = zeros(1)[0]
    expected[STIM, dims] = 1
    np.testing.assert_array_equal(env.ob, expected)


def test_where_names_follow_a_replaced_observation_space():
    def body(b):
        b.add_period("fixation")
        b.add_input(1, "fixation", "target")

    env = BatchTask(body)
    env.rng = np.random.default_rng(0)
    wrong = 0
    for i in range(200):
        env.observation_space = spaces.Box(-INF, INF, shape=(4,), name={"target": i % 4})
        env.new_trial()
        wrong += int(np.argmax(env.ob[0])) != i % 4
    assert wrong == 0


def test_where_order_follows_the_given_indices():
    batch = make_batch(stim_body(("add_input", ([10, 20], "decision", [3, 0]), {})))
    expected = zeros()
    expected[:, DEC, 3] = 10
    expected[:, DEC, 0] = 20
    np.testing.assert_array_equal(batch.ob, expected)


@pytest.mark.parametrize("where", [[-2, -1], [-1], range(-2, 0)])
def test_negative_index_lists_select_the_last_dims(where):
    batch = make_batch(stim_body(("add_input", (1, "stimulus", where), {})))
    expected = zeros()
    expected[:, STIM, [4 + i for i in where]] = 1
    np.testing.assert_array_equal(batch.ob, expected)


def test_add_ob_period_list_and_accumulation():
    batch = make_batch(
        stim_body(
            ("add_input", (1, ["fixation", "decision"], "fixation"), {}),
            ("add_input", (1, ["fixation"], "fixation"), {}),
        )
    )
    expected = zeros()
    expected[:, FIX, 0] = 2
    expected[:, DEC, 0] = 1
    np.testing.assert_array_equal(batch.ob, expected)


def test_set_ob_replaces_only_the_selected_cells():
    batch = make_batch(
        stim_body(
            ("add_input", (1,), {}),
            ("set_input", (5, "stimulus", "stimulus"), {}),
            ("set_input", ([7, 8], "decision", [3, 0]), {}),
        )
    )
    expected = np.ones((2, 6, 4), np.float32)
    expected[:, STIM, 1:3] = 5
    expected[:, DEC, 3] = 7
    expected[:, DEC, 0] = 8
    np.testing.assert_array_equal(batch.ob, expected)


def test_callable_value_with_per_step_receives_the_selected_view():
    seen = []

    def addend(view):
        seen.append(view.shape)
        return view * 2

    body = stim_body(
        ("add_input", (1,), {}),
        ("add_input", (addend, "stimulus", "stimulus"), {"per_step": True}),
    )
    batch = make_batch(body)
    expected = np.ones((2, 6, 4), np.float32)
    expected[:, STIM, 1:3] = 3
    np.testing.assert_array_equal(batch.ob, expected)
    assert seen == [(2, 3, 2)]


def test_callable_value_receives_the_selected_view():
    seen = []

    def addend(view):
        seen.append(view.shape)
        return view * 2

    batch = make_batch(
        stim_body(("add_input", (1,), {}), ("add_input", (addend, "stimulus", "stimulus"), {}))
    )
    expected = np.ones((2, 6, 4), np.float32)
    expected[:, STIM, 1:3] = 3
    np.testing.assert_array_equal(batch.ob, expected)
    assert seen == [(2, 3, 2)]


def test_single_trial_authoring_verbs_exact_arrays():
    """Upstream per-trial semantics: values broadcast to (T_period, k), callables allowed."""

    def body(env, **kwargs):
        env.add_period(PERIODS)
        env.add_ob(1, ["fixation", "stimulus"], where="fixation")
        env.add_ob(np.array([0.25, 0.75]), "stimulus", where="stimulus")
        env.add_ob(np.array([[1.0], [2.0], [3.0]]), "stimulus", where=[3])
        env.add_ob(lambda view: view + 1, "decision", where="extra")
        env.set_ob(9, "fixation", where=[1, 2])
        env.set_groundtruth(1, "decision", where="choice")
        env.set_groundtruth(0, "fixation")
        return {"ground_truth": 1}

    env = single(body)
    expected = zeros(1)[0]
    expected[0:5, 0] = 1
    expected[STIM, 1:3] = [0.25, 0.75]
    expected[STIM, 3] = [1, 2, 3]
    expected[DEC, 3] = 1
    expected[FIX, 1:3] = 9
    np.testing.assert_array_equal(env.ob, expected)
    np.testing.assert_array_equal(env.gt, [0, 0, 0, 0, 0, 2])
    assert env.gt.dtype == np.int64
    assert env.trial == {"ground_truth": 1}
    batch = env._current_builder().finish(None)
    np.testing.assert_array_equal(batch.mask[0], [1, 1, 0, 0, 0, 1])


def test_views_are_writable_windows_on_the_trial():
    def body(env):
        env.add_period(PERIODS)
        view = env.view_ob("stimulus")
        assert view.shape == (3, 4)
        view[:, 1] = 4
        gt = env.view_groundtruth("decision")
        gt[:] = 2

    env = single(body)
    expected = zeros(1)[0]
    expected[STIM, 1] = 4
    np.testing.assert_array_equal(env.ob, expected)
    np.testing.assert_array_equal(env.gt, [0, 0, 0, 0, 0, 2])
    np.testing.assert_array_equal(env.view_ob(), env.ob)

    def batch_body(b):
        b.add_period(PERIODS)
        b.view_input("decision")[..., 0] = 3

    batch = make_batch(batch_body)
    expected = zeros()
    expected[:, DEC, 0] = 3
    np.testing.assert_array_equal(batch.ob, expected)


def test_default_ob_value_fills_the_arrays():
    def body(b):
        b.add_period(PERIODS)
        b.add_input(1, "decision", 0)

    env = BatchTask(body)
    env._default_ob_value = 0.5
    env.rng = np.random.default_rng(0)
    batch = env.new_trials(2)
    expected = np.full((2, 6, 4), 0.5, np.float32)
    expected[:, DEC, 0] = 1.5
    np.testing.assert_array_equal(batch.ob, expected)


# =========================================================================== noise
def test_add_randn_statistics_and_support():
    n, mu, sigma = 4000, 1.5, 2.0
    batch = make_batch(stim_body(("add_noise", (mu, sigma, "stimulus", "stimulus"), {})), n=n)
    assert batch.ob.dtype == np.float32
    region = batch.ob[:, STIM, 1:3]
    assert abs(region.mean() - mu) < 5 * sigma / np.sqrt(region.size)
    assert abs(region.std() - sigma) < 0.03
    assert np.all(region != 0)
    outside = batch.ob.copy()
    outside[:, STIM, 1:3] = 0
    assert not outside.any()
    # trials and steps get independent draws
    assert not np.array_equal(batch.ob[0], batch.ob[1])
    assert abs(np.corrcoef(region[:, 0, 0], region[:, 1, 0])[0, 1]) < 0.1


@pytest.mark.parametrize("ragged", [False, True])
def test_add_randn_with_one_sigma_per_trial(ragged):
    sigma = np.array([0.0, 1.0, 3.0] * 1000)
    timing = {**TIMING, "stimulus": ("choice", (300, 500))} if ragged else None
    body = stim_body(("add_noise", (0.0, sigma, "stimulus", "stimulus"), {}))
    batch = make_batch(body, n=sigma.size, timing=timing)
    start, end = batch.periods["stimulus"]
    for level in (0.0, 1.0, 3.0):
        rows = np.flatnonzero(sigma == level)
        draws = np.concatenate([batch.ob[r, start[r] : end[r], 1:3].ravel() for r in rows])
        assert draws.std() == pytest.approx(level, abs=0.05)
    with pytest.raises(ValueError, match=r"^sigma must be one number or one per trial"):
        make_batch(stim_body(("add_noise", (0.0, np.ones(3), "stimulus"), {})), n=2)


def test_forced_values_of_a_given_shape():
    seen = {}

    def body(b, **kwargs):
        b.add_period(PERIODS)
        seen["train"] = b.forced("train", (3,))
        seen["absent"] = b.forced("absent")
        return {}

    batch = make_batch(body, n=2, train=[1, 0, 1])
    np.testing.assert_array_equal(seen["train"], [[1, 0, 1], [1, 0, 1]])
    assert seen["absent"] is None
    np.testing.assert_array_equal(batch.trial["train"], [[1, 0, 1], [1, 0, 1]])
    make_batch(body, n=2, train=[[1, 1, 1], [0, 0, 0]])
    np.testing.assert_array_equal(seen["train"], [[1, 1, 1], [0, 0, 0]])
    message = (
        "forced train must have shape (3,) (one value for every trial) or (2, 3) (one per "
        "trial of this batch of 2), got shape (2,)"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        make_batch(body, n=2, train=[1, 0])


def test_add_randn_in_a_single_trial():
    env = single(trial_body(("add_randn", (0.0, 1.0, ["fixation", "decision"], 3), {})))
    inside = env.ob[[0, 1, 5], 3]
    assert np.all(inside != 0)
    rest = env.ob.copy()
    rest[[0, 1, 5], 3] = 0
    assert not rest.any()


def test_a_single_envs_trials_are_the_rows_of_its_blocks():
    def body(b, **kwargs):
        b.add_period(["fixation", "stimulus", "decision"])
        gt = b.choice("ground_truth", [0, 1])
        b.add_input(1, ["fixation", "stimulus"], "fixation")
        b.add_noise(0, 1, "stimulus", "stimulus")
        b.set_target(gt, "decision", "choice")
        return {}

    timing = {"fixation": ("uniform", (100, 500)), "stimulus": (200, 300), "decision": 100}
    one = BatchTask(body, timing)
    one.reset(seed=17)
    other = BatchTask(body, timing)
    other.rng = np_random(17)[0]
    batch = other.new_trials(one.prefetch)  # the library's one block size
    assert one.prefetch == 128
    for row in range(3):
        steps = batch.lengths[row]
        np.testing.assert_array_equal(one.ob, batch.ob[row, :steps])
        np.testing.assert_array_equal(one.gt, batch.gt[row, :steps])
        assert one.trial == batch.trial_dict(row)
        one.new_trial()


def test_a_reset_without_a_seed_goes_on_with_the_same_trials():
    # Episode ends (reset() without a seed, as gymnasium's autoreset calls it) do not move
    # the trial sequence: the rows of the block are served in turn across them; a reset with
    # a seed, or after the generator was replaced, starts a new block from the generator.
    timing = {"fixation": ("uniform", (100, 500)), "stimulus": (200, 300), "decision": 100}
    body = stim_body(("uniform", ("x", 0, 1), {}))
    reference = BatchTask(body, timing)
    reference.rng = np_random(17)[0]
    block = reference.new_trials(128)

    def dicts(env, resets):
        out = []
        for reset_first in resets:
            if reset_first:
                env.reset()
            else:
                env.new_trial()
            out.append(env.trial)
        return out

    env = BatchTask(body, timing)
    env.reset(seed=17)
    served = [env.trial, *dicts(env, [True, False, True, True])]
    assert served == [block.trial_dict(row) for row in range(5)]
    env.reset(seed=17)  # a seed starts the stream again
    assert env.trial == block.trial_dict(0)
    env.rng = np_random(3)[0]  # a new generator: its own first block
    env.reset()
    fresh = BatchTask(body, timing)
    fresh.rng = np_random(3)[0]
    assert env.trial == fresh.new_trials(128).trial_dict(0)


# =========================================================================== ground truth
def test_set_groundtruth_maps_choice_indices_and_masks_exactly():
    body = stim_body(("set_target", (np.array([0, 1, 1]), "decision", "choice"), {}))
    batch = make_batch(body, n=3)
    expected = np.zeros((3, 6), np.int64)
    expected[:, 5] = [1, 2, 2]
    np.testing.assert_array_equal(batch.gt, expected)
    assert batch.gt.dtype == np.int64
    mask = np.zeros((3, 6), bool)
    mask[:, 5] = True
    np.testing.assert_array_equal(batch.mask, mask)


def test_set_groundtruth_without_where_and_several_periods():
    batch = make_batch(
        stim_body(
            ("set_target", (0, "fixation"), {}),
            ("set_target", (1, "decision", "choice"), {}),
        )
    )
    np.testing.assert_array_equal(batch.gt, [[0, 0, 0, 0, 0, 2]] * 2)
    np.testing.assert_array_equal(batch.mask, [[1, 1, 0, 0, 0, 1]] * 2)


def test_set_groundtruth_whole_trial_and_overwrite():
    batch = make_batch(
        stim_body(
            ("set_target", (2,), {}),
            ("set_target", (0, "stimulus"), {}),
        )
    )
    np.testing.assert_array_equal(batch.gt, [[2, 2, 0, 0, 0, 2]] * 2)
    assert batch.mask.all()


def test_set_groundtruth_on_a_box_action_space():
    action_space = spaces.Box(-INF, INF, shape=(2,), name={"x": 0, "y": 1})
    body = stim_body(
        ("set_target", ([0.5, -0.5], "decision"), {}),
        ("set_target", (np.array([3.0, 4.0]), "stimulus", "y"), {}),
    )
    batch = make_batch(body, action_space=action_space)
    expected = np.zeros((2, 6, 2), np.float32)
    expected[:, DEC] = [0.5, -0.5]
    expected[0, STIM, 1] = 3
    expected[1, STIM, 1] = 4
    np.testing.assert_array_equal(batch.gt, expected)
    np.testing.assert_array_equal(batch.mask, [[0, 0, 1, 1, 1, 1]] * 2)
    env = single(
        trial_body(("set_groundtruth", (2.0, "stimulus", "x"), {})), action_space=action_space
    )
    expected = np.zeros((6, 2), np.float32)
    expected[STIM, 0] = 2
    np.testing.assert_array_equal(env.gt, expected)


def test_unknown_action_name_raises():
    with pytest.raises(
        KeyError, match=r"where='left' is not an action name; .*\['choice', 'fixation'\]"
    ):
        make_batch(stim_body(("set_target", (0, "decision", "left"), {})))


# =========================================================================== ragged batches
DURATIONS = {
    "fixation": np.array([100.0, 300.0, 200.0]),
    "stimulus": np.array([300.0, 100.0, 200.0]),
    "decision": np.array([100.0, 200.0, 100.0]),
}
# trial 0: fix [0,1) stim [1,4) dec [4,5)  len 5
# trial 1: fix [0,3) stim [3,4) dec [4,6)  len 6
# trial 2: fix [0,2) stim [2,4) dec [4,5)  len 5
RAGGED_FIX = [(0, 1), (0, 3), (0, 2)]
RAGGED_STIM = [(1, 4), (3, 4), (2, 4)]
RAGGED_DEC = [(4, 5), (4, 6), (4, 5)]


def ragged(*calls):
    def body(b, **kwargs):
        b.add_period("fixation", duration=DURATIONS["fixation"])
        b.add_period("stimulus", duration=DURATIONS["stimulus"], after="fixation")
        b.add_period("decision", duration=DURATIONS["decision"], after="stimulus")
        for method, args, kw in calls:
            getattr(b, method)(*args, **kw)
        return {}

    return body


def test_ragged_periods_bounds_and_lengths():
    batch = make_batch(ragged(("add_input", (1, None, "extra"), {})), n=3)
    np.testing.assert_array_equal(batch.lengths, [5, 6, 5])
    assert batch.ob.shape == (3, 6, 4)
    for name, bounds in (
        ("fixation", RAGGED_FIX),
        ("stimulus", RAGGED_STIM),
        ("decision", RAGGED_DEC),
    ):
        np.testing.assert_array_equal(batch.periods[name][0], [s for s, _ in bounds])
        np.testing.assert_array_equal(batch.periods[name][1], [e for _, e in bounds])
    np.testing.assert_array_equal(batch.end_t["decision"], [500.0, 600.0, 500.0])
    np.testing.assert_array_equal(batch.valid, [[1, 1, 1, 1, 1, 0], [1] * 6, [1, 1, 1, 1, 1, 0]])
    expected = zeros(3)
    expected[1, :, 3] = 1
    expected[0, :5, 3] = 1
    expected[2, :5, 3] = 1  # the padding stays 0
    np.testing.assert_array_equal(batch.ob, expected)


def test_ragged_constant_per_dim_and_per_trial_values():
    rows = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    batch = make_batch(
        ragged(
            ("add_input", (1, "fixation", "fixation"), {}),
            ("add_input", ([0.5, -0.5], "stimulus", "stimulus"), {}),
            ("add_input", (rows, "decision", "stimulus"), {}),
            ("set_input", (np.array([7.0, 8.0, 9.0]), ["fixation", "decision"], 3), {}),
        ),
        n=3,
    )
    expected = zeros(3)
    for i in range(3):
        fs, fe = RAGGED_FIX[i]
        ss, se = RAGGED_STIM[i]
        ds, de = RAGGED_DEC[i]
        expected[i, fs:fe, 0] = 1
        expected[i, ss:se, 1:3] = [0.5, -0.5]
        expected[i, ds:de, 1:3] = rows[i]
        expected[i, fs:fe, 3] = 7 + i
        expected[i, ds:de, 3] = 7 + i
    np.testing.assert_array_equal(batch.ob, expected)


def test_ragged_per_step_values_align_at_the_period_start():
    shared = np.array([[1.0, 10.0], [2.0, 20.0], [3.0, 30.0]])  # (L=3, k=2)
    per_trial = np.arange(3 * 3, dtype=float).reshape(3, 3) + 100  # (B, L) at one dim
    batch = make_batch(
        ragged(
            ("add_input", (shared, "stimulus", "stimulus"), {"per_step": True}),
            ("add_input", (per_trial, "stimulus", 0), {"per_step": True}),
        ),
        n=3,
    )
    expected = zeros(3)
    for i, (start, end) in enumerate(RAGGED_STIM):
        expected[i, start:end, 1:3] = shared[: end - start]
        expected[i, start:end, 0] = per_trial[i, : end - start]
    np.testing.assert_array_equal(batch.ob, expected)


def test_ragged_groundtruth_and_mask():
    batch = make_batch(
        ragged(
            ("set_target", (np.array([0, 1, 1]), "decision", "choice"), {}),
            ("set_target", (0, "fixation"), {}),
        ),
        n=3,
    )
    gt = np.zeros((3, 6), np.int64)
    mask = np.zeros((3, 6), bool)
    for i, value in enumerate([1, 2, 2]):
        ds, de = RAGGED_DEC[i]
        gt[i, ds:de] = value
        mask[i, ds:de] = True
        mask[i, slice(*RAGGED_FIX[i])] = True
    np.testing.assert_array_equal(batch.gt, gt)
    np.testing.assert_array_equal(batch.mask, mask)


def test_ragged_noise_only_inside_the_period():
    batch = make_batch(ragged(("add_noise", (0.0, 1.0, "stimulus", [1, 3]), {})), n=3)
    inside = np.zeros((3, 6, 4), bool)
    for i, (start, end) in enumerate(RAGGED_STIM):
        inside[i, start:end, [1, 3]] = True
    assert np.all(batch.ob[inside] != 0)
    assert not batch.ob[~inside].any()


def test_ragged_sampled_periods_write_each_trial_its_own_window():
    timing = {"fixation": (100, 300), "stimulus": ("uniform", (100, 400)), "decision": 100}

    def body(b):
        b.add_period(PERIODS)
        b.add_input(1, "stimulus", "stimulus")
        b.set_target(1, "decision", "choice")

    batch = make_batch(body, n=200, timing=timing, seed=5)
    assert len(np.unique(batch.lengths)) > 1
    for i in range(200):
        s, e = batch.periods["stimulus"][0][i], batch.periods["stimulus"][1][i]
        expected = np.zeros((batch.ob.shape[1], 4), np.float32)
        expected[s:e, 1:3] = 1
        np.testing.assert_array_equal(batch.ob[i], expected)
        d = batch.periods["decision"][0][i]
        assert batch.mask[i].nonzero()[0].tolist() == [d]
        assert batch.gt[i, d] == 2
        assert batch.lengths[i] == d + 1


def test_ragged_callable_and_views_are_refused():
    with pytest.raises(TypeError, match="callable values need a period with the same bounds"):
        make_batch(ragged(("add_input", (lambda v: v + 1, "stimulus"), {})), n=3)
    with pytest.raises(
        ValueError, match="period 'stimulus' has different bounds across the batch"
    ):
        make_batch(ragged(("view_input", ("stimulus",), {})), n=3)


def test_add_randn_on_an_empty_period_with_ragged_starts():
    timing = {"fixation": ("choice", [100, 200, 300]), "delay": 0, "decision": 100}

    def body(b):
        b.add_period(["fixation", "delay", "decision"])
        b.add_noise(0, 1, "delay")

    batch = make_batch(body, n=8, timing=timing, seed=0)
    assert batch.ob is not None
    assert not batch.ob.any()


# =========================================================================== trial variables
def variables(b, **kwargs):
    b.add_period(PERIODS)
    gt = b.choice("ground_truth", [0, 1])
    coh = b.choice("coh", [0.0, 6.4, 12.8])
    b.uniform("x", 0.0, 1.0)
    b.set_param("sigma", 0.5)
    b.set_target(gt, "decision", "choice")
    b.add_input(coh, "stimulus", "extra")
    return {"label": gt * 10}


def test_trial_variables_are_recorded_one_row_per_trial():
    batch = make_batch(variables, n=500, seed=2)
    assert set(batch.trial) == {"ground_truth", "coh", "x", "sigma", "label"}
    for value in batch.trial.values():
        assert value.shape == (500,)
    assert set(np.unique(batch.trial["ground_truth"])) == {0, 1}
    assert set(np.unique(batch.trial["coh"])) == {0.0, 6.4, 12.8}
    assert 0 <= batch.trial["x"].min() < batch.trial["x"].max() < 1
    np.testing.assert_array_equal(batch.trial["sigma"], [0.5] * 500)
    np.testing.assert_array_equal(batch.trial["label"], batch.trial["ground_truth"] * 10)
    np.testing.assert_array_equal(batch.gt[:, 5], batch.trial["ground_truth"] + 1)
    np.testing.assert_array_equal(batch.ob[:, 2, 3], batch.trial["coh"].astype(np.float32))
    assert batch.trial_dict(3) == {k: v[3] for k, v in batch.trial.items()}


def test_forced_scalar_kwargs_apply_to_every_trial():
    batch = make_batch(variables, n=4, ground_truth=1, x=0.25)
    np.testing.assert_array_equal(batch.trial["ground_truth"], [1, 1, 1, 1])
    np.testing.assert_array_equal(batch.trial["x"], [0.25] * 4)
    np.testing.assert_array_equal(batch.gt[:, 5], [2, 2, 2, 2])


def test_forced_per_trial_kwargs():
    coh = np.array([0.0, 6.4, 12.8])
    batch = make_batch(variables, n=3, coh=coh, ground_truth=np.array([1, 0, 1]))
    np.testing.assert_array_equal(batch.trial["coh"], coh)
    np.testing.assert_array_equal(
        batch.ob[:, STIM, 3], np.repeat(coh[:, None], 3, 1).astype(np.float32)
    )
    np.testing.assert_array_equal(batch.gt[:, 5], [2, 1, 2])


def test_unknown_forced_kwargs_raise_and_record_only_ones_are_recorded():
    message = (
        "BatchTask has no trial variable 'cooh'; did you mean 'coh'? (forced variables it "
        "reads or records: 'coh', 'ground_truth', 'label', 'sigma', 'x'); a forced kwarg the "
        "task ignores would be silently wrong"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        make_batch(variables, n=2, cooh=7)
    with pytest.raises(ValueError, match="has no trial variable 'cooh'"):
        single_batch_native(variables, cooh=7)
    batch = make_batch(variables, n=2, foo=RecordOnly(7), bar=RecordOnly(np.array([1.5, 2.5])))
    np.testing.assert_array_equal(batch.trial["foo"], [7, 7])
    np.testing.assert_array_equal(batch.trial["bar"], [1.5, 2.5])


def test_forced_kwargs_in_a_single_trial():
    env = single_batch_native(variables, ground_truth=1, coh=12.8, foo=RecordOnly("bar"))
    assert env.trial["ground_truth"] == 1
    assert env.trial["coh"] == 12.8
    assert env.trial["foo"] == "bar"
    assert env.trial["sigma"] == 0.5
    assert env.trial["label"] == 10
    assert set(env.trial) == {"ground_truth", "coh", "x", "sigma", "label", "foo"}
    assert env.gt[5] == 2
    np.testing.assert_array_equal(env.ob[STIM, 3], np.full(3, 12.8, np.float32))


def test_choice_with_probabilities_and_errors():
    def body(b, p=None, options=(3, 4)):
        b.add_period(PERIODS)
        return {"v": b.choice("v", list(options), p=p)}

    batch = make_batch(lambda b: body(b, p=[0.0, 1.0]), n=50)
    np.testing.assert_array_equal(batch.trial["v"], [4] * 50)
    batch = make_batch(lambda b: body(b, p=[0.9, 0.1]), n=5000)
    assert 0.08 < np.mean(batch.trial["v"] == 4) < 0.12
    with pytest.raises(
        ValueError, match=r"trial variable 'v': p must have one probability per option \(2\)"
    ):
        make_batch(lambda b: body(b, p=[1.0]))
    with pytest.raises(ValueError, match="summing to 1"):
        make_batch(lambda b: body(b, p=[0.5, 0.6]))
    with pytest.raises(ValueError, match="trial variable 'v': no options to choose from"):
        make_batch(lambda b: body(b, options=()))


# =========================================================================== warnings
def test_a_period_that_floors_to_zero_warns_once_per_env():
    timing = {"cue": 50, "stimulus": 100, "zero": 0}

    def body(b):
        b.add_period(["cue", "zero", "stimulus"])
        b.add_period("explicit", duration=50, after="stimulus")

    env = BatchTask(body, timing)
    env.rng = np.random.default_rng(0)
    with pytest.warns(EmptyPeriodWarning) as record:
        batch = env.new_trials(3)
    assert len(record) == 1
    assert "BatchTask: period 'cue' (timing 50) is shorter than dt=100 ms" in str(
        record[0].message
    )
    np.testing.assert_array_equal(batch.end_t["cue"], [0.0] * 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.new_trials(3)
        env.new_trial()
        env.reset(seed=1)
    fresh = BatchTask(body, timing)
    with pytest.warns(EmptyPeriodWarning, match="'cue'"):
        fresh.reset(seed=0)
    assert issubclass(EmptyPeriodWarning, UserWarning)


def test_an_empty_period_in_some_trials_warns():
    timing = {"cue": ("choice", [50, 200]), "go": 100}
    env = BatchTask(lambda b: b.add_period(["cue", "go"]), timing)
    env.rng = np.random.default_rng(0)
    with pytest.warns(
        EmptyPeriodWarning, match=r"period 'cue' \(timing \('choice', \[50, 200\]\)\)"
    ):
        env.new_trials(20)


def test_each_empty_period_warns_separately_in_single_trials():
    timing = {"a": 30, "b": 60, "c": 100}
    env = SingleTask(lambda e: e.add_period(["a", "b", "c"]), timing)
    with pytest.warns(EmptyPeriodWarning) as record:
        env.reset(seed=0)
    assert sorted(str(r.message).split("'")[1] for r in record) == ["a", "b"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.new_trial()


def test_a_trial_without_steps_is_refused_in_batches_and_single_trials():
    timing = {"a": 30, "b": 60}
    message = (
        r"BatchTask generated a trial without steps: its periods \(a, b\) last less than one "
        r"step of dt=100 ms \(timing \{'a': 30, 'b': 60\}\); lower dt or lengthen the timing"
    )
    env = BatchTask(lambda b: b.add_period(["a", "b"]), timing)
    env.rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyPeriodWarning)
        with pytest.raises(ValueError, match=message):
            env.new_trials(3)
        with pytest.raises(ValueError, match=message):
            env.reset(seed=0)
        single = SingleTask(lambda e: e.add_period(["a", "b"]), timing)
        with pytest.raises(ValueError, match=message.replace("BatchTask", "SingleTask")):
            single.reset(seed=0)
        # lengths that differ across the batch: one trial without steps is enough
        ragged = {"a": ("choice", [30, 300]), "b": ("choice", [30, 300])}
        varied = BatchTask(lambda b: b.add_period(["a", "b"]), ragged)
        varied.rng = np.random.default_rng(0)
        with pytest.raises(ValueError, match="BatchTask generated a trial without steps"):
            varied.new_trials(64)
        varied.timing = {"a": ("choice", [100, 300]), "b": ("choice", [30, 300])}
        assert varied.new_trials(64).lengths.min() == 1


# =========================================================================== errors
@pytest.mark.parametrize("period", ["nope", ["fixation", "nope"]])
def test_unknown_period_raises(period):
    message = (
        r"unknown period 'nope'; this trial's periods are \['fixation', 'stimulus', 'decision'\]"
    )
    with pytest.raises(KeyError, match=message):
        make_batch(stim_body(("add_input", (1, period), {})))
    with pytest.raises(KeyError, match=message):
        single(trial_body(("add_ob", (1, period), {})))
    with pytest.raises(KeyError, match="unknown period 'nope'"):
        make_batch(stim_body(("set_target", (1, period), {})))
    with pytest.raises(KeyError, match="unknown period 'nope'"):
        make_batch(stim_body(("add_noise", (0, 1, period), {})))


def test_period_names_must_be_str():
    with pytest.raises(TypeError, match=r"period names are str, got 3 in period=\[3\]"):
        make_batch(stim_body(("add_input", (1, [3]), {})))


def test_unknown_where_name_raises():
    message = re.escape(
        "where='nope' is not a dim name of the observation space; valid names: "
        "['extra', 'fixation', 'stimulus']"
    )
    with pytest.raises(KeyError, match=message):
        make_batch(stim_body(("add_input", (1, "stimulus", "nope"), {})))
    with pytest.raises(KeyError, match=message):
        single(trial_body(("set_ob", (1, "stimulus", "nope"), {})))


@pytest.mark.parametrize(
    ("where", "error", "message"),
    [
        (4, IndexError, "where=4 is outside the observation space's 4 dims"),
        (-5, IndexError, "where=-5 is outside the observation space's 4 dims"),
        ([0, 7], IndexError, "where=[0, 7]: indices [7] outside the observation space's 4 dims"),
        (range(2, 6), IndexError, "indices [4, 5]"),
        (np.array([9]), IndexError, "indices [9]"),
        (1.5, TypeError, "where=1.5: expected a dim name, an int, a slice, or a list of dim"),
        ([0.5], TypeError, "where=[0.5]: expected"),
    ],
)
def test_where_out_of_range_or_of_a_bad_type_raises(where, error, message):
    with pytest.raises(error, match=re.escape(message)):
        make_batch(stim_body(("add_input", (1, "stimulus", where), {})))
    with pytest.raises(error, match=re.escape(message)):
        single(trial_body(("add_ob", (1, "stimulus", where), {})))


@pytest.mark.parametrize(
    ("value", "kwargs", "shape", "dims"),
    [
        (np.ones(3), {}, "(3,)", "L=3 steps x dims=(2,)"),
        (np.ones((3, 2)), {}, "(3, 2)", "B=2 trials"),
        (np.ones((4, 2)), {"per_step": True}, "(4, 2)", "L=3 steps"),
        (np.ones((2, 3, 3)), {"per_step": True}, "(2, 3, 3)", "dims=(2,)"),
    ],
)
def test_value_that_does_not_broadcast_names_its_shape(value, kwargs, shape, dims):
    with pytest.raises(ValueError, match="does not broadcast") as info:
        make_batch(stim_body(("add_input", (value, "stimulus", "stimulus"), kwargs)))
    text = str(info.value)
    assert text.startswith(f"add_input: a value of shape {shape} does not broadcast to")
    assert dims in text
    assert "valid shapes:" in text


def test_value_shape_errors_in_the_other_verbs():
    with pytest.raises(ValueError, match=re.escape("set_input: a value of shape (5,)")):
        make_batch(stim_body(("set_input", (np.ones(5), "stimulus", "stimulus"), {})))
    with pytest.raises(ValueError, match=re.escape("set_target: a value of shape (3,)")):
        make_batch(stim_body(("set_target", (np.array([0, 1, 1]), "decision", "choice"), {})))
    with pytest.raises(ValueError, match=re.escape("add_ob: a value of shape (2,)")):
        single(trial_body(("add_ob", (np.ones(2), "stimulus", "extra"), {})))
    with pytest.raises(ValueError, match=re.escape("a value of shape (5, 2)")):
        single(trial_body(("add_ob", (np.ones((5, 2)), "stimulus", "stimulus"), {})))


@pytest.mark.parametrize(
    ("trial_verb", "batch_verb"),
    [
        ("add_ob", "add_input"),
        ("set_ob", "set_input"),
        ("add_randn", "add_noise"),
        ("set_groundtruth", "set_target"),
        ("view_ob", "view_input"),
    ],
)
def test_a_per_trial_verb_on_the_batch_builder_names_the_batch_verb(trial_verb, batch_verb):
    def body(b):
        b.add_period(PERIODS)
        getattr(b, trial_verb)(1, "stimulus")

    with pytest.raises(AttributeError) as info:
        make_batch(body)
    assert str(info.value) == (
        f"BatchBuilder has no {trial_verb!r}: the batch verbs take one row per trial, use "
        f"b.{batch_verb}(...); {trial_verb} is TrialEnv's upstream-style verb for _new_trial, "
        "whose values have one row per time step"
    )
    with pytest.raises(
        AttributeError, match=r"^'BatchBuilder' object has no attribute 'add_obb'$"
    ):
        make_batch(lambda b: b.add_obb(1))


@pytest.mark.parametrize(
    "first",
    [
        ("add_input", "add_ob", (1,)),
        ("set_input", "set_ob", (1, "fixation")),
        ("set_target", "set_groundtruth", (1, "decision")),
        ("add_noise", "add_randn", ()),
    ],
)
def test_add_period_after_writing_raises(first):
    batch_verb, trial_verb, args = first

    def body(b, method):
        b.add_period(["fixation", "stimulus", "decision"])
        getattr(b, method)(*args)
        b.add_period("late", duration=100, after="decision")

    message = "add_period cannot be called after an observation or ground truth was written"
    with pytest.raises(InvalidOperationError, match=message):
        make_batch(lambda b: body(b, batch_verb))
    with pytest.raises(InvalidOperationError, match=message):
        single(lambda e: body(e, trial_verb))
    assert neurogym.InvalidOperationError is InvalidOperationError


def test_period_bookkeeping_errors():
    with pytest.raises(
        KeyError,
        match=re.escape(
            "period 'late' has no timing and no explicit duration; "
            "timing has ['decision', 'fixation', 'stimulus']"
        ),
    ):
        make_batch(lambda b: b.add_period("late"))
    with pytest.raises(
        KeyError, match=re.escape("after='nope' names no period added so far; added: ['fixation']")
    ):
        make_batch(lambda b: (b.add_period("fixation"), b.add_period("stimulus", after="nope")))
    with pytest.raises(KeyError, match="before='nope' names no period added so far"):
        make_batch(lambda b: b.add_period("stimulus", before="nope"))
    with pytest.raises(ValueError, match=re.escape("2 periods ['a', 'b'] but 1 durations")):
        make_batch(lambda b: b.add_period(["a", "b"], duration=[100]))
    with pytest.raises(
        ValueError, match=re.escape("a per-trial duration must have shape (2,), got (3,)")
    ):
        make_batch(lambda b: b.add_period("a", duration=np.ones(3)))
    env = BatchTask(periods_only)
    with pytest.raises(ValueError, match="a batch needs at least one trial, got n=0"):
        env.new_trials(0)


def test_authoring_without_a_current_trial_raises():
    env = SingleTask(lambda e: None)
    with pytest.raises(
        RuntimeError, match=r"there is no current trial: call reset\(\) or new_trial\(\) first"
    ):
        env.add_ob(1)
    with pytest.raises(AttributeError, match="SingleTask sets no ground truth in this trial"):
        env.gt_now  # noqa: B018


def test_set_groundtruth_rows_leave_the_other_trials_without_a_target():
    # EconomicDecisionMaking: a tie between two offers has no correct choice to learn.
    def body(b):
        b.add_period(PERIODS)
        b.set_target(1, "fixation")
        b.set_target(np.array([1, 2, 1]), "decision", rows=[True, False, True])
        return {}

    batch = make_batch(body, n=3)
    np.testing.assert_array_equal(batch.gt[:, DEC], [[1], [0], [1]])
    np.testing.assert_array_equal(batch.mask[:, DEC], [[True], [False], [True]])
    assert batch.mask[:, FIX].all()  # what other calls wrote stays, in skipped rows too
    np.testing.assert_array_equal(batch.gt[:, FIX], 1)

    def bad(b):
        b.add_period(PERIODS)
        b.set_target(1, "decision", rows=[True, False])
        return {}

    with pytest.raises(ValueError, match=re.escape("rows must have shape (3,), got (2,)")):
        make_batch(bad, n=3)
