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

import numpy as np

from neurogym.wrappers import RandomBlockSchedule, RandomGroundTruth, ReactionTime, ScheduleAttr
from neurogym_perceptual.tasks.perceptualdecisionmaking import PerceptualDecisionMaking

__all__ = ["IBL20_BLOCK_PROBS", "IBL20Schedule", "ibl20", "roitman02"]

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


class IBL20Schedule(ScheduleAttr):
    """ibl20's :class:`~neurogym.wrappers.ScheduleAttr`, with the observer of its block prior.

    It generates trials exactly as ``ScheduleAttr`` does; it adds :meth:`stream_observer`.
    """

    def stream_observer(self, batch: Any) -> np.ndarray:
        """Per trial of a stream, whether the Bayesian observer of the block prior is correct.

        What the observer knows: the generative process. The first block after ``reset`` has
        ``p = IBL20_BLOCK_PROBS[0]`` (``(P(choice 0), P(choice 1))`` = (0.8, 0.2)); blocks
        last ``IBL20_BLOCK_LENGTH`` (90) trials and alternate (the schedule draws "a different
        condition" among two), so the prior of every trial follows from its position in the
        stream: earlier sides and feedback add nothing to it. The coherence is uniform over
        the task's ``cohs`` and each stimulus input carries Gaussian noise of std
        ``sigma / sqrt(dt)`` per step. What it sees: each trial's inputs. What it does not
        know: the side, the coherence, the noise.

        It answers with the more probable choice: the summed stimulus's log odds (the
        coherence marginalised) plus the block's log prior odds; ties go to choice 0. Its
        score is the known-prior ceiling, above :meth:`ideal_observer`'s flat prior.

        Args:
            batch: Consecutive trials of one env from its ``reset``, a numpy
                :class:`~neurogym.data.TrainingBatch` (``neurogym.batch(env, n, seed=0)``).

        Returns:
            ``(B,)``: 1.0 where the observer's choice is the ground truth, else 0.0.
        """
        task = self.task
        assert isinstance(task, PerceptualDecisionMaking)  # (the task ibl20 wraps)
        summed = batch.period_sum("stimulus", [1, 2])
        start, end = batch.periods["stimulus"]
        steps = np.asarray(end) - np.asarray(start)
        means = steps[:, None] * np.asarray(task.cohs)[None, :] / 100  # choice 1's mean
        odds = _log_odds(summed[:, 1] - summed[:, 0], means, task.sigma * np.sqrt(2 * steps))
        block = (np.arange(len(odds)) // IBL20_BLOCK_LENGTH) % len(IBL20_BLOCK_PROBS)
        prior = np.array(IBL20_BLOCK_PROBS)[block]
        choice = (odds + np.log(prior[:, 1]) - np.log(prior[:, 0]) > 0).astype(np.int64)
        correct: np.ndarray = (choice == np.asarray(batch.trial["ground_truth"])).astype(float)
        return correct


def _log_odds(evidence: np.ndarray, means: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """Log odds of choice 1 for evidence ``N(±m, sd**2)``, ``m`` uniform over ``means``."""
    x, scale = evidence[:, None], 2 * np.square(sd)[:, None]
    plus = np.logaddexp.reduce(-np.square(x - means) / scale, axis=1)
    minus = np.logaddexp.reduce(-np.square(x + means) / scale, axis=1)
    odds: np.ndarray = plus - minus
    return odds


def ibl20(**kwargs: Any) -> ScheduleAttr:
    """PerceptualDecisionMaking with block-wise biased priors (IBL 2020).

    Args:
        **kwargs: PerceptualDecisionMaking's arguments.

    Returns:
        ``IBL20Schedule(RandomGroundTruth(PerceptualDecisionMaking(**kwargs)),
        RandomBlockSchedule(2, block_lens=[90, 90]), attr_list=[{"p": (0.8, 0.2)},
        {"p": (0.2, 0.8)}])``: a ``ScheduleAttr`` with ibl20's
        :meth:`~IBL20Schedule.stream_observer`.
    """
    env = RandomGroundTruth(PerceptualDecisionMaking(**kwargs))
    schedule = RandomBlockSchedule(len(IBL20_BLOCK_PROBS), block_lens=[IBL20_BLOCK_LENGTH] * 2)
    return IBL20Schedule(env, schedule, attr_list=[{"p": p} for p in IBL20_BLOCK_PROBS])
