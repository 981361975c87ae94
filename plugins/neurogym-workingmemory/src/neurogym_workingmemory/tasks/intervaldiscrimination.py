"""Interval discrimination: which of two successive intervals lasted longer?"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, StandardDecision, spaces, validate
from neurogym.rules import STANDARD_REWARDS

__all__ = ["IntervalDiscrimination"]


class IntervalDiscrimination(ngym.TrialEnv):
    """Compare the durations of two stimuli separated by a delay.

    ## Description
    Two stimuli of random duration are shown one after the other; after a second delay the
    agent reports which one lasted longer (Genovesio, Tsujimoto & Wise 2009). Equal durations
    count as the second one being longer, as upstream.

    ## Trial structure (periods)
    ``fixation`` (300 ms) → ``stim1`` (uniform 300-600 ms) → ``delay1`` (uniform 800-1500 ms)
    → ``stim2`` (uniform 300-600 ms) → ``delay2`` (500 ms) → ``decision`` (300 ms). Durations
    are floored to ``dt`` (80 ms by default): 29 to 43 steps per trial.

    ## Observation space (named dims)
    ``Box(-inf, inf, (3,), float32)``: ``fixation`` (0) is 1 in every period but the decision;
    ``stim1`` (1) is 1 during stim1 and ``stim2`` (2) during stim2. There is no noise.

    ## Action space
    ``Discrete(3)``: ``fixation`` (0), ``choice1`` (1: the first was longer), ``choice2`` (2).

    ## Reward
    ``abort`` (-0.1) for a non-zero action in the fixation period (the trial goes on). In the
    decision period any response ends the trial with ``correct`` (+1, performance 1) or
    ``fail`` (0).

    ## Arguments
    dt: Step size in ms (80).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).

    Trial dict: ``duration1`` and ``duration2`` (the durations in ms, floored to ``dt`` as
    upstream's ``sample_time`` did), ``ground_truth`` (1 if ``duration1 > duration2``, else 2:
    ties go to 2). ``duration1`` and ``duration2`` can be forced (upstream ignored forced
    kwargs).

    ## References
    Genovesio, Tsujimoto & Wise (2009), "Feature- and order-based timing representations in
    the frontal cortex", Neuron 63(2):254-266.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, names, periods, rewards, trial-dict
    keys); the random durations are declarative timing specs (``("uniform", (300, 600))``,
    equal in distribution to upstream's lambdas); trials are generated batch-natively from
    the env's seeded generator, and the decision rule is declared, so vector envs step the
    task natively.
    """

    default_rewards: ClassVar[Mapping[str, float]] = STANDARD_REWARDS
    default_timing: ClassVar[dict[str, Any]] = {
        "fixation": 300,
        "stim1": ("uniform", (300, 600)),
        "delay1": ("uniform", (800, 1500)),
        "stim2": ("uniform", (300, 600)),
        "delay2": 500,
        "decision": 300,
    }

    rule = StandardDecision(fixation_periods=("fixation",), decision_periods=("decision",))

    def __init__(
        self,
        dt: float = 80,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.abort = False
        self.choices = np.array([1, 2])
        self.observation_space = spaces.Box(
            -np.inf,
            np.inf,
            shape=(3,),
            dtype=np.float32,
            name={"fixation": 0, "stim1": 1, "stim2": 2},
        )
        self.action_space = spaces.Discrete(3, name={"fixation": 0, "choice1": 1, "choice2": 2})

    def _ordered_as_forced(
        self, b: BatchBuilder, duration1: np.ndarray, duration2: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Durations whose order gives a forced ``ground_truth`` (1: the first is longer).

        Trial wrappers (RandomGroundTruth, SideBias, ...) force it. Drawn durations are swapped
        where they disagree; a tie (the shorter floored durations can be equal) is drawn again
        where the first must be longer. Forced durations must agree with it.
        """
        forced = b.forced("ground_truth")
        if forced is None:
            return duration1, duration2
        validate.integers_in_range(forced, "ground_truth", 1, 2)
        first = forced == 1
        if "duration1" in b.kwargs or "duration2" in b.kwargs:
            if np.any((duration1 > duration2) != first):
                raise ValueError(
                    f"forced ground_truth {forced.tolist()!r} disagrees with the forced "
                    "durations (1 means duration1 > duration2); force one of them"
                )
            return duration1, duration2
        d1, d2 = duration1.copy(), duration2.copy()
        for _ in range(100):
            ties = first & (d1 == d2)
            if not ties.any():
                break
            d1[ties] = self._floored(self.timing.spec("stim1").sample(b.rng, int(ties.sum())))
            d2[ties] = self._floored(self.timing.spec("stim2").sample(b.rng, int(ties.sum())))
        else:
            raise ValueError(
                "cannot draw durations with duration1 > duration2 from the timing "
                f"{self.timing['stim1']!r} and {self.timing['stim2']!r} at dt={self.dt}"
            )
        swap = (d1 > d2) != first
        d1[swap], d2[swap] = d2[swap], d1[swap].copy()
        return b.set_param("duration1", d1), b.set_param("duration2", d2)

    def _floored(self, raw: np.ndarray) -> np.ndarray:
        return np.floor(np.asarray(raw, dtype=float) / self.dt + 1e-9) * self.dt

    def _durations(self, b: BatchBuilder, name: str, period: str) -> np.ndarray:
        """Forced durations, or ``timing[period]`` sampled for the batch, floored to ``dt``."""
        forced = b.forced(name)
        if forced is None:
            raw = self.timing.spec(period).sample(b.rng, b.n)
        elif forced.dtype.kind not in "iuf" or np.any(forced < 0):  # (bools, strings, < 0)
            raise ValueError(
                f"forced {name} must be a duration in ms >= 0 (one, or one per trial), got "
                f"{b.kwargs[name]!r}"
            )
        else:
            raw = forced
        return b.set_param(name, self._floored(raw))

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        duration1 = self._durations(b, "duration1", "stim1")
        duration2 = self._durations(b, "duration2", "stim2")
        duration1, duration2 = self._ordered_as_forced(b, duration1, duration2)
        ground_truth = b.set_param("ground_truth", np.where(duration1 > duration2, 1, 2))
        periods = ["fixation", "stim1", "delay1", "stim2", "delay2", "decision"]
        b.add_period(periods, duration=[None, duration1, None, duration2, None, None])
        b.add_input(1, ["fixation", "stim1", "delay1", "stim2", "delay2"], where="fixation")
        b.add_input(1, "stim1", where="stim1")
        b.add_input(1, "stim2", where="stim2")
        b.set_target(ground_truth, "decision")
        return {}
