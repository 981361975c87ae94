"""The supervised-data contract: what a task declares, what batches then hold, and its check.

A task declares three class attributes of :class:`~neurogym.TrialEnv` (docs/architecture.md
§9.6):

* ``has_groundtruth`` (default True): its trials define a target action. False for tasks whose
  reward is not tied to one correct action (bandits, two-step tasks, ``Null``):
  :func:`neurogym.batch` and :class:`neurogym.Dataset` then raise, saying to train it with
  reinforcement learning by stepping the env.
* ``agent_dependent_dims`` (default ``()``): named observation dims that stepping writes from
  the agent's own actions (in ``post_step``, e.g. a hand position). Batches carry these dims as
  the trial builder wrote them (the state before any action), as upstream's Dataset did.
* ``cross_trial_state`` (default False): trial generation depends on earlier trials
  (curricula, rule blocks, drifting rewards). A batch of ``n`` is then ``n`` consecutive trials
  of one env, advancing that state in order (a single env generates them one at a time).

:func:`check_declaration` is the ``check_task`` check that each declaration is true.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

__all__ = ["DRAW_THROUGH_THE_BUILDER", "check_declaration", "require_groundtruth"]

DRAW_THROUGH_THE_BUILDER = (
    "draw every random value through the trial builder (b.choice, b.uniform, b.add_noise, "
    "b.rng), never from np.random or a generator of the task's own"
)
"""The usual fix when a task's trials depend on more than its generator's state."""


def require_groundtruth(task: Any, consumer: str) -> None:
    """Raise if ``task`` declares no ground truth, naming what to use instead.

    Args:
        task: The (unwrapped) task env.
        consumer: What asked for supervised data, e.g. ``"neurogym.batch"``.

    Raises:
        ValueError: If ``task.has_groundtruth`` is False.
    """
    if getattr(task, "has_groundtruth", True):
        return
    name = type(task).__name__
    raise ValueError(
        f"{consumer} needs supervised targets, but {name} declares has_groundtruth = False: "
        "its trials define no correct action (the reward depends on the agent's choices, not "
        "on a target). Train it with reinforcement learning by stepping the env, e.g. "
        "gymnasium.make_vec(<its id>, num_envs=N) with an RL library"
    )


def check_declaration(factory: Callable[[], gym.Env[Any, Any]], steps: int) -> None:
    """Check that a task's supervised-data declaration matches what it does.

    Raises:
        AssertionError: Naming the declaration that is false and what the task did.
    """
    task: Any = factory().unwrapped
    _check_groundtruth(task)
    # first where the draws come from: unseeded draws would look like agent-dependent dims
    _check_cross_trial_state(factory, task)
    _check_agent_dependent(factory, task, steps)


def _check_groundtruth(task: Any) -> None:
    name = type(task).__name__
    if not hasattr(task, "new_trials"):
        return
    task.reset(seed=3)
    trials = task.new_trials(4)
    has_target = trials.gt is not None and bool(np.any(trials.mask))
    if task.has_groundtruth and not has_target:
        raise AssertionError(
            f"{name} declares has_groundtruth = True but its trials set no ground truth "
            "(set_groundtruth); declare has_groundtruth = False"
        )
    if not task.has_groundtruth and has_target:
        raise AssertionError(
            f"{name} declares has_groundtruth = False but its trials set a ground truth"
        )


def _dims(task: Any, names: tuple[str, ...]) -> set[int]:
    declared = getattr(task.observation_space, "name", None) or {}
    missing = [dim for dim in names if dim not in declared]
    if missing:
        raise AssertionError(
            f"{type(task).__name__}.agent_dependent_dims names {missing}, which are not named "
            f"dims of its observation space ({sorted(declared)})"
        )
    indices: set[int] = set()
    for dim in names:
        index = declared[dim]
        indices |= {index} if isinstance(index, int) else set(index)
    return indices


def _check_agent_dependent(
    factory: Callable[[], gym.Env[Any, Any]], task: Any, steps: int
) -> None:
    """Within the first trial, two action sequences may only change the declared dims.

    The task itself is stepped: wrappers that show actions or rewards (PassAction, ...) add
    agent-dependent dims of their own, which are not the task's to declare.
    """
    allowed = _dims(task, tuple(task.agent_dependent_dims))
    passive, active = factory().unwrapped, factory().unwrapped
    ob_p, _ = passive.reset(seed=17)
    ob_a, _ = active.reset(seed=17)
    space = copy.deepcopy(active.action_space)
    space.seed(17)
    for _ in range(steps):
        ob_p, _, _, _, info_p = passive.step(_still(passive.action_space))
        ob_a, _, _, _, info_a = active.step(space.sample())
        if info_p.get("new_trial") or info_a.get("new_trial"):
            return
        differ = set(np.flatnonzero(np.asarray(ob_p) != np.asarray(ob_a)).tolist())
        if differ - allowed:
            raise AssertionError(
                f"{type(task).__name__}'s observation dims {sorted(differ - allowed)} depend on "
                "the agent's actions within a trial; list them (by name) in "
                "agent_dependent_dims"
            )


def _still(space: gym.Space[Any]) -> Any:
    """The 'do nothing' action: 0 for Discrete spaces, zeros (clipped) for Box spaces."""
    if isinstance(space, gym.spaces.Discrete):
        return space.start
    if isinstance(space, gym.spaces.Box):
        return np.clip(np.zeros(space.shape, space.dtype), space.low, space.high)
    return space.sample()


def _check_cross_trial_state(factory: Callable[[], gym.Env[Any, Any]], task: Any) -> None:
    """A stateless task's next trial depends only on its generator's state."""
    name = type(task).__name__
    if task.cross_trial_state:  # a single env then generates its trials one at a time
        return
    if not hasattr(task, "new_trials"):
        return
    # Two fresh envs at one generator state must agree: if not, the task draws elsewhere.
    if not _history_free(factory, 4, 0, False):
        raise AssertionError(
            f"{name}'s trials differ between two fresh envs at one generator state, so they "
            f"are not drawn from the env's generator: {DRAW_THROUGH_THE_BUILDER}"
        )
    # Histories of several lengths, built one trial at a time and as batches: one of them
    # moves any block, curriculum or repeat counter away from where a fresh env starts.
    for seed, history, batched in ((5, 7, True), (6, 37, False), (7, 60, True), (8, 3, False)):
        if not _history_free(factory, seed, history, batched):
            raise AssertionError(
                f"{name}'s trials depend on earlier trials, not only on its generator's "
                f"state: {DRAW_THROUGH_THE_BUILDER}; declare cross_trial_state = True only "
                "for state that truly carries from trial to trial (a rule block, a curriculum)"
            )


def _history_free(
    factory: Callable[[], gym.Env[Any, Any]], seed: int, history: int, batched: bool
) -> bool:
    """Whether an env after ``history`` trials and a fresh one, at one generator state, agree."""
    first: Any = factory().unwrapped
    second: Any = factory().unwrapped
    first.reset(seed=seed)
    if batched:
        first.new_trials(history)
    else:
        for _ in range(history):
            first.new_trial()
    second.reset(seed=seed + 100)
    second.rng.bit_generator.state = copy.deepcopy(first.rng.bit_generator.state)
    return _same_trials(first.new_trials(20), second.new_trials(20))


def _same_trials(a: Any, b: Any) -> bool:
    if a.ob is not None and not np.array_equal(a.ob, b.ob):
        return False
    if (a.gt is None) != (b.gt is None) or (a.gt is not None and not np.array_equal(a.gt, b.gt)):
        return False
    if a.trial.keys() != b.trial.keys():
        return False
    return all(np.array_equal(np.asarray(a.trial[k]), np.asarray(b.trial[k])) for k in a.trial)
