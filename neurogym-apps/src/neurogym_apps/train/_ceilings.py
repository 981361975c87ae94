"""What the learnability table measures a network against: scripted agents, ideal observers.

Both the supervised rows (``learnability.py``) and the RL rows (``_rl_rows.py``) score their
ceilings here, so an oracle is measured with the same closed loop, seeds and strict
criterion as the network and the chance baselines in :func:`~neurogym_apps.train.evaluate`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import neurogym
from neurogym_apps.train._evaluate import run_closed_loop, strict_criterion

__all__ = ["observed_ceiling", "scripted_score"]


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
