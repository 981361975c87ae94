"""Closed-loop evaluation: the network (or a baseline policy) steps the env itself."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

import neurogym
from neurogym import validate
from neurogym.train._sb3 import is_predict_model, predict_policy, predict_task

__all__ = ["Evaluation", "baseline_policies", "evaluate", "run_closed_loop"]

#: ``act(obs (N, n_in), state, rng) -> (actions (N, ...), state)`` for N envs stepped together.
BatchPolicy = Callable[[np.ndarray, Any, np.random.Generator], tuple[np.ndarray, Any]]

_PARALLEL = 64  # envs stepped together (one network call per step for all of them)
_MAX_CONDITION_VALUES = 12  # trial-dict keys with more distinct values are not conditions


@dataclasses.dataclass(frozen=True)
class Evaluation:
    """Closed-loop performance: what the env itself reported, trial by trial.

    Attributes:
        performance: Mean of ``info["performance"]`` over the trials.
        trials: Number of trials.
        per_trial: ``info["performance"]`` of each trial, in the order they ended.
        conditions: Trial-dict key to {value: mean performance} for keys with a few scalar
            values (coherence, delay, ground truth, ...).
        chance: Mean performance of baseline policies measured the same way (``random``:
            uniformly random actions; ``fixation``: always action 0, or zeros for Box
            actions); empty when not measured.
    """

    performance: float
    trials: int
    per_trial: np.ndarray
    conditions: dict[str, dict[Any, float]]
    chance: dict[str, float] = dataclasses.field(default_factory=dict)

    @property
    def chance_level(self) -> float:
        """The best baseline (NaN if none was measured)."""
        return max(self.chance.values()) if self.chance else float("nan")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (per-trial values omitted)."""
        return {
            "performance": self.performance,
            "trials": self.trials,
            "chance": self.chance,
            "conditions": {
                key: {str(value): perf for value, perf in table.items()}
                for key, table in self.conditions.items()
            },
        }


def run_closed_loop(
    make_env: Callable[[], gym.Env[Any, Any]],
    act: BatchPolicy,
    trials: int,
    *,
    seed: int = 0,
    carry_state: bool = False,
    reset_state: Callable[[Any, np.ndarray], Any] | None = None,
) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """Steps up to 64 envs together with ``act`` until ``trials`` trials have ended.

    Args:
        make_env: Makes one env (called once per parallel env).
        act: The batch policy.
        trials: Trials to collect.
        seed: Env ``i`` is reset with a seed spawned from ``seed`` (repeatable).
        carry_state: Keep the policy state across trials (default: it restarts per trial).
        reset_state: ``reset_state(state, rows) -> state`` restarting rows (needed unless
            ``carry_state`` or the policy is stateless).

    Returns:
        The performance of each trial (in the order trials ended) and their trial dicts.
    """
    trials = validate.positive_int(trials, "trials")
    n = min(_PARALLEL, trials)
    seeds = np.random.SeedSequence(seed).generate_state(n)
    envs = [make_env() for _ in range(n)]
    obs = np.stack([env.reset(seed=int(s))[0] for env, s in zip(envs, seeds, strict=True)])
    rng = np.random.default_rng(seed)
    state: Any = None
    perf: list[float] = []
    dicts: list[dict[str, Any]] = []
    while len(perf) < trials:
        actions, state = act(obs.astype(np.float32), state, rng)
        ended = np.zeros(n, dtype=bool)
        for i, env in enumerate(envs):
            ob, _, terminated, truncated, info = env.step(actions[i])
            if info.get("new_trial"):
                ended[i] = True
                perf.append(float(info.get("performance", 0.0)))
                dicts.append(info.get("trial") or {})
            if terminated or truncated:
                ob, _ = env.reset()
                ended[i] = True
            obs[i] = ob
        if ended.any() and not carry_state and state is not None and reset_state is not None:
            state = reset_state(state, ended)
    return np.array(perf[:trials]), dicts[:trials]


def _conditions(perf: np.ndarray, dicts: Sequence[dict[str, Any]]) -> dict[str, dict[Any, float]]:
    out: dict[str, dict[Any, float]] = {}
    keys = {key for trial in dicts for key in trial}
    for key in sorted(keys):
        values = [trial.get(key) for trial in dicts]
        if not all(
            np.ndim(v) == 0 and isinstance(np.asarray(v).item(), int | float | str)
            for v in values
            if v is not None
        ):
            continue
        scalars = [np.asarray(v).item() if v is not None else None for v in values]
        distinct = {v for v in scalars if v is not None}
        if not 1 < len(distinct) <= _MAX_CONDITION_VALUES:
            continue
        table = {}
        for value in sorted(distinct, key=lambda v: (isinstance(v, str), v)):
            picked = [p for p, s in zip(perf, scalars, strict=True) if s == value]
            table[value] = float(np.mean(picked))
        out[key] = table
    return out


def baseline_policies(env: gym.Env[Any, Any]) -> dict[str, BatchPolicy]:
    """The chance baselines: uniformly random actions and always-fixate (0 / zeros)."""
    space = env.action_space

    def random(obs: np.ndarray, state: Any, rng: np.random.Generator) -> tuple[np.ndarray, Any]:
        if isinstance(space, gym.spaces.Discrete):
            return space.start + rng.integers(0, int(space.n), size=len(obs)), state
        assert isinstance(space, gym.spaces.Box)
        low = np.where(np.isfinite(space.low), space.low, -1.0)
        high = np.where(np.isfinite(space.high), space.high, 1.0)
        shape = (len(obs), *space.shape)
        return rng.uniform(low, high, size=shape).astype(space.dtype), state

    def fixation(obs: np.ndarray, state: Any, rng: np.random.Generator) -> tuple[np.ndarray, Any]:
        del rng
        if isinstance(space, gym.spaces.Discrete):
            return np.full(len(obs), space.start), state
        assert isinstance(space, gym.spaces.Box)
        zeros = np.clip(np.zeros(space.shape, space.dtype), space.low, space.high)
        return np.broadcast_to(zeros, (len(obs), *space.shape)).copy(), state

    return {"random": random, "fixation": fixation}


def evaluate(
    model: Any,
    trials: int = 500,
    *,
    seed: int = 1,
    carry_state: bool = False,
    chance: bool = True,
    env_kwargs: dict[str, Any] | None = None,
    task: str | None = None,
) -> Evaluation:
    """Closed-loop performance of a trained model on its task, with chance baselines.

    The network steps ``min(trials, 64)`` envs of its task together, each seeded from
    ``seed``; its recurrent state restarts at every trial unless ``carry_state``. The score is
    the env's own ``info["performance"]`` of each trial, overall and per condition. With
    ``chance``, a random and a fixation-only policy are measured the same way.

    Args:
        model: A :class:`~neurogym.train.TrainedModel`, or a stable-baselines3 model (PPO,
            A2C, RecurrentPPO, ...: its ``predict`` is called deterministically for all envs
            at once; a recurrent state restarts per trial through ``episode_start``).
        trials: Trials to run.
        seed: Seed of the evaluation envs (different from training's by default).
        carry_state: Carry the network state across trials.
        chance: Also measure the baselines.
        env_kwargs: Task arguments (default: the ones it was trained with).
        task: The task id, for a stable-baselines3 model whose env was not made by
            :func:`neurogym.rl.as_sb3_vec_env` (default: the model's task).

    Returns:
        The :class:`Evaluation`.
    """
    if is_predict_model(model):
        task, kwargs = predict_task(model, task, env_kwargs)
        act, reset_state = predict_policy(model)
    else:
        task = model.task if task is None else task
        kwargs = model.env_kwargs if env_kwargs is None else env_kwargs
        act, reset_state = _act_of(model), _zero_rows

    def make() -> gym.Env[Any, Any]:
        return neurogym.make(task, **kwargs)

    perf, dicts = run_closed_loop(
        make, act, trials, seed=seed, carry_state=carry_state, reset_state=reset_state
    )
    baselines: dict[str, float] = {}
    if chance:
        for name, policy in baseline_policies(make()).items():
            base, _ = run_closed_loop(make, policy, trials, seed=seed)
            baselines[name] = float(base.mean())
    return Evaluation(
        performance=float(perf.mean()),
        trials=int(perf.size),
        per_trial=perf,
        conditions=_conditions(perf, dicts),
        chance=baselines,
    )


def _act_of(model: Any) -> BatchPolicy:
    """A :class:`TrainedModel`'s ``act`` as a batch policy."""

    def act(obs: np.ndarray, state: Any, rng: np.random.Generator) -> tuple[np.ndarray, Any]:
        del rng
        actions, state = model.act(obs, state)
        return actions, state

    return act


def _zero_rows(state: Any, rows: np.ndarray) -> Any:
    """Restarts the recurrent state (a tensor, or an LSTM's pair) of envs ``rows``."""
    import torch

    index = torch.as_tensor(rows)
    if isinstance(state, tuple):
        return tuple(_zero_rows(part, rows) for part in state)
    state = state.clone()
    state[:, index] = 0.0
    return state
