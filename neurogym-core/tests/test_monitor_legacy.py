"""Monitor with NeuroGym 2.3.1's arguments: config, plot_create, plot_steps, ext, their order."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from wrapper_tasks import Toy

from neurogym import _legacy
from neurogym import wrappers as ngw
from neurogym._legacy.config import Config

NO_PLOT = {"monitor": {"plot": {"create": False}}}


@pytest.fixture(autouse=True)
def _fresh_warnings(monkeypatch):
    _legacy.reset_warnings()
    for name in [n for n in os.environ if n.upper().startswith("NGYM_")]:
        monkeypatch.delenv(name)


def _run(env, steps, seed=0):
    env.reset(seed=seed)
    env.action_space.seed(seed)
    for _ in range(steps):
        env.step(env.action_space.sample())


def test_config_object_fills_the_settings_and_is_exposed(tmp_path):
    cfg = Config(
        local_dir=tmp_path,
        monitor={"trigger": "step", "interval": 7, "verbose": False, "plot": {"create": False}},
        agent={"training": {"value": 42}},
    )
    with pytest.deprecated_call(match=r"Monitor\(config=\.\.\.\) is NeuroGym 2\.3\.1"):
        env = ngw.Monitor(Toy(), config=cfg)
    assert (env.trigger, env.interval, env.verbose, env.name) == ("step", 7, False, "Toy")
    assert env.config is cfg
    assert env.config.agent.training.value == 42
    assert cfg.env.name == "Toy"
    assert cfg.monitor.name == "Toy"
    # 2.3.1's default folder, <local_dir>/<env name>/<UTC timestamp>, created at the first write
    assert env.save_dir.parent == tmp_path / "Toy"
    assert cfg.monitor.save_dir == env.save_dir
    assert not (tmp_path / "Toy").exists()
    _run(env, 20)
    # step trigger: the first trial end 7 steps after the last write (trials of 5 steps)
    assert sorted(p.name for p in env.save_dir.iterdir()) == ["trial_2.npz", "trial_4.npz"]


def test_config_dict_and_toml_path(tmp_path):
    with pytest.deprecated_call():
        env = ngw.Monitor(Toy(), {"monitor": {"interval": 3, "plot": {"create": False}}})
    assert env.interval == 3
    assert isinstance(env.config, Config)
    path = tmp_path / "config.toml"
    path.write_text(
        f'local_dir = "{tmp_path.as_posix()}"\n[monitor]\ninterval = 4\nsave_dir = "out"\n'
        "[monitor.plot]\ncreate = false\n"
    )
    for config in (path, str(path)):
        env = ngw.Monitor(Toy(), config=config)  # warned once already
        assert env.interval == 4
        assert env.save_dir == Path("out")
        assert env.config.config_file == path
    with pytest.raises(TypeError, match="a Config, a dict or a TOML path"):
        ngw.Monitor(Toy(), config=3)


def test_explicit_arguments_override_the_config(tmp_path):
    cfg = Config(monitor={"interval": 5, "name": "cfg", "plot": {"create": False}})
    with pytest.deprecated_call():
        env = ngw.Monitor(Toy(), config=cfg, interval=9, save_dir=tmp_path, name="mine")
    assert (env.interval, env.name, env.save_dir) == (9, "mine", tmp_path)
    assert (cfg.monitor.interval, cfg.monitor.name) == (9, "mine")  # filled back, as 2.3.1
    with pytest.raises(ValueError, match=r"monitor\.interval must be a positive integer"):
        ngw.Monitor(Toy(), config=Config(**NO_PLOT), interval=0)


def test_2_3_1_positional_order(tmp_path):
    # Monitor(env, config, name, trigger, interval, verbose, plot_create, plot_steps, ext,
    #         step_fn, save_dir)
    task = Toy()
    with pytest.deprecated_call():
        env = ngw.Monitor(
            task, Config(**NO_PLOT), "pos", "step", 6, False, False, 1000, "png", None, tmp_path
        )
    assert (env.name, env.trigger, env.interval, env.verbose, env.save_dir) == (
        "pos",
        "step",
        6,
        False,
        tmp_path,
    )
    env = ngw.Monitor(task, None, "plain", "trial", 2, False)  # no 2.3.1-only argument: no warning
    assert (env.name, env.interval, env.save_dir) == ("plain", 2, None)
    assert env.max_trials == 100_000  # today's keyword-only argument


def test_todays_keywords_still_work_and_do_not_warn(tmp_path):
    calls = []

    def step_fn(action):
        calls.append(action)
        return env.env.step(action)

    env = ngw.Monitor(
        Toy(), name="n", trigger="step", interval=3, verbose=False, save_dir=tmp_path,
        step_fn=step_fn, max_trials=5,
    )  # fmt: skip
    _run(env, 10)
    assert len(calls) == 10
    assert (env.max_trials, env.save_dir) == (5, tmp_path)


def test_each_2_3_1_argument_warns_once_naming_todays_spelling(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "neurogym_apps.plot._legacy", _FakePlot())
    cfg = {"local_dir": str(tmp_path), **NO_PLOT}
    with pytest.deprecated_call() as record:
        ngw.Monitor(Toy(), config=cfg, plot_create=True, plot_steps=5, ext="svg")
    messages = [str(w.message) for w in record]
    for argument, today in [
        ("config", "Monitor(env, name=..., trigger="),
        ("plot_create", "neurogym_apps.plot.plot_env"),
        ("plot_steps", "num_steps="),
        ("ext", "fig.savefig"),
    ]:
        assert sum(f"Monitor({argument}=...)" in m for m in messages) == 1
        assert any(f"Monitor({argument}=...)" in m and today in m for m in messages)
    assert all(w.filename == __file__ for w in record)  # attributed to the caller
    ngw.Monitor(Toy(), config=cfg, plot_create=True, plot_steps=5, ext="svg")  # silent now


def test_config_attribute_of_a_plain_monitor_warns_and_describes_it():
    env = ngw.Monitor(Toy(), interval=8, verbose=False)
    with pytest.deprecated_call(match=r"Monitor\.config is NeuroGym 2\.3\.1"):
        cfg = env.config
    assert (cfg.monitor.interval, cfg.monitor.verbose, cfg.env.name) == (8, False, "Toy")
    assert cfg.monitor.plot.create is False
    assert env.config is cfg


def test_2_3_1_code_may_step_without_reset(tmp_path):
    with pytest.raises(gym.error.ResetNeeded):  # today's Monitor: the task says what to do
        ngw.Monitor(Toy()).step(0)
    with pytest.deprecated_call():
        env = ngw.Monitor(Toy(), config=Config(local_dir=tmp_path, **NO_PLOT))
    for _ in range(10):  # 2.3.1's Monitor had reset the env in its constructor
        env.step(0)
    assert env.num_tr == 2
    assert not tmp_path.exists() or not any(tmp_path.iterdir())  # no write yet (interval 1000)


def test_already_reset_env_is_not_reset_again(tmp_path):
    task = Toy()
    task.reset(seed=3)
    first = task.trial
    with pytest.deprecated_call():
        env = ngw.Monitor(task, config=Config(local_dir=tmp_path, **NO_PLOT))
    env.step(0)
    assert task.trial is first


def test_data_logging_is_unchanged_by_the_2_3_1_arguments(tmp_path):
    plain = ngw.Monitor(Toy(), interval=4, verbose=False, save_dir=tmp_path / "plain")
    with pytest.deprecated_call():
        old = ngw.Monitor(
            Toy(), Config(**NO_PLOT), interval=4, verbose=False, save_dir=tmp_path / "old"
        )
    for env in (plain, old):
        _run(env, 33, seed=5)
    assert plain.num_tr == old.num_tr == 6
    assert plain.data.keys() == old.data.keys()
    for key in ("action", "reward", "cum_reward", "performance"):
        np.testing.assert_array_equal(plain.data[key], old.data[key])
    for a, b in zip(
        sorted((tmp_path / "plain").iterdir()), sorted((tmp_path / "old").iterdir()), strict=False
    ):
        assert a.name == b.name == "trial_4.npz"
        with np.load(a, allow_pickle=True) as x, np.load(b, allow_pickle=True) as y:
            np.testing.assert_array_equal(x["reward"], y["reward"])


class _FakePlot:
    """Stands in for neurogym_apps.plot._legacy: records the calls."""

    def __init__(self):
        self.calls = []

    def visualize_run(self, **kwargs):
        self.calls.append(("visualize_run", kwargs))
        Path(kwargs["fname"]).write_text("figure")

    def plot_training_history(self, folder, **kwargs):
        self.calls.append(("plot_training_history", {"folder": folder, **kwargs}))
        return "figure"


def test_plot_create_records_the_last_steps_and_draws_at_each_save(monkeypatch, tmp_path):
    fake = _FakePlot()
    monkeypatch.setitem(sys.modules, "neurogym_apps.plot._legacy", fake)
    with pytest.deprecated_call():
        env = ngw.Monitor(
            Toy(), interval=2, verbose=False, plot_create=True, plot_steps=4, save_dir=tmp_path
        )
    assert env.config.monitor.plot.create is True
    _ob, _ = env.reset(seed=0)
    for _ in range(12):
        env.step(0)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["task_000002.png", "trial_2.npz"]
    (_, kwargs), *rest = fake.calls
    assert rest == []
    assert kwargs["ob"].shape == (4, 3)  # the last plot_steps steps
    assert list(kwargs["actions"]) == [0, 0, 0, 0]
    assert len(kwargs["gt"]) == len(kwargs["rewards"]) == len(kwargs["performance"]) == 4
    assert kwargs["performance"][-1] == 0.0  # the trial end
    assert kwargs["name"] == "Toy"
    assert kwargs["env"] is env.env
    assert kwargs["initial_ob"].shape == (3,)


def test_plot_create_needs_the_plot_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "neurogym_apps.plot._legacy", None)  # import fails
    with pytest.deprecated_call(), pytest.raises(ImportError, match=r"neurogym\[plot\]"):
        ngw.Monitor(Toy(), plot_create=True)
    _legacy.reset_warnings()
    with pytest.deprecated_call(), pytest.raises(ImportError, match=r"neurogym\[plot\]"):
        # a Config plots by default (monitor.plot.create = True)
        ngw.Monitor(Toy(), config=Config())


def test_plot_training_history_calls_the_apps_helper(monkeypatch, tmp_path):
    fake = _FakePlot()
    monkeypatch.setitem(sys.modules, "neurogym_apps.plot._legacy", fake)
    env = ngw.Monitor(Toy(), save_dir=tmp_path, verbose=False)
    with pytest.deprecated_call(match="plot_training"):
        assert env.plot_training_history(figsize=(3, 2), save_fig=False) == "figure"
    assert fake.calls == [
        (
            "plot_training_history",
            {
                "folder": tmp_path,
                "figsize": (3, 2),
                "save_fig": False,
                "plot_performance": True,
                "name": "Toy",
            },
        )
    ]
    with pytest.raises(ValueError, match="save_dir"):
        ngw.Monitor(Toy()).plot_training_history()


def test_plot_create_draws_real_figures(tmp_path):
    pytest.importorskip("neurogym_apps.plot._legacy")
    with pytest.deprecated_call():
        env = ngw.Monitor(
            Toy(), interval=2, verbose=False, plot_create=True, plot_steps=8, save_dir=tmp_path
        )
    _run(env, 21)
    assert sorted(p.name for p in tmp_path.glob("task_*.png")) == [
        "task_000002.png",
        "task_000004.png",
    ]
    with pytest.deprecated_call():
        env.plot_training_history()
    assert (tmp_path / "training_history.png").exists()


def test_stable_baselines3_pattern(tmp_path):
    pytest.importorskip("stable_baselines3")
    from stable_baselines3 import A2C
    from stable_baselines3.common.vec_env import DummyVecEnv

    with pytest.deprecated_call():
        env = ngw.Monitor(
            Toy(),
            config=Config(
                local_dir=tmp_path,
                monitor={"interval": 5, "verbose": False, "plot": {"create": False}},
            ),
        )
    model = A2C("MlpPolicy", DummyVecEnv([lambda: env]), n_steps=5, seed=0, device="cpu")
    model.learn(total_timesteps=100)
    assert env.num_tr == 20
    assert len(list(env.save_dir.glob("trial_*.npz"))) == 4
