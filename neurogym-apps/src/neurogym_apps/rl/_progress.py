"""Progress of stable-baselines3 training: a bar on a terminal, plain lines in a log."""

from __future__ import annotations

import collections
import time

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from neurogym_apps.train._progress import Progress

__all__ = ["LearnProgress"]


class LearnProgress(BaseCallback):
    """``model.learn(steps, callback=LearnProgress())``: the progress of RL training on stderr.

    As :func:`neurogym_apps.train.train` shows it: a tqdm bar on a terminal or in a notebook,
    plain lines otherwise (one per tenth of the budget, at least one every 30 s, and one at the
    end), each with the env steps done, ``trial_perf`` (the mean ``info["performance"]`` of the
    last ``window`` trials that ended, played by the stochastic training policy: not the
    score of :func:`neurogym_apps.train.evaluate`, which acts deterministically), ``trials``
    (how many ended) and ``steps/s``.

    Args:
        label: What trains; default: the task of an env made by
            :func:`neurogym_apps.rl.as_sb3_vec_env`, else the algorithm's name.
        window: Trials the ``trial_perf`` mean covers.
        bar: True: a bar; False: plain lines; None: a bar on a terminal only.
    """

    def __init__(
        self, label: str | None = None, window: int = 500, bar: bool | None = None
    ) -> None:
        super().__init__()
        self.label, self.bar = label, bar
        self.performances: collections.deque[float] = collections.deque(maxlen=window)
        self.trials = 0
        self._progress: Progress | None = None
        self._first = 0

    def _on_training_start(self) -> None:
        self._first = self.model.num_timesteps
        label = self.label or getattr(self.training_env, "neurogym_task", None)
        label = str(label or type(self.model).__name__).removeprefix("neurogym/")
        total = self.locals["total_timesteps"] - self._first
        self._progress = Progress(label.removesuffix("-v0"), total, "env step", bar=self.bar)

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", ()):
            if "performance" in info and info.get("new_trial", True):
                self.performances.append(float(info["performance"]))
                self.trials += 1
        assert self._progress is not None
        done = self.model.num_timesteps - self._first
        elapsed = max(time.perf_counter() - self._progress.start, 1e-9)
        perf = float(np.mean(self.performances)) if self.performances else float("nan")
        self._progress.update(
            done, trial_perf=perf, trials=self.trials, **{"steps/s": round(done / elapsed)}
        )
        return True

    def _on_training_end(self) -> None:
        if self._progress is not None:
            self._progress.close()
