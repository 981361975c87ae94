"""{{ cookiecutter.task_class }}: a working task skeleton; make it yours where it says TODO."""

from __future__ import annotations

from typing import Any

import numpy as np
from neurogym import BatchBuilder, StandardDecision, TrialEnv, spaces
from neurogym.rules import STANDARD_REWARDS

__all__ = ["{{ cookiecutter.task_class }}"]


class {{ cookiecutter.task_class }}(TrialEnv):
    """TODO: say in one line what the agent does (as baked: report which of two cues is on).

    A skeleton that already works: it passes ``neurogym.testing.check_task`` and the plugin's
    tests, so replace it part by part where it says TODO and run ``pytest`` as you go.
    neurogym's guide docs/writing-a-task.md explains every part, with complete examples (a
    two-alternative choice on noisy evidence, go/no-go, a reward of one's own). The sections
    below are what ``neurogym info`` shows: rewrite each for your task.

    ## Description
    TODO. As baked: after fixation, one of two cue channels turns on; the agent reports which
    one in the decision period.

    ## Trial structure (periods)
    ``fixation`` (300 ms) → ``cue`` (500 ms) → ``decision`` (300 ms).

    ## Observation space (named dims)
    ``fixation`` (0): 1 before the decision period. ``cue`` (1, 2): 1 on the correct channel
    during the cue, 0 otherwise.

    ## Action space
    ``fixation`` (0), ``choice`` (1, 2).

    ## Reward
    ``abort`` (-0.1) for a choice before the decision period; the first choice in the decision
    period ends the trial with ``correct`` (+1) or ``fail`` (0).

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict ``{"abort": -0.1, "correct": 1.0, "fail": 0.0}``.
    timing: Overrides of the timing dict.

    Trial dict: ``ground_truth`` (0 or 1: the channel that is on), which can be forced:
    ``env.new_trial(ground_truth=1)``.

    ## References
    TODO: the paper the task comes from (its title and link are written in ``_plugin.py``).

    ## Version history
    v0: initial version.
    """

    # TODO: your rewards (STANDARD_REWARDS: abort -0.1, correct +1, fail 0) and your periods
    # with their durations in ms: a number or a distribution such as ("uniform", (500, 1000))
    # or neurogym.TruncExp(200, 100, 400). `rewards=` and `timing=` override them key by key.
    default_rewards = STANDARD_REWARDS
    default_timing = {"fixation": 300, "cue": 500, "decision": 300}
    # TODO: which periods require fixation and when a choice counts. A reward no rule
    # describes goes in a `_step` method instead (docs/writing-a-task.md §2).
    rule = StandardDecision(fixation_periods=("fixation", "cue"), decision_periods=("decision",))

    def __init__(
        self,
        dt: float = 100,
        rewards: dict[str, float] | None = None,
        timing: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()  # passes on dt, and rewards and timing over the defaults above
        # TODO: your own arguments: add them to the signature and check each with
        # neurogym.validate, e.g. self.sigma = validate.number(sigma, "sigma", minimum=0).
        # TODO: your observation and action spaces, each dim named: the names are what
        # `where=` refers to below.
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(3,), dtype=np.float32, name={"fixation": 0, "cue": [1, 2]}
        )
        self.action_space = spaces.Discrete(3, name={"fixation": 0, "choice": [1, 2]})

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        """Build ``b.n`` trials at once: every value has one row per trial."""
        # TODO: your trial variables, each drawn through the builder (b.choice, b.uniform,
        # b.rng): reset(seed=...) then fixes them, and a forced value (new_trial(name=...)) wins.
        ground_truth = b.choice("ground_truth", np.arange(2))
        # TODO: your periods, in order; their durations come from the timing.
        b.add_period(["fixation", "cue", "decision"])
        # TODO: your observations (b.add_input, b.set_input, b.add_noise), per period and dim.
        b.add_input(1, ["fixation", "cue"], where="fixation")
        b.add_input(1, "cue", where="cue", index=ground_truth)  # one-hot: the correct channel
        # TODO: your ground truth: the correct action, here choice 1 or 2 in the decision.
        b.set_target(ground_truth, "decision", where="choice")
        return {}
