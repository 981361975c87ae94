"""NeuroGym 3.0 API: the same computation as legacy_supervised.py (same JSON line)."""

import json

import numpy as np
import torch
from torch import nn

import neurogym

task = "neurogym/PerceptualDecisionMaking-v0"
kwargs = {
    "dt": 100,
    "timing": {
        "fixation": neurogym.TruncExp(600, 400, 700),
        "stimulus": 500,
        "delay": 0,
        "decision": 100,
    },
}
seq_len = 100

dataset = neurogym.Dataset(task, env_kwargs=kwargs, batch_size=16, seq_len=seq_len, seed=0)
env = dataset.env
ob_size = env.observation_space.shape[0]
act_size = env.action_space.n

torch.manual_seed(0)
lstm, linear = nn.LSTM(ob_size, 16), nn.Linear(16, act_size)
optimizer = torch.optim.Adam([*lstm.parameters(), *linear.parameters()], lr=1e-2)
criterion = nn.CrossEntropyLoss()

losses, input_sums, target_sums = [], [], []
for _ in range(10):
    inputs, labels = dataset()
    input_sums.append(float(inputs.sum()))
    target_sums.append(int(labels.sum()))
    x = torch.from_numpy(inputs).type(torch.float)
    y = torch.from_numpy(labels.flatten()).type(torch.long)
    optimizer.zero_grad()
    out, _ = lstm(x)
    loss = criterion(linear(out).view(-1, act_size), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())

# The notebook's evaluation: one trial at a time through dataset.env.
perf, trial_lengths = 0, []
with torch.no_grad():
    for _ in range(20):
        env.new_trial()
        ob, gt = env.ob, env.gt
        trial_lengths.append(len(gt))
        out, _ = lstm(torch.from_numpy(ob[:, np.newaxis, :]).type(torch.float))
        pred = np.argmax(linear(out).numpy(), axis=-1)
        perf += int(gt[-1] == pred[-1, 0])

print(
    json.dumps(
        {
            "shapes": [list(inputs.shape), list(labels.shape)],
            "input_sums": input_sums,
            "target_sums": target_sums,
            "losses": losses,
            "eval_trial_lengths": trial_lengths,
            "eval_correct": perf,
        },
        sort_keys=True,
    )
)
