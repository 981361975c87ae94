"""Declarative reward/termination rules that TrialEnv steps for one env or many at once."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

__all__ = ["FIXATE", "NEUTRAL", "RESPOND", "StandardDecision"]

NEUTRAL = 0
"""Period code of steps where any action earns nothing."""
FIXATE = 1
"""Period code of steps where breaking fixation is penalised."""
RESPOND = 2
"""Period code of steps where a response ends the trial."""


@dataclass(frozen=True)
class StandardDecision:
    """The standard fixate-then-respond rule of most perceptual and working-memory tasks.

    Per step, with ``a`` the action and ``gt`` the ground truth of that step:

    * in a fixation period, ``a != fixation_action`` pays ``rewards["abort"]`` and ends the
      trial only if ``env.abort`` is True;
    * in a decision period, ``a != fixation_action`` ends the trial and pays
      ``rewards["correct"]`` (``performance = 1``) if ``a == gt``, else
      ``rewards.get("fail", 0)``;
    * elsewhere the reward is 0.

    A step in both kinds of period counts as fixation (checked first, as upstream does).

    Attributes:
        fixation_periods: Periods in which the agent must hold ``fixation_action``.
        decision_periods: Periods in which a response is scored.
        fixation_action: The action that means "keep fixating".
    """

    fixation_periods: tuple[str, ...] = ("fixation",)
    decision_periods: tuple[str, ...] = ("decision",)
    fixation_action: int = 0

    def codes(
        self, start_t: dict[str, float], end_t: dict[str, float], steps: int, dt: float
    ) -> list[int]:
        """Per-step period codes (:data:`NEUTRAL`, :data:`FIXATE`, :data:`RESPOND`).

        Step ``k`` is in a period when ``start <= k * dt < end`` (``in_period``'s rule).
        """
        codes = [NEUTRAL] * steps
        for kind, names in ((RESPOND, self.decision_periods), (FIXATE, self.fixation_periods)):
            for name in names:
                if name in start_t:
                    first = max(math.ceil(start_t[name] / dt - 1e-9), 0)
                    stop = min(math.ceil(end_t[name] / dt - 1e-9), steps)
                    codes[first:stop] = [kind] * max(stop - first, 0)
        return codes

    def code_grid(
        self,
        start_t: Mapping[str, np.ndarray],
        end_t: Mapping[str, np.ndarray],
        lengths: np.ndarray,
        dt: float,
    ) -> np.ndarray:
        """:meth:`codes` for a batch: ``(B, T)`` int8 codes, ``T = lengths.max()``.

        Row ``i`` equals ``codes`` of trial ``i`` (padding steps are :data:`NEUTRAL`).
        """
        steps = int(lengths.max()) if lengths.size else 0
        grid = np.zeros((lengths.shape[0], steps), dtype=np.int8)
        k = np.arange(steps)
        for kind, names in ((RESPOND, self.decision_periods), (FIXATE, self.fixation_periods)):
            for name in names:
                if name in start_t:
                    first = np.maximum(np.ceil(np.asarray(start_t[name]) / dt - 1e-9), 0)
                    stop = np.minimum(np.ceil(np.asarray(end_t[name]) / dt - 1e-9), lengths)
                    inside = (k >= first[:, None]) & (k < stop[:, None])
                    grid[inside] = kind
        return grid
