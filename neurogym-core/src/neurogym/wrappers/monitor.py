"""``Monitor``: per-trial behaviour logs, optional ``.npz`` files, and policy evaluation.

Nothing happens at construction: no directory is created and the env is not reset. Files are
written only when ``save_dir`` is given (or :meth:`Monitor.save` is called). Plotting is not
part of this module, so importing it needs neither matplotlib nor torch.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, SupportsFloat

import gymnasium as gym
import numpy as np

from neurogym import validate

__all__ = ["Monitor"]

logger = logging.getLogger("neurogym.wrappers")

Step = tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]
_TRIGGERS = ("trial", "step")
# numpy's stub types **kwds of savez loosely enough that mypy matches them to allow_pickle.
_savez: Callable[..., None] = np.savez


def _trim(log: dict[str, list[Any]], keep: int) -> None:
    """Drops the oldest entries once a list holds a tenth more than ``keep``."""
    slack = max(1, keep // 10)
    for values in log.values():
        if len(values) > keep + slack - 1:
            del values[: len(values) - keep]


def _empty_log() -> dict[str, list[Any]]:
    return {"action": [], "reward": [], "cum_reward": [], "performance": []}


class Monitor(gym.Wrapper[Any, Any, Any, Any]):
    """Logs every trial's last action, reward, summed reward and ``info`` entries.

    At each trial end it appends to :attr:`data` the action and reward of the step that ended
    the trial, the summed reward of the trial (``cum_reward``) and every key of that step's
    ``info`` (``performance``, ``trial`` with the finished trial's dict, ``gt``...). With a
    ``save_dir``, the log is written to ``save_dir/trial_<n>.npz`` and cleared every
    ``interval`` trials (``trigger="trial"``) or at the first trial end after ``interval``
    steps since the last write (``trigger="step"``); the directory is created at the first
    write. Load files with ``np.load(path, allow_pickle=True)`` (trial dicts are objects).

    Memory stays bounded: :attr:`data` keeps the ``max_trials`` most recent trials (default
    100,000, about 2 MB), dropping the oldest, so a monitor without ``save_dir`` can run for
    ever. (It is trimmed in chunks of a tenth of ``max_trials``, so it briefly holds up to 10%
    more.) Pass ``max_trials=None`` to keep everything.

    Args:
        env: The env to monitor.
        name: Label used in log messages; default the task's class name.
        trigger: ``"trial"`` or ``"step"``: what ``interval`` counts.
        interval: Trials (or steps) between writes.
        verbose: Log the mean reward of each write at INFO level (logger
            ``"neurogym.wrappers"``).
        save_dir: Directory of the ``.npz`` files; None writes nothing automatically.
        step_fn: Called instead of ``env.step`` to step the env (upstream's hook).
        max_trials: Most recent trials kept in :attr:`data` (None: all).

    Attributes:
        data: The log since the last write, one list entry per trial.
        data_eval: The log of the last :meth:`evaluate_policy` run.
        num_tr: Trials ended since construction.

    Raises:
        ValueError: If ``trigger`` is unknown, ``interval < 1`` or ``max_trials < 1``.
    """

    def __init__(
        self,
        env: gym.Env[Any, Any],
        name: str | None = None,
        trigger: Literal["trial", "step"] = "trial",
        interval: int = 1000,
        verbose: bool = True,
        save_dir: str | Path | None = None,
        step_fn: Callable[[Any], Step] | None = None,
        max_trials: int | None = 100_000,
    ) -> None:
        super().__init__(env)
        if max_trials is not None:
            max_trials = validate.positive_int(max_trials, "max_trials")
        self.max_trials = max_trials
        if trigger not in _TRIGGERS:
            raise ValueError(f"trigger must be 'trial' or 'step', got {trigger!r}")
        interval = validate.positive_int(interval, "interval")
        self.name = name or type(env.unwrapped).__name__
        self.trigger = trigger
        self.interval = int(interval)
        self.verbose = verbose
        self.save_dir = None if save_dir is None else Path(save_dir)
        self.step_fn = step_fn
        self.data = _empty_log()
        self.data_eval: dict[str, list[Any]] = _empty_log()
        self.num_tr = 0
        self.cum_reward = 0.0
        self._steps_since_save = 0

    # ------------------------------------------------------------------ gymnasium API
    def step(self, action: Any) -> Step:
        """Steps the env and logs the trial if it ended."""
        result = self.step_fn(action) if self.step_fn is not None else self.env.step(action)
        _, reward, _, _, info = result
        self.cum_reward += float(reward)
        self._steps_since_save += 1
        if info.get("new_trial"):
            self.num_tr += 1
            _log_trial(self.data, action, reward, self.cum_reward, info)
            if self.max_trials is not None:
                _trim(self.data, self.max_trials)
            self.cum_reward = 0.0
            if self.save_dir is not None and self._due():
                self.save()
        return result

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Resets the env and the running summed reward (the log is kept)."""
        self.cum_reward = 0.0
        return self.env.reset(seed=seed, options=options)

    # ------------------------------------------------------------------ files
    def _due(self) -> bool:
        if self.trigger == "trial":
            return self.num_tr % self.interval == 0
        return self._steps_since_save >= self.interval

    def save(self, path: str | Path | None = None) -> Path:
        """Writes the log to an ``.npz`` file now and clears it.

        Args:
            path: The file to write; default ``save_dir/trial_<num_tr>.npz``.

        Returns:
            The path written.

        Raises:
            ValueError: If neither ``path`` nor ``save_dir`` is given.
        """
        if path is None:
            if self.save_dir is None:
                raise ValueError("Monitor.save() needs a path when the Monitor has no save_dir")
            path = self.save_dir / f"trial_{self.num_tr}.npz"
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        _savez(target, **{key: _as_array(values) for key, values in self.data.items()})
        if self.verbose:
            logger.info(
                "%s: %d trials, mean reward %.4f, written to %s",
                self.name,
                self.num_tr,
                float(np.mean(self.data["reward"])) if self.data["reward"] else float("nan"),
                target,
            )
        self.data = _empty_log()
        self._steps_since_save = 0
        return target

    # ------------------------------------------------------------------ evaluation
    def evaluate_policy(
        self,
        num_trials: int = 100,
        model: Any = None,
        verbose: bool = True,
        seed: int | None = None,
    ) -> dict[str, Any]:
        """Runs a policy for ``num_trials`` trials and summarises its behaviour.

        The env is reset first (with ``seed`` if given) and stepped directly, so the run is
        not added to :attr:`data`; it is logged in :attr:`data_eval` instead.

        Args:
            num_trials: Number of trials to run.
            model: An object with a stable-baselines3 style ``predict(obs, state=...,
                episode_start=..., deterministic=True) -> (action, state)``; None samples
                random actions from the action space.
            verbose: Log the summary at INFO level.
            seed: Seed of the reset and of the random policy.

        Returns:
            ``rewards`` (reward at each trial end), ``mean_reward`` (fraction of trials ending
            with a positive reward), ``cum_rewards`` (summed reward per trial),
            ``mean_cum_reward``, ``performances`` and ``mean_performance``.
        """
        num_trials = validate.positive_int(num_trials, "num_trials")
        self.data_eval = _empty_log()
        if seed is not None:
            self.action_space.seed(seed)
        ob, _ = self.env.reset(seed=seed)
        policy = _Policy(model, self.action_space)
        cum, trials = 0.0, 0
        while trials < num_trials:
            action = policy(ob)
            ob, reward, _, _, info = self.env.step(action)
            cum += float(reward)
            if info.get("new_trial"):
                trials += 1
                _log_trial(self.data_eval, action, reward, cum, info)
                cum = 0.0
        return self._summary(verbose)

    def _summary(self, verbose: bool) -> dict[str, Any]:
        rewards = [float(r) for r in self.data_eval["reward"]]
        cum_rewards = self.data_eval["cum_reward"]
        performances = [float(p) for p in self.data_eval["performance"]]
        result = {
            "rewards": rewards,
            "mean_reward": float(np.mean(np.asarray(rewards) > 0)),
            "cum_rewards": cum_rewards,
            "mean_cum_reward": float(np.mean(cum_rewards)),
            "performances": performances,
            "mean_performance": float(np.mean(performances)) if performances else float("nan"),
        }
        if verbose:
            logger.info(
                "%s: %d trials, mean reward %.4f, mean performance %.4f",
                self.name,
                len(rewards),
                result["mean_reward"],
                result["mean_performance"],
            )
        return result


class _Policy:
    """A model's ``predict`` (keeping a recurrent state) or random actions."""

    def __init__(self, model: Any, action_space: gym.Space[Any]) -> None:
        self.model = model
        self.action_space = action_space
        self.state: Any = None
        self.first = True

    def __call__(self, ob: Any) -> Any:
        if self.model is None:
            return self.action_space.sample()
        action, self.state = self.model.predict(
            ob, state=self.state, episode_start=np.array([self.first]), deterministic=True
        )
        self.first = False
        if isinstance(action, np.ndarray) and action.shape == (1,):
            return action[0]
        return action


def _log_trial(
    log: dict[str, list[Any]], action: Any, reward: Any, cum: float, info: dict[str, Any]
) -> None:
    log["action"].append(action)
    log["reward"].append(reward)
    log["cum_reward"].append(cum)
    if "performance" not in info:
        log["performance"].append(np.nan)
    for key, value in info.items():
        log.setdefault(key, []).append(value)


def _as_array(values: list[Any]) -> np.ndarray:
    try:
        arr = np.asarray(values)
        if arr.dtype != object:
            return arr
    except ValueError:
        pass
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out
