"""Bad arguments to batch, Dataset and forced trial variables raise, naming value and rule."""

from __future__ import annotations

import re

import numpy as np
import pytest
from data_tasks import VarTask

import neurogym
from neurogym import Dataset
from neurogym.wrappers import TrialWrapper


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"batch_size": 1.7}, TypeError, "batch_size must be an int >= 1, got 1.7"),
        ({"batch_size": 0}, ValueError, "batch_size must be an int >= 1, got 0"),
        ({"seq_len": 2.5}, TypeError, "seq_len must be an int >= 1, got 2.5"),
        ({"seed": 1.5}, TypeError, "seed must be an int >= 0, got 1.5"),
        ({"batch_first": "no"}, TypeError, "batch_first must be True or False, got 'no'"),
        ({"cache_len": -5000}, ValueError, "cache_len must be an int >= 1, got -5000"),
        ({"max_batch": 0}, ValueError, "max_batch must be an int >= 1, got 0"),
    ],
)
def test_dataset_arguments_are_checked(kwargs, error, message):
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        Dataset(VarTask(), **kwargs)


@pytest.mark.parametrize(
    ("n", "error", "message"),
    [(2.5, TypeError, "n must be an int >= 1, got 2.5"), (0, ValueError, "n must be an int >= 1")],
)
def test_batch_size_is_checked(n, error, message):
    with pytest.raises(error, match=f"^{re.escape(message)}"):
        neurogym.batch(VarTask(), n, seed=0)
    with pytest.raises(TypeError, match=r"^seed must be an int >= 0, got 1\.5$"):
        neurogym.batch(VarTask(), 2, seed=1.5)


def test_a_forced_value_of_the_wrong_length_names_the_variable():
    message = (
        "forced ground_truth must have shape () (one value for every trial) or (4,) (one per "
        "trial of this batch of 4), got shape (2,)"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        neurogym.batch(VarTask(), 4, seed=0, ground_truth=[0, 1])


class PassThrough(TrialWrapper):
    """A trial wrapper overriding new_trial (so batches are looped through it)."""

    def new_trial(self, **kwargs):
        return self.env.new_trial(**kwargs)


def test_per_trial_lists_split_the_same_through_a_trial_wrapper():
    env = PassThrough(VarTask())
    env.reset(seed=0)
    for source in (env, env.unwrapped):
        batch = source.new_trials(3, ground_truth=[0, 1, 0])
        np.testing.assert_array_equal(batch.trial["ground_truth"], [0, 1, 0])


@pytest.mark.parametrize(
    ("flag", "value"), [("time_major", "no"), ("as_torch", "yes"), ("as_torch", 1)]
)
def test_batch_flags_must_be_booleans(flag, value):
    with pytest.raises(TypeError, match=f"{flag} must be True or False, got {value!r}"):
        neurogym.batch(VarTask(), 2, seed=0, **{flag: value})


@pytest.mark.parametrize(
    ("kwargs", "size"),
    [({"batch_size": 10**9}, "1000000000 x "), ({"batch_size": 4, "seq_len": 10**12}, "4 x ")],
)
def test_a_dataset_too_large_to_allocate_is_refused_before_allocating(kwargs, size):
    message = rf"a Dataset cache of {size}.* GiB, more than the 4 GiB limit .*lower batch_size"
    with pytest.raises(ValueError, match=message):
        neurogym.Dataset(VarTask(), **kwargs)


def test_a_whole_float_cache_len_is_2_3_1_s_spelling_and_is_taken_as_an_int():
    from neurogym._deprecation import reset_warnings

    reset_warnings()
    with pytest.warns(DeprecationWarning, match=r"cache_len=<a float>.*use an int"):
        ds = neurogym.Dataset(VarTask(), batch_size=2, seq_len=10, cache_len=1e3, seed=0)
    same = neurogym.Dataset(VarTask(), batch_size=2, seq_len=10, cache_len=1000, seed=0)
    assert ds.cache_len == same.cache_len
    with pytest.raises(TypeError, match="cache_len must be an int"):
        neurogym.Dataset(VarTask(), batch_size=2, seq_len=10, cache_len=10.5)
