"""neurogym_apps.rl: the stable-baselines3 VecEnv adapter, against DummyVecEnv of single envs."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("stable_baselines3", reason="neurogym_apps.rl needs the rl extra")

from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

import neurogym
from neurogym_apps.rl import TrialSB3VecEnv, as_sb3_vec_env
from neurogym_apps.rl._vecenv import NO_INFO, NeurogymDummyVecEnv

PDM = "neurogym/PerceptualDecisionMaking-v0"
ROITMAN = "neurogym/perceptualdecisionmaking.roitman02-v0"


def dummy(task: str, n: int, seed: int, **kwargs) -> DummyVecEnv:
    """What a user would build by hand: DummyVecEnv of n single envs."""
    env = DummyVecEnv([lambda: neurogym.make(task, **kwargs) for _ in range(n)])
    env.seed(seed)
    return env


def assert_same_info(ours: dict, theirs: dict) -> None:
    assert set(ours) == set(theirs)
    for key, value in theirs.items():
        if key == "trial":
            assert set(ours[key]) == set(value)
            for name, v in value.items():
                np.testing.assert_array_equal(ours[key][name], v, err_msg=name)
        else:
            np.testing.assert_array_equal(ours[key], value, err_msg=key)


def run_both(ours, theirs, n: int, steps: int, n_actions: int, seed: int = 0) -> dict:
    """Steps both with the same random actions; asserts equal results; counts events."""
    np.testing.assert_array_equal(ours.reset(), theirs.reset())
    rng = np.random.default_rng(seed)
    counts = {"trial ends": 0, "terminated": 0, "truncated": 0}
    for _ in range(steps):
        actions = rng.integers(0, n_actions, n)
        obs, rew, done, infos = ours.step(actions)
        obs2, rew2, done2, infos2 = theirs.step(actions)
        np.testing.assert_array_equal(obs, obs2)
        np.testing.assert_array_equal(rew, rew2)
        assert rew.dtype == rew2.dtype == np.float32
        np.testing.assert_array_equal(done, done2)
        for ours_info, their_info in zip(infos, infos2, strict=True):
            assert_same_info(ours_info, their_info)
            counts["trial ends"] += bool(their_info.get("new_trial"))
            if "terminal_observation" in their_info:
                counts["truncated" if their_info["TimeLimit.truncated"] else "terminated"] += 1
    return counts


def test_import_neurogym_imports_no_rl_library():
    code = (
        "import sys, neurogym, neurogym.vector; "
        "print([m for m in ('stable_baselines3', 'sb3_contrib', 'torch') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("task", "kwargs"),
    [
        (PDM, {}),
        (PDM, {"max_episode_steps": 23}),  # truncations, mid-trial
        (PDM, {"trials_per_episode": 2}),  # terminations at trial ends
        ("neurogym/DelayMatchSample-v0", {"max_episode_steps": 25, "trials_per_episode": 1}),
    ],
)
def test_native_adapter_equals_dummy_vec_env_of_single_envs(task, kwargs):
    n = 5
    ours = as_sb3_vec_env(task, n, seed=7, full_info=True, **kwargs)
    assert isinstance(ours, TrialSB3VecEnv)
    n_actions = int(ours.action_space.n)
    counts = run_both(ours, dummy(task, n, 7, **kwargs), n, 300, n_actions)
    assert counts["trial ends"] > 20
    assert (counts["truncated"] > 0) == ("max_episode_steps" in kwargs)
    assert (counts["terminated"] > 0) == ("trials_per_episode" in kwargs)


def test_lean_infos_are_the_full_ones_without_per_step_keys():
    kwargs = {"max_episode_steps": 17}
    lean = as_sb3_vec_env(PDM, 4, seed=3, **kwargs)
    full = as_sb3_vec_env(PDM, 4, seed=3, full_info=True, **kwargs)
    lean.reset()
    full.reset()
    rng = np.random.default_rng(1)
    for _ in range(100):
        actions = rng.integers(0, 3, 4)
        _, _, _, infos = lean.step(actions)
        _, _, _, full_infos = full.step(actions)
        for info, whole in zip(infos, full_infos, strict=True):
            if not whole["new_trial"]:
                whole = {k: v for k, v in whole.items() if k not in ("new_trial", "gt")}
            if "terminal_observation" not in whole:
                del whole["TimeLimit.truncated"]
            else:
                assert "terminal_observation" in info
            assert_same_info(info, {k: v for k, v in whole.items() if k != "gt"})


def test_the_shared_empty_info_is_read_only():
    env = as_sb3_vec_env(PDM, 2, seed=0)
    env.reset()
    _, _, _, infos = env.step(np.zeros(2, dtype=np.int64))
    assert infos[0] is NO_INFO
    with pytest.raises(TypeError, match=re.escape("copy it (dict(info)) first")):
        infos[0]["x"] = 1
    assert dict(infos[0]) == {}


def test_seed_applies_to_the_next_reset_only():
    env = as_sb3_vec_env(PDM, 3)
    assert env.seed(11) == [11, 12, 13]
    fixate = np.zeros(3, dtype=np.int64)
    first = [env.reset(), *(env.step(fixate)[0] for _ in range(30))]
    again = [env.reset(), *(env.step(fixate)[0] for _ in range(30))]  # generators continue
    assert not np.array_equal(again, first)
    env.seed(11)
    np.testing.assert_array_equal([env.reset(), *(env.step(fixate)[0] for _ in range(30))], first)


def test_a_wrapped_task_is_served_by_dummy_vec_env_over_the_same_single_envs():
    ours = as_sb3_vec_env(ROITMAN, 3, seed=2, max_episode_steps=30)
    assert isinstance(ours, NeurogymDummyVecEnv)
    assert ours.neurogym_task == ROITMAN
    counts = run_both(ours, dummy(ROITMAN, 3, 2, max_episode_steps=30), 3, 120, 3)
    assert counts["trial ends"] > 5
    assert counts["truncated"] > 5


def test_wrappers_by_name_and_a_given_vector_env():
    import gymnasium

    env = as_sb3_vec_env(PDM, 2, wrappers=["PassReward", "PassAction"])
    assert isinstance(env, NeurogymDummyVecEnv)
    assert env.observation_space.shape == (3 + 1 + 1,)  # obs, last reward, last action
    native = gymnasium.make_vec(PDM, num_envs=4)
    adapter = as_sb3_vec_env(native, seed=0)
    assert isinstance(adapter, TrialSB3VecEnv)
    assert adapter.num_envs == 4
    assert adapter.neurogym_task is None


def test_attributes():
    env = as_sb3_vec_env(PDM, 3, seed=0)
    env.reset()
    assert env.get_attr("dt") == [100, 100, 100]
    assert env.get_attr("dt", indices=[0]) == [100]
    assert env.env_is_wrapped(VecMonitor) == [False, False, False]
    env.set_attr("abort", True)
    assert env.get_attr("abort") == [True] * 3
    with pytest.raises(ValueError, match=r"set_attr\('abort'\) on sub-envs \[1\].*'loop'"):
        env.set_attr("abort", False, indices=[1])
    with pytest.raises(NotImplementedError, match=r"env_method\('render'\).*'loop'"):
        env.env_method("render")


@pytest.mark.parametrize("wrappers", [[], ["PassReward", "PassAction"]])  # native, loop
def test_hold_fixation_reaches_every_task_and_a_break_during_the_stimulus_aborts(wrappers):
    """PerceptualDecisionMaking checks fixation only in its 100 ms fixation period (upstream):
    a response during the stimulus goes on by default and ends the trial when held."""
    for held in (False, True):
        env = as_sb3_vec_env(PDM, 2, seed=0, hold_fixation=held, wrappers=wrappers)
        assert isinstance(env, TrialSB3VecEnv) is not wrappers
        assert env.get_attr("hold_fixation") == [held, held]
        env.reset()
        env.step(np.zeros(2, dtype=int))  # the fixation period: held
        _, rewards, _, infos = env.step(np.ones(2, dtype=int))  # the first stimulus step
        assert [bool(info.get("new_trial")) for info in infos] == [held, held]
        np.testing.assert_allclose(rewards, [-0.1, -0.1] if held else [0.0, 0.0])
        if held:
            assert [info["performance"] for info in infos] == [0, 0]
    assert neurogym.make(PDM).unwrapped.hold_fixation is False  # upstream's rule by default
    with pytest.raises(TypeError, match=r"Reaching1D steps with its own _step\(\)"):
        as_sb3_vec_env("Reaching1D", 2, hold_fixation=True)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "message"),
    [
        ((PDM,), {}, ValueError, "num_envs is required with a task id"),
        ((PDM, 0), {}, ValueError, "num_envs"),
        ((3, 2), {}, TypeError, "got int: 3"),
        (("PerceptualDecisionMakin", 2), {}, Exception, "PerceptualDecisionMaking"),
        ((PDM, 2), {"vectorization": "fast"}, ValueError, "vectorization must be"),
    ],
)
def test_bad_arguments(args, kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        as_sb3_vec_env(*args, **kwargs)


def test_bad_arguments_with_a_vector_env():
    import gymnasium

    native = gymnasium.make_vec(PDM, num_envs=2)
    with pytest.raises(ValueError, match=re.escape("num_envs=3 but the vector env has 2")):
        as_sb3_vec_env(native, 3)
    with pytest.raises(TypeError, match=re.escape("['dt'] apply to a task id only")):
        as_sb3_vec_env(native, dt=20)
    with pytest.raises(TypeError, match=re.escape("['hold_fixation'] apply to a task id only")):
        as_sb3_vec_env(native, hold_fixation=True)


def test_ppo_rollouts_equal_with_the_adapter_and_with_dummy_vec_env():
    """PPO seeded the same collects the same rollout on either env (same seeds, same draws)."""
    buffers = []
    for env in (as_sb3_vec_env(PDM, 4), dummy(PDM, 4, 0)):
        model = PPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=5, device="cpu")
        model.learn(32 * 4)
        buffers.append(model.rollout_buffer)
    ours, theirs = buffers
    np.testing.assert_array_equal(ours.observations, theirs.observations)
    np.testing.assert_array_equal(ours.actions, theirs.actions)
    np.testing.assert_array_equal(ours.rewards, theirs.rewards)
    np.testing.assert_array_equal(ours.episode_starts, theirs.episode_starts)


class RecordingModel:
    """A stable-baselines3 style recurrent model that always fixates and records its calls."""

    def __init__(self):
        self.starts = []

    def predict(self, obs, state=None, episode_start=None, deterministic=False):
        assert deterministic
        self.starts.append(np.array(episode_start))
        return np.zeros(len(obs), dtype=np.int64), ("lstm state",)

    def get_env(self):
        return None


@pytest.mark.parametrize("carry_state", [False, True])
def test_evaluate_restarts_a_recurrent_state_per_trial_unless_carried(carry_state):
    from neurogym_apps.train import evaluate

    model = RecordingModel()
    result = evaluate(model, 128, task=PDM, chance=False, carry_state=carry_state)
    assert result.trials == 128
    assert result.performance == 0.0  # fixating through a trial is never correct
    length = 22  # fixation 100 + stimulus 2000 + decision 100 ms at dt = 100: every trial
    starts = np.array(model.starts)
    assert starts.shape == (2 * length, 64)  # 64 envs, two trials each
    assert starts[0].all()
    restarted = starts[1:].any(axis=1)
    if carry_state:
        assert not restarted.any()
    else:  # the call after each trial end restarts every row (all trials have one length)
        np.testing.assert_array_equal(np.flatnonzero(restarted) + 1, [length])
        assert starts[length].all()


def test_evaluate_finds_the_task_of_a_model_trained_on_the_adapter():
    from sb3_contrib import RecurrentPPO

    from neurogym_apps.train import evaluate

    env = as_sb3_vec_env(PDM, 2, seed=0, wrappers=["PassReward", "PassAction"])
    model = RecurrentPPO("MlpLstmPolicy", env, n_steps=8, batch_size=16, seed=0, device="cpu")
    model.learn(16)
    result = evaluate(model, 10, seed=3)  # task and wrappers come from the model's env
    assert result.trials == 10
    assert set(result.chance) == {"random", "fixation", "guess"}  # the baselines of PDM
    again = evaluate(model, 10, seed=3)
    np.testing.assert_array_equal(result.per_trial, again.per_trial)
    with pytest.raises(ValueError, match=re.escape("pass task='...'")):
        evaluate(RecordingModel(), 10)


def run_rl_page(tmp_path, monkeypatch, lowered: dict[str, str]) -> tuple[dict, list[float]]:
    """Executes docs/rl.md's blocks in order, each budget literal in ``lowered`` replaced;
    returns the namespace and each block's seconds."""
    import time
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "rl.md").read_text(encoding="utf-8")
    for old, new in lowered.items():
        assert old in text, f"docs/rl.md no longer contains {old!r}"
        text = text.replace(old, new)
    fence = r'```python(?: title="continues the block above")?\n(.*?)```'
    blocks = re.findall(fence, text, re.DOTALL)
    assert len(blocks) == 4
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    seconds = []
    for index, block in enumerate(blocks):
        start = time.perf_counter()
        exec(compile(block, f"rl.md, block {index + 1}", "exec"), namespace)
        seconds.append(time.perf_counter() - start)
    return namespace, seconds


def test_the_rl_page_runs(tmp_path, monkeypatch):
    phases = "[(300, 204_800), (1000, 204_800), (2000, 614_400)]"
    lowered = {"ppo.learn(300_000)": "ppo.learn(256)", "trials=1000": "trials=20",
               phases: "[(300, 256), (2000, 256)]"}  # fmt: skip
    namespace, _ = run_rl_page(tmp_path, monkeypatch, lowered)
    assert namespace["ppo_result"].trials == 20
    assert namespace["rppo_result"].trials == 20
    assert (tmp_path / "rppo-pdm.png").is_file()
    assert namespace["env"].envs[0].unwrapped.hold_fixation is True
    assert namespace["env"].envs[0].unwrapped.timing["stimulus"] == 2000  # the last phase


def test_rl_page_full_budget_meets_the_floors(request, tmp_path, monkeypatch, capsys):
    """docs/rl.md as a user runs it (slow): PPO reaches 0.70 on roitman02 and RecurrentPPO,
    trained with held fixation, does PerceptualDecisionMaking: strict accuracy 0.80."""
    if not request.config.getoption("--run-rl"):
        pytest.skip("slow: run with --run-rl (nox -s rl)")
    namespace, seconds = run_rl_page(tmp_path, monkeypatch, {})  # the budgets as written
    ppo, rppo = namespace["ppo_result"], namespace["rppo_result"]
    with capsys.disabled():
        print(f"\nPPO roitman02: strict {ppo.accuracy:.3f}, env performance "
              f"{ppo.performance:.3f} (chance {ppo.chance}) in {seconds[1]:.0f} s")  # fmt: skip
        print(f"per coherence: {ppo.conditions.get('coh')}")
        print(f"RecurrentPPO PDM: strict {rppo.accuracy:.3f}, env performance "
              f"{rppo.performance:.3f}, fixation breaks {rppo.fixation_breaks:.3f} "
              f"(chance {rppo.chance}) in {seconds[2]:.0f} s")  # fmt: skip
        print(f"per coherence: {rppo.conditions.get('coh')}")
    assert ppo.accuracy >= 0.70  # roitman02 is scored by its performance (ReactionTime)
    assert rppo.accuracy >= 0.80  # fixation held to the decision, then the right answer


@pytest.mark.parametrize("task", ["Bandit", "DawTwoStep"])
def test_the_learnability_table_trains_rl_tasks_through_sb3(task, tmp_path, monkeypatch):
    # PPO (Bandit) and RecurrentPPO with PassReward/PassAction (DawTwoStep), tiny budgets
    import dataclasses
    import json

    from neurogym_apps.train import _rl_rows, learnability

    small = {k: dataclasses.replace(v, steps=2048) for k, v in _rl_rows.RL_RECIPES.items()}
    monkeypatch.setattr(_rl_rows, "RL_RECIPES", small)
    monkeypatch.setattr(learnability, "RL_RECIPES", small)
    out = tmp_path / "learn.md"
    args = ["--out", str(out), "--task", task, "--rl", "--eval-trials", "64"]
    assert learnability.main(args) == 0
    (row,) = json.loads(out.with_suffix(".json").read_text())
    assert row["task"] == task
    assert row["oracle"] == row["ceiling"]
    # the scripted agent plays the agent's 64 evaluation trials (paired): DawTwoStep's
    # Bayesian learner scores 0.891 on those, 0.94 on 500
    assert row["oracle"] == _rl_rows.rl_oracle(task, 64)[0]
    assert row["ceiling"] == 1.0 if task == "Bandit" else 0.85 < row["ceiling"] < 0.98
    assert 0 <= row["accuracy"] <= 1
    assert row["chance"] < 1
    assert row["rl"].startswith("PPO" if task == "Bandit" else "RecurrentPPO")
    assert row["status"] in ("learned", "not learned within the budget")
    assert f"| {task}" in out.read_text()
    assert learnability.main([*args[:4], "--eval-trials", "64"]) == 0  # without --rl
    (untrained,) = json.loads(out.with_suffix(".json").read_text())
    assert untrained["status"] == "RL-only (not trained: run with --rl)"


def test_learn_progress_writes_labelled_plain_lines_to_a_log(monkeypatch, capsys):
    from neurogym_apps.rl import LearnProgress
    from neurogym_apps.train import torch_threads

    monkeypatch.setattr("neurogym_apps.train._progress.MIN_SECONDS", 0.0)
    env = as_sb3_vec_env(PDM, 4, seed=0)
    model = PPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    with torch_threads(1):
        model.learn(256, callback=LearnProgress())
    lines = capsys.readouterr().err.splitlines()  # captured: not a terminal
    assert len(lines) >= 3  # lines per tenth, then the last one
    assert lines[-1].startswith("PerceptualDecisionMaking: env step 256/256 (100%)  trial_perf ")
    assert lines[-1].endswith("done")
    for line in lines:
        assert "  trials " in line
        assert "  steps/s " in line


def test_an_rl_recipes_settings_reach_the_algorithm():
    import dataclasses

    from neurogym_apps.train import _rl_rows

    recipe = dataclasses.replace(_rl_rows.RL_RECIPES["Reaching1D"], steps=64)
    assert recipe.settings == {"gamma": 0.9}
    model = _rl_rows._learn("Reaching1D", recipe, progress=False)
    assert model.gamma == 0.9
    assert model.ent_coef == _rl_rows.RL_DEFAULTS["ent_coef"]  # the others stay the defaults
