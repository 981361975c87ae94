"""NeuroGym 3.0 API: the same computation as legacy_custom.py (same JSON line)."""

import json

import gymnasium
import numpy as np

import neurogym


class MyEnv(neurogym.TrialEnv):
    metadata = {"paper_link": None, "paper_name": None, "tags": ["supervised"]}  # noqa: RUF012

    def __init__(self, dt=100, rewards=None, timing=None, sigma=1.0):
        super().__init__(dt=dt)
        self.choices = [0, 1]  # indices into the "choice" actions
        self.cohs = np.array([0, 6.4, 12.8, 25.6, 51.2])
        self.sigma = sigma / np.sqrt(self.dt)
        self.rewards = {"abort": -0.1, "correct": +1.0, "fail": 0.0}
        if rewards:
            self.rewards.update(rewards)
        self.timing = {"fixation": 200, "stimulus": ("uniform", (300, 700)), "decision": 200}
        if timing:
            self.timing.update(timing)
        self.abort = False
        name = {"fixation": 0, "stimulus": [1, 2]}
        self.observation_space = neurogym.spaces.Box(
            -np.inf, np.inf, shape=(3,), dtype=np.float32, name=name
        )
        self.action_space = neurogym.spaces.Discrete(3, name={"fixation": 0, "choice": [1, 2]})

    def _new_trial(self, **kwargs):
        trial = {
            "ground_truth": self.rng.choice(self.choices),
            "coh": self.rng.choice(self.cohs),
            "offset": self.rng.uniform(0.4, 0.6),
        }
        trial.update(kwargs)
        self.add_period(["fixation", "stimulus", "decision"])
        self.add_ob(1, period=["fixation", "stimulus"], where="fixation")
        stim = np.array([trial["offset"], trial["offset"]])
        stim[trial["ground_truth"]] += trial["coh"] / 100
        self.add_ob(stim, "stimulus", where="stimulus")
        self.add_randn(0, self.sigma, "stimulus", where="stimulus")
        self.set_groundtruth(trial["ground_truth"], period="decision", where="choice")
        return trial

    def _step(self, action):
        new_trial, reward, gt = False, 0.0, self.gt_now
        if self.in_period("fixation"):
            if action != 0:
                new_trial = self.abort
                reward += self.rewards["abort"]
        elif self.in_period("decision") and action != 0:
            new_trial = True
            if action == gt:
                reward += self.rewards["correct"]
                self.performance = 1
            else:
                reward += self.rewards["fail"]
        return self.ob_now, reward, False, False, {"new_trial": new_trial, "gt": gt}


gymnasium.register(id="compat/MyEnv-v0", entry_point=MyEnv)

dataset = neurogym.Dataset(
    "compat/MyEnv-v0", env_kwargs={"dt": 100}, batch_size=16, seq_len=100, seed=0
)
batches = [dataset() for _ in range(3)]

env = MyEnv()
ob, _ = env.reset(seed=0)
obs_sum, rewards, trials = float(ob.sum()), [], 0
for _ in range(200):
    ob, reward, terminated, truncated, info = env.step(env.gt_now)  # the correct action
    obs_sum += float(ob.sum())
    rewards.append(reward)
    trials += info["new_trial"]
trial = env.new_trial()

print(
    json.dumps(
        {
            "dataset_inputs": [float(x.sum()) for x, _ in batches],
            "dataset_targets": [int(y.sum()) for _, y in batches],
            "shape": list(batches[0][0].shape),
            "obs_sum": obs_sum,
            "reward_sum": float(sum(rewards)),
            "trials": int(trials),
            "next_trial": [
                int(trial["ground_truth"]),
                float(trial["coh"]),
                float(trial["offset"]),
            ],
            "next_trial_len": len(env.gt),
        },
        sort_keys=True,
    )
)
