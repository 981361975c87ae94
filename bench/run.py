"""This project's side of the benchmark (see bench/workloads.py); run by bench/compare.py."""

from __future__ import annotations

from typing import Any

import gymnasium
import lean_pdm
import numpy as np
import workloads

import neurogym


class Ours:
    """neurogym (this repo) with every installed plugin."""

    @staticmethod
    def names() -> list[str]:
        """The adapter's ``names``."""
        return [spec.name for spec in neurogym.tasks()]

    @staticmethod
    def make(name: str) -> Any:
        """The adapter's ``make``."""
        return neurogym.make(f"neurogym/{name}-v0")

    @staticmethod
    def dataset(name: str, batch_size: int, seq_len: int) -> Any:
        """The adapter's ``dataset``."""
        return neurogym.Dataset(
            f"neurogym/{name}-v0", batch_size=batch_size, seq_len=seq_len, seed=0
        )

    @staticmethod
    def make_vec(name: str, n: int) -> Any:
        """The adapter's ``make_vec``."""
        return gymnasium.make_vec(f"neurogym/{name}-v0", num_envs=n)

    _envs: dict[str, Any] = {}  # noqa: RUF012

    @classmethod
    def _env(cls, name: str) -> Any:
        """One env per task, made on first use (not on every call: it is timed)."""
        if name not in cls._envs:
            cls._envs[name] = cls.make(name)
        return cls._envs[name]

    @classmethod
    def batch(cls, name: str, size: int) -> Any:
        """The adapter's ``batch``."""
        return neurogym.batch(cls._env(name), size)

    @classmethod
    def new_trials(cls, name: str, size: int) -> Any:
        """``env.new_trials(size)`` of the unwrapped env (the builder alone, no wrappers)."""
        return cls._env(name).unwrapped.new_trials(size)

    @classmethod
    def by_hand(cls, size: int) -> Any:
        """PDM's batch in hand-written numpy (bench/lean_pdm.py), checked on first use."""
        env = cls._env(workloads.VECTOR_TASK).unwrapped  # lean_pdm.py writes PDM's trials
        if not cls._checked:
            lean_pdm.check(env, size)
            cls._checked = True
        return lean_pdm.lean_batch(env, size)

    _checked = False

    @classmethod
    def mixed(cls, size: int) -> float:
        """Trials/s of ``neurogym.batch`` over ``yang19.all`` (mixed tasks, rule input)."""
        env = cls.make("yang19.all")
        return workloads.rate(lambda: neurogym.batch(env, size), size)

    @classmethod
    def mean_trial_length(cls, name: str) -> float:
        """The adapter's ``mean_trial_length``."""
        env = cls.make(name).unwrapped
        env.reset(seed=0)
        lengths = []
        for _ in range(200):
            env.new_trial()
            lengths.append(len(env.ob))
        return float(np.mean(lengths))


if __name__ == "__main__":
    workloads.run(Ours)
