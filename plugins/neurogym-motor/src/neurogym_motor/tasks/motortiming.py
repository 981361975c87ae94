"""Motor timing: a cue names one of two intervals; after the set cue, produce that interval."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, spaces, validate
from neurogym.rules import STANDARD_REWARDS
from neurogym_motor.tasks._production import go_target, production_step, refuse_derived

__all__ = ["MotorTiming"]


class MotorTiming(ngym.TrialEnv):
    """Produce the interval (800 or 1500 ms) a cue names, timed from the end of a set cue.

    ## Description
    During the cue period one of two indicator inputs names the interval to produce; a short
    set cue follows, and the agent must respond (go) when that interval has elapsed since the
    end of the set cue (Wang, Narain, Hosseini & Jazayeri 2018). Upstream's note that the two
    intervals were meant for different effectors (actions) is not implemented there either:
    both are produced with action 1.

    ## Trial structure (periods)
    ``fixation`` (500 ms) → ``cue`` (uniform 1000-3000 ms) → ``set`` (50 ms) → ``production``
    (``2 * production`` ms). Sampled durations are floored to ``dt`` (80 ms by default), but
    the ``set`` period lasts **at least one step**: a positive ``set`` shorter than ``dt``
    (the default 50 ms at ``dt=80``) lasts ``dt``. Upstream floored it to 0, so its set cue
    was never shown; trials are therefore one step longer than upstream's at the default
    ``dt``: 39 to 81 steps (``6 + cue/80 + 1 + 20 or 37``). A ``set`` of 0 ms stays empty.

    ## Observation space
    ``Box(-inf, inf, (4,), float32)``, unnamed as upstream: dim 0 (fixation) is 1 in every
    period but production; dim ``1 + production_ind`` (the interval indicator) is 1 during cue
    and set; dim 3 (set) is 1 during set. No noise.

    ## Action space
    ``Discrete(2)``: 0 fixate, 1 go.

    ## Reward
    ``abort`` (-0.1) for a go in the fixation period (the trial goes on). A go in the
    production period ends the trial, graded against the interval measured from the end of
    the set period: ``eps = |t - end(set) - production|``, ``thr = prod_margin * production +
    25`` ms; ``fail`` (0) if ``eps > thr``, else ``max((1 - eps / thr) ** 1.5, 0.1) *
    correct`` and performance 1. Going in the cue or set period costs nothing; without a go
    the trial times out with reward 0. It needs ``_step`` for the graded reward.

    The ground truth is 0 in the production period except for one go step at index
    ``int(production / dt)`` of it (upstream's target): the full reward for 800 ms, ``(1 -
    60 / 325) ** 1.5`` for 1500 ms at ``dt=80`` (1500 is not a multiple of 80).

    ## Arguments
    dt: Step size in ms (80).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).
    prod_margin: The tolerance's fraction of the production interval (0.2); >= 0.

    Trial dict: ``production_ind`` (0 or 1; can be forced) and ``production`` (800 or 1500 ms,
    derived from it).

    ## References
    Wang, Narain, Hosseini & Jazayeri (2018), "Flexible timing by temporal scaling of cortical
    responses", Nat. Neurosci. 21:102-110.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, periods, rewards, trial-dict keys),
    except that the set period lasts at least one step (upstream's 50 ms set cue was floored
    away at the default ``dt``) and a forced ``production_ind`` must be 0 or 1. Trials are
    generated batch-natively from the env's seeded generator.
    """

    default_rewards: ClassVar[Mapping[str, float]] = STANDARD_REWARDS
    default_timing: ClassVar[dict[str, Any]] = {
        "fixation": 500,
        "cue": ("uniform", (1000, 3000)),
        "set": 50,
    }

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
        super().__init__()
        self.prod_margin = validate.number(prod_margin, "prod_margin", minimum=0)
        self.production_ind = [0, 1]
        self.intervals = [800, 1500]
        self.abort = False
        self.action_space = spaces.Discrete(2)
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(4,), dtype=np.float32)

    def _set_duration(self, b: BatchBuilder) -> np.ndarray:
        """``timing["set"]`` for the batch, floored to ``dt`` but at least one step if > 0."""
        raw = np.asarray(self.timing.spec("set").sample(b.rng, b.n), dtype=float)
        floored = np.floor(raw / self.dt + 1e-9) * self.dt
        return np.where(raw > 0, np.maximum(floored, self.dt), 0.0)

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        refuse_derived(kwargs, "production", "production_ind")
        index = b.choice("production_ind", np.asarray(self.production_ind))
        production = b.set_param("production", np.asarray(self.intervals)[index])
        b.add_period(["fixation", "cue"])
        b.add_period("set", duration=self._set_duration(b), after="cue")
        b.add_period("production", duration=2 * production, after="set")
        b.add_input(1, ["fixation", "cue", "set"], where=0)
        indicator = (np.arange(2)[None, :] == np.asarray(index)[:, None]).astype(np.float32)
        b.add_input(indicator, ["cue", "set"], where=slice(1, 3))
        b.add_input(1, "set", where=3)
        go_target(b, production, "production")
        return {}

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return production_step(self, action, timed_from="set")
