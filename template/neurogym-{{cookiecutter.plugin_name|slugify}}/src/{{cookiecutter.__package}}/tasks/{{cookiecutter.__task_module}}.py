"""A two-alternative choice: report which of two noisy stimuli is stronger."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import neurogym as ngym
import numpy as np
from neurogym import BatchBuilder, StandardDecision, spaces, validate
from neurogym.rules import STANDARD_REWARDS

__all__ = ["{{ cookiecutter.task_class }}"]

DEFAULT_COHS = (0.0, 6.4, 12.8, 25.6, 51.2)


class {{ cookiecutter.task_class }}(ngym.TrialEnv):
    """Report which of two noisy stimuli is stronger.

    The example task of the neurogym plugin template: turn it into your own task, or keep it
    as a model and add yours beside it. Every part a neurogym task has is here: periods with
    timing specs, named observation and action dims, a ground truth, rewards through a
    declarative rule and these docstring sections. Its paper, tags and description are written
    once, in its ``TaskSpec`` in ``_plugin.py``; made envs carry them in ``env.metadata``.

    ## Description
    A two-alternative forced choice on noisy evidence, as in random-dot motion discrimination
    (Britten et al. 1992). After a fixation period, two stimulus channels carry noisy signals
    whose means differ by the trial's coherence; the agent reports the stronger channel once
    the decision period starts.

    ## Trial structure (periods)
    ``fixation`` (300 ms) → ``stimulus`` (uniform in 500-1000 ms) → ``delay`` (truncated
    exponential, mean 200 ms, within 100-400 ms) → ``decision`` (300 ms).

    ## Observation space (named dims)
    ``Box(-inf, inf, (3,), float32)``: ``fixation`` (0) is 1 before the decision period;
    ``stimulus`` (1, 2) is ``0.5 ± coh / 200`` (+ for the correct channel) plus Gaussian noise
    of std ``sigma / sqrt(dt)`` during the stimulus period, 0 otherwise.

    ## Action space
    ``Discrete(3)``: ``fixation`` (0), ``choice`` (1, 2), one per stimulus channel.

    ## Reward
    ``abort`` (-0.1) for breaking fixation before the decision period (ends the trial only
    when ``abort=True``); in the decision period a choice ends the trial with ``correct`` (+1,
    performance 1) or ``fail`` (0). A trial without a choice times out with no reward.

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict ``{"abort": -0.1, "correct": 1.0, "fail": 0.0}``.
    timing: Overrides of the timing dict (any neurogym timing spec form).
    cohs: Coherences in percent, drawn uniformly per trial (0, 6.4, 12.8, 25.6, 51.2).
    sigma: Input noise, scaled by ``1 / sqrt(dt)`` (1.0).
    abort: Whether breaking fixation ends the trial (False).

    Trial dict: ``ground_truth`` (the stronger channel, 0 or 1), ``coh``. Both can be forced,
    e.g. ``env.new_trial(coh=51.2)`` or ``env.new_trials(100, ground_truth=0)``.

    ## References
    Britten, Shadlen, Newsome & Movshon (1992), "The analysis of visual motion: a comparison of
    neuronal and psychophysical performance", J. Neurosci. 12(12):4745.

    ## Version history
    v0: initial version.
    """

    # The task's rewards and periods: `rewards=` and `timing=` override them key by key.
    # STANDARD_REWARDS is {"abort": -0.1, "correct": +1.0, "fail": 0.0}; write your own dict
    # if your task pays differently.
    default_rewards: ClassVar[Mapping[str, float]] = STANDARD_REWARDS
    default_timing: ClassVar[dict[str, Any]] = {
        "fixation": 300,
        "stimulus": ("uniform", (500, 1000)),
        "delay": ngym.TruncExp(200, 100, 400),
        "decision": 300,
    }
    # Reward and trial end follow the standard fixate-then-respond rule; write `_step` instead
    # for other logic (`neurogym info` then shows why it is not vectorized).
    rule = StandardDecision(
        fixation_periods=("fixation", "stimulus", "delay"), decision_periods=("decision",)
    )
    # If a trial ever depends on earlier ones (a block counter, a curriculum), declare
    # cross_trial_state = True: batches are then consecutive trials of one env.

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        cohs: Any = None,
        sigma: float = 1.0,
        abort: bool = False,
    ) -> None:
        # Passes on dt, rewards and timing: the class declares default_rewards/default_timing.
        super().__init__()
        # neurogym.validate checks arguments with messages naming the argument and the value.
        cohs = DEFAULT_COHS if cohs is None else cohs
        self.cohs = np.array([validate.number(c, "cohs[]", minimum=0) for c in cohs])
        self.sigma = validate.number(sigma, "sigma", minimum=0) / np.sqrt(self.dt)
        self.abort = abort
        self.choices = np.arange(2)
        self.observation_space = spaces.Box(
            -np.inf,
            np.inf,
            shape=(3,),
            dtype=np.float32,
            name={"fixation": 0, "stimulus": [1, 2]},
        )
        self.action_space = spaces.Discrete(3, name={"fixation": 0, "choice": [1, 2]})

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        """Generate ``b.n`` trials at once; every array has one row per trial."""
        ground_truth = b.choice("ground_truth", self.choices)
        coh = b.choice("coh", self.cohs)
        b.add_period(["fixation", "stimulus", "delay", "decision"])
        b.add_input(1, ["fixation", "stimulus", "delay"], where="fixation")
        # +coh/200 on the correct channel, -coh/200 on the other: shape (n, 2).
        sign = np.where(self.choices[None, :] == ground_truth[:, None], 1.0, -1.0)
        b.add_input(0.5 + sign * coh[:, None] / 200, "stimulus", where="stimulus")
        b.add_noise(0, self.sigma, "stimulus", where="stimulus")
        b.set_target(ground_truth, "decision", where="choice")
        return {}
