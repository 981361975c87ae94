"""Step-level wrappers: they act on each step's result, not on how trials are generated.

Each overrides ``step`` and ``reset`` (so the observation ``reset`` returns is transformed like
every stepped one) and reads task state through ``env.unwrapped``, never through attribute
forwarding.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, SupportsFloat

import gymnasium as gym
import numpy as np

from neurogym import spaces
from neurogym._deprecation import WrapperHints
from neurogym._env.env import TrialEnv
from neurogym.wrappers._base import require_trial_env, switcher_in

__all__ = ["Noise", "PassAction", "PassReward", "ReactionTime", "extend_box"]

Step = tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]


def _unique_name(name: str, taken: Mapping[str, Any]) -> str:
    if name not in taken:
        return name
    k = 2
    while f"{name}_{k}" in taken:
        k += 1
    return f"{name}_{k}"


def extend_box(space: gym.Space[Any], extra: int, name: str, who: str) -> spaces.Box:
    """A copy of a 1-D Box observation space with ``extra`` unbounded dims appended.

    The appended dims are named ``name`` (``name_2``, ``name_3``... if taken); existing names
    are kept.

    Args:
        space: The wrapped env's observation space.
        extra: Number of dims to append.
        name: Name of the appended dims.
        who: The wrapper, for messages.

    Raises:
        TypeError: If ``space`` is not a 1-D Box.
    """
    if not isinstance(space, gym.spaces.Box) or len(space.shape) != 1:
        raise TypeError(f"{who} needs a 1-D Box observation space, got {space}")
    size = space.shape[0]
    dtype = space.dtype if np.issubdtype(space.dtype, np.floating) else np.dtype(np.float32)
    low = np.concatenate((space.low, np.full(extra, -np.inf))).astype(dtype)
    high = np.concatenate((space.high, np.full(extra, np.inf))).astype(dtype)
    names: dict[str, Any] = dict(getattr(space, "name", None) or {})
    names[_unique_name(name, names)] = size if extra == 1 else range(size, size + extra)
    return spaces.Box(low, high, shape=(size + extra,), dtype=dtype, name=names)


def _action_size(space: gym.Space[Any], who: str) -> int:
    if isinstance(space, gym.spaces.Discrete):
        return 1
    if isinstance(space, gym.spaces.Box):
        return int(np.prod(space.shape))
    raise TypeError(f"{who} needs a Discrete or Box action space, got {space}")


class PassAction(WrapperHints, gym.Wrapper[Any, Any, Any, Any]):
    """Appends the action just taken to the observation (dim named ``action``).

    A Discrete action adds one dim holding the action value; a Box action adds one dim per
    action element. The observation returned by ``reset`` has zeros there (no action yet).

    Args:
        env: The env to wrap; its observation space must be a 1-D Box.
    """

    changes_observation: ClassVar[bool] = True

    def __init__(self, env: gym.Env[Any, Any]) -> None:
        super().__init__(env)
        self._size = _action_size(env.action_space, "PassAction")
        self.observation_space = extend_box(
            env.observation_space, self._size, "action", "PassAction"
        )
        self._dtype = self.observation_space.dtype
        self._n = self.observation_space.shape[0] - self._size
        self._last: Any = 0  # the last action (shown by observation())

    def _extend(self, ob: Any, action: Any) -> np.ndarray:
        out = np.empty(self._n + self._size, dtype=self._dtype)
        out[: self._n] = ob
        out[self._n :] = np.ravel(action)
        return out

    def observation(self, ob: Any) -> np.ndarray:
        """``ob`` with the last action appended (0 before the first step), as ``step`` shows it.

        An outer trial wrapper shows the first observation of a trial it generates this way.
        """
        return self._extend(ob, self._last)

    def step(self, action: Any) -> Step:
        """Steps the env and appends ``action`` to the observation."""
        self._last = action
        ob, reward, terminated, truncated, info = self.env.step(action)
        return self._extend(ob, action), reward, terminated, truncated, info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Resets the env; the action dims of the first observation are 0."""
        self._last = 0
        ob, info = self.env.reset(seed=seed, options=options)
        return self._extend(ob, 0), info


class PassReward(WrapperHints, gym.Wrapper[Any, Any, Any, Any]):
    """Appends the reward just received to the observation (dim named ``reward``).

    The observation returned by ``reset`` has 0 there (no reward yet).

    Args:
        env: The env to wrap; its observation space must be a 1-D Box.
    """

    changes_observation: ClassVar[bool] = True

    def __init__(self, env: gym.Env[Any, Any]) -> None:
        super().__init__(env)
        self.observation_space = extend_box(env.observation_space, 1, "reward", "PassReward")
        self._dtype = self.observation_space.dtype
        self._n = self.observation_space.shape[0] - 1
        self._last: Any = 0.0  # the last reward (shown by observation())

    def _extend(self, ob: Any, reward: Any) -> np.ndarray:
        out = np.empty(self._n + 1, dtype=self._dtype)
        out[: self._n] = ob
        out[self._n] = reward
        return out

    def observation(self, ob: Any) -> np.ndarray:
        """``ob`` with the last reward appended (0 before the first step), as ``step`` shows it.

        An outer trial wrapper shows the first observation of a trial it generates this way.
        """
        return self._extend(ob, self._last)

    def step(self, action: Any) -> Step:
        """Steps the env and appends the reward to the observation."""
        ob, reward, terminated, truncated, info = self.env.step(action)
        self._last = reward
        return self._extend(ob, reward), reward, terminated, truncated, info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Resets the env; the reward dim of the first observation is 0."""
        self._last = 0.0
        ob, info = self.env.reset(seed=seed, options=options)
        return self._extend(ob, 0.0), info


def _unbounded(space: gym.Space[Any]) -> spaces.Box:
    """``space`` without bounds (noise can leave them), keeping shape, dtype and dim names."""
    if not isinstance(space, gym.spaces.Box) or not np.issubdtype(space.dtype, np.floating):
        raise TypeError(f"Noise needs a float Box observation space, got {space}")
    names = getattr(space, "name", None)
    return spaces.Box(-np.inf, np.inf, shape=space.shape, dtype=space.dtype, name=names)


class Noise(WrapperHints, gym.Wrapper[Any, Any, Any, Any]):
    """Adds Gaussian noise to every observation (including the one ``reset`` returns).

    Noise is drawn from the task's generator (``env.unwrapped.rng``), so ``reset(seed=s)``
    fixes it too. The returned observation is a new array: the task's trial is not modified.
    The observation space keeps its shape, dtype and dim names but loses its bounds, since
    noise can cross them.

    Adaptive mode (``perf_th`` set): at the end of each trial, ``info["performance"]`` joins a
    window of the last ``w`` trials; once the window is full, a mean above ``perf_th`` raises
    the noise by ``step_noise``, and a mean below it lowers the noise by ``step_noise`` (not
    below 0) at any time. ``info["perf_mean"]`` and ``info["std_noise"]`` report the state at
    each trial end.

    Args:
        env: The env to wrap (its task must be a ``TrialEnv``).
        std_noise: Standard deviation of the noise (the starting value in adaptive mode).
        perf_th: Target mean performance of the adaptive mode; None keeps ``std_noise`` fixed.
        w: Number of trials in the performance window.
        step_noise: Change of the standard deviation per adjustment.

    Raises:
        ValueError: If ``std_noise`` or ``step_noise`` is negative or ``w < 1``.
        TypeError: If the observation space is not a float Box.
    """

    changes_observation: ClassVar[bool] = True

    def __init__(
        self,
        env: gym.Env[Any, Any],
        std_noise: float = 0.1,
        perf_th: float | None = None,
        w: int = 100,
        step_noise: float = 0.001,
    ) -> None:
        super().__init__(env)
        if not std_noise >= 0 or not step_noise >= 0:
            raise ValueError(
                f"std_noise and step_noise must be >= 0, got {std_noise!r} and {step_noise!r}"
            )
        if int(w) < 1:
            raise ValueError(f"w must be a positive number of trials, got {w!r}")
        self._task = require_trial_env(env, "Noise")
        self.observation_space = _unbounded(env.observation_space)
        self.init_std = float(std_noise)
        self.std_noise = float(std_noise)
        self.perf_th = perf_th
        self.w = int(w)
        self.step_noise = float(step_noise)
        self.perf: list[float] = []

    def observation(self, ob: Any) -> Any:
        """``ob`` with noise added, as ``step`` shows it (for an outer trial wrapper)."""
        return self._noisy(ob)

    def _noisy(self, ob: Any) -> Any:
        ob = np.asarray(ob)
        noise = self._task.np_random.normal(0.0, self.std_noise, ob.shape)
        return (noise + ob).astype(ob.dtype, copy=False)

    def _adapt(self, info: dict[str, Any]) -> None:
        if "performance" not in info:
            raise KeyError(
                "Noise(perf_th=...) adapts to info['performance'] at trial ends, but the "
                f"task {type(self._task).__name__} reports none"
            )
        self.perf.append(float(info["performance"]))
        full = len(self.perf) >= self.w
        if len(self.perf) > self.w:
            self.perf.pop(0)
        perf_mean = float(np.mean(self.perf))
        assert self.perf_th is not None
        if perf_mean > self.perf_th and full:
            self.std_noise += self.step_noise
        elif perf_mean < self.perf_th:
            self.std_noise = max(0.0, self.std_noise - self.step_noise)
        info["perf_mean"] = perf_mean
        info["std_noise"] = self.std_noise

    def step(self, action: Any) -> Step:
        """Steps the env and adds noise to the observation."""
        ob, reward, terminated, truncated, info = self.env.step(action)
        if self.perf_th is not None and info.get("new_trial"):
            self._adapt(info)
        return self._noisy(ob), reward, terminated, truncated, info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Resets the env (and the adaptive state) and adds noise to the first observation."""
        self.std_noise = self.init_std
        self.perf = []
        ob, info = self.env.reset(seed=seed, options=options)
        return self._noisy(ob), info


class ReactionTime(WrapperHints, gym.Wrapper[Any, Any, Any, Any]):
    """Lets the agent respond at any time after stimulus onset (reaction-time version).

    At the first step of each trial it moves the start of the ``decision`` period to one step
    after the start of the ``stimulus`` period, copies the decision's ground truth onto the
    stimulus steps after the first, and, with ``end_on_stimulus``, ends the trial when the
    stimulus ends (``tmax``). ``urgency`` is added to every reward; ``info["tr_dur"]`` holds
    the number of steps the trial lasted at each trial end (upstream 2.3.1 always reported 0).

    Put it on the task (or inside a ``ScheduleEnvs``, one per env), not around a wrapper that
    switches envs: it edits the state of ``env.unwrapped``.

    ``neurogym_apps.train.evaluate`` scores a reaction-time trial by its ``performance``
    (``strict_criterion = "performance"``): the response may start at stimulus onset, and a
    response in the stimulus's first step (upstream's one-step latency) is ignored by the
    rule, not a break of fixation. With ``abort=True`` on the task, a break in the fixation
    period ends the trial with performance 0, so the performance is "fixation held, then the
    correct response".

    Args:
        env: The env to wrap; its trials need ``stimulus`` and ``decision`` periods and a
            ground truth.
        urgency: Added to the reward of every step.
        end_on_stimulus: End the trial when the stimulus ends (True) or keep the task's timing
            while allowing early responses (False).

    Raises:
        TypeError: If ``env`` switches between envs.
    """

    strict_criterion = "performance"

    def __init__(
        self, env: gym.Env[Any, Any], urgency: float = 0.0, end_on_stimulus: bool = True
    ) -> None:
        super().__init__(env)
        self._task = require_trial_env(env, "ReactionTime")
        _reject_switching(env)
        timing = getattr(self._task, "timing", None) or {}
        missing = [period for period in ("stimulus", "decision") if period not in timing]
        if missing:  # refuse at make, not at every step
            raise ValueError(
                f"ReactionTime needs a task with 'stimulus' and 'decision' periods; "
                f"{type(self._task).__name__}'s timing has no {missing} (periods: "
                f"{list(timing)})"
            )
        self.urgency = float(urgency)
        self.end_on_stimulus = bool(end_on_stimulus)
        self.tr_dur = 0

    def _adjust(self, task: TrialEnv) -> None:
        missing = [p for p in ("stimulus", "decision") if p not in task.start_t]
        if missing or not task._has_gt:
            what = f"periods {missing}" if missing else "a ground truth"
            raise ValueError(
                f"ReactionTime needs trials with 'stimulus' and 'decision' periods and a ground "
                f"truth; this {type(task).__name__} trial lacks {what} (periods: "
                f"{list(task.start_t)})"
            )
        gt = task.gt
        choice = gt[task.start_ind["decision"]].copy()
        task.start_t["decision"] = task.start_t["stimulus"] + task.dt
        if self.end_on_stimulus:
            task.tmax = task.end_t["stimulus"]
        gt[task.start_ind["stimulus"] + 1 : task.end_ind["stimulus"]] = choice
        task.refresh_trial()

    def step(self, action: Any) -> Step:
        """Adjusts a fresh trial, then steps the env and adds the urgency to the reward."""
        task = self._task
        if task.t_ind == 0 and task._reset_done:  # before reset, the task's step raises
            self._adjust(task)
        ob, reward, terminated, truncated, info = self.env.step(action)
        self.tr_dur += 1
        if info.get("new_trial"):
            info["tr_dur"] = self.tr_dur
            self.tr_dur = 0
        return ob, float(reward) + self.urgency, terminated, truncated, info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Resets the env and the trial-duration counter."""
        self.tr_dur = 0
        return self.env.reset(seed=seed, options=options)


def _reject_switching(env: gym.Env[Any, Any]) -> None:
    switcher = switcher_in(env)
    if switcher is not None:
        raise TypeError(
            f"ReactionTime edits the wrapped task's trials, but {switcher} switches between "
            "tasks; wrap each of its envs with ReactionTime instead"
        )
