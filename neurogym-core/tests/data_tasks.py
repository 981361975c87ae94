"""Small TrialEnvs for the data and vector-env tests (importable: subprocesses and pickling)."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from neurogym import BatchBuilder, StandardDecision, TrialEnv, TrialWrapper, spaces


class VarTask(TrialEnv):
    """A rule-based two-choice task with random timing, noise, ragged periods and abort.

    Periods: fixation (choice 100/200/300), stimulus (uniform 200-900), delay (truncated
    exponential), decision (100). Observations: fixation cue, two noisy stimulus dims.
    """

    metadata = {"paper_name": "test", "paper_link": "https://example.org", "tags": []}  # noqa: RUF012

    def __init__(
        self,
        dt: float = 100,
        abort: bool = True,
        r_tmax: float = 0.0,
        rewards: dict[str, float] | None = None,
    ) -> None:
        super().__init__(dt=dt, r_tmax=r_tmax)
        self.rule = StandardDecision(("fixation",), ("decision",))
        self.abort = abort
        self.rewards = (
            {"abort": -0.1, "correct": 1.0, "fail": -0.5} if rewards is None else rewards
        )
        self.timing = {
            "fixation": (100, 200, 300),
            "stimulus": ("uniform", (200, 900)),
            "delay": ("truncated_exponential", [200, 100, 600]),
            "decision": 100,
        }
        self.cohs = np.array([0.0, 0.2, 0.5])
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(3,), dtype=np.float32, name={"fixation": 0, "stimulus": [1, 2]}
        )
        self.action_space = spaces.Discrete(3, name={"fixation": 0, "choice": [1, 2]})

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        gt = b.choice("ground_truth", [0, 1])
        coh = b.choice("coh", self.cohs)
        b.add_period(["fixation", "stimulus", "delay", "decision"])
        b.set_param("n_steps", b.lengths)
        b.add_input(1, ["fixation", "stimulus", "delay"], where="fixation")
        signal = np.stack([1 + coh * (gt == 0), 1 + coh * (gt == 1)], axis=1)
        b.add_input(signal, "stimulus", where="stimulus")
        b.add_noise(0, 0.3, "stimulus", where="stimulus")
        b.set_target(gt, "decision", where="choice")
        return {}


class PrefetchTask(VarTask):
    """VarTask, whose single env (as every stateless batch-native task's) draws blocks."""


class OneAtATime(VarTask):
    """VarTask declaring cross-trial state: a single env generates its trials one at a time."""

    cross_trial_state = True


class StepTask(VarTask):
    """VarTask with a hand-written ``_step`` (not vectorisable): the loop fallback."""

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return super()._step(action)


class SharedDraw(VarTask):
    """Draws one value for the whole batch from ``b.rng`` (cannot be split per env)."""

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        b.set_param("shared", b.rng.random())
        return super()._new_trials(b, **kwargs)


class Scale(gymnasium.Wrapper):  # type: ignore[type-arg]
    """A step-level wrapper: scales observations (batch generation cannot honour it)."""

    def __init__(self, env: Any, factor: float = 2.0) -> None:
        super().__init__(env)
        self.factor = factor

    def step(self, action: Any) -> Any:
        ob, r, term, trunc, info = self.env.step(action)
        return ob * self.factor, r, term, trunc, info

    def reset(self, **kwargs: Any) -> Any:
        ob, info = self.env.reset(**kwargs)
        return ob * self.factor, info


class AlwaysRight(TrialWrapper):
    """A trial wrapper that forces ground truth 1 (with a vectorised batch path)."""

    def new_trial(self, **kwargs: Any) -> Any:
        kwargs["ground_truth"] = 1
        return super().new_trial(**kwargs)

    def new_trials(self, n: int, **kwargs: Any) -> Any:
        kwargs["ground_truth"] = np.ones(n, dtype=np.int64)
        return self.source.new_trials(n, **kwargs)
