"""Learnable by reinforcement learning: stable-baselines3 learns the better arm of a bandit."""

from __future__ import annotations

import numpy as np
import pytest

import neurogym

torch = pytest.importorskip("torch")
sb3 = pytest.importorskip("stable_baselines3")


def _better_arm_rate(model, env, n=1000):
    ob, _ = env.reset(seed=1)
    picks = []
    for _ in range(n):
        action, _ = model.predict(ob, deterministic=False)
        ob, *_ = env.step(int(action))
        picks.append(int(action) == 0)
    return float(np.mean(picks))


def test_ppo_learns_the_better_arm_of_a_bandit():
    torch.set_num_threads(1)
    env = neurogym.make("neurogym/Bandit-v0", p=(0.9, 0.1))
    model = sb3.PPO(
        "MlpPolicy",
        env,
        n_steps=64,
        batch_size=64,
        n_epochs=4,
        learning_rate=3e-3,
        seed=0,
        device="cpu",
        verbose=0,
    )
    before = _better_arm_rate(model, neurogym.make("neurogym/Bandit-v0", p=(0.9, 0.1)))
    assert before < 0.8  # an untrained policy picks either arm
    model.learn(total_timesteps=2048)
    after = _better_arm_rate(model, neurogym.make("neurogym/Bandit-v0", p=(0.9, 0.1)))
    assert after >= 0.8
