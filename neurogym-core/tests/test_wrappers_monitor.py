"""Monitor: nothing at construction, per-trial logs, writes only when asked, evaluate_policy."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from wrapper_tasks import Toy

from neurogym import wrappers as ngw


def _answer(task):
    return int(task.gt[4])


def _trial(env, respond_correctly=True):
    """Plays one Toy trial (4 fixate steps, then a response); returns the last step."""
    for _ in range(4):
        env.step(0)
    answer = _answer(env.unwrapped)
    return env.step(answer if respond_correctly else 3 - answer)


def test_construction_creates_nothing_and_does_not_reset(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    task = Toy()
    env = ngw.Monitor(task, save_dir=tmp_path / "runs")
    assert list(tmp_path.iterdir()) == []
    assert task.trial is None
    assert env.data == {"action": [], "reward": [], "cum_reward": [], "performance": []}
    assert env.data_eval == env.data
    assert env.name == "Toy"


def test_trial_log_holds_the_last_step_and_every_info_key():
    env = ngw.Monitor(Toy())
    env.reset(seed=0)
    env.step(1)  # abort: -0.1, the trial goes on
    for _ in range(3):
        env.step(0)
    first = env.unwrapped.trial
    answer = _answer(env.unwrapped)
    env.step(answer)
    for _ in range(4):
        env.step(0)
    wrong = 3 - _answer(env.unwrapped)
    env.step(wrong)
    assert env.data["action"] == [answer, wrong]
    assert env.data["reward"] == [1.0, 0.0]
    assert env.data["cum_reward"] == pytest.approx([0.9, 0.0])
    assert env.data["performance"] == [1, 0]
    assert env.data["new_trial"] == [True, True]
    assert env.data["trial"][0] is first  # the finished trial, not the next one
    assert env.data["gt"] == [answer, 3 - wrong]
    assert env.num_tr == 2


def test_no_files_without_save_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = ngw.Monitor(Toy(), interval=1)
    env.reset(seed=0)
    for _ in range(3):
        _trial(env)
    assert list(tmp_path.iterdir()) == []
    assert len(env.data["reward"]) == 3
    with pytest.raises(ValueError, match="needs a path when the Monitor has no save_dir"):
        env.save()
    path = env.save(tmp_path / "out" / "log.npz")
    loaded = np.load(path, allow_pickle=True)
    np.testing.assert_array_equal(loaded["reward"], [1.0, 1.0, 1.0])
    assert env.data["reward"] == []


def test_trigger_trial_writes_every_interval_trials(tmp_path, caplog):
    env = ngw.Monitor(Toy(), interval=2, save_dir=tmp_path / "runs")
    env.reset(seed=0)
    with caplog.at_level(logging.INFO, logger="neurogym.wrappers"):
        for _ in range(5):
            _trial(env)
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == [
        "trial_2.npz",
        "trial_4.npz",
    ]
    data = np.load(tmp_path / "runs" / "trial_4.npz", allow_pickle=True)
    assert set(data.files) >= {"action", "reward", "cum_reward", "performance", "trial", "gt"}
    np.testing.assert_array_equal(data["performance"], [1, 1])
    assert len(env.data["reward"]) == 1
    assert "Toy: 4 trials, mean reward 1.0000" in caplog.text


def test_trigger_step_writes_after_interval_steps(tmp_path):
    env = ngw.Monitor(Toy(), trigger="step", interval=7, verbose=False, save_dir=tmp_path)
    env.reset(seed=0)
    for _ in range(4):
        _trial(env)  # 5 steps per trial: writes at the ends of trials 2 (10 steps) and 4
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trial_2.npz", "trial_4.npz"]


def test_monitor_validates():
    with pytest.raises(ValueError, match="trigger must be 'trial' or 'step', got 'day'"):
        ngw.Monitor(Toy(), trigger="day")
    with pytest.raises(ValueError, match=r"^interval must be an int >= 1, got 0$"):
        ngw.Monitor(Toy(), interval=0)


class _Integrator:
    """A stable-baselines3 style model: remembers the stimulus in its state, then answers."""

    def __init__(self):
        self.starts = []

    def predict(self, observation, state=None, episode_start=None, deterministic=True):
        self.starts.append(bool(episode_start[0]))
        stimulus = observation[1:3]
        if stimulus.any():
            return 0, int(np.argmax(stimulus))
        if observation[0] == 0 and state is not None:
            return 1 + state, None
        return 0, state


def test_evaluate_policy_with_a_model_and_at_random():
    env = ngw.Monitor(Toy(), verbose=False)
    model = _Integrator()
    result = env.evaluate_policy(num_trials=10, model=model, verbose=False, seed=0)
    assert result["rewards"] == [1.0] * 10
    assert result["mean_reward"] == 1.0
    assert result["cum_rewards"] == [1.0] * 10
    assert result["mean_cum_reward"] == 1.0
    assert result["performances"] == [1.0] * 10
    assert result["mean_performance"] == 1.0
    assert model.starts[:2] == [True, False]
    assert env.data["reward"] == []  # evaluation is logged apart
    assert len(env.data_eval["action"]) == 10
    random = env.evaluate_policy(num_trials=25, verbose=False, seed=1)
    again = env.evaluate_policy(num_trials=25, verbose=False, seed=1)
    assert random == again
    assert len(random["rewards"]) == 25
    assert 0 <= random["mean_reward"] <= 1


def test_the_log_keeps_at_most_max_trials_recent_trials():
    assert ngw.Monitor(Toy()).max_trials == 100_000
    env = ngw.Monitor(Toy(), max_trials=20, verbose=False)
    env.reset(seed=0)
    numbers = []
    for i in range(75):
        _trial(env, respond_correctly=i % 3 != 0)
        numbers.append(env.unwrapped.num_tr)
    assert env.num_tr == 75
    lengths = {key: len(values) for key, values in env.data.items()}
    assert set(lengths.values()) <= set(range(20, 22))  # trimmed in chunks of max_trials / 10
    kept = len(env.data["performance"])
    expected = [0 if i % 3 == 0 else 1 for i in range(75)][-kept:]
    assert env.data["performance"] == expected  # the most recent trials, in order
    unbounded = ngw.Monitor(Toy(), max_trials=None, verbose=False)
    unbounded.reset(seed=0)
    for _ in range(30):
        _trial(unbounded)
    assert len(unbounded.data["reward"]) == 30
    with pytest.raises(ValueError, match=r"^max_trials must be an int >= 1, got 0$"):
        ngw.Monitor(Toy(), max_trials=0)
