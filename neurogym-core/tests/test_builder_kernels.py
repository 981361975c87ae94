"""The builder's array kernels give the same bits as plain numpy on every layout they take."""

from __future__ import annotations

import numpy as np
import pytest

from neurogym import TrialEnv, spaces
from neurogym._trials.batch import _apply


def _layouts() -> list[tuple[str, int, slice, slice, tuple[int, ...]]]:
    """(dtype, dims, steps, where, value shape) covering packed, channel and plain paths."""
    cases = []
    for dtype, dims, where in (
        ("float32", 3, slice(1, 3)),  # 8-byte cells inside a wider row: the packed path
        ("float32", 5, slice(1, 5)),  # 16-byte cells
        ("float64", 3, slice(1, 3)),  # 16-byte cells
        ("float64", 3, slice(0, 1)),  # one 8-byte dim
        ("float32", 2, slice(0, 2)),  # contiguous cells: plain numpy
        ("float32", 4, slice(0, 3)),  # 12-byte cells: channel by channel
        ("int64", 3, slice(1, 3)),
    ):
        k = where.stop - where.start
        for value_shape in ((16, 20, k), (16, 1, k), (1, 20, k), (16, 20, 1)):
            cases.append((dtype, dims, slice(2, 22), where, value_shape))
    return cases


@pytest.mark.parametrize("value_dtype", ["same", "float64", "int32"])
@pytest.mark.parametrize("reset", [False, True])
@pytest.mark.parametrize(("dtype", "dims", "steps", "where", "value_shape"), _layouts())
def test_apply_matches_numpy_bit_for_bit(
    dtype, dims, steps, where, value_shape, reset, value_dtype
):
    rng = np.random.default_rng(0)
    target = (rng.standard_normal((16, 25, dims)) * 10).astype(dtype)
    vdtype = dtype if value_dtype == "same" else value_dtype
    value = (rng.standard_normal(value_shape) * 10).astype(vdtype)
    expected, got = target.copy(), target.copy()
    sub_expected, sub_got = expected[:, steps, where], got[:, steps, where]
    try:
        if reset:
            sub_expected[...] = value
        else:
            sub_expected += value
    except TypeError as exc:  # int target += float value: the same refusal
        with pytest.raises(type(exc)):
            _apply(sub_got, value, reset)
        return
    _apply(sub_got, value, reset)
    assert got.tobytes() == expected.tobytes()


class _Noisy(TrialEnv):
    """Two noisy channels of a three-dim observation, with shared and ragged periods."""

    def __init__(self, ragged: bool) -> None:
        super().__init__(dt=100)
        self.timing = {
            "fixation": 100,
            "stimulus": (300, 500) if ragged else 2000,
            "decision": 100,
        }
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(3,), dtype=np.float32)
        self.action_space = spaces.Discrete(3)

    def _new_trials(self, b, **kwargs):
        b.add_period(["fixation", "stimulus", "decision"])
        b.add_input(1, "fixation", where=0)
        b.add_input(b.rng.random((b.n, 2)), "stimulus", where=[1, 2])
        b.add_noise(0, 0.1, "stimulus", where=slice(1, 3))
        b.set_target(1, "decision")
        return {}


@pytest.mark.parametrize("ragged", [False, True])
def test_period_columns_equal_the_bounds_of_every_trial(ragged):
    env = _Noisy(ragged)
    env.reset(seed=3)
    batch = env.new_trials(64)
    assert list(batch.periods) == ["fixation", "stimulus", "decision"]
    for name in batch.periods:
        start_t, end_t = batch.start_t[name], batch.end_t[name]
        start, end = batch.periods[name]
        assert start_t.shape == end_t.shape == start.shape == end.shape == (64,)
        assert start.dtype == end.dtype == np.intp
        np.testing.assert_array_equal(start, np.floor(start_t / 100 + 1e-9).astype(np.intp))
        np.testing.assert_array_equal(end, np.floor(end_t / 100 + 1e-9).astype(np.intp))
    np.testing.assert_array_equal(batch.end_t["fixation"], batch.start_t["stimulus"])
    np.testing.assert_array_equal(batch.lengths, batch.periods["decision"][1])
    # columns are independent arrays as far as writing goes
    batch.start_t["fixation"][0] = 7.0
    assert batch.end_t["fixation"][0] == 100.0
    assert batch.start_t["stimulus"][0] == 100.0


@pytest.mark.parametrize("ragged", [False, True])
def test_noise_lands_only_in_its_period_and_dims(ragged):
    env = _Noisy(ragged)
    env.reset(seed=5)
    batch = env.new_trials(32)
    for i in range(32):
        start, end = batch.periods["stimulus"][0][i], batch.periods["stimulus"][1][i]
        ob = batch.ob[i]
        assert np.all(ob[start:end, 0] == 0)
        assert np.all(ob[:start, 1:] == 0)
        assert np.all(ob[end:, 1:] == 0)
        assert np.all(ob[start:end, 1:] != 0)


class _Chain(TrialEnv):
    """Fixation over a chain of periods (some ragged, one possibly of negative duration)."""

    def __init__(self, merged: bool, ragged: bool, gap: float = 0.0) -> None:
        super().__init__(dt=100)
        self.merged, self.gap = merged, gap
        self.timing = {
            "fixation": (200, 300) if ragged else 200,
            "stimulus": (300, 500) if ragged else 300,
            "delay": (0, 100, 400) if ragged else 100,
            "decision": 200,
        }
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(3,), dtype=np.float32)
        self.action_space = spaces.Discrete(3)

    def _new_trials(self, b, **kwargs):
        b.add_period(["fixation", "stimulus"])
        if self.gap:  # delay starts `gap` ms away from the stimulus's end (negative: overlaps)
            b.add_period("delay", after=float(np.min(b.end_t["stimulus"])) + self.gap)
            b.add_period("decision", after="delay")
        else:
            b.add_period(["delay", "decision"], after="stimulus")
        chain = ["fixation", "stimulus", "delay"]
        value = b.rng.random(b.n) + 1
        if self.merged:
            b.add_input(value, chain, where=0)
            b.set_input(2, ["stimulus", "delay", "decision"], where=[1, 2])
            b.set_target(1, chain)
        else:
            for name in chain:
                b.add_input(value, name, where=0)
                b.set_target(1, name)
            for name in ["stimulus", "delay", "decision"]:
                b.set_input(2, name, where=[1, 2])
        return {}


@pytest.mark.parametrize("gap", [0.0, -100.0, 100.0])
@pytest.mark.parametrize("ragged", [False, True])
@pytest.mark.parametrize("n", [1, 32])
def test_a_write_over_adjacent_periods_equals_one_write_per_period(n, ragged, gap):
    """Adjacent periods are written as one span; the arrays are those of period by period."""
    got = _Chain(merged=True, ragged=ragged, gap=gap)
    expected = _Chain(merged=False, ragged=ragged, gap=gap)
    got.reset(seed=11)
    expected.reset(seed=11)
    a, b = got.new_trials(n), expected.new_trials(n)
    assert a.ob.tobytes() == b.ob.tobytes()
    assert a.gt.tobytes() == b.gt.tobytes()
    np.testing.assert_array_equal(a.mask, b.mask)
    assert np.any(a.ob[..., 0] > 1)  # the writes happened


def test_period_spans_merge_only_chained_ordered_periods():
    from neurogym._trials.where import period_spans

    start = {"a": 0.0, "b": 100.0, "c": 300.0}
    end = {"a": start["b"], "b": 300.0, "c": 250.0}  # c ends before it starts
    end["b"] = start["c"]
    assert period_spans(["a", "b"], start, end) == [(0.0, 300.0)]
    assert period_spans(["a", "c"], start, end) == [(0.0, 100.0), (300.0, 250.0)]
    assert period_spans(["b", "c"], start, end) == [(100.0, 300.0), (300.0, 250.0)]
    assert period_spans(None, start, end) == [None]
    equal_not_same = {"a": 0.0, "b": float("100.0")}
    assert period_spans(["a", "b"], equal_not_same, {"a": 100.0, "b": 200.0}) == [
        (0.0, 100.0),
        (100.0, 200.0),
    ]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("value", [1, -3, 0, 0.5, 0.1, 2**25 + 1, 1e300, float("nan")])
def test_a_python_number_is_cast_as_exact_cast_casts_it(dtype, value):
    # A Python number (what scatter_rows writes most) takes exact_cast's path for one or two
    # values: it must pick the dtype (and so the arithmetic) the cast-and-compare rule picks.
    from neurogym._trials.batch import exact_cast

    arr = np.asarray(value)
    with np.errstate(over="ignore", invalid="ignore"):  # 1e300 overflows float32, NaN to int
        got = exact_cast(arr, np.dtype(dtype))
        cast = arr.astype(dtype)
        expected = cast if np.dtype(dtype).kind == "f" and cast == arr else arr
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("reset", [False, True])
@pytest.mark.parametrize("value", [1, 0.1, 0.5])
def test_ragged_scalar_writes_equal_row_by_row_writes(value, reset):
    from neurogym._trials.ragged import RaggedSpan, scatter_rows

    rng = np.random.default_rng(1)
    target = rng.standard_normal((6, 12, 3)).astype(np.float32)
    start, end = np.array([0, 2, 5, 1, 7, 3]), np.array([4, 9, 6, 12, 7, 5])
    expected = target.copy()
    for row, (s, e) in enumerate(zip(start, end, strict=True)):
        cells = expected[row, s:e, 1:3]
        if reset:
            cells[...] = np.asarray(value, np.float64)
        else:
            cells += np.asarray(value, np.float64)  # the float64 sum, rounded to float32
    scatter_rows(target, value, RaggedSpan(start, end), slice(1, 3), reset)
    np.testing.assert_array_equal(target, expected)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize(
    "values",
    [
        [1, 2, 3],  # ints: exact in every float type
        [0.5, 0.1, 0.25],  # exact ends, an inexact middle: the full check refuses it
        [0.1, 0.5, 0.25],  # inexact first value: refused at once
        [0.5, 0.25, 0.1],  # inexact last value
        [0.5, float("nan"), 0.25],
        [float("inf"), 1.5],
        [2**24 + 1, 1],  # an int float32 cannot hold
        [],
    ],
)
def test_exact_cast_casts_exactly_when_every_value_survives(values, dtype):
    from neurogym._trials.batch import exact_cast

    arr = np.array(values) if values else np.array([], dtype=float)
    got = exact_cast(arr, np.dtype(dtype))
    floats = np.dtype(dtype).kind == "f"  # exact_cast leaves arrays for int targets alone
    if floats and np.array_equal(arr.astype(dtype).astype(arr.dtype), arr):
        assert got.dtype == np.dtype(dtype)  # cast: the arithmetic stays in one dtype
    else:
        assert got is arr  # left as it is: the mixed arithmetic decides, as before
    np.testing.assert_array_equal(got, arr)


@pytest.mark.parametrize("steps", [12, 15])
def test_a_ragged_span_holds_each_trials_steps(steps):
    # Every table a ragged write reuses equals its definition from the bounds, including
    # empty spans (end == start) and reversed ones (end < start: empty as well).
    from neurogym._trials.ragged import RaggedSpan

    start = np.array([0, 2, 5, 1, 7, 3, 9], dtype=np.intp)
    end = np.array([4, 9, 5, 12, 6, 5, 11], dtype=np.intp)
    span = RaggedSpan(start, end)
    cells = np.arange(steps)
    inside = (cells >= start[:, None]) & (cells < end[:, None])
    lens = np.array([4, 7, 0, 11, 0, 2, 2])
    np.testing.assert_array_equal(span.lens, lens)
    assert span.total == inside.sum() == lens.sum()
    assert (span.lo, span.hi, span.longest) == (0, 12, 11)
    np.testing.assert_array_equal(span.inside(steps), inside)
    assert span.inside(steps) is span.inside(steps)  # made once per array length
    np.testing.assert_array_equal(span.window_mask(), inside[:, span.lo : span.hi])
    np.testing.assert_array_equal(span.picked(), np.arange(11) < lens[:, None])
    np.testing.assert_array_equal(span.flat_index(steps), np.flatnonzero(inside))


def test_a_ragged_span_past_the_arrays_ends_keeps_only_their_steps():
    # Spans that start before step 0 or end after the last step (per-step writes take them):
    # the (B, steps) mask holds the steps inside the arrays, the window mask all of them.
    from neurogym._trials.ragged import RaggedSpan

    start = np.array([-2, 3, 0], dtype=np.intp)
    end = np.array([2, 14, 1], dtype=np.intp)
    span = RaggedSpan(start, end)
    cells = np.arange(10)
    inside = (cells >= start[:, None]) & (cells < end[:, None])
    np.testing.assert_array_equal(span.inside(10), inside)
    window = np.arange(-2, 14)
    expected = (window >= start[:, None]) & (window < end[:, None])
    np.testing.assert_array_equal(span.window_mask(), expected)


def test_the_builder_converts_each_ragged_span_once_per_batch():
    from neurogym._trials.builder import BatchBuilder
    from neurogym._trials.ragged import RaggedSpan

    env = _Chain(merged=True, ragged=True, gap=False)
    env.reset(seed=3)
    b = BatchBuilder(env, 16, {})
    env._new_trials(b)
    later = [name for name in b.start_t if type(b._cells(name)) is RaggedSpan]
    assert later  # periods after a drawn duration differ between trials
    assert b._cells(later[0]) is b._cells(later[0])
    assert b._cells(None) is b._cells(None)  # the whole trial: trials differ in length
    assert b._cells(later[0]) is not b._cells(None)


def test_the_bound_table_converts_every_bound_as_to_steps_does():
    from neurogym._trials.bounds import BoundTable
    from neurogym._trials.ragged import RaggedSpan
    from neurogym.timing import _to_steps

    shared, drawn = 250.0, np.array([100.0, 340.0, 99.9999999, 180.0])
    same = np.full(4, 300.0)  # an array every trial shares: a slice, as a float would be
    later = drawn + 80.0
    table = BoundTable([0.0, shared, drawn, same, later, drawn], 4, 20.0)
    assert table.steps(shared) == _to_steps(shared, 20.0) == 12
    assert table.steps(same) == 15
    assert type(table.steps(same)) is int
    np.testing.assert_array_equal(table.steps(drawn), _to_steps(drawn, 20.0))
    assert table.steps(drawn.copy()) is None  # found by identity, not by value
    assert table.cells(shared, same) == slice(12, 15)
    assert table.cells(same, shared) == slice(15, 15)  # reversed: empty
    span = table.cells(drawn, later)
    assert type(span) is RaggedSpan
    expected = RaggedSpan(_to_steps(drawn, 20.0), _to_steps(later, 20.0))
    for name in ("lens", "start", "end"):
        np.testing.assert_array_equal(getattr(span, name), getattr(expected, name))
    assert (span.lo, span.hi, span.total, span.longest) == (
        expected.lo, expected.hi, expected.total, expected.longest
    )  # fmt: skip
    mixed = table.cells(shared, later)  # a shared start, a drawn end
    np.testing.assert_array_equal(mixed.start, [12] * 4)
    lengths = table.lengths(later)
    np.testing.assert_array_equal(lengths, _to_steps(later, 20.0))
    lengths[0] = -1  # a new array: the table's steps are left alone
    assert table.steps(later)[0] != -1
    assert table.lengths(np.zeros(4)) is None


@pytest.mark.parametrize("reset", [False, True])
@pytest.mark.parametrize("value", [1, -3, 0.5, 0.1, -0.0, 2**25 + 1, float("nan"), 1e300])
@pytest.mark.parametrize("where", [None, 1, slice(0, 2)])
@pytest.mark.parametrize("dense", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8"])
def test_a_python_number_written_as_it_is_equals_the_array_path(value, reset, where, dense, dtype):
    # write_ragged takes a Python number without making an array of it when that gives the
    # same bits as the array path (np.asarray(value)); else it takes the array path.
    from neurogym._trials.ragged import RaggedSpan, write_ragged

    start = np.array([0, 1, 0, 2, 1, 0]) if dense else np.array([0, 2, 5, 1, 7, 13])
    end = np.array([10, 10, 9, 10, 10, 8]) if dense else start + 1
    rng = np.random.default_rng(1)
    target = (rng.standard_normal((6, 14, 3)) * 5).astype(dtype)
    expected, got = target.copy(), target.copy()
    span = RaggedSpan(start, end)
    assert span.dense is dense
    try:
        with np.errstate(all="ignore"):
            write_ragged(expected, np.asarray(value), span, where, False, reset, "t")
    except (TypeError, ValueError, OverflowError) as exc:  # an int target refuses a float add
        with pytest.raises(type(exc)), np.errstate(all="ignore"):
            write_ragged(got, value, RaggedSpan(start, end), where, False, reset, "t")
        return
    with np.errstate(all="ignore"):
        write_ragged(got, value, RaggedSpan(start, end), where, False, reset, "t")
    assert got.tobytes() == expected.tobytes()


def test_a_pool_takes_the_builders_period_columns_only_while_the_batch_holds_them():
    from data_tasks import VarTask

    from neurogym._env.prefetch import TrialPool

    env = VarTask()
    env.reset(seed=4)
    batch = env.new_trials(8)
    pool = TrialPool(env, batch)
    for name, starts, ends, firsts, stops, durations in pool.periods:
        assert starts == batch.start_t[name].tolist()
        assert ends == batch.end_t[name].tolist()
        assert firsts == batch.periods[name][0].tolist()
        assert stops == batch.periods[name][1].tolist()
        assert durations == (batch.end_t[name] - batch.start_t[name]).tolist()
    batch.end_t["decision"] = batch.end_t["decision"] + 400.0  # edited after the build
    edited = {period[0]: period for period in TrialPool(env, batch).periods}["decision"]
    assert edited[2] == batch.end_t["decision"].tolist()
    assert edited[4] == [int(t // 100) for t in batch.end_t["decision"].tolist()]


# ----------------------------------------------------------------- a set kept for the noise
def _programs():
    """Verb sequences around a set that the builder may keep until noise is added to it."""

    def stimulus(b, where=slice(1, 3)):
        k = len(range(5)[where])
        b.add_input(np.linspace(0.1, 0.9, b.n * k).reshape(b.n, k), "stimulus", where=where)

    def fused(b):  # set, then noise over exactly its steps and dims: added to the kept tile
        stimulus(b)
        b.add_noise(0, 0.3, "stimulus", where=slice(1, 3))

    def other_period(b):
        stimulus(b)
        b.add_noise(0, 0.3, "decision", where=slice(1, 3))

    def other_dims(b):
        stimulus(b)
        b.add_noise(0, 0.3, "stimulus", where=slice(1, 2))

    def add_after(b):
        stimulus(b)
        b.add_input(2.0, ["fixation", "stimulus"], where=2)
        b.add_noise(0, 0.3, "stimulus", where=slice(1, 3))

    def read_ob(b):
        stimulus(b)
        b.ob[:, 3, 1] += 5.0  # the handed-out array holds the set
        b.add_noise(0, 0.3, "stimulus", where=slice(1, 3))

    def view(b):
        stimulus(b)
        b.view_input("stimulus")[:, 0, 2] *= -1.0

    def two_spans(b):  # a set over two periods apart (two spans, each kept): both written
        b.add_input(np.full((b.n, 2), 0.25), ["fixation", "decision"], where=slice(1, 3))
        b.add_noise(0, 0.3, "decision", where=slice(1, 3))

    def per_row_sigma_and_mu(b):
        stimulus(b)
        b.add_noise(0.5, np.linspace(0.1, 1.0, b.n), "stimulus", where=slice(1, 3))

    def finish_only(b):
        stimulus(b)
        b.set_target(1, "decision")

    def wide_cells(b):  # 16-byte cells of float32 (4 dims)
        stimulus(b, where=slice(1, 5))
        b.add_noise(0, 0.3, "stimulus", where=slice(1, 5))

    return [fused, other_period, other_dims, add_after, read_ob, view, two_spans,
            per_row_sigma_and_mu, finish_only, wide_cells]  # fmt: skip


class _Program(TrialEnv):
    def __init__(self, body, dtype) -> None:
        super().__init__(dt=100)
        self.body = body
        self.timing = {"fixation": 200, "stimulus": 2000, "decision": 300}
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(5,), dtype=dtype)
        self.action_space = spaces.Discrete(3)

    def _new_trials(self, b, **kwargs):
        b.add_period(["fixation", "stimulus", "decision"])
        b.add_input(1, "fixation", where=0)
        self.body(b)
        return {}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("program", _programs(), ids=lambda p: p.__name__)
def test_a_kept_set_gives_the_arrays_of_an_immediate_one(program, dtype, monkeypatch):
    from neurogym._trials.builder import BatchBuilder

    def build(n):
        env = _Program(program, dtype)
        env.reset(seed=4)
        batch = env.new_trials(n)
        return batch.ob, env.rng.random()  # the arrays, and the stream after them

    kept = {n: build(n) for n in (7, 64)}
    monkeypatch.setattr(BatchBuilder, "_defer_set", lambda self, *args: False)
    for n, (ob, after) in kept.items():
        immediate, immediate_after = build(n)
        assert ob.tobytes() == immediate.tobytes()
        assert after == immediate_after


def test_the_noise_is_added_to_the_kept_set_of_a_stimulus():
    from neurogym._trials.builder import BatchBuilder

    env = _Program(lambda b: None, np.float32)
    b = BatchBuilder(env, 64, {})
    b.add_period(["fixation", "stimulus", "decision"])
    b.add_input(np.full((64, 2), 0.5), "stimulus", where=slice(1, 3))
    assert b._pending is not None  # kept: nothing written yet
    assert not b._ob[:, 2:22, 1:3].any()
    b.add_noise(0, 0.1, "stimulus", where=slice(1, 3))
    assert b._pending is None
    stimulus = b._ob[:, 2:22, 1:3]
    assert abs(float(stimulus.mean()) - 0.5) < 0.01
    assert 0.09 < float(stimulus.std()) < 0.11
    assert not b._ob[:, 22:, 1:3].any()
    # a single trial's builder writes at once (its arrays are read as they are), also
    # when the trial is long enough for the kept path (100 steps)
    env.timing = {"fixation": 200, "stimulus": 10000, "decision": 300}
    one = BatchBuilder(env, 1, {})
    one.add_period(["fixation", "stimulus", "decision"])
    one.add_input(np.full((1, 2), 0.5), "stimulus", where=slice(1, 3))
    assert one._pending is None
