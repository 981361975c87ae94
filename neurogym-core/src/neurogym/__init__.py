"""neurogym: cognitive-neuroscience tasks for training neural networks, on gymnasium."""

from __future__ import annotations

from neurogym import spaces, timing
from neurogym._builder import BatchBuilder, InvalidOperationError, TrialBatch
from neurogym._env import OBNOW, EmptyPeriodWarning, TrialEnv
from neurogym.rules import StandardDecision
from neurogym.timing import TruncExp

__all__ = [
    "OBNOW",
    "BatchBuilder",
    "EmptyPeriodWarning",
    "InvalidOperationError",
    "StandardDecision",
    "TrialBatch",
    "TrialEnv",
    "TruncExp",
    "spaces",
    "timing",
]
