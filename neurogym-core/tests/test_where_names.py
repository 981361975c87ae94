"""``where=`` takes a list of dim names: their dims in that order (observations and actions)."""

from __future__ import annotations

import numpy as np
import pytest

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


def test_a_bad_list_of_action_names_lists_the_valid_ones():
    env = _Named("names")
    env.reset(seed=0)
    with pytest.raises(KeyError, match=r"where=\['go', 'stop'\] is not an action name or a list"):
        env._action_table(["go", "stop"])
