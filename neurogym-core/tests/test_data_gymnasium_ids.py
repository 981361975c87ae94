"""Dataset/batch take an id registered with gymnasium only, as NeuroGym 2.3.1's tutorials do
(``gymnasium.register(id="MyTask-v0", entry_point=MyTask)`` then ``Dataset("MyTask-v0")``)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from data_tasks import VarTask

import neurogym

ID = "GymOnlyVarTask-v0"


@pytest.fixture(scope="module", autouse=True)
def _registered():
    gymnasium.register(id=ID, entry_point=VarTask)
    yield
    del gymnasium.envs.registration.registry[ID]


def test_a_gymnasium_only_id_streams_the_same_trials_as_the_instance():
    by_id = neurogym.Dataset(ID, batch_size=4, seq_len=30, seed=3)
    by_instance = neurogym.Dataset(VarTask(), batch_size=4, seq_len=30, seed=3)
    for _ in range(3):
        (a, b), (c, d) = next(by_id), next(by_instance)
        assert np.array_equal(a, c)
        assert np.array_equal(b, d)


def test_an_id_unknown_to_both_registries_still_names_the_closest_tasks():
    with pytest.raises(neurogym.UnknownTaskError, match="unknown task 'NoSuchTask-v0'"):
        neurogym.Dataset("NoSuchTask-v0", batch_size=2, seq_len=10)
