"""Ray: sweeps on a local instance, every task in a Ray worker, one RLlib PPO iteration.

Run by ``nox -s scale`` (ray[rllib] with the gymnasium it pins); skipped without Ray.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="the scale session (nox -s scale) installs ray[rllib]")
pytest.importorskip("torch", reason="sweeps train with neurogym_apps.train")

import neurogym  # noqa: E402
from neurogym_apps.train import TrainConfig  # noqa: E402
from neurogym_apps.train.sweep import sweep  # noqa: E402

PDM = "neurogym/PerceptualDecisionMaking-v0"
DMS = "neurogym/DelayMatchSample-v0"


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray instance with 2 CPUs (what the machine has)."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@ray.remote(max_calls=1)  # a new worker process for each call
def make_in_a_fresh_worker(env_id: str) -> tuple[bool, str]:
    import sys

    import gymnasium

    imported_before = "neurogym" in sys.modules
    env = gymnasium.make(env_id)
    env.reset(seed=0)
    return imported_before, type(env.unwrapped).__name__


def test_the_namespaced_gymnasium_id_imports_neurogym_in_a_fresh_worker(local_ray):
    # First in the module: a new worker of this job may load functions exported before it
    # (such as the sweep's, which import neurogym), so this runs before any other remote call.
    imported_before, name = ray.get(make_in_a_fresh_worker.remote(f"neurogym:{PDM}"))
    assert not imported_before
    assert name == "PerceptualDecisionMaking"


def test_a_sweep_on_ray_equals_the_sequential_runs(local_ray):
    config = TrainConfig(steps=5, hidden_size=8)
    on_ray = sweep([PDM, DMS], [0, 1], config, eval_trials=20, ray=True)
    here = sweep([PDM, DMS], [0, 1], config, eval_trials=20)
    assert on_ray == here
    assert [(r["task"], r["seed"]) for r in on_ray] == [(PDM, 0), (PDM, 1), (DMS, 0), (DMS, 1)]


@ray.remote
def first_steps(env_id: str, seed: int, steps: int = 100) -> np.ndarray:
    """In a fresh worker: make a task through gymnasium's id, reset it with seed, step it."""
    import gymnasium

    env = gymnasium.make(env_id)  # "neurogym:<id>" imports neurogym in the worker first
    ob, _ = env.reset(seed=seed)
    env.action_space.seed(seed)
    obs = [np.asarray(ob, dtype=float).ravel()]
    for _ in range(steps):
        ob, *_ = env.step(env.action_space.sample())
        obs.append(np.asarray(ob, dtype=float).ravel())
    return np.array(obs)


def test_every_installed_task_runs_in_a_ray_worker_through_its_gymnasium_id(local_ray):
    ids = [spec.id for spec in neurogym.tasks()]
    assert PDM in ids
    same = ray.get([first_steps.remote(f"neurogym:{i}", 3) for i in ids])
    again = ray.get([first_steps.remote(f"neurogym:{i}", 3) for i in ids])
    for task, a, b in zip(ids, same, again, strict=True):
        np.testing.assert_array_equal(a, b, err_msg=task)  # same seed, same trials
    other = ray.get([first_steps.remote(f"neurogym:{i}", 4) for i in (PDM, DMS)])
    for task, b in zip((PDM, DMS), other, strict=True):
        assert not np.array_equal(same[ids.index(task)], b), task  # another seed: other trials


def test_one_rllib_ppo_iteration(local_ray):
    from ray.rllib.algorithms.ppo import PPOConfig

    config = (
        PPOConfig()
        .environment(f"neurogym:{PDM}")
        .env_runners(num_env_runners=1, num_envs_per_env_runner=4)
        .training(train_batch_size_per_learner=256, minibatch_size=64, num_epochs=1)
        .debugging(seed=0)
    )
    algo = config.build_algo()
    try:
        result = algo.train()
    finally:
        algo.stop()
    sampled = result["env_runners"]["num_env_steps_sampled"]
    assert sampled >= 256


def test_the_learnability_table_on_ray(local_ray, tmp_path):
    from neurogym_apps.train import learnability

    out = tmp_path / "learn.md"
    args = ["--out", str(out), "--seconds", "0.2", "--eval-trials", "10", "--ray"]
    assert learnability.main([*args, "--plugin", "core", "--plugin", "perceptual"]) == 0
    rows = {row["task"]: row for row in json.loads(out.with_suffix(".json").read_text())}
    assert rows["Null"]["status"] == "RL-only (no ground truth)"
    assert rows["PerceptualDecisionMaking"]["steps"] > 0  # trained in a Ray worker
    assert "| PerceptualDecisionMaking | perceptual |" in out.read_text()
