"""1-2-3-go: three pulses mark an interval twice; respond one more interval after the third."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, TruncExp, spaces, validate
from neurogym.rules import STANDARD_REWARDS
from neurogym_motor.tasks._production import production_reward, sampled_duration

__all__ = ["OneTwoThreeGo"]

_COPIES = ("interval2", "interval3")
"""Periods whose duration is the trial's interval (their timing entries are placeholders)."""


class OneTwoThreeGo(ngym.TrialEnv):
    """Reproduce an interval shown twice by three evenly spaced pulses.

    ## Description
    After a fixation period and a target period, three stimulus pulses (s1, s2, s3) are
    separated by the same interval; the agent must respond (go) one such interval after the
    third pulse (Egger, Remington, Chang & Jazayeri 2019).

    ## Trial structure (periods)
    ``fixation`` (truncated exponential, mean 400 ms in [100, 800)) → ``target`` (mean 1000
    ms in [500, 1500)) → ``s1`` (100 ms) → ``interval1`` (one of 600, 700, 800, 900, 1000 ms)
    → ``s2`` (100 ms) → ``interval2`` → ``s3`` (100 ms) → ``interval3`` → ``response``
    (1000 ms). ``interval2`` and ``interval3`` last as long as ``interval1`` (their timing
    entries, 0, are placeholders as upstream; setting another value raises). Sampled
    durations are floored to ``dt`` (80 ms by default: the pulses last 80 ms, the intervals
    560, 640, 800, 880 or 960 ms): 43 to 78 steps per trial, 58.6 on average.

    ## Observation space (named dims)
    ``Box(-inf, inf, (3,), float32)``: ``fixation`` (0) is 1 during the **whole** trial (as
    upstream: there is no fixation offset); ``stimulus`` (1) is 1 during s1, s2 and s3;
    ``target`` (2) is 1 from the end of the fixation period on. No noise.

    ## Action space
    ``Discrete(2)``: ``fixation`` (0), ``go`` (1).

    ## Reward
    A go in interval3 or response ends the trial, graded against the interval measured from
    the end of s3: ``eps = |t - end(s3) - interval|``, ``thr = prod_margin * interval + 25``
    ms; ``fail`` (0) if ``eps > thr``, else ``max((1 - eps / thr) ** 1.5, 0.1) * correct``
    and performance 1. A go anywhere else costs ``abort`` (-0.1; the trial goes on). Without
    a go the trial times out with reward 0. It needs ``_step``: responses are scored in two
    periods, with a graded reward. The ground truth is 1 (go) during the response period,
    whose first step earns the full reward.

    ## Arguments
    dt: Step size in ms (80).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form; not ``interval2`` or
        ``interval3``).
    prod_margin: The tolerance's fraction of the interval (0.2); >= 0.

    Trial dict: ``interval`` (ms: ``timing["interval1"]`` sampled and floored to ``dt``, or
    forced and used as given; it sets all three interval periods).

    ## References
    Egger, Remington, Chang & Jazayeri (2019), "Internal models of sensorimotor integration
    regulate cortical dynamics", Nat. Neurosci. 22:1871-1882.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, names, periods, rewards, trial-dict
    keys), except that a forced ``interval`` also sets the three interval periods (upstream
    only scored against it) and setting ``interval2``/``interval3`` raises (upstream
    ignored them). The truncated exponentials are drawn from the env's generator (upstream's
    ``TruncExp`` kept its own random state). Trials are generated batch-natively.
    """

    default_rewards: ClassVar[Mapping[str, float]] = STANDARD_REWARDS

    # strict score (neurogym_apps.train.evaluate): the env's own performance, 1 for a response
    # inside the tolerance window, which may open before the ground truth switches to "go"
    strict_criterion = "performance"

    def __init__(
        self,
        dt: float = 80,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        prod_margin: float = 0.2,
    ) -> None:
        super().__init__(dt=dt, rewards=rewards)
        self.prod_margin = validate.number(prod_margin, "prod_margin", minimum=0)
        self.timing = {
            "fixation": TruncExp(400, 100, 800),
            "target": TruncExp(1000, 500, 1500),
            "s1": 100,
            "interval1": (600, 700, 800, 900, 1000),
            "s2": 100,
            "interval2": 0,
            "s3": 100,
            "interval3": 0,
            "response": 1000,
        }
        given = dict(timing or {})
        copies = [key for key in _COPIES if given.get(key, 0) != 0]
        if copies:
            raise ValueError(
                f"timing[{copies[0]!r}] cannot be set (got {given[copies[0]]!r}; only its "
                "placeholder 0): interval2 and interval3 last as long as interval1 in every "
                "trial; set timing['interval1'] instead"
            )
        if timing:
            self.timing.update(timing)
        self.abort = False
        self.observation_space = spaces.Box(
            -np.inf,
            np.inf,
            shape=(3,),
            dtype=np.float32,
            name={"fixation": 0, "stimulus": 1, "target": 2},
        )
        self.action_space = spaces.Discrete(2, name={"fixation": 0, "go": 1})

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        interval = sampled_duration(b, "interval", "interval1", self.dt)
        b.add_period(["fixation", "target", "s1"])
        b.add_period("interval1", duration=interval, after="s1")
        b.add_period("s2", after="interval1")
        b.add_period("interval2", duration=interval, after="s2")
        b.add_period("s3", after="interval2")
        b.add_period("interval3", duration=interval, after="s3")
        b.add_period("response", after="interval3")
        b.add_input(1, None, where="fixation")
        b.add_input(1, ["s1", "s2", "s3"], where="stimulus")
        b.add_input(1, None, where="target")
        b.set_input(0, "fixation", where="target")
        b.set_target(1, "response")
        return {}

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        reward, new_trial = 0.0, False
        if action == 0:  # waiting is never scored (action 1 is the only other one)
            return self.ob_now, reward, False, False, {"new_trial": new_trial}
        if self.in_period("interval3") or self.in_period("response"):
            if action == 1:
                new_trial = True
                trial = self.trial
                assert trial is not None
                produced = self.t - self.end_t["s3"]
                reward, within = production_reward(
                    produced, float(trial["interval"]), self.prod_margin, self.rewards
                )
                if within:
                    self.performance = 1
        elif action != 0:
            new_trial = self.abort
            reward = self.rewards["abort"]
        return self.ob_now, reward, False, False, {"new_trial": new_trial}
