"""2.3.1 tasks call RandomState's names on ``self.rng`` (``rand``, ``randn``, ``randint``,
``random_sample``): they warn once, naming the Generator method, and draw from the env's seeded
generator, in single envs, batches, Datasets, copies and pickles."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest
from gymnasium.utils import seeding

import neurogym
from neurogym import TrialEnv, spaces
from neurogym._deprecation import TaskGenerator, reset_warnings
from neurogym.testing import check_task


class RandomStateTask(TrialEnv):
    """A task written for 2.3.1's RandomState ``rng``.

    ## Description
    Its inputs and ground truth come from ``rand``, ``randn``, ``randint``, ``random_sample``.
    """

    metadata = {"paper_name": "toy", "paper_link": "https://example.org", "tags": ["toy"]}  # noqa: RUF012

    def __init__(self, dt=100):
        super().__init__(dt=dt)
        self.timing = {"stimulus": 300}
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(2,), dtype=np.float32)
        self.action_space = spaces.Discrete(2)

    def _new_trial(self, **kwargs):
        self.add_period("stimulus")
        self.add_ob(self.rng.rand(3, 2) + self.rng.randn())
        ground_truth = int(self.rng.randint(2))
        self.set_groundtruth(ground_truth)
        return {"ground_truth": ground_truth, "x": float(self.rng.random_sample())}

    def _step(self, action):
        return self.ob_now, 0.0, False, False, {}


@pytest.fixture(autouse=True)
def _quiet_after_first():
    # Each name warns once per process: the first trial warns for all four, then nothing.
    reset_warnings()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        RandomStateTask().reset(seed=0)
    said = sorted(str(w.message).split(" is ")[0] for w in caught)
    assert said == [
        "self.rng.rand(*shape)",
        "self.rng.randint(low, high, size)",
        "self.rng.randn(*shape)",
        "self.rng.random_sample(size)",
    ]
    assert all(w.category is DeprecationWarning for w in caught)
    yield
    reset_warnings()


def test_the_names_draw_what_the_generator_methods_draw_from_the_seeded_stream():
    env = RandomStateTask()
    env.reset(seed=4)
    plain = seeding.np_random(4)[0]
    ob = plain.random((3, 2)) + plain.standard_normal()
    gt = int(plain.integers(2))
    assert np.allclose(env.ob, ob)
    assert env.trial == {"ground_truth": gt, "x": float(plain.random())}
    assert isinstance(env.rng, TaskGenerator)


def test_reset_seed_repeats_and_copies_and_pickles_keep_the_names():
    a, b = RandomStateTask(), RandomStateTask()
    a.reset(seed=1)
    b.reset(seed=1)
    assert a.trial == b.trial
    for clone in (copy.deepcopy(a), pickle.loads(pickle.dumps(a))):
        assert isinstance(clone.rng, TaskGenerator)
        clone.new_trial()
        a_next = copy.deepcopy(a)
        a_next.new_trial()
        assert clone.trial == a_next.trial


def test_batches_datasets_and_the_conformance_kit_take_such_a_task():
    x, *_ = neurogym.batch(RandomStateTask(), 8, seed=2)
    again, *_ = neurogym.batch(RandomStateTask(), 8, seed=2)
    assert np.array_equal(x, again)
    stream = neurogym.Dataset(RandomStateTask(), batch_size=2, seq_len=9, cache_len=27, seed=0)
    inputs, targets = next(stream)
    assert inputs.shape == (9, 2, 2)
    assert set(np.unique(targets)) <= {0, 1}
    assert check_task(RandomStateTask(), steps=60) is None


def test_an_unseeded_env_makes_a_task_generator_too():
    env = RandomStateTask()
    assert isinstance(env.rng, TaskGenerator)
    first_the_seed = RandomStateTask()  # gymnasium's np_random_seed makes the generator too
    assert isinstance(first_the_seed.np_random_seed, int)
    assert isinstance(first_the_seed.rng, TaskGenerator)
    env.np_random = np.random.default_rng(0)  # a generator given by the user is kept as it is
    assert type(env.rng) is np.random.Generator
