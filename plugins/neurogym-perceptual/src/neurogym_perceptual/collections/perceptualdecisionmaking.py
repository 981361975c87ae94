"""The ``perceptualdecisionmaking.*`` collection: PerceptualDecisionMaking variants from papers.

Each factory builds PerceptualDecisionMaking and wraps it; keyword arguments go to
PerceptualDecisionMaking (``dt``, ``timing``, ``cohs``, ``sigma``, ...).

* ``neurogym/perceptualdecisionmaking.roitman02-v0``: reaction-time version (Roitman &
  Shadlen 2002): the decision window opens one step after stimulus onset and the trial ends at
  the end of the stimulus.
* ``neurogym/perceptualdecisionmaking.ibl20-v0``: block-biased priors (International Brain
  Laboratory 2020): the ground truth is drawn with p = (0.8, 0.2) or (0.2, 0.8), switching
  between the two blocks every 90 trials.
"""

from __future__ import annotations

from typing import Any

from neurogym.wrappers import RandomBlockSchedule, RandomGroundTruth, ReactionTime, ScheduleAttr
from neurogym_perceptual.tasks.perceptualdecisionmaking import PerceptualDecisionMaking

__all__ = ["IBL20_BLOCK_PROBS", "ibl20", "roitman02"]

IBL20_BLOCK_PROBS: tuple[tuple[float, float], ...] = ((0.8, 0.2), (0.2, 0.8))
IBL20_BLOCK_LENGTH = 90


def roitman02(**kwargs: Any) -> ReactionTime:
    """Reaction-time PerceptualDecisionMaking (Roitman & Shadlen 2002).

    Args:
        **kwargs: PerceptualDecisionMaking's arguments.

    Returns:
        ``ReactionTime(PerceptualDecisionMaking(**kwargs))``.
    """
    return ReactionTime(PerceptualDecisionMaking(**kwargs))


def ibl20(**kwargs: Any) -> ScheduleAttr:
    """PerceptualDecisionMaking with block-wise biased priors (IBL 2020).

    Args:
        **kwargs: PerceptualDecisionMaking's arguments.

    Returns:
        ``ScheduleAttr(RandomGroundTruth(PerceptualDecisionMaking(**kwargs)),
        RandomBlockSchedule(2, block_lens=[90, 90]), attr_list=[{"p": (0.8, 0.2)},
        {"p": (0.2, 0.8)}])``.
    """
    env = RandomGroundTruth(PerceptualDecisionMaking(**kwargs))
    schedule = RandomBlockSchedule(len(IBL20_BLOCK_PROBS), block_lens=[IBL20_BLOCK_LENGTH] * 2)
    return ScheduleAttr(env, schedule, attr_list=[{"p": p} for p in IBL20_BLOCK_PROBS])
