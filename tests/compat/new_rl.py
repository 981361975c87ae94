"""NeuroGym 3.0 API: the same computation as legacy_rl.py (same JSON line)."""

import json
import tempfile
from pathlib import Path

from stable_baselines3 import A2C
from stable_baselines3.common.vec_env import DummyVecEnv

import neurogym
from neurogym.wrappers import Monitor, PassReward

out = Path(tempfile.mkdtemp())
training_steps = 200  # legacy_rl.py's [agent.training] value: the user's own number now

name = "neurogym/PerceptualDecisionMaking-v0"
timing = {
    "fixation": ("constant", 300),
    "stimulus": ("constant", 500),
    "decision": ("constant", 300),
}
env = neurogym.make(name, dt=100, timing=timing)
env = PassReward(env)
# legacy_rl.py's [monitor] table as Monitor's own arguments; its local_dir as save_dir.
env = Monitor(env, trigger="trial", interval=20, verbose=False, save_dir=out)
env.reset(seed=0)

vec = DummyVecEnv([lambda: env])
model = A2C("MlpPolicy", vec, seed=0, policy_kwargs={"net_arch": [64, 64]})
model.learn(total_timesteps=training_steps)

trained = {key: [float(v) for v in env.data[key]] for key in ("reward", "performance")}
results = env.evaluate_policy(num_trials=10, model=model)

print(
    json.dumps(
        {
            "training_trials": len(trained["reward"]),
            "training_rewards": trained["reward"],
            "training_performance": trained["performance"],
            "saved_npz": len(list(out.rglob("*.npz"))),
            "eval_mean_performance": float(results["mean_performance"]),
            "eval_mean_reward": float(results["mean_reward"]),
            "eval_rewards": [float(r) for r in results["rewards"]],
        },
        sort_keys=True,
    )
)
