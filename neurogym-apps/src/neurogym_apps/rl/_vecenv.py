"""neurogym vector envs as stable-baselines3 ``VecEnv`` objects."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

import neurogym
from neurogym import validate
from neurogym.vector import TrialVectorEnv, make_vector_env

__all__ = ["NeurogymDummyVecEnv", "TrialSB3VecEnv", "as_sb3_vec_env"]


class TrialSB3VecEnv(VecEnv):
    """A native :class:`~neurogym.vector.TrialVectorEnv` behind stable-baselines3's API.

    One ``step`` steps every sub-env in one numpy call. The differences from gymnasium's
    vector API are the ones stable-baselines3 expects (and its ``DummyVecEnv`` implements):

    * ``reset()`` takes no arguments and returns only the observations; seeds set with
      ``seed(s)`` apply to the next reset (sub-env ``i`` gets ``s + i``) and are then forgotten.
    * Autoreset happens in the step that ends an episode: the returned observation is the
      first one of the new episode, the last one is ``infos[i]["terminal_observation"]``, and
      ``infos[i]["TimeLimit.truncated"]`` tells a truncation (``max_episode_steps``) from a
      termination (``trials_per_episode``).
    * ``dones = terminated | truncated``, rewards are float32, ``infos`` is a list of dicts.

    Infos: by default (``full_info=False``) a sub-env's dict is empty except at a trial end
    (``new_trial``, ``performance`` and ``trial``, the trial's variables) and at an episode end
    (the two keys above). ``full_info=True`` gives every key a single env reports, every step
    (``new_trial`` and ``gt`` too), exactly as ``DummyVecEnv`` does, at about twice the cost
    per step for 64 envs.

    Args:
        venv: The native vector env (``neurogym.vector.make_vector_env``).
        full_info: Report every info key every step (see above).
        task: The task id the env was made from (kept for :func:`neurogym_apps.train.evaluate`).
        make_kwargs: The arguments it was made with (likewise).
    """

    def __init__(
        self,
        venv: TrialVectorEnv,
        *,
        full_info: bool = False,
        task: str | None = None,
        make_kwargs: dict[str, Any] | None = None,
    ) -> None:
        if not isinstance(venv, TrialVectorEnv):
            raise TypeError(
                f"expected a neurogym.vector.TrialVectorEnv, got {type(venv).__name__}: use "
                "as_sb3_vec_env, which serves any other vector env with DummyVecEnv"
            )
        self.venv = venv
        self.full_info = bool(full_info)
        self.neurogym_task = task
        self.neurogym_kwargs = dict(make_kwargs or {})
        self._actions: np.ndarray = np.zeros(venv.num_envs, dtype=np.intp)
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)

    # ------------------------------------------------------------------ stepping
    def reset(self) -> np.ndarray:
        """Resets every sub-env (with the seeds given to ``seed``, if any) and returns the obs.

        Options set with ``set_options`` are ignored, as a single neurogym env ignores them.
        """
        seeds: list[int | None] | None = list(self._seeds)
        if all(s is None for s in self._seeds):
            seeds = None
        obs, _ = self.venv.reset(seed=seeds)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return np.array(obs)

    def step_async(self, actions: np.ndarray) -> None:
        """Stores the actions of the next ``step_wait``."""
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        """Steps every sub-env; ended episodes restart in the same step (see the class)."""
        obs, reward, terminated, truncated, info = self.venv.step(self._actions)
        infos = self._full_infos(info) if self.full_info else self._trial_end_infos(info)
        task = self.venv.task
        if task.max_episode_steps is None and task.trials_per_episode is None:
            return obs, reward.astype(np.float32), terminated, infos  # episodes never end
        dones = terminated | truncated
        if dones.any():
            ended = np.flatnonzero(dones)
            for i in ended.tolist():
                infos[i] = {
                    **infos[i],
                    "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                    "terminal_observation": obs[i].copy(),
                }
                self.reset_infos[i] = {}
            first, _ = self.venv.reset(options={"reset_mask": dones})
            obs[ended] = first[ended]
        return obs, reward.astype(np.float32), dones, infos

    def _trial_end_infos(self, info: dict[str, Any]) -> list[dict[str, Any]]:
        infos: list[dict[str, Any]] = [NO_INFO] * self.num_envs
        if "performance" in info:
            for i, own in _trial_ends(info):
                infos[i] = own
        return infos

    def _full_infos(self, info: dict[str, Any]) -> list[dict[str, Any]]:
        new_trial, gt = info["new_trial"].tolist(), info["gt"].tolist()
        infos = [
            {"new_trial": nt, "gt": g, "TimeLimit.truncated": False}
            for nt, g in zip(new_trial, gt, strict=True)
        ]
        if "performance" in info:
            for i, own in _trial_ends(info):
                infos[i].update(own)
        return infos

    def close(self) -> None:
        """Closes the vector env."""
        self.venv.close()

    # ------------------------------------------------------------------ attributes
    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The task attribute ``attr_name`` for the given sub-envs (one shared configuration)."""
        value = self.venv.get_attr(attr_name)[0]
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Sets a task attribute of every sub-env (from each sub-env's next trial).

        Raises:
            ValueError: ``indices`` does not select every sub-env (they share one
                configuration; make the env with ``vectorization="loop"`` to set one).
        """
        picked = sorted(set(self._get_indices(indices)))
        if picked != list(range(self.num_envs)):
            raise ValueError(
                f"set_attr({attr_name!r}) on sub-envs {picked}: the native vector env shares "
                "one task configuration across its sub-envs; make it with "
                "vectorization='loop' to configure sub-envs one by one"
            )
        self.venv.set_attr(attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """Not available: the native vector env has no per-env objects to call.

        Raises:
            NotImplementedError: Always, naming the alternative.
        """
        del method_args, indices, method_kwargs
        raise NotImplementedError(
            f"env_method({method_name!r}): the native vector env has no per-env objects; "
            "make it with vectorization='loop' (a DummyVecEnv of single envs) to call methods"
        )

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper[Any, Any, Any, Any]], indices: VecEnvIndices = None
    ) -> list[bool]:
        """Always False: a natively stepped task is never wrapped."""
        del wrapper_class
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        """No images: neurogym tasks do not render frames."""
        return [None for _ in range(self.num_envs)]


class _NoInfo(dict[str, Any]):
    """The read-only empty info shared by sub-envs with nothing to report in a step."""

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        del args, kwargs
        raise TypeError("this info dict is shared and read-only: copy it (dict(info)) first")

    __setitem__ = __delitem__ = update = setdefault = pop = popitem = clear = _refuse  # type: ignore[assignment]


#: The info of a sub-env whose step ended neither a trial nor an episode (lean infos).
NO_INFO: dict[str, Any] = _NoInfo()


def _trial_ends(info: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """``(i, what a single env reports)`` for every sub-env ``i`` whose trial just ended."""
    ended = np.flatnonzero(info["new_trial"])
    trial = info["trial"]
    keys = [key for key in trial if f"_{key}" in trial]
    columns = [list(trial[key][ended]) for key in keys]
    rows = list(zip(*columns, strict=True)) if columns else [()] * ended.size
    perf = info["performance"][ended].tolist()
    return [
        (i, {"new_trial": True, "performance": p, "trial": dict(zip(keys, row, strict=True))})
        for i, p, row in zip(ended.tolist(), perf, rows, strict=True)
    ]


class NeurogymDummyVecEnv(DummyVecEnv):
    """stable-baselines3's ``DummyVecEnv`` over neurogym single envs, remembering the task.

    Used for tasks the native vector env cannot step (wrapped, custom ``step``); it knows the
    task id and arguments so that :func:`neurogym_apps.train.evaluate` can rebuild the env.
    """

    def __init__(
        self,
        envs: Sequence[gym.Env[Any, Any]],
        *,
        task: str | None = None,
        make_kwargs: dict[str, Any] | None = None,
    ) -> None:
        super().__init__([functools.partial(_given, env) for env in envs])
        self.neurogym_task = task
        self.neurogym_kwargs = dict(make_kwargs or {})


def _given(env: gym.Env[Any, Any]) -> gym.Env[Any, Any]:
    return env


def as_sb3_vec_env(
    env: str | gym.vector.VectorEnv[Any, Any, Any],
    num_envs: int | None = None,
    *,
    seed: int | None = None,
    vectorization: str = "auto",
    full_info: bool = False,
    **make_kwargs: Any,
) -> VecEnv:
    """``N`` envs of a task as a stable-baselines3 ``VecEnv`` (for PPO, A2C, RecurrentPPO).

    Args:
        env: A task id or unambiguous name (``"PerceptualDecisionMaking"``), or a vector env
            made by ``gymnasium.make_vec`` / ``neurogym.vector.make_vector_env``.
        num_envs: Number of envs (required with a task id; if given with a vector env it
            must match).
        seed: If given, the first ``reset`` seeds env ``i`` with ``seed + i`` (stable-
            baselines3's ``VecEnv.seed``; ``PPO(..., seed=s)`` calls it too).
        vectorization: ``"auto"``, ``"native"`` or ``"loop"`` (see ``make_vector_env``).
        full_info: Native env only: every info key every step (see :class:`TrialSB3VecEnv`).
        **make_kwargs: Task arguments, ``wrappers=``, ``max_episode_steps=``,
            ``trials_per_episode=`` and ``hold_fixation=`` (fixation held until the
            response, a break ending the trial, as labs train it; off by default: the task's
            own rule, as upstream), as for ``neurogym.make``, with a task id only. They are
            kept (``neurogym_kwargs``), so ``evaluate`` makes the same task.

    Returns:
        A :class:`TrialSB3VecEnv` when the task is stepped natively, else a
        :class:`NeurogymDummyVecEnv` over the vector env's single envs.

    Raises:
        TypeError: ``env`` is neither a task id nor a neurogym vector env, task arguments
            were given with a vector env, or ``hold_fixation=True`` for a task that does not
            step by a declarative rule.
        ValueError: ``num_envs`` is missing, not a positive int, or does not match.
    """
    task: str | None = None
    if isinstance(env, str):
        if num_envs is None:
            raise ValueError("num_envs is required with a task id, e.g. as_sb3_vec_env(id, 16)")
        num_envs = validate.positive_int(num_envs, "num_envs")
        task = neurogym.spec(env).id
        venv = make_vector_env(num_envs, task_id=task, vectorization=vectorization, **make_kwargs)
    elif isinstance(env, gym.vector.VectorEnv):
        if make_kwargs:
            raise TypeError(f"task arguments {sorted(make_kwargs)} apply to a task id only")
        if num_envs is not None and num_envs != env.num_envs:
            raise ValueError(f"num_envs={num_envs} but the vector env has {env.num_envs}")
        venv = env
    else:
        raise TypeError(
            "expected a task id or a neurogym vector env (gymnasium.make_vec), got "
            f"{type(env).__name__}: {env!r}"
        )
    out: VecEnv
    singles = getattr(venv, "envs", None)  # gymnasium's SyncVectorEnv (the loop)
    if isinstance(venv, TrialVectorEnv):
        out = TrialSB3VecEnv(venv, full_info=full_info, task=task, make_kwargs=make_kwargs)
    elif isinstance(singles, list):
        out = NeurogymDummyVecEnv(singles, task=task, make_kwargs=make_kwargs)
    else:
        raise TypeError(
            f"{type(venv).__name__} is neither neurogym's native vector env nor a "
            "SyncVectorEnv of single envs; make it with gymnasium.make_vec('neurogym/...')"
        )
    if seed is not None:
        out.seed(int(seed))
    return out
