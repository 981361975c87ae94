"""NeuroGym 3.0 API: the same computation as legacy_yang19.py (same JSON line)."""

import json

import torch
from torch import nn

import neurogym
from neurogym.wrappers import Monitor, RandomSchedule, ScheduleEnvs

# get_collection's order (the order of Yang et al. 2019's table), the order of the rule inputs.
YANG19 = (
    "go", "rtgo", "dlygo", "anti", "rtanti", "dlyanti", "dm1", "dm2", "ctxdm1", "ctxdm2",
    "multidm", "dlydm1", "dlydm2", "ctxdlydm1", "ctxdlydm2", "multidlydm", "dms", "dnms", "dmc",
    "dnmc",
)  # fmt: skip

kwargs = {"dt": 100, "dim_ring": 2}
tasks = [f"neurogym/yang19.{name}-v0" for name in YANG19]
envs = [neurogym.make(task, **kwargs) for task in tasks]
env = ScheduleEnvs(envs, schedule=RandomSchedule(len(envs)), env_input=True)

dataset = neurogym.Dataset(env, batch_size=8, seq_len=100, seed=0)
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
