"""neurogym_apps.plot, checked by content: panels, labels from dim names, data, fits, errors."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

import neurogym
from neurogym.wrappers import Monitor
from neurogym_apps import plot

PDM = "neurogym/PerceptualDecisionMaking-v0"


def test_import_neurogym_imports_no_matplotlib():
    code = "import sys, neurogym; print('matplotlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_plot_env_panels_and_labels_come_from_the_named_dims():
    fig = plot.plot_env(PDM, num_trials=2, seed=3)
    obs_ax, act_ax, reward_ax, perf_ax = fig.axes
    assert [t.get_text() for t in obs_ax.get_legend().get_texts()] == [
        "fixation",
        "stimulus 1",
        "stimulus 2",
    ]
    assert [t.get_text() for t in act_ax.get_yticklabels()] == ["fixation", "choice 1", "choice 2"]
    assert [t.get_text() for t in act_ax.get_legend().get_texts()] == ["action", "ground truth"]
    assert perf_ax.get_xlabel() == "step (dt = 100 ms)"
    assert fig.get_suptitle() == PDM
    assert reward_ax.get_ylabel() == "reward"


@pytest.mark.parametrize(
    "task", [PDM, "neurogym/yang19.all-v0", "neurogym/perceptualdecisionmaking.ibl20-v0"]
)
def test_the_default_policy_plays_the_current_trials_ground_truth(task):
    # yang19.all is a task set: env.unwrapped is its first task, whose gt_now stayed 0 (the
    # figure showed an agent that never answered, mean performance 0)
    run = plot.run_env(task, num_trials=6, seed=0)
    assert run.policy == "ground truth"
    np.testing.assert_array_equal(run.performance, np.ones(6))


def test_plot_env_draws_the_env_own_arrays():
    run = plot.run_env(PDM, num_trials=2, seed=3)
    fig = plot.plot_env(PDM, num_trials=2, seed=3)
    obs_ax, act_ax = fig.axes[:2]
    for i, line in enumerate(obs_ax.get_lines()[:3]):
        np.testing.assert_array_equal(line.get_ydata(), run.obs[:, i])
    env = neurogym.make(PDM)
    env.reset(seed=3)
    first_trial = env.unwrapped.ob
    np.testing.assert_array_equal(run.obs[: len(first_trial)], first_trial)
    assert len(run.trials) == 2
    assert run.trial_ends[-1] == len(run.rewards) - 1
    np.testing.assert_array_equal(run.actions, run.gt)  # the default policy is the ground truth
    assert list(run.performance) == [1.0, 1.0]
    boundaries = [
        line.get_xdata()[0] for line in act_ax.get_lines() if line.get_linestyle() == ":"
    ]
    assert boundaries == [run.trial_ends[0] + 0.5]


def test_plot_env_heatmap_box_actions_and_tasks_without_ground_truth():
    fig = plot.plot_env("neurogym/AntiReach-v0", num_trials=1)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["fixation", "stimulus"]
    assert [t.get_text() for t in fig.axes[1].get_yticklabels()] == [
        "fixation",
        *(f"choice {k}" for k in range(4, 33, 4)),
    ]
    fig = plot.plot_env("neurogym/SpatialSuppressMotion-v0", num_trials=1)
    assert "ground truth: left" in [t.get_text() for t in fig.axes[1].get_legend().get_texts()]
    fig = plot.plot_env("neurogym/Null-v0", num_steps=30)
    assert [t.get_text() for t in fig.axes[1].get_legend().get_texts()] == ["action"]


def test_many_choices_get_readable_ticks_one_per_action():
    # yang19's 16 choices were one tick, "choice (1-16)": no choice could be read off the axis
    fig = plot.plot_env("neurogym/yang19.dm1-v0", num_trials=2)
    act_ax = fig.axes[1]
    labels = {tick: label.get_text() for tick, label in
              zip(act_ax.get_yticks(), act_ax.get_yticklabels(), strict=True)}  # fmt: skip
    assert labels == {0: "fixation"} | {k: f"choice {k}" for k in range(2, 17, 2)}
    # the others get an unlabelled (minor) tick each, which the grid draws a line from
    ticks = np.concatenate([act_ax.get_yticks(), act_ax.get_yticks(minor=True)])
    np.testing.assert_array_equal(np.sort(ticks), np.arange(17))
    assert act_ax.get_ylim() == (-0.5, 16.5)
    # a space naming only some of its 11 actions: the numbers stand for the others
    act_ax = plot.plot_env("neurogym/CVLearning-v0", num_trials=1).axes[1]
    assert [t.get_text() for t in act_ax.get_yticklabels()] == [
        "fixation", "choice 2", "4", "6", "8", "10"
    ]  # fmt: skip


@pytest.mark.parametrize("kind", ["logistic", "probit"])
def test_the_fit_recovers_known_parameters(kind):
    rng = np.random.default_rng(0)
    x = rng.choice(np.linspace(-40, 40, 11), 40_000)
    truth = plot.PsychometricFit(kind, bias=5.0, scale=8.0, n=0)
    choices = rng.random(x.size) < truth.predict(x)
    fit = plot.fit_psychometric(x, choices, kind)
    assert fit.bias == pytest.approx(5.0, abs=0.4)
    assert fit.scale == pytest.approx(8.0, rel=0.05)
    fig, again = plot.plot_psychometric(x, choices, kind=kind)
    assert again == fit
    ax = fig.axes[0]
    low, high = ax.get_xlim()  # the x-axis comes from the data
    assert low <= -40
    assert high >= 40


def test_collect_choices_signs_strength_by_the_correct_side():
    env = neurogym.make(PDM)
    x, choices = plot.collect_choices(env, _ground_truth(env), num_trials=200)
    assert x.size == choices.size == 200
    assert np.all(choices[x > 0] == 1)
    assert np.all(choices[x < 0] == 0)


def _ground_truth(env):
    task = env.unwrapped
    return lambda ob: int(task.gt_now)


def test_bad_arguments_get_precise_errors():
    with pytest.raises(ValueError, match=r"^num_trials must be an int >= 1, got 0$"):
        plot.run_env(PDM, num_trials=0)
    with pytest.raises(ValueError, match=r"^give num_trials or num_steps, not both$"):
        plot.run_env(PDM, num_trials=1, num_steps=10)
    with pytest.raises(TypeError, match=r"^policy must be callable, got int: 3$"):
        plot.run_env(PDM, policy=3)
    with pytest.raises(ValueError, match=r"needs a two-choice task"):
        plot.collect_choices("neurogym/AntiReach-v0", policy=lambda ob: 0, num_trials=5)
    env = neurogym.make(PDM)
    with pytest.raises(ValueError, match=r"the trial has no 'cohh'"):
        plot.collect_choices(env, _ground_truth(env), 5, strength="cohh")
    with pytest.raises(ValueError, match=r"at least 2 distinct strengths"):
        plot.fit_psychometric([1, 1, 1], [0, 1, 1])
    with pytest.raises(ValueError, match=re.escape("kind must be one of 'logistic', 'probit'")):
        plot.fit_psychometric([1, 2], [0, 1], kind="cubic")
    with pytest.raises(ValueError, match=r"probit slope is infinite; kind='logistic'"):
        plot.fit_psychometric([-1, -1, 1, 1], [0, 0, 1, 1], kind="probit")
    with pytest.raises(ValueError, match=r"only one choice occurs"):
        plot.fit_psychometric([-1, -1, 1, 1], [1, 1, 1, 1])
    with pytest.raises(ValueError, match=r"the log has no trials yet"):
        plot.plot_training(Monitor(neurogym.make(PDM)))


def test_perfectly_separated_choices_get_a_finite_bias_reduced_fit_and_a_figure(tmp_path):
    # a network that never errs: the ML slope is infinite, Firth's estimate is finite, steep
    # and centred; the figure says which fit it shows
    x = np.repeat([-51.2, -25.6, -12.8, -6.4, 6.4, 12.8, 25.6, 51.2], 40)
    choices = (x > 0).astype(int)
    fit = plot.fit_psychometric(x, choices)
    assert fit.method == "firth"
    assert abs(fit.bias) < 1e-6
    assert 0 < fit.scale < 6.4 / 2  # steeper than the closest strengths
    assert fit.predict([-6.4])[0] < 0.1 < 0.9 < fit.predict([6.4])[0]
    fig, drawn = plot.plot_psychometric(x, choices)
    assert drawn == fit
    labels = [text.get_text() for text in fig.legends[0].get_texts()]
    assert "logistic fit (bias-reduced: perfect separation)" in labels
    fig.savefig(tmp_path / "separated.png")
    noisy = plot.fit_psychometric([-1, -1, 1, 1, -1, 1], [0, 1, 1, 1, 0, 0])
    assert noisy.method == "ml"


def test_a_network_that_never_errs_but_guesses_at_coherence_0_gets_the_firth_fit():
    # quasi-complete separation: the choices mix only at 0, so the ML slope is still
    # infinite (the ML iterations used to stop after 200 steps at an arbitrary slope)
    env = neurogym.make(PDM)
    perfect = lambda ob: int(env.unwrapped.gt_now)  # noqa: E731
    strengths, choices = plot.collect_choices(env, perfect, 300, seed=0)
    at_zero = choices[strengths == 0]
    assert 0 < at_zero.mean() < 1  # both choices at coherence 0
    fig, fit = plot.plot_psychometric(strengths, choices)
    assert fit.method == "firth"
    assert "logistic fit (bias-reduced: perfect separation)" in [
        text.get_text() for text in fig.legends[0].get_texts()
    ]
    assert abs(fit.bias) < 1
    assert fit.predict([-6.4])[0] < 0.05 < 0.95 < fit.predict([6.4])[0]
    with pytest.raises(ValueError, match="probit slope is infinite"):
        plot.fit_psychometric(strengths, choices, kind="probit")


def test_plot_training_shows_reward_and_performance_per_trial():
    monitor = Monitor(neurogym.make(PDM), verbose=False)
    monitor.reset(seed=0)
    policy = _ground_truth_of(monitor)
    while monitor.num_tr < 30:
        monitor.step(policy())
    fig = plot.plot_training(monitor, window=10)
    reward_ax, perf_ax = fig.axes
    per_trial, average = reward_ax.get_lines()
    np.testing.assert_array_equal(per_trial.get_ydata(), monitor.data["reward"])
    np.testing.assert_allclose(
        average.get_ydata(), plot.moving_average(monitor.data["reward"], 10)
    )
    assert perf_ax.get_xlabel() == "trial"
    np.testing.assert_allclose(plot.moving_average([1, 2, 3, 4], 2), [1, 1.5, 2.5, 3.5])


def _ground_truth_of(env):
    task = env.unwrapped
    return lambda: int(task.gt_now)


def test_cli_plot_writes_the_figure(tmp_path):
    out = tmp_path / "pdm.png"
    done = subprocess.run(
        [sys.executable, "-m", "neurogym", "plot", "PerceptualDecisionMaking", "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert done.stdout == f"wrote {out}: 2 trial(s) of {PDM} with the ground-truth policy\n"


def _integers(ticks) -> bool:
    return len(ticks) > 0 and all(float(tick).is_integer() for tick in ticks)


def test_plot_env_says_which_policy_acted_and_puts_integer_ticks_on_integer_axes():
    fig = plot.plot_env(PDM, num_trials=1)
    assert fig.axes[1].get_legend().get_title().get_text() == "ground-truth policy"
    assert _integers(fig.axes[-1].get_xticks())  # steps
    assert not _integers(fig.axes[0].get_yticks())  # noisy stimuli: fractional ticks stay
    # Bandit: no ground truth (random arms), one step per trial, observation 0, reward 0 or 1
    run = plot.run_env("neurogym/Bandit-v0", num_trials=3)
    assert run.policy == "random"
    assert run.gt is None
    fig = plot.plot_env("neurogym/Bandit-v0", num_trials=3)
    obs_ax, act_ax, reward_ax, perf_ax = fig.axes
    assert act_ax.get_legend().get_title().get_text() == "random actions\n(no ground truth)"
    assert [t.get_text() for t in act_ax.get_legend().get_texts()] == ["action"]
    for ticks in (perf_ax.get_xticks(), obs_ax.get_yticks(), reward_ax.get_yticks()):
        assert _integers(ticks), ticks  # was 0.25, 0.5, ... on the step axis
    steps = perf_ax.get_xticks()
    assert list(steps[(steps >= 0) & (steps <= 2)]) == [0, 1, 2]
    given = plot.plot_env("neurogym/Bandit-v0", num_trials=1, policy=lambda ob: 0)
    assert given.axes[1].get_legend().get_title().get_text() == ""
    assert plot.run_env("neurogym/Bandit-v0", num_trials=1, policy=lambda ob: 0).policy == "given"


def test_cli_plot_names_the_policy_it_used(tmp_path, capsys):
    from neurogym.cli import main

    out = tmp_path / "bandit.png"
    assert main(["plot", "Bandit", "--trials", "3", "-o", str(out)]) == 0
    assert capsys.readouterr().out == (
        f"wrote {out}: 3 trial(s) of neurogym/Bandit-v0 with random actions "
        "(Bandit has no ground truth)\n"
    )
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


class _Model:
    """A stable-baselines3 style model answering the ground truth, counting episode starts."""

    def __init__(self, env):
        self.task = env.unwrapped
        self.starts = 0

    def predict(self, ob, state=None, episode_start=None, deterministic=False):
        assert deterministic
        self.starts += int(episode_start[0])
        return np.array(int(self.task.gt_now)), ("hidden",)


def test_a_stable_baselines3_style_model_is_a_policy_and_traces_can_be_forced():
    env = neurogym.make(PDM)
    model = _Model(env)
    run = plot.run_env(env, num_trials=3, policy=model)
    assert model.starts == 3  # a fresh recurrent state at each trial start
    assert list(run.performance) == [1.0, 1.0, 1.0]
    fig = plot.plot_env("neurogym/AntiReach-v0", num_trials=1, ob_style="traces")
    assert len(fig.axes[0].get_lines()) >= 33
    assert fig.axes[3].get_title() == "mean performance 1.00"
    with pytest.raises(ValueError, match=r"^ob_style must be one of 'auto', 'traces', 'heatmap'"):
        plot.plot_env(PDM, ob_style="image")


def test_plot_training_reads_a_monitor_save_dir(tmp_path):
    monitor = Monitor(neurogym.make(PDM), interval=10, save_dir=tmp_path, verbose=False)
    monitor.reset(seed=0)
    policy = _ground_truth_of(monitor)
    rewards = []
    while monitor.num_tr < 30:
        _, reward, _, _, info = monitor.step(policy())
        if info["new_trial"]:
            rewards.append(reward)
    fig = plot.plot_training(tmp_path, window=5)
    np.testing.assert_array_equal(fig.axes[0].get_lines()[0].get_ydata(), rewards)
    with pytest.raises(ValueError, match=r"no Monitor logs"):
        plot.plot_training(tmp_path / "empty")
