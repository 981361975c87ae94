"""Closed-loop evaluation: the network (or a baseline policy) steps the env itself."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

import neurogym
from neurogym import validate
from neurogym_apps.train._closed_loop import (
    BatchPolicy,
    ClosedLoop,
    baseline_policies,
    run_closed_loop,
    strict_criterion,
)
from neurogym_apps.train._sb3 import is_predict_model, predict_policy, predict_task

__all__ = ["Evaluation", "chance_scores", "closed_loop_agent", "evaluate"]

_MAX_CONDITION_VALUES = 12  # trial-dict keys with more distinct values are not conditions


@dataclasses.dataclass(frozen=True, repr=False)
class Evaluation:
    """Closed-loop scores of a policy on a task, trial by trial.

    Attributes:
        accuracy: The headline: mean strict score (see :func:`strict_criterion`): for
            fixate-then-respond tasks the fraction of trials with fixation held on every step
            before the response and then a correct response (a trial that breaks fixation
            once scores 0, even if the env, without ``abort``, went on and paid the answer).
        performance: Mean of the env's own ``info["performance"]`` (what upstream reports).
        fixation_breaks: Fraction of trials in which fixation broke before the response
            (NaN for tasks scored by performance).
        criterion: ``"fixate-then-respond"`` or ``"performance"``.
        trials: Number of trials.
        per_trial: The strict score of each trial, in the order they ended.
        per_trial_performance: The env's performance of each trial.
        conditions: Trial-dict key to {value: {"accuracy", "performance", "fixation_breaks",
            "trials"}} for keys with a few scalar values (coherence, delay, ground truth, ...).
        chance: Strict accuracy of baseline policies measured the same way (``random``:
            uniformly random actions; ``fixation``: always action 0, or zeros for Box
            actions); empty when not measured.
        chance_performance: The baselines' mean env performance.
        run: The closed loop itself (its trials, and which env and seed served each: what
            :func:`~neurogym_apps.train._closed_loop.observer_on_run` pairs an observer with).
    """

    accuracy: float
    performance: float
    fixation_breaks: float
    criterion: str
    trials: int
    per_trial: np.ndarray
    per_trial_performance: np.ndarray
    conditions: dict[str, dict[Any, dict[str, float]]]
    chance: dict[str, float] = dataclasses.field(default_factory=dict)
    chance_performance: dict[str, float] = dataclasses.field(default_factory=dict)
    run: ClosedLoop | None = None

    def __repr__(self) -> str:
        """One line of headline numbers (``to_dict()`` adds the conditions)."""
        chance = ", ".join(f"{name}={value:.3f}" for name, value in self.chance.items())
        return (
            f"Evaluation(accuracy={self.accuracy:.3f}, "
            f"fixation_breaks={self.fixation_breaks:.3f}, performance={self.performance:.3f}, "
            f"chance=({chance}), "
            f"criterion={self.criterion!r}, trials={self.trials})"
        )

    @property
    def chance_level(self) -> float:
        """The best baseline's strict accuracy (NaN if none was measured)."""
        return max(self.chance.values()) if self.chance else float("nan")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (per-trial values omitted)."""
        return {
            "accuracy": self.accuracy,
            "performance": self.performance,
            "fixation_breaks": self.fixation_breaks,
            "criterion": self.criterion,
            "trials": self.trials,
            "chance": self.chance,
            "chance_performance": self.chance_performance,
            "conditions": {
                key: {str(value): scores for value, scores in table.items()}
                for key, table in self.conditions.items()
            },
        }

    @classmethod
    def of(
        cls,
        run: ClosedLoop,
        criterion: str,
        chance: dict[str, ClosedLoop] | None = None,
    ) -> Evaluation:
        """The evaluation of a run (and of baseline runs measured the same way)."""
        strict = run.strict
        breaks = float(run.broke_fixation.mean()) if run.fixation_action is not None else math.nan
        chance = chance or {}
        return cls(
            accuracy=float(strict.mean()),
            performance=float(run.performance.mean()),
            fixation_breaks=breaks,
            criterion=criterion,
            trials=int(strict.size),
            per_trial=strict,
            per_trial_performance=run.performance,
            conditions=_conditions(run),
            chance={name: float(base.strict.mean()) for name, base in chance.items()},
            chance_performance={name: float(b.performance.mean()) for name, b in chance.items()},
            run=run,
        )


def _conditions(run: ClosedLoop) -> dict[str, dict[Any, dict[str, float]]]:
    """Scores per value of every trial-dict key with a few scalar values."""
    out: dict[str, dict[Any, dict[str, float]]] = {}
    dicts = run.trials
    strict, perf = run.strict, run.performance
    checked = run.fixation_action is not None
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
            rows = np.array([s == value for s in scalars])
            table[value] = {
                "accuracy": float(strict[rows].mean()),
                "performance": float(perf[rows].mean()),
                "fixation_breaks": float(run.broke_fixation[rows].mean()) if checked else math.nan,
                "trials": int(rows.sum()),
            }
        out[key] = table
    return out


def evaluate(
    model: Any,
    trials: int = 500,
    *,
    seed: int = 1,
    carry_state: bool | None = None,
    chance: bool = True,
    env_kwargs: dict[str, Any] | None = None,
    task: str | None = None,
    threads: int | None = 1,
) -> Evaluation:
    """Closed-loop scores of a trained model on its task, with chance baselines.

    The network steps ``min(trials, 64)`` envs of its task together, each seeded from
    ``seed``; its recurrent state restarts at every trial unless ``carry_state``. A model
    trained across trials (``config.across_trials``) steps envs with the feedback inputs it
    was trained with (:meth:`~neurogym_apps.train.TrainedModel.make_env`) and, by default,
    carries its state, as it was trained. Each trial
    is scored strictly (:func:`strict_criterion`: for most tasks, fixation held on every step
    before the response and then the correct response) and by the env's own
    ``info["performance"]``, overall and per condition, with the fixation-break rate. With
    ``chance``, the baselines of :func:`baseline_policies` (random actions, always fixating
    and :class:`Guess`) are measured the same way.

    Args:
        model: A :class:`~neurogym_apps.train.TrainedModel`, or a stable-baselines3 model (PPO,
            A2C, RecurrentPPO, ...: its ``predict`` is called deterministically for all envs
            at once; a recurrent state restarts per trial through ``episode_start``).
        trials: Trials to run.
        seed: Seed of the evaluation envs (different from training's by default).
        carry_state: Carry the network state across trials (default: only for a model
            trained across trials).
        chance: Also measure the baselines.
        env_kwargs: Task arguments (default: the ones it was trained with).
        task: The task id, for a stable-baselines3 model whose env was not made by
            :func:`neurogym_apps.rl.as_sb3_vec_env` (default: the model's task).
        threads: torch CPU threads while evaluating, restored afterwards (the policy of
            :class:`~neurogym_apps.train.TrainConfig`: 1, the fastest for these small
            networks and several times faster than torch's default on a shared machine);
            None leaves torch's setting alone.

    Returns:
        The :class:`Evaluation`.
    """
    from neurogym_apps.train._progress import torch_threads  # imports torch

    with torch_threads(threads):
        return _evaluate(model, trials, seed, carry_state, chance, env_kwargs, task)


def _evaluate(
    model: Any,
    trials: int,
    seed: int,
    carry_state: bool | None,
    chance: bool,
    env_kwargs: dict[str, Any] | None,
    task: str | None,
) -> Evaluation:
    make, act, reset_state = closed_loop_agent(model, task, env_kwargs)
    if carry_state is None:
        carry_state = not is_predict_model(model) and model.config.across_trials

    criterion, fixation = strict_criterion(make())
    run = run_closed_loop(
        make,
        act,
        trials,
        seed=seed,
        carry_state=carry_state,
        reset_state=reset_state,
        fixation_action=fixation,
    )
    baselines = _baseline_runs(make, trials, seed, fixation) if chance else {}
    return Evaluation.of(run, criterion, baselines)


def closed_loop_agent(
    model: Any, task: str | None, env_kwargs: dict[str, Any] | None
) -> tuple[Callable[[], gym.Env[Any, Any]], BatchPolicy, Callable[[Any, np.ndarray], Any]]:
    """How a closed loop runs ``model``: ``(make_env, act, reset_state)``.

    For :func:`evaluate` and :func:`neurogym_apps.analysis.record_trials`: the task and
    arguments ``model`` was trained on unless given (with the feedback inputs of a model
    trained across trials), its state restarted as its trainer restarts it.
    """
    if is_predict_model(model):
        task, kwargs = predict_task(model, task, env_kwargs)
        act, reset_state = predict_policy(model)
        return _maker(task, kwargs), act, reset_state
    task = model.task if task is None else task
    kwargs = model.env_kwargs if env_kwargs is None else env_kwargs
    return _maker(task, kwargs, feedback=model.config.across_trials), _act_of(model), _zero_rows


def _maker(
    task: str, kwargs: dict[str, Any], *, feedback: bool = False
) -> Callable[[], gym.Env[Any, Any]]:
    """Makes envs of ``task`` with ``kwargs``, with the feedback inputs if ``feedback``.

    ``feedback``: the inputs of a model trained across trials (``PassAction``, ``PassReward``).
    """
    from neurogym_apps.train._across import with_feedback  # it imports this module

    def make() -> gym.Env[Any, Any]:
        env = neurogym.make(task, **kwargs)
        return with_feedback(env) if feedback else env

    return make


def _baseline_runs(
    make: Callable[[], gym.Env[Any, Any]], trials: int, seed: int, fixation: int | None
) -> dict[str, ClosedLoop]:
    return {
        name: run_closed_loop(make, policy, trials, seed=seed, fixation_action=fixation)
        for name, policy in baseline_policies(make()).items()
    }


def chance_scores(
    task: str, trials: int = 500, *, seed: int = 1, env_kwargs: dict[str, Any] | None = None
) -> dict[str, float]:
    """The strict accuracy of each chance baseline on ``task``, as :func:`evaluate` measures it.

    Returns:
        ``{"random": ..., "fixation": ..., "guess": ...}`` (``guess`` where :class:`Guess`
        applies); the chance level is the largest.
    """

    def make() -> gym.Env[Any, Any]:
        return neurogym.make(task, **(env_kwargs or {}))

    _, fixation = strict_criterion(make())
    runs = _baseline_runs(make, validate.positive_int(trials, "trials"), seed, fixation)
    return {name: float(run.strict.mean()) for name, run in runs.items()}


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
