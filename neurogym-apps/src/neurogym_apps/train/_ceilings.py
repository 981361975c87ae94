"""What the learnability table measures a network against: scripted agents, ideal observers.

Two ideal observers: ``TrialEnv.ideal_observer``, without memory of earlier trials
(:func:`observed_ceiling`), and a task's ``stream_observer``, the Bayesian observer of a
stream of consecutive trials and of its own outcomes (:func:`memory_ceiling`): the ceiling of
tasks whose hidden rule, context or block prior runs on across trials.

Both the supervised rows (``learnability.py``) and the RL rows (``_rl_rows.py``) score their
ceilings here, so an oracle is measured with the same closed loop, seeds and strict
criterion as the network and the chance baselines in :func:`~neurogym_apps.train.evaluate`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import neurogym
from neurogym_apps.train._closed_loop import run_closed_loop, strict_criterion

__all__ = [
    "memory_ceiling", "observed_ceiling", "row_ceiling", "scripted_score", "stream_correct",
]  # fmt: skip


def row_ceiling(oracle: float, ideal: float | None, memory: float | None = None) -> float:
    """A learnability row's ceiling: the stream's observer, else the lower of oracle and ideal."""
    if memory is not None:
        return memory
    return oracle if ideal is None else min(oracle, ideal)


def scripted_score(
    task_id: str,
    play: Callable[[Any], Any],
    trials: int = 200,
    seed: int = 1,
    env_kwargs: dict[str, Any] | None = None,
) -> float:
    """Closed-loop strict accuracy of a scripted agent on task ``task_id``.

    Args:
        task_id: The task to make (with ``env_kwargs``).
        play: ``play(env)``: the action of one env at this step (it may read the env's state).
        trials: Trials to run.
        seed: Seed of the closed loop's envs.
        env_kwargs: Task arguments.
    """
    envs: list[Any] = []

    def make() -> Any:
        env = neurogym.make(task_id, **(env_kwargs or {}))
        envs.append(env)
        return env

    def act(obs: np.ndarray, state: Any, rng: Any) -> tuple[np.ndarray, Any]:
        del obs, rng
        return np.array([play(env) for env in envs], dtype=envs[0].action_space.dtype), state

    _, fixation = strict_criterion(neurogym.make(task_id, **(env_kwargs or {})))
    run = run_closed_loop(make, act, trials, seed=seed, fixation_action=fixation)
    return float(run.strict.mean())


def observed_ceiling(env: Any, trials: int, seed: int) -> float | None:
    """Mean of ``env``'s ideal observer on ``trials`` seeded trials; None if it has none.

    The trials are one vectorised pass from the generator ``seed`` makes (a ``Generator``
    seed: the fast batch path), not the env's own stream: a ceiling needs a fixed sample, not
    the trials a single env would serve, and thousands of trials are drawn here.
    """
    sample = neurogym.batch(env, trials, seed=np.random.default_rng(seed))
    correct = env.unwrapped.ideal_observer(sample)
    return None if correct is None else float(np.mean(correct))


def stream_correct(
    task_id: str, trials: int, seed: int, env_kwargs: dict[str, Any] | None = None
) -> np.ndarray | None:
    """Per trial, whether the task's observer of the stream answers correctly; None if none.

    The stream is the first ``trials`` trials one env serves after ``reset(seed=seed)``
    (``neurogym.batch`` with an int seed): consecutive trials, the block, rule or context
    state carried from each to the next as an agent stepping the env meets them (a
    ``cross_trial_state`` task generates them one at a time, ~0.7 ms a trial). The observer
    is the env's ``stream_observer`` (on the outermost wrapper that has one, else the task).

    Args:
        task_id: The task to make (with ``env_kwargs``).
        trials: Length of the stream.
        seed: Seed of the env's ``reset``.
        env_kwargs: Task arguments.

    Returns:
        ``(trials,)`` 0/1 floats, or None if the task has no ``stream_observer``.
    """
    env = neurogym.make(task_id, **(env_kwargs or {}))
    try:
        observer = env.get_wrapper_attr("stream_observer")
    except AttributeError:
        return None
    correct: np.ndarray = np.asarray(observer(neurogym.batch(env, trials, seed=seed)), float)
    return correct


def memory_ceiling(
    task_id: str, trials: int = 20_000, seed: int = 1, env_kwargs: dict[str, Any] | None = None
) -> float | None:
    """Strict accuracy of the task's observer of the stream; None if it has none.

    The ceiling, with memory of earlier trials and of the outcomes of its own answers, of a
    task whose hidden state runs on across trials (each ``stream_observer``'s docstring says
    what the observer knows); beside it, :func:`observed_ceiling` is the memoryless one.
    The trials are :func:`stream_correct`'s stream.

    Args:
        task_id: The task to make (with ``env_kwargs``).
        trials: Length of the stream (20,000 trials take ~15 s with cross-trial state).
        seed: Seed of the env's ``reset``.
        env_kwargs: Task arguments.
    """
    correct = stream_correct(task_id, trials, seed, env_kwargs)
    return None if correct is None else float(correct.mean())
