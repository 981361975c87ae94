# The transcribed tutorial code keeps its own style (unused unpacked names, nested ifs, dict()).
# ruff: noqa: RUF059, SIM102, C408
"""The upstream custom-task tutorial ("Understanding Neurogym Task") runs unchanged.

The code below is transcribed from the tutorial (spec seed 004) with only the import lines
adapted (``import neurogym as ngym; from neurogym import TrialEnv``) and the plotting lines
dropped. Each test ends with assertions on what the tutorial's code produced.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import neurogym as ngym
from neurogym import TrialEnv


def legacy_float(x):
    """``float()`` as the tutorial's numpy (< 1.25) had it: size-1 arrays convert silently.

    NumPy 1.25 deprecated ``float()``/``int()`` of arrays with ``ndim > 0`` and NumPy 2.4 made
    it a TypeError, whatever neurogym returns (the observation space has shape ``(1,)`` and
    ``np.random.uniform(size=(1,))`` is the tutorial's own). The tutorial's lines that rely on
    the old rule run unchanged, with ``float``/``int`` bound to these shims in their scope.
    """
    return float(np.asarray(x).item())


def legacy_int(x):
    """``int()`` of a size-1 array, as the tutorial's numpy had it (see :func:`legacy_float`)."""
    return int(np.asarray(x).item())


def test_gymnasium_section():
    class MyEnv(gym.Env):
        def __init__(self):
            super().__init__()  # Python boilerplate to initialize base class
            # A two-dimensional box with minimum and maximum value set by low and high
            self.observation_space = gym.spaces.Box(low=0.0, high=1.0, shape=(2,))
            # A discrete space with 3 possible values (0, 1, 2)
            self.action_space = gym.spaces.Discrete(3)

    # Instantiate an environment
    env = MyEnv()
    print("Sample random observation value:", env.observation_space.sample())
    print("Sample random action value:", env.action_space.sample())

    def get_reward(x):
        return np.sin(x) * np.exp(-np.abs(x) / 3)

    class MyEnv(gym.Env):  # redefined, as in the tutorial
        def __init__(self):
            # A one-dimensional box with minimum and maximum value set by low and high
            self.observation_space = gym.spaces.Box(low=-10.0, high=10.0, shape=(1,))
            # A discrete space with 3 possible values (0, 1, 2)
            self.action_space = gym.spaces.Discrete(3)
            self.state = 0.0

        def step(self, action):
            # Actions 0, 1, 2 correspond to state change of -0.1, 0, +0.1
            self.state += (action - 1.0) * 0.1
            self.state = np.clip(self.state, -10, 10)
            ob = self.state  # observation
            reward = get_reward(self.state)  # reward
            terminated = False  # never ending
            truncated = False
            info = {}  # empty dictionary
            return ob, reward, terminated, truncated, info

        def reset(self):
            # Re-initialize state
            self.state = self.observation_space.sample()
            return self.state, {}

    env = MyEnv()
    ob, _ = env.reset()
    ob_log = list()
    reward_log = list()
    for _i in range(10000):
        action = env.action_space.sample()  # A random agent
        ob, reward, terminated, truncated, info = env.step(action)
        ob_log.append(ob)
        reward_log.append(reward)

    assert len(ob_log) == len(reward_log) == 10000
    assert np.asarray(ob_log).shape == (10000, 1)


def test_trial_based_section():
    class MyTrialEnv(TrialEnv):
        def __init__(self):
            super().__init__()
            self.observation_space = gym.spaces.Box(low=-1.0, high=1.0, shape=(1,))
            self.action_space = gym.spaces.Discrete(2)
            self.next_ob = np.random.uniform(-1, 1, size=(1,))

        def _new_trial(self):
            ob = self.next_ob  # observation previously computed
            # Sample observation for the next trial
            self.next_ob = np.random.uniform(-1, 1, size=(1,))

            trial = dict()
            # Ground-truth is 1 if ob > 0, else 0
            trial["ground_truth"] = (ob > 0) * 1.0

            return trial

        def _step(self, action):
            ob = self.next_ob
            # If action equals to ground_truth, reward=1, otherwise 0
            reward = (action == self.trial["ground_truth"]) * 1.0
            terminated = False
            truncated = False
            info = {"new_trial": True}
            return ob, reward, terminated, truncated, info

    env = MyTrialEnv()
    ob, _ = env.reset()

    print("Trial", 0)
    print("Received observation", ob)

    steps = []
    for i in range(5):
        action = env.action_space.sample()  # A random agent
        print("Selected action", action)
        ob, reward, terminated, truncated, info = env.step(action)
        print("Received reward", reward)
        print("Trial", i + 1)
        print("Received observation", ob)
        steps.append((action, ob, reward, info))

    assert env.num_tr == 1 + 5  # reset, then five one-step trials
    assert env.observation_space.contains(env.reset()[0])
    for action, ob, reward, info in steps:
        assert ob.shape == (1,)
        assert info["new_trial"] is True
        # info["trial"] is the trial the action answered, so the reward agrees with it
        assert reward == (action == info["trial"]["ground_truth"]) * 1.0


def test_time_and_period_section():
    class MyDecisionEnv(TrialEnv):
        def __init__(self, dt=100, timing=None):
            super().__init__(dt=dt)  # dt is passed to base task

            # Setting default task timing
            self.timing = {"stimulus": 500, "decision": 500}
            # Update timing if provided externally
            if timing:
                self.timing.update(timing)

            self.observation_space = gym.spaces.Box(low=-1.0, high=1.0, shape=(1,))
            self.action_space = gym.spaces.Discrete(2)

        def _new_trial(self):
            # Setting time periods for this trial
            periods = ["stimulus", "decision"]
            # Will add stimulus and decision periods sequentially using self.timing info
            self.add_period(periods)

            # Sample observation for the next trial
            stimulus = np.random.uniform(-1, 1, size=(1,))

            trial = dict()
            trial["stimulus"] = stimulus
            # Ground-truth is 1 if stimulus > 0, else 0
            trial["ground_truth"] = (stimulus > 0) * 1.0

            return trial

        def _step(self, action):
            # Check if the current time step is in stimulus period
            if self.in_period("stimulus"):
                ob = np.array([self.trial["stimulus"]])
                reward = 0.0  # no reward
            else:
                ob = np.array([0.0])  # no observation
                # If action equals to ground_truth, reward=1, otherwise 0
                reward = (action == self.trial["ground_truth"]) * 1.0

            terminated = False
            truncated = False
            # By default, the trial is not ended
            info = {"new_trial": False}
            return ob, reward, terminated, truncated, info

    float = legacy_float  # see legacy_float

    # Logging
    log = {"ob": [], "gt": [], "action": [], "reward": []}

    env = MyDecisionEnv(dt=100)
    ob, _ = env.reset()
    log["ob"].append(float(ob))
    log["gt"].append(float(ob > 0))
    for _i in range(30):
        action = env.action_space.sample()  # A random agent
        ob, reward, terminated, truncated, info = env.step(action)

        log["action"].append(float(action))
        log["ob"].append(float(ob))
        log["gt"].append(float(ob > 0))
        log["reward"].append(float(reward))

    log["ob"] = log["ob"][:-1]  # exclude last observation
    log["gt"] = log["gt"][:-1]  # exclude last observation

    assert {key: len(value) for key, value in log.items()} == {
        "ob": 30,
        "gt": 30,
        "action": 30,
        "reward": 30,
    }
    assert log["ob"][0] == 0.0  # no ob array: reset returns the initial observation
    assert env.tmax == 1000
    # 10-step trials: rewards come on steps 5-9; the ob returned by step k is the task's own
    # (computed at step k), so the stimulus shows in log["ob"][k + 1] for k = 0..4
    assert all(r == 0 for k, r in enumerate(log["reward"]) if k % 10 < 5)
    assert all((o == 0) == (k % 10 in (0, 6, 7, 8, 9)) for k, o in enumerate(log["ob"]))
    assert env.num_tr == 4


@pytest.fixture
def decision_env_class():
    int = legacy_int  # see legacy_float

    class MyDecisionEnv(TrialEnv):
        def __init__(self, dt=100, timing=None):
            super().__init__(dt=dt)  # dt is passed to base task

            # Setting default task timing
            self.timing = {"stimulus": 500, "decision": 500}
            # Update timing if provided externally
            if timing:
                self.timing.update(timing)

            # Here we use ngym.spaces, which allows setting name of each dimension
            name = {"fixation": 0, "stimulus": 1}
            self.observation_space = ngym.spaces.Box(low=-1.0, high=1.0, shape=(2,), name=name)
            name = {"fixation": 0, "choice": [1, 2]}
            self.action_space = ngym.spaces.Discrete(3, name=name)

        def _new_trial(self):
            # Setting time periods for this trial
            periods = ["stimulus", "decision"]
            # Will add stimulus and decision periods sequentially using self.timing info
            self.add_period(periods)

            # Sample observation for the next trial
            stimulus = np.random.uniform(-1, 1, size=(1,))

            # Add value 1 to stimulus period at fixation location
            self.add_ob(1, period="stimulus", where="fixation")
            # Add value stimulus to stimulus period at stimulus location
            self.add_ob(stimulus, period="stimulus", where="stimulus")

            # Set ground_truth
            groundtruth = int(stimulus > 0)
            self.set_groundtruth(groundtruth, period="decision", where="choice")

            trial = dict()
            trial["stimulus"] = stimulus
            trial["ground_truth"] = groundtruth

            return trial

        def _step(self, action):
            # self.ob_now and self.gt_now correspond to
            # current step observation and groundtruth

            # If action equals to ground_truth, reward=1, otherwise 0
            reward = (action == self.gt_now) * 1.0

            terminated = False
            truncated = False
            # By default, the trial is not ended
            info = {"new_trial": False}
            return self.ob_now, reward, terminated, truncated, info

    return MyDecisionEnv


def test_observation_and_groundtruth_section(decision_env_class):
    MyDecisionEnv = decision_env_class  # noqa: N806

    env = MyDecisionEnv()
    env.reset()
    trial = env.new_trial()
    ob, gt = env.ob, env.gt

    print("Trial information", trial)
    print("Observation shape is (N_time, N_unit) =", ob.shape)
    print("Groundtruth shape is (N_time,) =", gt.shape)

    assert ob.shape == (10, 2)
    assert gt.shape == (10,)
    np.testing.assert_array_equal(ob[:5, 0], [1] * 5)
    np.testing.assert_array_equal(ob[:5, 1], np.full(5, trial["stimulus"][0], np.float32))
    assert not ob[5:].any()
    np.testing.assert_array_equal(gt, [0] * 5 + [trial["ground_truth"] + 1] * 5)

    # stepping it (what the tutorial's plot_env does)
    env.reset(seed=0)
    ob, _ = env.reset()
    for _ in range(25):
        expected_gt = env.gt[env.t_ind]
        ob, reward, terminated, truncated, info = env.step(int(expected_gt))
        assert reward == 1.0
        assert info["gt"] == expected_gt
        assert env.observation_space.contains(ob)


def test_perceptual_decision_making_section():
    class PerceptualDecisionMaking(ngym.TrialEnv):
        """Two-alternative forced choice task in which the subject has to
        integrate two stimuli to decide which one is higher on average.

        Args:
            stim_scale: Controls the difficulty of the experiment. (def: 1., float)
            sigma: float, input noise level
            dim_ring: int, dimension of ring input and output
        """

        metadata = {  # noqa: RUF012
            "paper_link": "https://www.jneurosci.org/content/12/12/4745",
            "paper_name": """The analysis of visual motion: a comparison of
            neuronal and psychophysical performance""",
            "tags": ["perceptual", "two-alternative", "supervised"],
        }

        def __init__(
            self, dt=100, rewards=None, timing=None, stim_scale=1.0, sigma=1.0, dim_ring=2
        ):
            super().__init__(dt=dt)
            # The strength of evidence, modulated by stim_scale
            self.cohs = np.array([0, 6.4, 12.8, 25.6, 51.2]) * stim_scale
            self.sigma = sigma / np.sqrt(self.dt)  # Input noise

            # Rewards
            self.rewards = {"abort": -0.1, "correct": +1.0, "fail": 0.0}
            if rewards:
                self.rewards.update(rewards)

            self.timing = {"fixation": 100, "stimulus": 2000, "delay": 0, "decision": 100}
            if timing:
                self.timing.update(timing)

            self.abort = False

            self.theta = np.linspace(0, 2 * np.pi, dim_ring + 1)[:-1]
            self.choices = np.arange(dim_ring)

            name = {"fixation": 0, "stimulus": range(1, dim_ring + 1)}
            self.observation_space = ngym.spaces.Box(
                -np.inf, np.inf, shape=(1 + dim_ring,), dtype=np.float32, name=name
            )
            name = {"fixation": 0, "choice": range(1, dim_ring + 1)}
            self.action_space = ngym.spaces.Discrete(1 + dim_ring, name=name)

        def _new_trial(self, **kwargs):
            # Trial info
            trial = {
                "ground_truth": self.rng.choice(self.choices),
                "coh": self.rng.choice(self.cohs),
            }
            trial.update(kwargs)

            coh = trial["coh"]
            ground_truth = trial["ground_truth"]
            stim_theta = self.theta[ground_truth]

            # Periods
            self.add_period(["fixation", "stimulus", "delay", "decision"])

            # Observations
            self.add_ob(1, period=["fixation", "stimulus", "delay"], where="fixation")
            stim = np.cos(self.theta - stim_theta) * (coh / 200) + 0.5
            self.add_ob(stim, "stimulus", where="stimulus")
            self.add_randn(0, self.sigma, "stimulus", where="stimulus")

            # Ground truth
            self.set_groundtruth(ground_truth, period="decision", where="choice")

            return trial

        def _step(self, action):
            new_trial = False
            terminated = False
            truncated = False
            # rewards
            reward = 0
            gt = self.gt_now
            # observations
            if self.in_period("fixation"):
                if action != 0:  # action = 0 means fixating
                    new_trial = self.abort
                    reward += self.rewards["abort"]
            elif self.in_period("decision"):
                if action != 0:
                    new_trial = True
                    if action == gt:
                        reward += self.rewards["correct"]
                        self.performance = 1
                    else:
                        reward += self.rewards["fail"]

            return (
                self.ob_now,
                reward,
                terminated,
                truncated,
                {"new_trial": new_trial, "gt": gt},
            )

    env = PerceptualDecisionMaking()

    # In place of the tutorial's plot_env(env, num_trials=2): run it with a random agent.
    ob, _ = env.reset(seed=0)
    assert ob.shape == (3,)
    np.testing.assert_array_equal(ob, [1, 0, 0])  # fixation step: no stimulus yet
    assert env.ob.shape == (22, 3)
    assert env.end_ind == {"fixation": 1, "stimulus": 21, "delay": 21, "decision": 22}
    trials = 0
    for _ in range(200):
        ob, reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert env.observation_space.contains(ob)
        assert reward in (0, -0.1, 1.0)
        trials += info["new_trial"]
    assert trials >= 1

    trial = env.new_trial(ground_truth=1, coh=51.2)
    assert trial["ground_truth"] == 1
    assert trial["coh"] == 51.2
    np.testing.assert_array_equal(env.gt, [0] * 21 + [2])
    stimulus = env.ob[1:21, 1:]
    assert stimulus[:, 1].mean() > stimulus[:, 0].mean()  # 0.756 vs 0.244, noise sd 0.1
    np.testing.assert_array_equal(env.ob[:21, 0], [1] * 21)
