"""stable-baselines3 style models (``model.predict``) as batch policies for closed-loop runs.

Duck-typed: nothing here imports stable-baselines3, so ``neurogym_apps.train`` works without it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["is_predict_model", "predict_policy", "predict_task"]


def is_predict_model(model: Any) -> bool:
    """True for a stable-baselines3 style model (``predict`` but no neurogym ``act``)."""
    return callable(getattr(model, "predict", None)) and not callable(getattr(model, "act", None))


def predict_task(
    model: Any, task: str | None, env_kwargs: dict[str, Any] | None
) -> tuple[str, dict[str, Any]]:
    """The task id and arguments to evaluate a predict-model on.

    Given ones win; otherwise they come from the env the model was trained on when
    :func:`neurogym_apps.rl.as_sb3_vec_env` made it (through any ``VecEnvWrapper``).

    Raises:
        ValueError: No task was given and the model's env does not know it.
    """
    get_env = getattr(model, "get_env", None)
    env = get_env() if callable(get_env) else None
    known = getattr(env, "neurogym_task", None) if env is not None else None
    if task is None:
        task = known
    if task is None:
        raise ValueError(
            f"cannot tell which task to evaluate {type(model).__name__} on: pass task='...' "
            "(its env was not made by neurogym_apps.rl.as_sb3_vec_env, or it was loaded without "
            "one)"
        )
    if env_kwargs is None:
        same_task = task == known
        env_kwargs = dict(getattr(env, "neurogym_kwargs", {}) or {}) if same_task else {}
    return task, env_kwargs


def predict_policy(model: Any) -> tuple[Any, Any]:
    """``(act, reset_state)`` for ``run_closed_loop`` from a predict-model.

    ``act`` calls ``model.predict(obs, state=..., episode_start=..., deterministic=True)``
    for all envs at once. The state carries the recurrent state (RecurrentPPO's LSTM pair,
    None for feed-forward policies) and which rows start afresh at the next call:
    ``reset_state`` marks rows whose trial ended, so their recurrent state restarts exactly
    as stable-baselines3 restarts it at an episode start.
    """

    def act(obs: np.ndarray, state: Any, rng: np.random.Generator) -> tuple[np.ndarray, Any]:
        del rng
        hidden, starts = state if state is not None else (None, np.ones(len(obs), dtype=bool))
        actions, hidden = model.predict(
            obs, state=hidden, episode_start=starts, deterministic=True
        )
        return np.asarray(actions), (hidden, np.zeros(len(obs), dtype=bool))

    def reset_state(state: Any, rows: np.ndarray) -> Any:
        hidden, starts = state
        return hidden, starts | rows

    return act, reset_state
