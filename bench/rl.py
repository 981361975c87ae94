"""Reinforcement-learning workloads (this project only; needs the rl extra).

The native vector env behind stable-baselines3's API (``neurogym_apps.rl.as_sb3_vec_env``) against
what a user builds by hand, ``DummyVecEnv`` of ``N`` single envs:

* ``VecEnv.step`` env-steps/s for N = 16 and 64 (random actions, PerceptualDecisionMaking);
* PPO rollout collection (``collect_rollouts``: policy forward passes plus env steps) env-steps/s
  with an MLP policy, N = 16 and 64.

Run by bench/compare.py when stable-baselines3 is installed (``nox -s bench``), or alone::

    python bench/rl.py [--table]

which prints one JSON object (or, with ``--table``, a markdown table).
"""

from __future__ import annotations

import json
import sys
import warnings
from typing import Any

import numpy as np
import workloads

NS = (16, 64)
TASK = "neurogym/PerceptualDecisionMaking-v0"
ROLLOUT_STEPS = 128  # PPO n_steps: one collection is N x 128 env steps


def _vec_envs(n: int) -> dict[str, Any]:
    from stable_baselines3.common.vec_env import DummyVecEnv

    import neurogym
    from neurogym_apps.rl import as_sb3_vec_env

    dummy = DummyVecEnv([lambda: neurogym.make(TASK) for _ in range(n)])
    dummy.seed(0)
    return {"adapter": as_sb3_vec_env(TASK, n, seed=0), "dummy": dummy}


def _interleaved(calls: dict[str, Any], units: float, min_time: float, rounds: int) -> dict:
    """Median rate of each call, measured in alternation (a load change hits both sides)."""
    rates: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            rates[name].append(workloads.rate(call, units, min_time=min_time))
    return {name: workloads.median(values) for name, values in rates.items()}


def vec_step(n: int) -> dict[str, float]:
    """Env-steps/s of ``VecEnv.step`` for the adapter and for DummyVecEnv."""
    acts = np.random.default_rng(0).integers(0, 3, (64, n))
    calls = {}
    for name, env in _vec_envs(n).items():
        env.reset()
        state = {"i": 0}

        def block(env: Any = env, state: dict[str, int] = state) -> None:
            i = state["i"]
            for k in range(8):
                env.step(acts[(i + k) % 64])
            state["i"] = i + 8

        calls[name] = block
    return _interleaved(calls, 8 * n, workloads.MIN_TIME, rounds=3)


def ppo_rollout(n: int) -> dict[str, float]:
    """Env-steps/s of PPO's rollout collection (MLP policy, one torch thread)."""
    import torch
    from stable_baselines3 import PPO

    torch.set_num_threads(1)
    calls = {}
    for name, env in _vec_envs(n).items():
        model = PPO("MlpPolicy", env, n_steps=ROLLOUT_STEPS, seed=0, device="cpu")
        _, callback = model._setup_learn(total_timesteps=10**9, callback=None)
        callback.on_training_start(locals(), globals())

        def collect(model: Any = model, callback: Any = callback) -> None:
            model.collect_rollouts(model.env, callback, model.rollout_buffer, ROLLOUT_STEPS)

        calls[name] = collect
    return _interleaved(calls, ROLLOUT_STEPS * n, 1.0, rounds=2)


def run() -> dict[str, Any]:
    """Every RL workload once."""
    warnings.simplefilter("ignore")
    return {
        "vec_step": {str(n): vec_step(n) for n in NS},
        "ppo_rollout": {str(n): ppo_rollout(n) for n in NS},
    }


def rows(results: list[dict[str, Any]]) -> list[tuple[str, str, str, str]]:
    """Table rows (workload, adapter, DummyVecEnv, ratio): medians over repetitions.

    The ratio is the median of the per-repetition ratios (both sides of a repetition are
    measured in alternation, so a change of load hits both).
    """
    out = []
    labels = {"vec_step": "SB3 VecEnv.step env-steps/s", "ppo_rollout": "PPO rollout env-steps/s"}
    for key, label in labels.items():
        for n in NS:
            pairs = [(r[key][str(n)]["adapter"], r[key][str(n)]["dummy"]) for r in results]
            a = workloads.median([p[0] for p in pairs])
            b = workloads.median([p[1] for p in pairs])
            ratio = workloads.median([p[0] / p[1] for p in pairs])  # each rep interleaves
            out.append((f"{label}, PDM, N={n}", f"{a:,.0f}", f"{b:,.0f}", f"{ratio:.1f}x"))
    return out


def table(results: list[dict[str, Any]]) -> str:
    """The markdown table of :func:`rows`."""
    lines = ["| workload | as_sb3_vec_env | DummyVecEnv | ratio |", "|---|---:|---:|---:|"]
    lines += [f"| {w} | {a} | {b} | {r} |" for w, a, b, r in rows(results)]
    return "\n".join(lines)


if __name__ == "__main__":
    result = run()
    print(table([result]) if "--table" in sys.argv else json.dumps(result))
