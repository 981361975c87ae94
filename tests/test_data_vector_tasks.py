"""The batch path, the single env and the vector env are the same task, for every plugin task."""

from __future__ import annotations

import subprocess
import sys

import gymnasium
import numpy as np
import pytest

import neurogym
from neurogym.data import UnsupportedWrapperError, batch_source
from neurogym.wrappers import TaskSet

PDM = "neurogym/PerceptualDecisionMaking-v0"
VECTORIZED = [spec.id for spec in neurogym.tasks() if spec.vectorized]
SUPERVISED = [
    spec.id
    for spec in neurogym.tasks()
    if getattr(neurogym.make(spec.id).unwrapped, "batch_native", False)
    and neurogym.make(spec.id).unwrapped.has_groundtruth  # the others refuse batches
]


def test_every_vectorized_spec_gets_the_native_vector_env():
    for task_id in VECTORIZED:
        vec = gymnasium.make_vec(task_id, num_envs=2)
        assert vec.metadata["neurogym_vectorization"] == "native", (
            task_id,
            vec.metadata.get("neurogym_loop_reason"),
        )


@pytest.mark.parametrize("task_id", VECTORIZED)
def test_vector_env_equals_single_envs(task_id):
    n, seed = 4, 100
    vec = gymnasium.make_vec(task_id, num_envs=n)
    singles = [gymnasium.make(task_id) for _ in range(n)]
    obs, _ = vec.reset(seed=seed)
    for i, env in enumerate(singles):
        np.testing.assert_array_equal(obs[i], env.reset(seed=seed + i)[0])
    rng = np.random.default_rng(0)
    n_actions = int(vec.single_action_space.n)
    for t in range(600):
        actions = rng.integers(0, n_actions, n)
        actions[rng.random(n) < 0.6] = 0  # mostly fixate, so trials run to the decision
        obs, rewards, terms, truncs, info = vec.step(actions)
        for i, env in enumerate(singles):
            ob, r, term, trunc, single = env.step(int(actions[i]))
            np.testing.assert_array_equal(obs[i], ob, err_msg=f"{task_id} step {t} env {i}")
            assert (rewards[i], terms[i], truncs[i]) == (r, term, trunc)
            assert info["new_trial"][i] == single["new_trial"]
            if single["new_trial"]:
                assert info["performance"][i] == single["performance"]
                for key, value in single["trial"].items():
                    np.testing.assert_array_equal(info["trial"][key][i], value)


def _has_step_wrapper(task_id):
    try:
        batch_source(neurogym.make(task_id))
    except UnsupportedWrapperError:
        return True
    return False


@pytest.mark.parametrize("task_id", SUPERVISED)
def test_a_batch_equals_the_single_envs_first_trials(task_id):
    if _has_step_wrapper(task_id):
        with pytest.raises(UnsupportedWrapperError, match="acts on steps"):
            neurogym.batch(task_id, 1, seed=7)
        return
    env = neurogym.make(task_id)
    if isinstance(batch_source(env), TaskSet):
        _check_task_set_batch(task_id, env)
        return
    env.reset(seed=7)
    task = env.unwrapped
    # A single env draws blocks of env.prefetch trials, and a seeded batch draws the same
    # blocks (neurogym._env.prefetch); trials a trial wrapper forces are made one at a time.
    k = int(task.prefetch) if batch_source(env) is task else 1
    batch = neurogym.batch(task_id, k, seed=7)
    for row in range(min(k, 3)):
        if row:
            task.new_trial()
        steps = int(batch.lengths[row])
        np.testing.assert_array_equal(batch.inputs[row, :steps], task.ob)
        if task.gt is not None:
            np.testing.assert_array_equal(batch.targets[row, :steps], task.gt)


def _check_task_set_batch(task_id, env):
    """A TaskSet's rows of task i are task i's own batch drawn from the same generator."""
    for i in (0, len(env.envs) - 1):
        mixed = neurogym.batch(task_id, 3, seed=7, task=i)
        alone = neurogym.batch(env.envs[i], 3, seed=np.random.default_rng(7))  # one pass
        width = alone.inputs.shape[2]
        np.testing.assert_array_equal(mixed.inputs[..., :width], alone.inputs)
        np.testing.assert_array_equal(mixed.targets, alone.targets)
        rule = mixed.inputs[..., width:]
        np.testing.assert_array_equal(rule[..., i], alone.valid)
        assert rule.sum() == alone.valid.sum()


VAR_TIMING = {
    "fixation": ("choice", [100, 200, 300]),
    "stimulus": ("uniform", (300, 1500)),
    "delay": ("truncated_exponential", [300, 100, 900]),
}


def _single_env_trials(n, seed):
    env = neurogym.make(PDM, timing=VAR_TIMING, dim_ring=3).unwrapped
    env.reset(seed=seed)
    rows = []
    for _ in range(n):
        env.new_trial()
        rows.append((dict(env.start_ind), dict(env.end_ind), env.trial["ground_truth"], env.ob))
    return rows


def test_batch_and_single_env_statistics_agree_within_sampling_error():
    n = 3000
    batch = neurogym.batch(PDM, n, seed=1, env_kwargs={"timing": VAR_TIMING, "dim_ring": 3})
    singles = _single_env_trials(n, seed=2)
    # ground-truth frequencies (3 choices): within 5 standard errors
    freq_b = np.bincount(batch.trial["ground_truth"], minlength=3) / n
    freq_s = np.bincount([r[2] for r in singles], minlength=3) / n
    se = np.sqrt(2 * (1 / 3) * (2 / 3) / n)
    assert np.all(np.abs(freq_b - freq_s) < 5 * se), (freq_b, freq_s)
    for period in ("fixation", "stimulus", "delay", "decision"):
        start, end = batch.periods[period]
        dur_b = end - start
        dur_s = np.array([r[1][period] - r[0][period] for r in singles])
        assert set(np.unique(dur_b)) == set(np.unique(dur_s)) or period in ("stimulus", "delay")
        se = np.sqrt(dur_b.var() / n + dur_s.var() / n) + 1e-12
        assert abs(dur_b.mean() - dur_s.mean()) < 5 * se + 1e-9, period
        # per-dim observation means over the period, one sample per trial
        for dim in range(batch.inputs.shape[2]):
            k = np.arange(batch.inputs.shape[1])
            inside = (k >= start[:, None]) & (k < end[:, None])
            has = inside.any(axis=1)
            m_b = (batch.inputs[..., dim] * inside).sum(1)[has] / inside.sum(1)[has]
            m_s = np.array(
                [r[3][r[0][period] : r[1][period], dim].mean() for r in singles
                 if r[1][period] > r[0][period]]
            )  # fmt: skip
            se = np.sqrt(m_b.var() / m_b.size + m_s.var() / m_s.size) + 1e-12
            assert abs(m_b.mean() - m_s.mean()) < 5 * se + 1e-9, (period, dim)


def test_dataset_same_seed_across_processes_for_a_plugin_task():
    code = (
        "import hashlib, neurogym;"
        f"ds = neurogym.Dataset({PDM!r}, batch_size=16, seq_len=100, seed=5);"
        "h = hashlib.sha256();"
        "[h.update(a.tobytes()) for _ in range(12) for a in next(ds)];"
        "print(h.hexdigest())"
    )
    out = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    }
    assert len(out) == 1


@pytest.mark.parametrize("task_id", SUPERVISED)
def test_dataset_runs_for_every_batch_native_task(task_id):
    if _has_step_wrapper(task_id):
        with pytest.raises(UnsupportedWrapperError, match="acts on steps"):
            neurogym.Dataset(task_id, batch_size=8, seq_len=50, seed=0)
        return
    ds = neurogym.Dataset(task_id, batch_size=8, seq_len=50, seed=0)
    for _ in range(3):
        b = ds.next_batch()
        assert b.inputs.shape[:2] == (50, 8)
        assert b.mask.shape == (50, 8)
    source = batch_source(ds.env)
    assert source is ds.env.unwrapped or source is ds.env  # the task or its trial wrapper
