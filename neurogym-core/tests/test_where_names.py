"""``where=`` takes a list of dim names: their dims in that order (observations and actions)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import neurogym
from neurogym import TrialEnv, spaces


class _Named(TrialEnv):
    """Observation dims fixation (0), stimulus (1, 2), cue (3); actions fixate (0), nogo (1),
    go (2), choice (3, 4). ``mode`` picks what ``_new_trials`` writes."""

    def __init__(self, mode: str) -> None:
        super().__init__(dt=100)
        self.mode = mode
        self.timing = {"fixation": 200, "stimulus": 300, "decision": 100}
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(4,), dtype=np.float32,
            name={"fixation": 0, "stimulus": [1, 2], "cue": 3},
        )  # fmt: skip
        self.action_space = spaces.Discrete(
            5, name={"fixate": 0, "nogo": 1, "go": 2, "choice": [3, 4]}
        )

    def _new_trials(self, b, **kwargs):
        b.add_period(["fixation", "stimulus", "decision"])
        values = np.arange(1, 1 + 4 * b.n, dtype=float).reshape(b.n, 4)
        kind = b.choice("kind", [0, 1, 2])
        if self.mode == "names":
            b.add_input(values[:, :3], "stimulus", where=["cue", "stimulus"])
            b.set_target(kind, "decision", where=["nogo", "go", "choice"])
        else:  # the same by indices and a hand-made table
            b.add_input(values[:, :3], "stimulus", where=[3, 1, 2])
            b.set_target(np.array([1, 2, 3])[kind], "decision")
        return {}


@pytest.mark.parametrize("n", [1, 16])
def test_a_list_of_names_writes_the_dims_of_each_name_in_order(n):
    by_name, by_index = _Named("names"), _Named("indices")
    by_name.reset(seed=2)
    by_index.reset(seed=2)
    a, b = by_name.new_trials(n), by_index.new_trials(n)
    np.testing.assert_array_equal(a.ob, b.ob)
    np.testing.assert_array_equal(a.gt, b.gt)
    assert np.all(a.ob[:, 2:5, 3] == np.arange(1, 1 + 4 * n, 4)[:, None])  # "cue" got column 0


class _Upstream(TrialEnv):
    """The same spaces, authored trial by trial (upstream's ``_new_trial``)."""

    def __init__(self) -> None:
        super().__init__(dt=100)
        named = _Named("names")
        self.timing = dict(named.timing)
        self.observation_space, self.action_space = named.observation_space, named.action_space

    def _new_trial(self, **kwargs):
        self.add_period(["fixation", "stimulus", "decision"])
        self.add_ob([5, 6, 7], "stimulus", where=["cue", "stimulus"])
        self.set_groundtruth(1, "decision", where=["nogo", "go"])
        return {}


def test_a_list_of_names_in_upstream_style_authoring():
    env = _Upstream()
    env.reset(seed=0)
    np.testing.assert_array_equal(env.ob[2], [0, 6, 7, 5])
    np.testing.assert_array_equal(env.gt, [0, 0, 0, 0, 0, 2])  # "go" in the decision


@pytest.mark.parametrize(
    ("where", "error", "message"),
    [
        (["cue", "nope"], KeyError, "where='nope' is not a dim name of the observation space; "
         "valid names: ['cue', 'fixation', 'stimulus']"),
        (["cue", 2], TypeError, "expected a dim name, an int, a slice, or a list of dim names"),
    ],
)  # fmt: skip
def test_a_bad_list_of_names_names_the_problem(where, error, message):
    env = _Named("names")
    env.reset(seed=0)
    with pytest.raises(error, match=message.replace("[", r"\[").replace("]", r"\]")):
        env._where(where)


def test_a_list_where_is_resolved_again_for_a_replaced_space():
    env = _Named("names")
    np.testing.assert_array_equal(env._where(["cue", "stimulus"]), [3, 1, 2])
    assert env._where(["cue", "stimulus"]) is env._where(["cue", "stimulus"])  # cached
    env.observation_space = spaces.Box(
        -np.inf, np.inf, shape=(4,), dtype=np.float32,
        name={"fixation": 0, "stimulus": [2, 3], "cue": 1},
    )  # fmt: skip
    assert env._where(["cue", "stimulus"]) == slice(1, 4)


def test_a_bad_list_of_action_names_lists_the_valid_ones():
    env = _Named("names")
    env.reset(seed=0)
    with pytest.raises(KeyError, match=r"where=\['go', 'stop'\] is not an action name or a list"):
        env._action_table(["go", "stop"])


class _OneHot(TrialEnv):
    """Writes a one-hot cue with ``index=`` (``mode="index"``) or by hand (``mode="hand"``)."""

    def __init__(self, mode: str, index_of=None, value_of=None) -> None:
        super().__init__(dt=100)
        self.mode, self.index_of, self.value_of = mode, index_of, value_of
        self.timing = {"fixation": 200, "stimulus": 300, "decision": 100}
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(4,), dtype=np.float32,
            name={"fixation": 0, "stimulus": [1, 2], "cue": 3},
        )  # fmt: skip
        self.action_space = spaces.Discrete(2)

    def _new_trials(self, b, **kwargs):
        b.add_period(["fixation", "stimulus", "decision"])
        kind = b.choice("kind", [0, 1, 2])
        index = kind if self.index_of is None else self.index_of(b.n)
        value = 1.0 if self.value_of is None else self.value_of(b.n)
        if self.mode == "index":
            b.add_input(value, "stimulus", where=["cue", "stimulus"], index=index)
            b.set_input(2.0, "fixation", where="stimulus", index=kind % 2)
        else:
            table = np.zeros((b.n, 3))
            table[np.arange(b.n), kind] = value
            b.add_input(table, "stimulus", where=[3, 1, 2])
            b.set_input(np.eye(2)[kind % 2] * 2.0, "fixation", where="stimulus")
        return {}


@pytest.mark.parametrize("n", [1, 16])
def test_index_writes_a_one_hot_input_as_the_hand_made_table(n):
    by_index, by_hand = _OneHot("index"), _OneHot("hand")
    by_index.reset(seed=3), by_hand.reset(seed=3)
    a, b = by_index.new_trials(n), by_hand.new_trials(n)
    np.testing.assert_array_equal(a.trial["kind"], b.trial["kind"])
    np.testing.assert_array_equal(a.ob, b.ob)
    assert len(set(a.trial["kind"].tolist())) > 1 or n == 1
    stimulus = a.ob[:, 2]  # step 2 lies in the stimulus period
    assert (stimulus[:, [3, 1, 2]][np.arange(n), a.trial["kind"]] == 1).all()
    assert stimulus[:, [3, 1, 2]].sum() == n


def test_index_takes_one_value_per_trial():
    env = _OneHot("index", value_of=lambda n: np.arange(1.0, n + 1))
    env.reset(seed=0)
    batch = env.new_trials(4)
    np.testing.assert_array_equal(batch.ob[:, 2, [3, 1, 2]].sum(axis=1), [1, 2, 3, 4])


@pytest.mark.parametrize(
    ("index_of", "message"),
    [
        (lambda n: np.full(n, 3), "add_input: index 3 is out of range for the 3 dims where= "
         "selects (valid: 0 to 2)"),
        (lambda n: np.full(n, -1), "add_input: index -1 is out of range"),
        (lambda n: np.full(n, 0.5), "add_input: index= takes integers"),
        (lambda n: np.zeros(n + 1, dtype=int), "add_input: index must be one number or one per "
         "trial (shape ("),
    ],
)  # fmt: skip
def test_a_bad_index_names_the_value_and_the_valid_range(index_of, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        neurogym.batch(_OneHot("index", index_of=index_of), 2, seed=0)


def _built(env, n, seed=5):
    """One batch of ``n`` trials built straight from ``_new_trials`` (no prefetch block)."""
    from neurogym._trials.builder import BatchBuilder

    env.rng = np.random.default_rng(seed)
    builder = BatchBuilder(env, n, {})
    return builder.finish(env._new_trials(builder))


@pytest.mark.parametrize("n", [1, 2, 5])
def test_index_in_a_batch_of_one_writes_the_same_as_in_larger_batches(n):
    kinds = set()
    for seed in range(8):
        by_index, by_hand = _OneHot("index"), _OneHot("hand")
        a, b = _built(by_index, n, seed), _built(by_hand, n, seed)
        np.testing.assert_array_equal(a.trial["kind"], b.trial["kind"])
        np.testing.assert_array_equal(a.ob, b.ob)
        kinds |= set(a.trial["kind"].tolist())
    assert kinds == {0, 1, 2}


@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize(
    ("index_of", "message"),
    [
        (lambda n: np.full(n, 3), "add_input: index 3 is out of range for the 3 dims where= "
         "selects (valid: 0 to 2)"),
        (lambda n: 3 if n == 1 else np.full(n, 3), "add_input: index 3 is out of range"),
        (lambda n: np.full(n, 0.5), "add_input: index= takes integers"),
        (lambda n: np.zeros(n + 1, dtype=int), "add_input: index must be one number or one per "
         "trial (shape ("),
    ],
)  # fmt: skip
def test_a_bad_index_is_refused_in_every_batch_size(n, index_of, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        _built(_OneHot("index", index_of=index_of), n)
