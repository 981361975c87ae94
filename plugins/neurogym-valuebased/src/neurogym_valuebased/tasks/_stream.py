"""Shared pieces of the value-based tasks' Bayesian observers of a stream of trials."""

from __future__ import annotations

import numpy as np

__all__ = ["side_log_odds"]


def side_log_odds(evidence: np.ndarray, means: np.ndarray, sd: np.ndarray | float) -> np.ndarray:
    """Log odds of the positive side given Gaussian evidence whose strength is unknown.

    The evidence of a trial is ``N(+m, sd**2)`` for the positive side and ``N(-m, sd**2)``
    for the other, ``m`` drawn uniformly from the trial's possible ``means`` (one per
    coherence): the log of the ratio of the two mixture likelihoods.

    Args:
        evidence: Signed evidence per trial, ``(B,)``.
        means: Possible mean evidence of the positive side, ``(K,)`` or ``(B, K)``.
        sd: Standard deviation of the evidence, a number or one per trial ``(B,)`` (> 0).

    Returns:
        ``(B,)`` log odds (0 where the evidence favours neither side).
    """
    x = np.asarray(evidence, dtype=float)[:, None]
    scale = 2 * np.square(np.asarray(sd, dtype=float)).reshape(-1, 1)
    mu = np.asarray(means, dtype=float)
    plus = np.logaddexp.reduce(-np.square(x - mu) / scale, axis=1)
    minus = np.logaddexp.reduce(-np.square(x + mu) / scale, axis=1)
    odds: np.ndarray = plus - minus
    return odds
