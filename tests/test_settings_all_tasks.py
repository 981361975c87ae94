"""Every registered task: a setting changed after make is the setting it was made with (#46).

For each task, each documented way to change a setting after ``make`` (assigning a
constructor argument, ``configure``, an edit of ``rewards`` or ``timing``, the native vector
env's ``set_attr``) gives the same trials, steps and batches as making the env with that
setting, from the same seed; and an in-place edit inside a setting raises.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import neurogym
from neurogym import TrialEnv
from neurogym._env.settings import argument_names
from neurogym.vector import TrialVectorEnv, native_obstacle

TASKS = sorted(spec.id for spec in neurogym.tasks())
IMMUTABLE = "read-only|does not support item assignment"  # ours, numpy's, a plain tuple's


def _raw(task_id: str, **kwargs: Any) -> TrialEnv:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = neurogym.make(task_id, **kwargs).unwrapped
    assert isinstance(env, TrialEnv)
    return env


def _argument_change(env: TrialEnv) -> dict[str, Any] | None:
    """A numeric constructor argument and another valid value for it (None if none)."""
    arguments = env.__dict__["_arguments"]
    for name in argument_names(type(env)):
        value = arguments.get(name)
        if name in ("dt", "rewards", "timing") or isinstance(value, bool):
            continue
        if isinstance(value, float) and np.isfinite(value):
            other = value * 0.5 if value else 0.5
            try:
                _raw(env.spec.id, **{name: other})
            except (ValueError, TypeError):
                continue
            return {name: other}
    return None


def _timing_change(env: TrialEnv) -> dict[str, Any] | None:
    for period, spec in env.timing.items():
        if isinstance(spec, (int, float)) and spec > 0:
            return {period: spec + env.dt}
    return None


def _record(env: TrialEnv, trials: int = 4, steps: int = 40) -> list[Any]:
    out: list[Any] = []
    for _ in range(trials):
        trial = env.new_trial()
        ob = env._current.ob
        out.append((repr(sorted(trial.items())), None if ob is None else ob.tobytes(), env.tmax))
    env.reset(seed=11)
    actions = np.random.default_rng(0).integers(0, 2, steps)
    for action in actions:
        if hasattr(env.action_space, "n"):
            ob, reward, *_ = env.step(int(action) % int(env.action_space.n))
        else:
            ob, reward, *_ = env.step(env.action_space.sample() * 0)
        out.append((np.asarray(ob).tobytes(), float(reward)))
    if env.has_groundtruth:
        batch = env.new_trials(3)
        out.append(None if batch.ob is None else batch.ob.tobytes())
    return out


def _compare(task_id: str, change: Any, made: dict[str, Any]) -> None:
    changed = _raw(task_id)
    changed.reset(seed=0)
    changed.new_trial()  # mid-stream (a pooled task holds a part-used block)
    change(changed)
    changed.reset(seed=5)
    fresh = _raw(task_id, **made)
    fresh.reset(seed=5)
    assert _record(changed) == _record(fresh)
    assert changed.config_version != _raw(task_id).config_version or not made


@pytest.mark.parametrize("task_id", TASKS)
def test_assigning_an_argument_is_making_the_env_with_it(task_id):
    change = _argument_change(_raw(task_id))
    if change is None:
        pytest.skip("no numeric constructor argument")
    ((name, value),) = change.items()
    _compare(task_id, lambda env: env.configure(**change), change)
    env = _raw(task_id)
    if name in env._rescaled:  # a number derived from the argument is stored under its name
        with pytest.raises(AttributeError, match=rf"env.configure\({name}=\.\.\.\)"):
            setattr(env, name, value)
    else:
        _compare(task_id, lambda env: setattr(env, name, value), change)


@pytest.mark.parametrize("task_id", TASKS)
def test_editing_rewards_and_timing_is_making_the_env_with_them(task_id):
    env = _raw(task_id)
    key = next(iter(env.rewards), None)
    if key is not None and "rewards" in argument_names(type(env)):
        rewards = {key: env.rewards[key] + 0.5}
        _compare(task_id, lambda e: e.rewards.update(rewards), {"rewards": rewards})
    timing = _timing_change(env)
    if timing is not None and "timing" in argument_names(type(env)):
        ((period, spec),) = timing.items()
        _compare(task_id, lambda e: e.timing.__setitem__(period, spec), {"timing": timing})


@pytest.mark.parametrize("task_id", TASKS)
def test_an_in_place_edit_inside_a_setting_raises(task_id):
    env = _raw(task_id)
    version = env.config_version
    edited = 0
    for name in (*argument_names(type(env)), *getattr(type(env), "_derived_settings", ())):
        value = env.__dict__.get(name)
        if isinstance(value, (tuple, np.ndarray)) and np.size(value) and np.ndim(value) >= 1:
            with pytest.raises((TypeError, ValueError), match=IMMUTABLE):
                value[0] = value[0]
            edited += 1
    for spec in env.timing.values():
        if isinstance(spec, tuple):
            with pytest.raises(TypeError, match=IMMUTABLE):
                spec[0] = 0  # type: ignore[index]
            edited += 1
    assert env.config_version == version
    if not edited:
        pytest.skip("no array, list or tuple among its settings")


NATIVE = [t for t in TASKS if native_obstacle(_raw(t)) is None]


@pytest.mark.parametrize("task_id", NATIVE)
def test_set_attr_of_the_native_vector_env_is_making_it_with_the_setting(task_id):
    change = _argument_change(_raw(task_id))
    if change is None:
        pytest.skip("no numeric constructor argument")
    ((name, value),) = change.items()
    changed = TrialVectorEnv(_raw(task_id), 3)
    if name in changed.task._rescaled:
        changed.task.configure(**change)  # (set_attr raises, as setattr does)
    else:
        changed.set_attr(name, value)
    fresh = TrialVectorEnv(_raw(task_id, **change), 3)
    for vec in (changed, fresh):
        vec.reset(seed=2)
    actions = np.random.default_rng(1).integers(0, 2, (60, 3))
    for step_actions in actions:
        got, want = changed.step(step_actions), fresh.step(step_actions)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
