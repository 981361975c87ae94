"""An add into untouched observation channels, written as a set, gives the add's very bits."""

from __future__ import annotations

import numpy as np
import pytest

import neurogym._trials.builder as builder_module
from neurogym import TrialEnv, spaces
from neurogym._trials.fresh import FreshChannels, as_set_value

# where= forms of a 4-dim observation named a, b, c, d
WHERES = [None, 0, 3, slice(1, 3), ["b", "d"], "a", [2, 0]]
# period forms: shared bounds, ragged, adjacent chains, overlapping periods, the whole trial
PERIODS = ["fixation", "stimulus", ["fixation", "stimulus"], ["stimulus", "decision"],
           ["fixation", "overlap"], ["overlap", "fixation"], ["decision", "fixation"], None,
           "overlap"]  # fmt: skip


def _value(rng: np.random.Generator, shape: tuple[int, ...], kind: int) -> object:
    """One of the value forms a task passes (numbers, -0.0, arrays of several dtypes)."""
    signs = np.where(rng.random(shape) < 0.5, -1.0, 1.0)
    return [
        1,
        -0.0,
        0.25,
        signs * 0.0,  # -0.0 in some cells
        rng.standard_normal(shape),
        rng.standard_normal(shape).astype(np.float32),
        rng.integers(-3, 3, shape),
        rng.integers(-3, 3, shape).astype(np.int16),
        rng.random(shape) < 0.5,
        [0.5] * shape[-1] if len(shape) > 1 else 0.5,
        np.float32(-0.0),
    ][kind]


class _Scripted(TrialEnv):
    """Runs a random script of writes (seeded by ``script``) over shared and ragged periods."""

    def __init__(self, script: int) -> None:
        super().__init__(dt=100)
        self.script = script
        self.timing = {"fixation": 300, "stimulus": (200, 600), "decision": 200, "overlap": 200}
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(4,), dtype=np.float32, name={"a": 0, "b": 1, "c": 2, "d": 3}
        )
        self.action_space = spaces.Discrete(2)

    def _new_trials(self, b, **kwargs):
        b.add_period(["fixation", "stimulus", "decision"])
        b.add_period("overlap", after=100.0)  # inside the fixation
        script = np.random.default_rng(self.script)
        for _ in range(6):
            op = int(script.integers(5))
            where = WHERES[int(script.integers(len(WHERES)))]
            period = PERIODS[int(script.integers(len(PERIODS)))]
            dims = np.arange(4)[self._where(where)].shape if where is not None else (4,)
            value = _value(script, (b.n, *dims), int(script.integers(11)))
            if op == 0 or op == 1:
                b.add_input(value, period, where)
            elif op == 2:
                b.set_input(value, period, where)
            elif op == 3:
                b.add_noise(0, 0.5, period, where)
            else:
                b.ob[:, :2, 1] += 2.0  # the public array, written directly
        b.set_target(1, "decision")
        return {}


@pytest.mark.parametrize("n", [1, 6])
@pytest.mark.parametrize("script", range(60))
def test_writes_equal_the_plain_adds_bit_for_bit(monkeypatch, script, n):
    env = _Scripted(script)
    env.reset(seed=script)
    tracked = env.new_trials(n).ob
    monkeypatch.setattr(builder_module, "FreshChannels", lambda width: None)
    env.reset(seed=script)
    plain = env.new_trials(n).ob
    assert tracked.tobytes() == plain.tobytes()


def test_a_negative_zero_added_to_untouched_cells_is_stored_as_the_add_stores_it():
    class Zero(TrialEnv):
        def __init__(self):
            super().__init__(dt=100)
            self.timing = {"stimulus": 300}
            self.observation_space = spaces.Box(-np.inf, np.inf, shape=(2,), dtype=np.float32)
            self.action_space = spaces.Discrete(2)

        def _new_trials(self, b, **kwargs):
            b.add_period("stimulus")
            b.add_input(-0.0, "stimulus", where=0)
            b.add_input(np.full(b.n, -0.0), "stimulus", where=1)
            return {}

    ob = Zero().new_trials(3).ob
    assert not np.signbit(ob).any()  # 0.0 + -0.0 is +0.0


def test_overlapping_periods_of_one_write_add_where_they_overlap():
    class Overlap(TrialEnv):
        def __init__(self):
            super().__init__(dt=100)
            self.timing = {"fixation": 300, "ready": 200}
            self.observation_space = spaces.Box(-np.inf, np.inf, shape=(1,), dtype=np.float32)
            self.action_space = spaces.Discrete(2)

        def _new_trials(self, b, **kwargs):
            b.add_period("fixation")
            b.add_period("ready", after=100.0)
            b.add_input(1, ["fixation", "ready"])
            return {}

    assert Overlap().new_trials(2).ob[0, :, 0].tolist() == [1, 2, 2]


def test_fresh_channels_track_every_index_form():
    fresh = FreshChannels(5)
    assert fresh.take(1)
    assert not fresh.take([0, 1])  # channel 1 was written: not all untouched
    assert not fresh.take(0)  # ... and the failed take marked channel 0 too
    assert fresh.take(slice(2, 4))
    assert fresh.take(-1)  # channel 4
    assert not fresh.take(None)
    fresh = FreshChannels(3)
    fresh.touch_all()
    assert not fresh.take(2)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (3, (True, 3)),
        (True, (False, True)),  # a Python bool: the add is kept
        (1 + 2j, (False, 1 + 2j)),
        (np.ones(5000), (False, None)),  # a large float array: not normalised, added
        (lambda view: view, (False, None)),
    ],
)
def test_which_values_may_be_set(value, expected):
    ok, got = as_set_value(value)
    assert ok is expected[0]
    if expected[1] is not None:
        assert got == expected[1]
    if not ok:
        assert got is value


@pytest.mark.parametrize("width", [1, 3, 5])
def test_the_channels_a_slice_selects_are_the_ones_numpy_selects(width):
    for start in [None, -6, -2, 0, 1, 2, 4, 7]:
        for stop in [None, -7, -1, 0, 1, 3, 5, 8]:
            for step in [None, 1, 2, -1, -2]:
                where = slice(start, stop, step)
                expected = sum(1 << c for c in set(np.arange(width)[where].tolist()))
                assert FreshChannels(width)._bits(where) == expected, where
