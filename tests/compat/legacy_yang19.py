"""NeuroGym 2.3.1 style: the yang19 collection under ScheduleEnvs, a Dataset and a Monitor
(yang19 notebook).

Written as a 2.3.1 user would; tests/compat/new_yang19.py is the same computation in 3.0's API
and must print the same JSON line.
"""

import json

import torch
from torch import nn

import neurogym as ngym
from neurogym.envs import get_collection
from neurogym.utils import RandomSchedule
from neurogym.wrappers import Monitor, ScheduleEnvs

kwargs = {"dt": 100, "dim_ring": 2}
tasks = get_collection("yang19")
envs = [ngym.make(task, **kwargs) for task in tasks]
schedule = RandomSchedule(len(envs))
env = ScheduleEnvs(envs, schedule=schedule, env_input=True)

dataset = ngym.Dataset(env, batch_size=8, seq_len=100)
# 2.3.1 seeded its envs with env.seed(s) (gone in 3.0); Dataset.seed exists in both.
# The schedule draws from the env's seeded generator in 3.0, so this fixes it too.
dataset.seed(0)
env = dataset.env
ob_size, act_size = env.observation_space.shape[0], env.action_space.n

torch.manual_seed(0)
lstm, fc = nn.LSTM(ob_size, 32), nn.Linear(32, act_size)
optimizer = torch.optim.Adam([*lstm.parameters(), *fc.parameters()], lr=0.01)
criterion = nn.CrossEntropyLoss(weight=torch.tensor([0.05] + [1.0] * (act_size - 1)))
losses, input_sums, target_sums = [], [], []
for _ in range(3):
    inputs, targets = dataset()
    input_sums.append(float(inputs.sum()))
    target_sums.append(int(targets.sum()))
    out, _ = lstm(torch.from_numpy(inputs).float())
    loss = criterion(fc(out).reshape(-1, act_size), torch.from_numpy(targets).long().reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())

# The notebook's random-policy evaluation, on the scheduled env (actions seeded by hand).
monitor = Monitor(env, verbose=False)
monitor.action_space.seed(0)
metrics = monitor.evaluate_policy(num_trials=10)

print(
    json.dumps(
        {
            "tasks": [e.spec.id.rpartition("/")[2] for e in env.envs],
            "ob_size": int(ob_size),
            "act_size": int(act_size),
            "input_sums": input_sums,
            "target_sums": target_sums,
            "losses": losses,
            "eval_mean_performance": float(metrics["mean_performance"]),
            "eval_mean_reward": float(metrics["mean_reward"]),
        },
        sort_keys=True,
    )
)
