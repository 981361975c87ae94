"""Ready-set-go: measure the interval between two cues, then produce it (times a gain)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, spaces, validate
from neurogym.rules import STANDARD_REWARDS
from neurogym_motor.tasks._production import (
    go_target,
    production_step,
    refuse_derived,
    sampled_duration,
)

__all__ = ["ReadySetGo"]


class ReadySetGo(ngym.TrialEnv):
    """Measure the interval between a ready and a set cue; produce it, scaled by ``gain``.

    ## Description
    A ready pulse, a random ``measure`` interval, then a set pulse. After the set pulse the
    agent must respond (go) when ``production = gain * measure`` has elapsed since the end of
    the measure interval (Remington, Narain, Hosseini & Jazayeri 2018).

    ## Trial structure (periods)
    ``fixation`` (100 ms) and ``ready`` (83 ms) one after the other; ``measure`` (uniform
    800-1500 ms) starts where the fixation ends, so it **overlaps** ``ready``; ``set`` (83 ms)
    follows the measure, and ``production`` (``2 * production`` ms) follows the set.
    Sampled durations are floored to ``dt`` (80 ms by default: the 83 ms pulses last 80 ms, and
    the fixation 80 ms). This is upstream's timing, kept on purpose: 32 to 56 steps per trial
    at the defaults (``2 + 3 * measure / 80``).

    ## Observation space (named dims)
    ``Box(-inf, inf, (3,), float32)``: ``fixation`` (0) is 1 in every step but the production
    period; ``ready`` (1) is 1 during ready and ``set`` (2) during set. No noise.

    ## Action space
    ``Discrete(2)``: ``fixation`` (0), ``go`` (1).

    ## Reward
    ``abort`` (-0.1) for a go in the fixation period (the trial goes on). A go in the
    production period ends the trial; the produced interval is measured from the **end of the
    measure period** (the start of the set pulse, as upstream), ``eps = |t - end(measure) -
    production|`` and ``thr = prod_margin * production + 25`` ms: ``fail`` (0) if ``eps >
    thr``, else ``max((1 - eps / thr) ** 1.5, 0.1) * correct`` and performance 1. Going
    elsewhere costs nothing; without a go the trial times out with reward 0. It needs
    ``_step`` for the graded reward.

    The ground truth is 0 in the production period except for one go step at index
    ``int(production / dt)`` of it (upstream's target). Because the reward counts from the
    start of the set pulse while that index counts from its end, the go step of the target is
    one set pulse (80 ms) late: at the defaults it earns ``(1 - 80 / thr) ** 1.5``, and the
    full reward is one step earlier.

    ## Arguments
    dt: Step size in ms (80).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).
    gain: The production interval is ``gain * measure`` (1); a number > 0.
    prod_margin: The tolerance's fraction of the production interval (0.2); >= 0.

    Trial dict: ``measure`` (ms, sampled and floored to ``dt``, or forced and used as given:
    it sets the measure period), ``gain`` (the env's, or forced per trial) and ``production``
    (``gain * measure``, derived).

    ## References
    Remington, Narain, Hosseini & Jazayeri (2018), "Flexible sensorimotor computations through
    rapid reconfiguration of cortical dynamics", Neuron 98(5):1005-1019.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, names, periods and their overlap,
    rewards, trial-dict keys), except that a forced ``measure`` sets the measure period and
    the production (upstream only recorded it and built the trial from the sampled measure);
    forcing ``production`` raises; ``gain`` and ``prod_margin`` are checked.
    Trials are generated batch-natively from the env's seeded generator.
    """

    default_rewards: ClassVar[Mapping[str, float]] = STANDARD_REWARDS
    default_timing: ClassVar[dict[str, Any]] = {
        "fixation": 100,
        "ready": 83,
        "measure": ("uniform", (800, 1500)),
        "set": 83,
    }

    # strict score (neurogym_apps.train.evaluate): the env's own performance, 1 for a response
    # inside the tolerance window, which may open before the ground truth switches to "go"
    strict_criterion = "performance"

    def __init__(
        self,
        dt: float = 80,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        gain: float = 1,
        prod_margin: float = 0.2,
    ) -> None:
        super().__init__()
        self.prod_margin = validate.number(prod_margin, "prod_margin", minimum=0)
        self.gain = validate.number(gain, "gain", minimum=0, exclusive_minimum=True)
        self.abort = False
        self.observation_space = spaces.Box(
            -np.inf,
            np.inf,
            shape=(3,),
            dtype=np.float32,
            name={"fixation": 0, "ready": 1, "set": 2},
        )
        self.action_space = spaces.Discrete(2, name={"fixation": 0, "go": 1})

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        refuse_derived(kwargs, "production", "measure and gain")
        measure = sampled_duration(b, "measure", "measure", self.dt)
        gain = b.forced("gain", number=True)
        if gain is None:
            gain = b.set_param("gain", self.gain)
        gain = np.asarray(gain, dtype=float)
        if not np.all(np.isfinite(gain)) or np.any(gain <= 0):
            raise ValueError(f"forced gain must be finite numbers > 0, got {kwargs['gain']!r}")
        production = b.set_param("production", measure * gain)
        b.add_period(["fixation", "ready"])
        b.add_period("measure", duration=measure, after="fixation")
        b.add_period("set", after="measure")
        b.add_period("production", duration=2 * production, after="set")
        b.add_input(1, None, where="fixation")
        b.set_input(0, "production", where="fixation")
        b.add_input(1, "ready", where="ready")
        b.add_input(1, "set", where="set")
        go_target(b, production, "production")
        return {}

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return production_step(self, action, timed_from="measure")
