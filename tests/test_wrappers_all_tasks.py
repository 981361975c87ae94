"""Every core wrapper over every task of every installed plugin passes check_task.

A combination that is not meaningful (a ground-truth wrapper on a task without ``choices``,
ReactionTime on a task without stimulus and decision periods, an observation-extending wrapper
on a non-vector observation) is skipped with the reason.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import neurogym
from neurogym import wrappers as ngw
from neurogym.testing import check_task

TASK_IDS = [spec.id for spec in neurogym.tasks()]


def _task(env: gym.Env[Any, Any]) -> Any:
    return env.unwrapped


def _choices(env: gym.Env[Any, Any]) -> Any:
    """The task's choices; for an env switcher, the choices all its envs share (else None)."""
    envs = getattr(env, "envs", None)
    if envs is None:
        return getattr(_task(env), "choices", None)
    each = [_choices(sub) for sub in envs]
    if any(c is None for c in each) or any(not np.array_equal(c, each[0]) for c in each):
        return None
    return each[0]


def _needs_choices(env: gym.Env[Any, Any]) -> str | None:
    if _choices(env) is None:
        return (
            "the task has no 'choices' (or its tasks do not share them): no ground truth to bias"
        )
    return None


def _needs_vector_obs(env: gym.Env[Any, Any]) -> str | None:
    space = env.observation_space
    if not isinstance(space, gym.spaces.Box) or len(space.shape) != 1:
        return f"the observation space {space} is not a 1-D Box"
    return None


def _needs_rt_periods(env: gym.Env[Any, Any]) -> str | None:
    if getattr(type(env), "switches_envs", False):
        return "an env switcher: ReactionTime goes on each of its envs (TypeError around it)"
    task = _task(env)
    task.reset(seed=0)
    missing = {"stimulus", "decision"} - set(task.start_t)
    if missing or not task._has_gt:
        return f"trials lack {sorted(missing) or 'a ground truth'} (ReactionTime needs both)"
    return None


def _side_bias(env: gym.Env[Any, Any]) -> gym.Env[Any, Any]:
    n = len(_choices(env))
    first = [0.8] + [0.2 / (n - 1)] * (n - 1)
    return ngw.SideBias(env, probs=[first, first[::-1]], block_dur=3)


def _schedule_attr(env: gym.Env[Any, Any]) -> gym.Env[Any, Any]:
    choices = list(_choices(env))
    attrs = [{"ground_truth": choices[0]}, {"ground_truth": choices[-1]}]
    return ngw.ScheduleAttr(env, ngw.RandomBlockSchedule(2, [2, 3]), attrs)


def _two(make: Callable[..., gym.Env[Any, Any]], task_id: str) -> list[gym.Env[Any, Any]]:
    return [make(task_id), make(task_id)]


Factory = Callable[[gym.Env[Any, Any], str], gym.Env[Any, Any]]
Guard = Callable[[gym.Env[Any, Any]], str | None]

WRAPPERS: dict[str, tuple[Factory, tuple[Guard, ...]]] = {
    "PassAction": (lambda env, _: ngw.PassAction(env), (_needs_vector_obs,)),
    "PassReward": (lambda env, _: ngw.PassReward(env), (_needs_vector_obs,)),
    "Noise": (lambda env, _: ngw.Noise(env, std_noise=0.1), ()),
    "Noise-adaptive": (
        lambda env, _: ngw.Noise(env, std_noise=0.1, perf_th=0.5, w=3, step_noise=0.05),
        (),
    ),
    "ReactionTime": (lambda env, _: ngw.ReactionTime(env, urgency=-0.01), (_needs_rt_periods,)),
    "Monitor": (lambda env, _: ngw.Monitor(env, verbose=False), ()),
    "SideBias": (lambda env, _: _side_bias(env), (_needs_choices,)),
    "RandomGroundTruth": (lambda env, _: ngw.RandomGroundTruth(env), (_needs_choices,)),
    "TrialHistoryV2": (lambda env, _: ngw.TrialHistoryV2(env), (_needs_choices,)),
    "ScheduleAttr": (lambda env, _: _schedule_attr(env), (_needs_choices,)),
    "ScheduleEnvs": (
        lambda env, task_id: ngw.ScheduleEnvs(
            [env, neurogym.make(task_id)], ngw.RandomSchedule(2), env_input=True
        ),
        (_needs_vector_obs,),
    ),
    "MultiEnvs": (lambda env, task_id: ngw.MultiEnvs([env, neurogym.make(task_id)]), ()),
}


def _meaningful(task_id: str, wrapper: str) -> Factory:
    """The wrapper's factory; skips the test when the combination is not meaningful."""
    factory, guards = WRAPPERS[wrapper]
    for guard in guards:
        reason = guard(neurogym.make(task_id))
        if reason is not None:
            pytest.skip(f"{wrapper} on {task_id}: {reason}")
    return factory


@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
@pytest.mark.parametrize("task_id", TASK_IDS)
def test_wrapper_over_task_passes_check_task(task_id, wrapper):
    factory = _meaningful(task_id, wrapper)
    env = factory(neurogym.make(task_id), task_id)
    check_task(env, steps=300)


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_stacked_wrappers_keep_shapes_and_determinism(task_id):
    if _needs_vector_obs(neurogym.make(task_id)) is not None:
        pytest.skip(f"{task_id}: observation is not a 1-D Box")

    def build() -> gym.Env[Any, Any]:
        envs = _two(neurogym.make, task_id)
        inner = ngw.ScheduleEnvs(envs, ngw.RandomSchedule(2), env_input=True)
        return ngw.Monitor(ngw.PassReward(ngw.PassAction(ngw.Noise(inner, 0.05))), verbose=False)

    runs = []
    for _ in range(2):
        env = build()
        obs = [env.reset(seed=11)[0]]
        space = copy.deepcopy(env.action_space)
        space.seed(0)
        obs += [env.step(space.sample())[0] for _ in range(400)]
        assert {ob.shape for ob in obs} == {env.observation_space.shape}
        runs.append(np.stack(obs))
    np.testing.assert_array_equal(runs[0], runs[1])


def test_every_core_wrapper_is_registered_by_name():
    names = {spec.name for spec in neurogym.wrapper_specs()}
    expected = {name.split("-")[0] for name in WRAPPERS}
    assert expected <= names


# every wrapper that takes part in trials (trial wrappers, env switchers, ReactionTime)
STEP_ONLY = {"Monitor", "Noise", "Noise-adaptive", "PassAction", "PassReward"}
TRIAL_WRAPPERS = sorted(set(WRAPPERS) - STEP_ONLY)


def _run(env: gym.Env[Any, Any], steps: int, seed: int) -> list[tuple[Any, ...]]:
    """Observations, rewards and trial boundaries of ``steps`` seeded random actions."""
    space = copy.deepcopy(env.action_space)
    space.seed(seed)
    ob, _ = env.reset(seed=seed)
    out: list[tuple[Any, ...]] = [(np.asarray(ob).tolist(),)]
    for _ in range(steps):
        ob, reward, terminated, truncated, info = env.step(space.sample())
        out.append((np.asarray(ob).tolist(), float(reward), bool(info.get("new_trial"))))
        if terminated or truncated:
            ob, _ = env.reset()
    return out


@pytest.mark.parametrize("wrapper", TRIAL_WRAPPERS)
@pytest.mark.parametrize("task_id", TASK_IDS)
def test_dropping_a_trial_wrapper_leaves_the_env_as_it_was(task_id, wrapper):
    # a wrapper never changes what it wraps: make, wrap, use, drop the wrapper, and the env
    # behaves exactly as one that was never wrapped, across trial boundaries
    factory = _meaningful(task_id, wrapper)
    inner = neurogym.make(task_id)
    wrapped = factory(inner, task_id)
    _run(wrapped, 60, seed=3)
    assert _run(inner, 150, seed=0) == _run(neurogym.make(task_id), 150, seed=0)
