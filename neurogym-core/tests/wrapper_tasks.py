"""Small TrialEnvs for the wrapper tests (importable, so envs pickle)."""

from __future__ import annotations

from typing import Any

import numpy as np

from neurogym import BatchBuilder, StandardDecision, TrialEnv, spaces


class Toy(TrialEnv):
    """Two-choice toy task: fixation 100, stimulus 300, decision 100 ms (5 steps at dt=100).

    ## Description
    The stimulus dim of the correct choice shows ``value``; the decision rewards it.
    """

    metadata = {  # noqa: RUF012
        "paper_name": "toy",
        "paper_link": "https://example.org",
        "tags": ["toy"],
    }
    rule = StandardDecision()

    def __init__(self, dt: float = 100, value: float = 1.0, stimulus: float = 300) -> None:
        super().__init__(dt=dt)
        self.value = value
        self.choices = np.arange(2)
        self.rewards = {"abort": -0.1, "correct": 1.0, "fail": 0.0}
        self.timing = {"fixation": 100, "stimulus": stimulus, "decision": 100}
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(3,), dtype=np.float32, name={"fixation": 0, "stimulus": [1, 2]}
        )
        self.action_space = spaces.Discrete(3, name={"fixation": 0, "choice": [1, 2]})

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        gt = b.choice("ground_truth", self.choices)
        b.add_period(["fixation", "stimulus", "decision"])
        b.add_input(1, "fixation", where="fixation")
        b.add_input(np.eye(2)[gt] * self.value, "stimulus", where="stimulus")
        b.set_target(gt, "decision", where="choice")
        return {}


class Counter(TrialEnv):
    """Upstream-style task whose observation is the constant ``value`` (trials of ``steps``).

    ## Description
    Used to tell envs apart in schedule tests.
    """

    metadata = {  # noqa: RUF012
        "paper_name": "counter",
        "paper_link": "https://example.org",
        "tags": ["toy"],
    }

    def __init__(self, value: float = 0.0, steps: int = 3, dt: float = 100) -> None:
        super().__init__(dt=dt)
        self.value = value
        self.steps = steps
        self.choices = np.arange(2)
        self.timing = {"stimulus": steps * dt}
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(2,), dtype=np.float32, name={"value": 0, "noise": 1}
        )
        self.action_space = spaces.Discrete(2)

    def _new_trial(self, **kwargs: Any) -> dict[str, Any]:
        self.add_period("stimulus")
        self.add_ob(self.value, "stimulus", where=0)
        self.add_ob(self.rng.random(), "stimulus", where=1)
        self.set_groundtruth(1, "stimulus")
        return {"value": self.value, **kwargs}

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return self.ob_now, float(action), False, False, {}
