"""NeuroGym 2.3.1 style: RL with wrappers and a Monitor configured by TOML (rl / demo notebooks).

Written as a 2.3.1 user would; tests/compat/new_rl.py is the same computation in 3.0's API and
must print the same JSON line.
"""

import json
import tempfile
from pathlib import Path

from stable_baselines3 import A2C
from stable_baselines3.common.vec_env import DummyVecEnv

import neurogym as ngym
from neurogym.wrappers import Monitor, pass_reward

out = Path(tempfile.mkdtemp())
config = out / "config.toml"
config.write_text(f"""
local_dir = "{out.as_posix()}"

[agent.training]
unit = "step"
value = 200

[monitor]
trigger = "trial"
interval = 20
verbose = false

[monitor.plot]
create = false
""")

name = "PerceptualDecisionMaking-v0"
timing = {
    "fixation": ("constant", 300),
    "stimulus": ("constant", 500),
    "decision": ("constant", 300),
}
env = ngym.make(name, dt=100, timing=timing)
env = pass_reward.PassReward(env)
env = Monitor(env, config=str(config))
# 2.3.1 would call env.seed(0) here (gone in 3.0); reset(seed=) seeds the task in both.
env.reset(seed=0)

vec = DummyVecEnv([lambda: env])
model = A2C("MlpPolicy", vec, seed=0, policy_kwargs={"net_arch": [64, 64]})
model.learn(total_timesteps=env.config.agent.training.value)

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
