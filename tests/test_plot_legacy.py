"""neurogym_apps.plot._legacy: NeuroGym 2.3.1's plotting signatures on today's plots."""

from __future__ import annotations

import time

import gymnasium as gym
import numpy as np
import pytest
from matplotlib.figure import Figure

import neurogym
from neurogym.wrappers import Monitor
from neurogym_apps.plot import _legacy as legacy

PDM = "neurogym/PerceptualDecisionMaking-v0"
REACH = "neurogym/ReachingDelayResponse-v0"
BANDIT = "neurogym/Bandit-v0"
KEYS = {"ob", "ob_cum", "rewards", "actions", "perf", "actions_end_of_trial", "gt", "states",
        "initial_ob"}  # fmt: skip


class _GroundTruthModel:
    """A stable-baselines3 style model answering the ground truth; counts trial starts."""

    def __init__(self, env: gym.Env) -> None:
        self.task = env.unwrapped
        self.starts = 0

    def predict(self, ob, state=None, episode_start=None, deterministic=False):
        self.starts += int(episode_start[0])
        return np.array(int(self.task.gt_now)), ("hidden",)


class _PlainModel:
    """A model whose predict takes (ob, deterministic) only, as 2.3.1 called non-recurrent ones."""

    def predict(self, ob, deterministic=False):
        return np.array(0), None


def _is_minus_one(value) -> bool:
    return isinstance(value, int) and value == -1


def _png(fig: Figure, path) -> None:
    fig.savefig(path)
    assert path.stat().st_size > 10_000


@pytest.mark.parametrize("task", [PDM, REACH, BANDIT])
def test_run_env_returns_2_3_1_keys_and_shapes(task):
    data = legacy.run_env(task, 60)  # num_steps positional, random actions
    assert set(data) == KEYS
    assert data["ob"].shape == data["ob_cum"].shape == (60, *data["initial_ob"].shape)
    assert data["ob"].dtype == float
    for key in ("rewards", "actions", "perf", "actions_end_of_trial", "gt"):
        assert len(data[key]) == 60, key
    assert data["states"] is None
    perf = np.asarray(data["perf"], dtype=float)
    ends = [i for i, a in enumerate(data["actions_end_of_trial"]) if not _is_minus_one(a)]
    np.testing.assert_array_equal(np.flatnonzero(perf != -1), ends)
    if task == BANDIT:  # no ground truth: zeros, as in 2.3.1
        assert data["gt"] == [0] * 60


def test_run_env_observations_and_running_sum_follow_2_3_1():
    env = neurogym.make(PDM)
    data = legacy.run_env(env, num_trials=3, def_act=0)
    assert data["actions"] == [0] * len(data["actions"])
    assert sum(p != -1 for p in data["perf"]) == 3
    assert data["perf"][-1] == 0.0  # fixated: fail
    first_end = data["perf"].index(0.0)
    expected = data["initial_ob"] + data["ob"][: first_end + 1].sum(axis=0)
    np.testing.assert_allclose(data["ob_cum"][first_end], expected, rtol=1e-5)
    np.testing.assert_allclose(data["ob_cum"][first_end + 1], data["ob"][first_end + 1])
    # the ob returned by the last step, which ended a trial: the next trial's fixation
    np.testing.assert_array_equal(data["ob"][-1], [1.0, 0.0, 0.0])


def test_plot_env_takes_2_3_1_argument_forms(tmp_path):
    fig = legacy.plot_env(PDM, 80, None, 0, None, "PDM", True, ["Fixation", "Stim 1", "Stim 2"],
                          {"figsize": (10, 6)}, tmp_path / "pdm", True, None)  # fmt: skip
    assert (tmp_path / "pdm.png").stat().st_size > 10_000  # .png appended, as in 2.3.1
    assert tuple(fig.get_size_inches()) == (10, 6)
    assert fig.get_suptitle() == "PDM"
    obs_ax, act_ax, _, perf_ax = fig.axes
    assert [t.get_text() for t in obs_ax.get_legend().get_texts()] == [
        "Fixation", "Stim 1", "Stim 2"]  # fmt: skip
    assert set(act_ax.get_lines()[0].get_ydata()) == {0}  # def_act on every step
    assert perf_ax.get_title().startswith("mean performance")
    _png(fig, tmp_path / "legacy_pdm_traces.png")


def test_plot_env_heatmap_box_actions_no_ground_truth_and_options(tmp_path):
    reach = legacy.plot_env(REACH, num_trials=3, fname=str(tmp_path / "reach.svg"))
    assert (tmp_path / "reach.svg").exists()
    assert reach.axes[0].get_images()  # no ob_traces: a heatmap, as in 2.3.1
    _png(reach, tmp_path / "legacy_reach.png")
    bandit = legacy.plot_env(BANDIT, 40, legend=False, plot_performance=False)
    assert len(bandit.axes) == 3
    assert all(ax.get_legend() is None for ax in bandit.axes)
    _png(bandit, tmp_path / "legacy_bandit.png")
    with pytest.raises(ValueError, match=r"one label for each of the 3 observation dims"):
        legacy.plot_env(PDM, 10, ob_traces=["fixation"])


def test_plot_env_runs_a_model_on_a_dummy_vec_env(tmp_path):
    from stable_baselines3.common.vec_env import DummyVecEnv

    env = neurogym.make(PDM)
    vec = DummyVecEnv([lambda: env])
    model = _GroundTruthModel(env)
    fig = legacy.plot_env(vec, num_trials=4, model=model, name="trained")
    assert model.starts == 4  # recurrent state restarted at each trial
    assert fig.axes[3].get_title() == "mean performance 1.00"
    data = legacy.run_env(vec, 30, model=_PlainModel())
    assert data["actions"] == [0] * 30
    _png(fig, tmp_path / "legacy_model.png")


def test_plot_env_runs_a_stable_baselines3_ppo():
    from stable_baselines3 import PPO

    start = time.perf_counter()
    env = neurogym.make(PDM)
    model = PPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(32)
    data = legacy.run_env(env, 40, model=model)
    assert all(a in (0, 1, 2) for a in data["actions"])
    assert isinstance(legacy.plot_env(env, 40, model=model), Figure)
    assert time.perf_counter() - start < 30


def test_visualize_run_aligns_observations_and_draws_states(tmp_path):
    data = legacy.run_env(PDM, num_trials=2)
    states = np.random.default_rng(0).normal(size=(len(data["ob"]), 8))
    fig = legacy.visualize_run(data["ob"], data["actions"], gt=data["gt"],
                               rewards=data["rewards"], performance=data["perf"], states=states,
                               initial_ob=data["initial_ob"], name="run")  # fmt: skip
    assert len(fig.axes) >= 5
    assert fig.axes[4].get_images()[0].get_array().shape[0] == 4  # the second half of 8 units
    shown = fig.axes[0].get_images()[0].get_array()
    np.testing.assert_allclose(shown[:, 0], data["initial_ob"])  # ob aligned to actions
    np.testing.assert_allclose(shown[:, 1], data["ob"][0])
    # no env, no rewards or performance: two panels, trial boundaries from trial_starts
    bare = legacy.plot_env_1dbox(data["ob"], data["actions"], trial_starts=[10])
    assert len(bare.axes) == 2
    assert any(line.get_xdata()[0] == 8.5 for line in bare.axes[0].get_lines())
    with pytest.raises(NotImplementedError, match="image-observation tasks"):
        legacy.visualize_run(np.zeros((5, 4, 4, 3)), np.zeros(5))
    with pytest.raises(ValueError, match="not supported"):
        legacy.visualize_run(np.zeros((5, 2, 2)), np.zeros(5))
    with pytest.raises(NotImplementedError):
        legacy.plot_env_3dbox(np.zeros((5, 4, 4, 3)))
    _png(fig, tmp_path / "legacy_visualize.png")


def test_behaviour_files_are_put_together_in_suffix_order_without_pickle(tmp_path):
    for n in (10, 2, 1):
        np.savez(tmp_path / f"run_bhvr_data_{n}.npz", reward=np.full(n, float(n)),
                 trial=np.array([{"x": 1}] * n, dtype=object))  # fmt: skip
    assert legacy.order_by_suffix(["a_10.npz", "a_2.npz", "a_1.npz"]) == [
        "a_1.npz", "a_2.npz", "a_10.npz"]  # fmt: skip
    data = legacy.put_together_files(str(tmp_path))
    assert set(data) == {"reward"}  # the object array (pickle) is skipped
    np.testing.assert_array_equal(data["reward"], [1.0] * 1 + [2.0] * 2 + [10.0] * 10)
    assert (tmp_path / "bhvr_data_all.npz").exists()
    ax = legacy.plot_rew_across_training(str(tmp_path), window=0.5, zline=True)
    np.testing.assert_allclose(
        ax.get_lines()[0].get_ydata(), np.convolve(data["reward"], np.ones(6) / 6, "valid")
    )
    assert (tmp_path / "mean_reward_across_training.png").stat().st_size > 5_000
    assert legacy.plot_rew_across_training(tmp_path / "empty") is None
    with pytest.raises(ValueError, match="no number"):
        legacy.order_by_suffix(["x.npz"])


def test_probit_and_the_fit_recover_known_parameters(tmp_path):
    assert legacy.probit(np.array([0.0]), 1.0, 0.0)[0] == pytest.approx(0.5)
    assert legacy.probit(np.array([1.0]), 2.0, -2.0)[0] == pytest.approx(0.5)
    assert legacy.probit(np.array([1.0]), 1.0, 0.0)[0] == pytest.approx(0.841344746)
    rng = np.random.default_rng(0)
    beta, alpha = 0.08, 0.4
    sig_ev = rng.choice([-51.2, -25.6, -12.8, -6.4, 0.0, 6.4, 12.8, 25.6, 51.2], 20_000)
    ch = (rng.random(sig_ev.size) < legacy.probit(sig_ev, beta, alpha)).astype(int)
    ax = legacy.plot_psychometric(sig_ev, ch, title="synthetic", legend="block 1")
    curve = ax.get_lines()[0]
    x, y = curve.get_xdata(), curve.get_ydata()
    np.testing.assert_allclose(y, legacy.probit(x, beta, alpha), atol=0.02)
    assert ax.get_xlim() == (-52, 52)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["-1", "0", "1"]
    assert ax.get_legend() is not None
    _png(ax.figure, tmp_path / "legacy_psychometric.png")
    # choices coded as the task's actions 1/2 give the same curve
    same = legacy.plot_psychometric(sig_ev, ch + 1).get_lines()[0].get_ydata()
    np.testing.assert_allclose(same, y)


def test_plot_psychometric_draws_what_2_3_1_could_not_fit():
    # 2.3.1's example filtered out trials without a choice; an agent that never chose left
    # nothing, and scipy's curve_fit raised "`ydata` must not be empty"
    empty = legacy.plot_psychometric(np.array([]), np.array([]), legend="Block 1")
    assert empty.get_title() == "no fit: no trials"
    one_choice = legacy.plot_psychometric(np.array([-10.0, 10.0, 20.0]), np.ones(3))
    assert one_choice.get_title().startswith("no fit: only one choice")
    assert len(one_choice.get_lines()) >= 2  # the data are drawn
    fig = Figure()
    given = fig.subplots()
    separated = legacy.plot_psychometric([-20, -10, 10, 20] * 5, [0, 0, 1, 1] * 5, given)
    assert separated is given
    assert separated.get_title() == ""
    assert np.all(np.diff(separated.get_lines()[0].get_ydata()) >= 0)  # a finite, steep curve
    with pytest.raises(ValueError, match="one value per trial"):
        legacy.plot_psychometric([1, 2], [1])


def test_training_history_from_a_monitor_save_dir(tmp_path):
    env = neurogym.make(PDM)
    monitor = Monitor(env, interval=20, save_dir=tmp_path, verbose=False)
    monitor.reset(seed=0)
    while monitor.num_tr < 60:
        monitor.step(int(env.unwrapped.gt_now) if monitor.num_tr % 2 else 0)
    files = sorted(p.name for p in tmp_path.glob("trial_*.npz"))
    assert files == ["trial_20.npz", "trial_40.npz", "trial_60.npz"]
    fig = legacy.plot_training_history(tmp_path, name="PerceptualDecisionMaking")
    assert (tmp_path / "training_history.png").stat().st_size > 10_000
    reward, cum, perf = (
        fig.axes[0].get_lines()[0],
        fig.axes[0].get_lines()[1],
        fig.axes[1].get_lines()[0],
    )
    np.testing.assert_array_equal(reward.get_xdata(), [20, 40, 60])
    expected = []
    for name in ("trial_20.npz", "trial_40.npz", "trial_60.npz"):
        with np.load(tmp_path / name, allow_pickle=False) as file:
            expected.append(file["reward"].mean())
    np.testing.assert_allclose(reward.get_ydata(), expected)
    np.testing.assert_allclose(cum.get_ydata(), expected)  # no shaping: summed == final reward
    assert 0.3 < np.mean(perf.get_ydata()) < 0.7  # every other trial answered correctly
    assert "3 data files, 60 total trials" in fig.get_suptitle()
    one_panel = legacy.plot_training_history(tmp_path, (6, 4), False, False)
    assert len(one_panel.axes) == 1
    empty = legacy.plot_training_history(tmp_path / "none", save_fig=True)
    assert "no trial_<n>.npz" in empty.get_suptitle()
    assert not (tmp_path / "none").exists()
