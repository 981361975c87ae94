"""Upstream NeuroGym 2.3.1's side of the benchmark; runs in its own venv (bench/compare.py)."""

from __future__ import annotations

import warnings
from typing import Any

warnings.simplefilter("ignore")

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
import workloads  # noqa: E402

import neurogym as ngym  # noqa: E402
from neurogym.envs.registration import all_envs  # noqa: E402


class Upstream:
    """neurogym==2.3.1 from PyPI (gymnasium 0.29)."""

    @staticmethod
    def names() -> list[str]:
        """The adapter's ``names``."""
        return [env_id.rsplit("-v", 1)[0] for env_id in all_envs()]

    @staticmethod
    def make(name: str) -> Any:
        """The adapter's ``make``."""
        return ngym.make(f"{name}-v0")

    @staticmethod
    def dataset(name: str, batch_size: int, seq_len: int) -> Any:
        """The adapter's ``dataset``."""
        return ngym.Dataset(f"{name}-v0", batch_size=batch_size, seq_len=seq_len)

    @staticmethod
    def make_vec(name: str, n: int) -> Any:
        """The adapter's ``make_vec``."""
        return gymnasium.vector.SyncVectorEnv([lambda: ngym.make(f"{name}-v0")] * n)

    @classmethod
    def mixed(cls, size: int) -> float:
        """Trials/s of its Dataset over ScheduleEnvs(all yang19 envs, env_input=True).

        Upstream has no whole-batch API; ``size`` only labels the row it is compared with.
        """
        from neurogym.utils import scheduler
        from neurogym.wrappers import ScheduleEnvs

        if not hasattr(cls, "_mixed_rate"):
            envs = [ngym.make(f"yang19.{name}-v0") for name in workloads.YANG19]
            env = ScheduleEnvs(envs, scheduler.RandomSchedule(len(envs)), env_input=True)
            batch, seq = workloads.DATASET_BATCH, workloads.DATASET_SEQ
            ds = ngym.Dataset(env, batch_size=batch, seq_len=seq)
            steps = workloads.rate(ds, batch * seq)
            length = np.mean([cls.mean_trial_length(f"yang19.{n}") for n in workloads.YANG19])
            cls._mixed_rate = steps / length
        return float(cls._mixed_rate)

    @staticmethod
    def mean_trial_length(name: str) -> float:
        """The adapter's ``mean_trial_length``."""
        env = ngym.make(f"{name}-v0").unwrapped
        env.seed(0)
        env.reset()
        lengths = []
        for _ in range(200):
            env.new_trial()
            lengths.append(len(env.ob))
        return float(np.mean(lengths))


if __name__ == "__main__":
    workloads.run(Upstream)
