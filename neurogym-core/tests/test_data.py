"""Supervised data: neurogym.batch (whole batches) and neurogym.Dataset (seeded streams)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from data_tasks import AlwaysRight, Scale, VarTask

import neurogym
from neurogym import Dataset, TrainingBatch, UnsupportedWrapperError


# ============================================================================ neurogym.batch
def test_batch_of_one_equals_a_single_envs_first_trial():
    env = VarTask()
    env.reset(seed=42)
    one = neurogym.batch(VarTask(), 1, seed=42)
    np.testing.assert_array_equal(one.inputs[0], env.ob)
    np.testing.assert_array_equal(one.targets[0], env.gt)
    assert {k: v[0] for k, v in one.trial.items()} == env.trial


def test_same_seed_same_batch_and_the_env_generator_is_untouched():
    env = VarTask()
    env.reset(seed=0)
    state = env.rng.bit_generator.state
    a = neurogym.batch(env, 64, seed=3)
    b = neurogym.batch(VarTask(), 64, seed=3)
    c = neurogym.batch(env, 64, seed=4)
    assert env.rng.bit_generator.state == state
    for x, y in zip(a, b, strict=True):
        if isinstance(x, dict):
            assert x.keys() == y.keys()
            for k in x:
                np.testing.assert_array_equal(x[k], y[k])
        else:
            np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a.inputs, c.inputs)


def test_batch_shapes_lengths_masks_and_unpacking():
    out = neurogym.batch(VarTask(), 200, seed=1)
    assert isinstance(out, TrainingBatch)
    x, y, mask, params = out
    steps = int(out.lengths.max())
    assert x.shape == (200, steps, 3)
    assert x.dtype == np.float32
    assert y.shape == mask.shape == out.valid.shape == (200, steps)
    np.testing.assert_array_equal(out.valid.sum(axis=1), out.lengths)
    np.testing.assert_array_equal(params["n_steps"], out.lengths)
    # the loss mask covers exactly the decision period (the only period with ground truth)
    start, end = out.periods["decision"]
    k = np.arange(steps)
    expected = (k >= start[:, None]) & (k < end[:, None])
    np.testing.assert_array_equal(mask, expected)
    assert not np.any(mask & ~out.valid)
    np.testing.assert_array_equal(y[mask], np.repeat(params["ground_truth"] + 1, end - start))


def test_time_major_is_the_transpose():
    a = neurogym.batch(VarTask(), 8, seed=5)
    b = neurogym.batch(VarTask(), 8, seed=5, time_major=True)
    np.testing.assert_array_equal(b.inputs, a.inputs.swapaxes(0, 1))
    np.testing.assert_array_equal(b.mask, a.mask.T)
    assert b.inputs.flags.c_contiguous
    assert b.time_major


def test_forced_parameters_and_trial_wrappers_are_honoured():
    out = neurogym.batch(VarTask(), 50, seed=0, ground_truth=0)
    assert set(out.trial["ground_truth"]) == {0}
    wrapped = AlwaysRight(VarTask())
    out = neurogym.batch(wrapped, 50, seed=0)
    assert set(out.trial["ground_truth"]) == {1}


def test_step_level_wrappers_are_an_error_naming_them():
    with pytest.raises(UnsupportedWrapperError, match="Scale acts on steps"):
        neurogym.batch(Scale(VarTask()), 4, seed=0)
    with pytest.raises(UnsupportedWrapperError, match="Scale"):
        Dataset(AlwaysRight(Scale(VarTask())), batch_size=2, seq_len=10)


def test_as_torch_shares_memory():
    torch = pytest.importorskip("torch")
    out = neurogym.batch(VarTask(), 4, seed=0)
    tensors = out.to_torch()
    assert isinstance(tensors.inputs, torch.Tensor)
    tensors.inputs[0, 0, 0] = 123.0
    assert out.inputs[0, 0, 0] == 123.0


# ============================================================================ Dataset
def _batches(ds, n):
    return [ds.next_batch() for _ in range(n)]


def test_dataset_upstream_api_shapes_and_cache_len():
    ds = Dataset(VarTask(), batch_size=64, seq_len=100, seed=0)
    # Upstream's rule, int(1e5 / (3 + 1) / 64) = 390, raised to 2**17 steps over the 64
    # columns (2048 per column), then rounded up past a multiple of 100.
    assert ds.cache_len == 2100
    inputs, targets = next(ds)
    assert inputs.shape == (100, 64, 3)
    assert targets.shape == (100, 64)
    assert targets.dtype == np.int64
    ds = Dataset(VarTask(), batch_size=4, seq_len=50, batch_first=True, seed=0)
    inputs, targets = ds()
    assert inputs.shape == (4, 50, 3)
    ds = Dataset(VarTask(), batch_size=2, seq_len=5, max_batch=3, seed=0)
    assert len(list(ds)) == 3
    assert len(list(ds)) == 3  # the count restarts


def test_dataset_same_seed_same_batches_different_seed_different():
    a = _batches(Dataset(VarTask(), batch_size=8, seq_len=40, seed=9), 25)
    b = _batches(Dataset(VarTask(), batch_size=8, seq_len=40, seed=9), 25)
    c = _batches(Dataset(VarTask(), batch_size=8, seq_len=40, seed=10), 25)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x.inputs, y.inputs)
        np.testing.assert_array_equal(x.targets, y.targets)
        np.testing.assert_array_equal(x.trial_id, y.trial_id)
    assert not np.array_equal(a[0].inputs, c[0].inputs)
    ds = Dataset(VarTask(), batch_size=8, seq_len=40, seed=9)
    next(ds)
    ds.seed(9)
    np.testing.assert_array_equal(ds.next_batch().inputs, a[0].inputs)


def test_dataset_same_seed_across_processes():
    code = (
        "import hashlib, sys; sys.path.insert(0, sys.argv[1]);"
        "from data_tasks import VarTask; import neurogym;"
        "ds = neurogym.Dataset(VarTask(), batch_size=4, seq_len=30, seed=123);"
        "h = hashlib.sha256();"
        "[h.update(a.tobytes()) for _ in range(10) for a in next(ds)];"
        "print(h.hexdigest())"
    )
    here = str(Path(__file__).parent)
    runs = {
        subprocess.run(
            [sys.executable, "-c", code, here], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    }
    assert len(runs) == 1


@pytest.mark.parametrize("batch_first", [False, True])
def test_dataset_streams_whole_trials_and_loses_none(batch_first):
    cols, seq_len = 3, 7
    ds = Dataset(VarTask(), batch_size=cols, seq_len=seq_len, cache_len=20, seed=5,
                 batch_first=batch_first)  # fmt: skip
    batches = _batches(ds, 60)
    axis = 1 if batch_first else 0

    def cat(name):
        return np.concatenate([getattr(b, name) for b in batches], axis=axis)

    start = cat("trial_start")
    ids = np.concatenate([b.trial_id[b.trial_index] for b in batches], axis=axis)
    lengths = {}
    for b in batches:
        lengths.update(zip(b.trial_id.tolist(), b.trial["n_steps"].tolist(), strict=True))
    if batch_first:
        start, ids = start.T, ids.T
    for c in range(cols):
        first = np.nonzero(start[:, c])[0]
        assert first[0] == 0
        trial_ids = ids[first, c]
        np.testing.assert_array_equal(np.diff(trial_ids), cols)  # dealt in turn, none skipped
        for pos, nxt, tid in zip(first[:-1], first[1:], trial_ids[:-1], strict=True):
            assert nxt - pos == lengths[tid]  # the whole trial, uncut
            assert np.all(ids[pos:nxt, c] == tid)
        assert trial_ids[0] == c  # trial c opens column c: trial j goes to column j % cols


def test_dataset_masks_cover_exactly_the_ground_truth_steps():
    ds = Dataset(VarTask(), batch_size=4, seq_len=50, seed=2)
    for b in _batches(ds, 10):
        np.testing.assert_array_equal(b.mask, b.targets > 0)


def test_dataset_trial_parameters_and_wrappers():
    ds = Dataset(AlwaysRight(VarTask()), batch_size=4, seq_len=60, seed=0)
    b = ds.next_batch()
    assert set(b.trial["ground_truth"].tolist()) == {1}
    assert b.trial_index.shape == b.mask.shape
    assert set(b.targets[b.mask].tolist()) == {2}


def test_dataset_kwargs_reach_trial_generation_on_refill():
    ds = Dataset(VarTask(), batch_size=2, seq_len=10, seed=0)
    _, targets = ds(ground_truth=0)
    assert set(targets[targets > 0].tolist()) <= {1}


def test_dataset_accepts_ids_and_rejects_env_kwargs_for_instances():
    with pytest.raises(TypeError, match="env_kwargs"):
        Dataset(VarTask(), env_kwargs={"dt": 50})
