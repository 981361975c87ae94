"""The input and output layout shared by the 20 tasks of Yang et al. 2019.

Observation: ``fixation`` (dim 0), then two modalities of ``dim_ring`` units each
(``stimulus_mod1``, ``stimulus_mod2``), whose preferred directions are ``2 pi k / dim_ring``.
Action: ``fixation`` (0), then ``choice`` (1..dim_ring): a saccade to direction ``k`` is action
``k + 1``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, StandardDecision, spaces, validate
from neurogym.rules import STANDARD_REWARDS

__all__ = [
    "N_MODALITIES",
    "RING_RULE",
    "RingTask",
    "circular_distance",
    "gaussian_bump",
    "indices_of",
]

N_MODALITIES = 2
RING_RULE = StandardDecision(fixation_periods=("fixation",), decision_periods=("decision",))


def circular_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance between angles on the circle, in ``[0, pi]``."""
    d = np.abs(np.asarray(a) - np.asarray(b))
    out: np.ndarray = np.minimum(d, 2 * np.pi - d)
    return out


def gaussian_bump(direction: np.ndarray, theta: np.ndarray, strength: Any = 1.0) -> np.ndarray:
    """Population input of Yang et al.: ``0.8 exp(-d^2 / 2) * strength``, ``d = dist / (pi/8)``.

    Args:
        direction: Stimulus directions, one per trial ``(B,)`` (radians).
        theta: Preferred directions of the ring units ``(dim_ring,)``.
        strength: Scalar or one per trial ``(B,)``.

    Returns:
        ``(B, dim_ring)`` inputs.
    """
    d = circular_distance(np.asarray(direction)[:, None], theta[None, :]) / (np.pi / 8)
    out: np.ndarray = 0.8 * np.exp(-(d**2) / 2) * np.asarray(strength).reshape(-1, 1)
    return out


def indices_of(angles: np.ndarray, dim_ring: int) -> np.ndarray:
    """Ring-unit indices of angles that are preferred directions (``2 pi k / dim_ring``)."""
    step = 2 * np.pi / dim_ring
    out: np.ndarray = np.rint(np.asarray(angles, dtype=float) / step).astype(np.int64) % dim_ring
    return out


class RingTask(ngym.TrialEnv):
    """Base of the three families: spaces, rewards, timing and the standard decision rule.

    Subclasses set ``timing`` defaults and write ``_new_trials``; see the family modules.
    """

    default_rewards: ClassVar[Mapping[str, float]] = STANDARD_REWARDS

    rule = RING_RULE

    def __init__(
        self,
        dt: float,
        rewards: Mapping[str, float] | None,
        timing: Mapping[str, Any] | None,
        dim_ring: int,
        default_timing: Mapping[str, Any],
    ) -> None:
        super().__init__(dt=dt, rewards=rewards)
        self.dim_ring = validate.integer(
            dim_ring, "dim_ring", minimum=2, maximum=validate.MAX_RING
        )
        self.timing = dict(default_timing)
        if timing:
            self.timing.update(timing)
        self.abort = False
        self.theta = np.arange(self.dim_ring) * (2 * np.pi / self.dim_ring)
        n = self.dim_ring
        self.observation_space = spaces.Box(
            -np.inf,
            np.inf,
            shape=(1 + N_MODALITIES * n,),
            dtype=np.float32,
            name={
                "fixation": 0,
                "stimulus_mod1": range(1, n + 1),
                "stimulus_mod2": range(n + 1, 2 * n + 1),
            },
        )
        self.action_space = spaces.Discrete(1 + n, name={"fixation": 0, "choice": range(1, n + 1)})

    @property
    def stimulus_dims(self) -> slice:
        """Both modalities' dims, ``1 .. 2 * dim_ring``."""
        return slice(1, 1 + N_MODALITIES * self.dim_ring)

    def in_modality(self, values: np.ndarray, modality: np.ndarray) -> np.ndarray:
        """Places per-trial ring inputs ``(B, dim_ring)`` in each trial's modality block.

        Returns:
            ``(B, 2 * dim_ring)``: zeros except the block of ``modality`` (0 or 1) per trial.
        """
        n = self.dim_ring
        out = np.zeros((values.shape[0], N_MODALITIES * n), dtype=values.dtype)
        for m in range(N_MODALITIES):
            rows = modality == m
            out[rows, m * n : (m + 1) * n] = values[rows]
        return out

    def draw_modality(self, b: BatchBuilder) -> np.ndarray:
        """Each trial's input modality (0 or 1), drawn independently (``modality=`` forces it)."""
        if "modality" in b.kwargs:
            validate.integers_in_range(b.kwargs["modality"], "modality", 0, N_MODALITIES - 1)
        return b.choice("modality", np.arange(N_MODALITIES))

    def ring_angle(self, b: BatchBuilder, name: str) -> np.ndarray:
        """Draws a preferred direction (radians) per trial; a forced one must be a unit's.

        Returns:
            The ring-unit indices ``(B,)`` of the drawn (or forced) directions.

        Raises:
            ValueError: If a forced angle is not ``2 pi k / dim_ring`` for an integer ``k``.
        """
        if name in b.kwargs:
            angles = np.asarray(b.kwargs[name])
            numeric = angles.dtype.kind in "iuf"  # (strings, objects: named below, too)
            k = angles / (2 * np.pi / self.dim_ring) if numeric else np.array(np.nan)
            if not np.all(np.isfinite(k)) or not np.allclose(k, np.rint(k), atol=1e-6):
                raise ValueError(
                    f"{name} must be preferred directions 2 pi k / dim_ring (k integer, "
                    f"dim_ring={self.dim_ring}), got {b.kwargs[name]!r}"
                )
        return indices_of(b.choice(name, self.theta), self.dim_ring)

    def ring_choice(self, b: BatchBuilder, name: str) -> np.ndarray:
        """Draws a direction index ``0 .. dim_ring - 1`` per trial (a forced value is checked)."""
        if name in b.kwargs:
            validate.integers_in_range(b.kwargs[name], name, 0, self.dim_ring - 1)
        return b.choice(name, np.arange(self.dim_ring))
