"""Running a task with a policy and recording what happened, step by step (no plotting)."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

from neurogym import validate
from neurogym_apps._active import active_task

__all__ = ["Run", "as_policy", "describe_policy", "policy_kind", "resolve_env", "run_env"]

Policy = Callable[..., Any]


@dataclasses.dataclass
class Run:
    """What :func:`run_env` recorded, one row per step.

    Attributes:
        obs: Observations the policy saw, ``(T, *obs_shape)``.
        actions: Actions taken, ``(T,)`` or ``(T, *action_shape)``.
        gt: Ground truth of each step (None if the task sets none).
        rewards: Rewards, ``(T,)``.
        trial_ends: Indices of the steps that ended a trial.
        performance: ``info["performance"]`` at each trial end, one per trial.
        trials: The finished trials' dicts, one per trial.
        dt: The env's step in ms.
        policy: What acted (:func:`policy_kind`): ``"given"`` (the caller's policy),
            ``"ground truth"`` (the default, for a task with a ground truth) or ``"random"``
            (the default, for a task without one).
        final_ob: The observation returned by the last step (not seen by the policy).
    """

    obs: np.ndarray
    actions: np.ndarray
    gt: np.ndarray | None
    rewards: np.ndarray
    trial_ends: np.ndarray
    performance: np.ndarray
    trials: list[dict[str, Any]]
    dt: float
    policy: str = "given"
    final_ob: np.ndarray | None = None


def resolve_env(env_or_id: str | gym.Env[Any, Any], **kwargs: Any) -> gym.Env[Any, Any]:
    """The env itself, or one made from an id (``neurogym.make(id, **kwargs)``)."""
    if isinstance(env_or_id, str):
        import neurogym

        return neurogym.make(env_or_id, **kwargs)
    if not isinstance(env_or_id, gym.Env):
        raise TypeError(
            f"expected a task id or a gymnasium env, got {type(env_or_id).__name__}: {env_or_id!r}"
        )
    if kwargs:
        raise TypeError(f"constructor arguments {sorted(kwargs)} apply to a task id, not an env")
    return env_or_id


def as_policy(policy: Any) -> Callable[[Any, Any], tuple[Any, Any]]:
    """Any supported policy as ``policy(ob, state) -> (action, state)``.

    Accepted: ``policy(ob)``, ``policy(ob, state)`` and stable-baselines3 style models
    (``model.predict(ob, state=..., episode_start=..., deterministic=True)``).
    """
    if callable(getattr(policy, "predict", None)):
        return _model_policy(policy)
    if not callable(policy):
        raise TypeError(f"policy must be callable, got {type(policy).__name__}: {policy!r}")
    try:
        positional = [
            p
            for p in inspect.signature(policy).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
        ]
    except (TypeError, ValueError):
        positional = []
    if len(positional) >= 2:
        return lambda ob, state: policy(ob, state)
    return lambda ob, state: (policy(ob), state)


def _model_policy(model: Any) -> Callable[[Any, Any], tuple[Any, Any]]:
    """A stable-baselines3 style model stepping one env; its recurrent state is carried."""

    def policy(ob: Any, state: Any) -> tuple[Any, Any]:
        start = np.array([state is None])
        hidden = None if state is None else state[0]
        action, hidden = model.predict(ob, state=hidden, episode_start=start, deterministic=True)
        action = np.asarray(action)
        return (int(action) if action.ndim == 0 else action), (hidden,)

    return policy


def policy_kind(env: gym.Env[Any, Any], policy: Policy | None = None) -> str:
    """What :func:`run_env` steps ``env`` with: ``"given"``, ``"ground truth"`` or ``"random"``.

    Without a policy, a task that declares a ground truth (``has_groundtruth``, True by
    default; ``neurogym check`` verifies the declaration) is answered with it, any other
    (bandits, ``Null``) gets seeded random actions.
    """
    if policy is not None:
        return "given"
    return "ground truth" if getattr(env.unwrapped, "has_groundtruth", True) else "random"


def describe_policy(env: gym.Env[Any, Any], policy: Policy | None = None) -> str:
    """:func:`policy_kind` as words: ``"the ground-truth policy"``, ``"random actions (...)"``."""
    kind = policy_kind(env, policy)
    if kind == "given":
        return "the given policy"
    if kind == "ground truth":
        return "the ground-truth policy"
    return f"random actions ({type(env.unwrapped).__name__} has no ground truth)"


def _default_policy(
    env: gym.Env[Any, Any], seed: int | None
) -> Callable[[Any, Any], tuple[Any, Any]]:
    """The ground-truth action where the task has one (``gt_now``), else a seeded random one.

    ``gt_now`` is read from the task serving the current trial (a task set's active task).
    """
    space = env.action_space
    space.seed(seed)
    answers = policy_kind(env) == "ground truth"

    def policy(ob: Any, state: Any) -> tuple[Any, Any]:
        task = active_task(env)
        if answers and getattr(task, "_has_gt", False):
            gt = task.gt_now
            return (np.asarray(gt, dtype=space.dtype) if space.shape else int(gt)), state
        return space.sample(), state

    return policy


def run_env(
    env_or_id: str | gym.Env[Any, Any],
    num_trials: int | None = None,
    num_steps: int | None = None,
    policy: Policy | None = None,
    *,
    seed: int | None = 0,
    **kwargs: Any,
) -> Run:
    """Reset ``env`` with ``seed`` and step it with ``policy``, recording every step.

    Args:
        env_or_id: An env, or a task id (made with ``kwargs``).
        num_trials: Stop after this many trials (default 2 if ``num_steps`` is not given).
        num_steps: Stop after this many steps.
        policy: ``policy(ob) -> action``, ``policy(ob, state) -> (action, state)`` (the
            state is None at the start of every trial) or a stable-baselines3 style model
            (its ``predict`` is called deterministically, recurrent state carried); default:
            the ground-truth action where the task has one, else random actions.
        seed: Seed of ``env.reset`` (and of the random default policy); None resets without
            a seed, continuing the env's own random stream.
        **kwargs: Constructor arguments when ``env_or_id`` is an id.

    Returns:
        The recorded :class:`Run`.

    Raises:
        ValueError: If both or neither limits are usable (not positive ints).
    """
    if num_trials is not None and num_steps is not None:
        raise ValueError("give num_trials or num_steps, not both")
    if num_steps is None:
        num_trials = validate.positive_int(2 if num_trials is None else num_trials, "num_trials")
    else:
        num_steps = validate.positive_int(num_steps, "num_steps")
    env = resolve_env(env_or_id, **kwargs)
    act = _default_policy(env, seed) if policy is None else as_policy(policy)
    ob, _ = env.reset(seed=seed)
    obs: list[np.ndarray] = []
    actions: list[np.ndarray] = []
    gts: list[Any] = []
    rewards: list[float] = []
    ends: list[int] = []
    perf: list[float] = []
    trials: list[dict[str, Any]] = []
    state: Any = None
    step = 0
    while (num_steps is not None and step < num_steps) or (
        num_trials is not None and len(trials) < num_trials
    ):
        obs.append(np.asarray(ob))
        action, state = act(ob, state)
        ob, reward, terminated, truncated, info = env.step(action)
        actions.append(np.asarray(action))
        gts.append(info.get("gt"))
        rewards.append(float(reward))
        if info.get("new_trial"):
            state = None  # a stateful policy starts each trial afresh
            ends.append(step)
            perf.append(float(info.get("performance", np.nan)))
            trials.append(dict(info.get("trial") or {}))
        if terminated or truncated:
            ob, _ = env.reset()
        step += 1
        if step > 1_000_000:
            raise RuntimeError("no trial ended within 10^6 steps; pass num_steps instead")
    has_gt = all(gt is not None for gt in gts)
    return Run(
        obs=np.stack(obs),
        actions=np.stack(actions),
        gt=np.stack([np.asarray(gt) for gt in gts]) if has_gt and gts else None,
        rewards=np.asarray(rewards),
        trial_ends=np.asarray(ends, dtype=int),
        performance=np.asarray(perf),
        trials=trials,
        dt=float(getattr(env.unwrapped, "dt", 1.0)),
        policy=policy_kind(env, policy),
        final_ob=np.asarray(ob),
    )
