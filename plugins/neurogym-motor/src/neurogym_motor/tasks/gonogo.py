"""Go/no-go: after a delay, respond to a go cue and withhold on a no-go cue."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, spaces

__all__ = ["GoNogo"]


class GoNogo(ngym.TrialEnv):
    """Respond (go) in the decision period after a go cue; withhold after a no-go cue.

    ## Description
    A go or a no-go stimulus is shown, followed by a delay and a decision period. On go trials
    the agent must go during the decision period; on no-go trials it must keep fixating until
    the trial ends (the paradigm of Zhang et al. 2019, in mice).

    ## Trial structure (periods)
    ``fixation`` (0 ms, as upstream) → ``stimulus`` (500 ms) → ``delay`` (500 ms) →
    ``decision`` (500 ms): 15 steps at ``dt=100``.

    ## Observation space (named dims)
    ``Box(-inf, inf, (3,), float32)``: ``fixation`` (0) is 1 in every period but the
    decision; ``nogo`` (1) is 1 during the stimulus of a no-go trial, ``go`` (2) during the
    stimulus of a go trial. Every dim is 0 in the decision period. No noise.

    ## Action space
    ``Discrete(2)``: ``fixation`` (0), ``go`` (1).

    ## Reward
    ``abort`` (-0.1) for a go in the fixation period (the trial goes on; the period is empty
    by default). A go in the decision period ends the trial: ``correct`` (+1, performance 1) on
    a go trial, ``fail`` (-0.5) on a no-go trial. A go trial that times out without a
    response pays ``miss`` (-0.5); a no-go trial withheld to its end has performance 1 and
    reward 0. A go in the stimulus or delay costs nothing. This is the declarative
    :class:`neurogym.GoNoGoDecision` rule, so vector envs step the task natively.

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).

    Trial dict: ``ground_truth`` (1 go, 0 no-go; can be forced, one of ``choices``).

    ## References
    Zhang et al. (2019), "Active information maintenance in working memory by a
    sensory cortex", eLife 8:e43191.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, names, periods, rewards, trial-dict
    keys), except that a no-go trial withheld to its end reports performance 1 in every trial
    (upstream set it when generating a trial, but its ``step`` reset the performance right
    after generating the next trial, so only an episode's first trial reported it) and a
    forced ``ground_truth`` must be 0 or 1. Trials are generated batch-natively from the env's
    seeded generator.
    """

    default_rewards: ClassVar[dict[str, float]] = {
        "abort": -0.1,
        "correct": +1.0,
        "fail": -0.5,
        "miss": -0.5,
    }
    default_timing: ClassVar[dict[str, Any]] = {
        "fixation": 0,
        "stimulus": 500,
        "delay": 500,
        "decision": 500,
    }

    rule = ngym.GoNoGoDecision()  # withholding on a no-go trial is correct; a go miss pays "miss"

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.actions = [0, 1]
        self.choices = [0, 1]
        self.abort = False
        self.observation_space = spaces.Box(
            -np.inf,
            np.inf,
            shape=(3,),
            dtype=np.float32,
            name={"fixation": 0, "nogo": 1, "go": 2},
        )
        self.action_space = spaces.Discrete(2, name={"fixation": 0, "go": 1})

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        go = b.choice("ground_truth", np.asarray(self.choices))
        b.add_period(["fixation", "stimulus", "delay", "decision"])
        b.add_input(1, None, where="fixation")
        cue = (np.arange(2)[None, :] == np.asarray(go)[:, None]).astype(np.float32)
        b.add_input(cue, "stimulus", where=slice(1, 3))
        b.set_input(0, "decision")
        b.set_target(go, "decision")
        return {}
