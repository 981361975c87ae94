"""The reach family of Yang et al. 2019: go, anti, rtgo, rtanti, dlygo, dlyanti.

One batch-native generator (:class:`ReachTask`) builds all six; the subclasses only fix
``anti``, ``reaction`` and the default delay, as upstream's factories did.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from neurogym import BatchBuilder, validate
from neurogym_multitask.tasks._ring import RingTask, gaussian_bump

__all__ = ["Anti", "DlyAnti", "DlyGo", "Go", "ReachTask", "RtAnti", "RtGo"]

_TIMING = {"fixation": 500, "stimulus": 500, "delay": 0, "decision": 500}


class ReachTask(RingTask):
    """Saccade to a stimulus direction (pro) or to the opposite direction (anti).

    ## Description
    A Gaussian bump ``0.8 exp(-d^2/2)`` (``d`` the circular distance in units of ``pi/8``)
    appears on one modality's ring at direction ``theta[ground_truth]`` (pro) or
    ``theta[ground_truth] + pi`` (anti). When the fixation input turns off, the agent saccades
    to ``theta[ground_truth]``. The modality is drawn per trial, independently. There is no
    input noise (as upstream).

    ## Trial structure (periods)
    ``fixation`` (500 ms) -> ``stimulus`` (500 ms) -> ``delay`` (0 ms) -> ``decision``
    (500 ms): 15 steps at ``dt=100``. With ``reaction=True``: ``fixation`` (500 ms) ->
    ``decision`` (500 ms), the stimulus shown during the decision: 10 steps.

    ## Observation space (named dims)
    ``Box(-inf, inf, (1 + 2 * dim_ring,), float32)``: ``fixation`` (0) is 1 before the decision
    period; ``stimulus_mod1`` (1..dim_ring) and ``stimulus_mod2`` (dim_ring+1..2*dim_ring)
    carry the bump in the trial's modality during the stimulus (``reaction``: decision) period.

    ## Action space
    ``Discrete(1 + dim_ring)``: ``fixation`` (0), ``choice`` (1..dim_ring): direction ``k`` is
    action ``k + 1``.

    ## Reward
    ``abort`` (-0.1) for a non-zero action in the fixation period (the trial goes on). The first
    response in the decision period ends the trial with ``correct`` (+1, performance 1) or
    ``fail`` (0).

    ## Arguments
    dt: Step size in ms (100).
    anti: Show the stimulus opposite the target (the subclass sets it).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).
    dim_ring: Units per modality ring, i.e. possible directions (16).
    reaction: Reaction-time version: no stimulus or delay period.

    Trial dict: ``ground_truth`` (target direction index, ``0..dim_ring-1``), ``anti`` and
    ``modality`` (0 or 1); all three can be forced.

    ## References
    Yang, Joglekar, Song, Newsome & Wang (2019), "Task representations in neural networks
    trained to perform many cognitive tasks", Nat. Neurosci. 22:297-306.

    ## Version history
    v0: as upstream NeuroGym 2.3.1's ``_Reach`` in its two-modality ``ScheduleEnvs``, as one
    batch-native task with the modality as a trial variable.
    """

    default_anti = False
    default_reaction = False
    default_delay: float = 0

    def __init__(
        self,
        dt: float = 100,
        anti: bool | None = None,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        dim_ring: int = 16,
        reaction: bool | None = None,
    ) -> None:
        default = {**_TIMING, "delay": self.default_delay}
        super().__init__(dt, rewards, timing, dim_ring, default)
        self.anti = bool(self.default_anti if anti is None else anti)
        self.reaction = bool(self.default_reaction if reaction is None else reaction)
        self.choices = np.arange(self.dim_ring)

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        target = self.ring_choice(b, "ground_truth")
        forced_anti = b.forced("anti")
        anti = b.set_param(
            "anti",
            np.full(b.n, self.anti)
            if forced_anti is None
            else validate.among(forced_anti, "anti", np.array([False, True])).astype(bool),
        )
        modality = self.draw_modality(b)
        direction = np.mod(self.theta[target] + np.pi * anti, 2 * np.pi)
        stimulus = self.in_modality(gaussian_bump(direction, self.theta), modality)
        if self.reaction:
            b.add_period(["fixation", "decision"])
            b.add_input(1, "fixation", where="fixation")
            b.add_input(stimulus, "decision", where=self.stimulus_dims)
        else:
            b.add_period(["fixation", "stimulus", "delay", "decision"])
            b.add_input(1, ["fixation", "stimulus", "delay"], where="fixation")
            b.add_input(stimulus, "stimulus", where=self.stimulus_dims)
        b.set_target(target, "decision", where="choice")
        return {}


class Go(ReachTask):
    """yang19.go: saccade to the stimulus after it disappears (see :class:`ReachTask`)."""


class Anti(ReachTask):
    """yang19.anti: saccade opposite the stimulus (see :class:`ReachTask`)."""

    default_anti = True


class RtGo(ReachTask):
    """yang19.rtgo: reaction-time go; the stimulus appears with the go cue (see ReachTask)."""

    default_reaction = True


class RtAnti(ReachTask):
    """yang19.rtanti: reaction-time anti (see :class:`ReachTask`)."""

    default_anti = True
    default_reaction = True


class DlyGo(ReachTask):
    """yang19.dlygo: go with a 500 ms memory delay after the stimulus (see ReachTask)."""

    default_delay = 500


class DlyAnti(ReachTask):
    """yang19.dlyanti: anti with a 500 ms memory delay after the stimulus (see ReachTask)."""

    default_anti = True
    default_delay = 500
