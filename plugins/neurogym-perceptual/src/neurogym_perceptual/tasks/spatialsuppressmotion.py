"""Spatial suppression of motion: 4-way direction judgements whose gt follows human data."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, spaces
from neurogym.rules import STANDARD_REWARDS

__all__ = ["SpatialSuppressMotion"]

DIRECTIONS = ("left", "right", "up", "down")
"""Motion directions 1..4 (the trial dict's ``direction`` is 1-based, as upstream)."""
THETA = np.array([-np.pi / 2, np.pi / 2, 0.0, np.pi])
"""Direction angle of each direction pool."""
OPPOSITE = np.array([1, 0, 3, 2])
"""0-based index of the opposite direction of each direction."""
N_SIZES = 8
"""Units per direction pool; a stimulus of diameter ``d`` drives the first ``d``."""
CONTRASTS = (0.05, 0.99)
"""Low and high contrast; by default low-contrast stimuli are small, high-contrast ones large."""

DATA_FRAME_MS = 8.3
"""Frame duration of the psychophysics data (120 Hz display), in ms."""
_FLAT = (0.249,) * 7
DATA_FRAMES = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 14, 17, 20, 27, 35, 36, 37, 38])
"""Frame index (0-based) of each data point; the first 7 pad the pre-response plateau."""
# P(report the true direction) and P(report the opposite one) per data frame (Tadin 2003).
_HIGH_CORRECT = (0.249, 0.249, 0.249, 0.27, 0.32, 0.4583, 0.65, 0.85, 0.99, 0.99, 0.99, 0.99)
_HIGH_OPPOSITE = (0.249, 0.29, 0.31, 0.4, 0.475, 0.4167, 0.3083, 0.075, 0.04, 0.04, 0.03, 0.03)
_LOW_CORRECT = (0.25, 0.26, 0.2583, 0.325, 0.45, 0.575, 0.875, 0.933, 0.99, 0.99, 0.99, 0.99)
_LOW_OPPOSITE = (0.25, 0.26, 0.2583, 0.267, 0.1417, 0.1167, 0.058, 0.016) + (0.003,) * 4
HIGH_CONTRAST = (np.array(_FLAT + _HIGH_CORRECT), np.array(_FLAT + _HIGH_OPPOSITE))
"""P(report the true direction) and P(report the opposite one) per data frame, high contrast."""
LOW_CONTRAST = (np.array(_FLAT + _LOW_CORRECT), np.array(_FLAT + _LOW_OPPOSITE))
"""P(report the true direction) and P(report the opposite one) per data frame, low contrast."""


def report_probabilities(times_ms: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, ...]:
    """Human report probabilities at each time, interpolated linearly from Tadin et al. 2003.

    Both ends of the data are flat, so clamping outside the data equals linear extrapolation.
    Where the true and opposite probabilities of the data sum to more than 1 (late frames at
    high contrast), the orthogonal share is 0 and both are scaled to sum to 1.

    Args:
        times_ms: Time since stimulus onset of each step, ``(L,)``.
        high: Whether each trial has high contrast, ``(B,)`` bool.

    Returns:
        ``(correct, opposite, orthogonal)``, each ``(B, L)``: the probability of reporting the
        true direction, the opposite one, and each of the two orthogonal ones.
    """
    frames = times_ms / DATA_FRAME_MS
    curves = [
        np.where(
            high[:, None],
            np.interp(frames, DATA_FRAMES, hi)[None, :],
            np.interp(frames, DATA_FRAMES, lo)[None, :],
        )
        for hi, lo in zip(HIGH_CONTRAST, LOW_CONTRAST, strict=True)
    ]
    correct, opposite = curves
    total = correct + opposite
    orthogonal = np.where(total < 1, (1 - total) / 2, 0.0)
    scale = np.maximum(total, 1.0)
    return correct / scale, opposite / scale, orthogonal


class SpatialSuppressMotion(ngym.TrialEnv):
    """Report the motion direction of a centre stimulus whose size and contrast shape perception.

    ## Description
    Centre-surround antagonism in motion perception (Tadin et al. 2003): at high contrast a
    large stimulus is *harder* to judge than a small one. Four direction-selective pools (8
    units each, one per stimulus size) see a stimulus of a given direction, contrast and
    diameter. There is no fixation or decision stage: the ground truth at every frame is the
    probability that a human observer reports each of the four directions after viewing the
    stimulus for that long, interpolated from the measured data; a network is trained to
    reproduce these probabilities (4-AFC).

    ## Trial structure (periods)
    ``stimulus`` (300 ms; 36 frames at the default ``dt`` = 8.3 ms, a 120 Hz display).

    ## Observation space (named dims)
    ``Box(0, inf, (32,), float32)``, four pools of ``N_SIZES`` = 8 units: ``left`` (0..7),
    ``right`` (8..15), ``up`` (16..23), ``down`` (24..31). Unit ``s`` of the pool of direction
    ``d`` carries ``(cos(theta_d - theta_stim) + 1) * contrast / 2`` when ``s < diameter``,
    else 0 (``theta`` = -pi/2, pi/2, 0, pi), constant over the stimulus: ``contrast`` on the
    true direction's pool, ``contrast / 2`` on the orthogonal ones, 0 on the opposite one.

    ## Action space
    ``Box(0, 1, (4,), float32)``: the probability of reporting ``left`` (0), ``right`` (1),
    ``up`` (2), ``down`` (3). The ground truth of each step is such a probability vector:
    P(true direction), P(opposite direction), and the remainder split equally between the
    two orthogonal directions. Contrasts >= 0.5 use the high-contrast data, lower ones the
    low-contrast data.

    ## Reward
    Always 0 (``rewards`` = abort -0.1, correct +1, fail 0 is kept but never paid, as
    upstream); trials end by timeout after the stimulus. ``performance`` (upstream reported
    none) scores the report at the stimulus' last frame against the observers': one minus
    the total-variation distance between the action, normalised to a probability vector
    (uniform if it sums to 0), and the ground truth of that frame, in [0, 1]. An agent that
    reproduces the human report probabilities scores 1; one that always reports the true
    direction scores the observers' accuracy at that duration.

    ## Arguments
    dt: Frame duration in ms (8.3).
    timing: Overrides of the timing dict (any timing spec form).
    rewards: Overrides of the reward dict.

    Trial dict: ``direction`` (1..4 = left, right, up, down), ``contrast`` (0.05 or 0.99),
    ``diameter`` (units driven per pool: 1 for contrasts below 0.5, else 8, unless forced),
    ``ground_truth`` (the ``(T, 4)`` probability array). Each can be forced, e.g.
    ``new_trial(direction=2, contrast=0.99)``.

    ## References
    Tadin, Lappin, Gilroy & Blake (2003), "Perceptual consequences of centre-surround
    antagonism in visual motion processing", Nature 424:312.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, period, stimulus layout, gt data and
    linear interpolation, zero reward), with these differences:

    * The gt curves are interpolated in time (data frames of 8.3 ms) instead of in frame
      indices, so they keep their time course at any ``dt``; at the default ``dt`` they equal
      upstream's. Interpolation uses ``np.interp`` (no scipy).
    * The gt is a valid probability vector in the action space: where the data's true and
      opposite probabilities sum to more than 1 (high contrast, from frame 33 on), the
      orthogonal share is 0 and the two are rescaled to sum to 1. Upstream's orthogonal
      probabilities went negative there (down to -0.015, outside ``Box(0, 1)``).
    * ``new_trial`` takes the standard forced kwargs; a forced ``diameter`` is honoured for
      every contrast (upstream overrode it for 0.05/0.99) and any contrast in [0, 1] works
      (upstream failed for contrasts other than 0.05/0.99 without a diameter, and at 0.5).
    * Named dims on both spaces; ``info["gt"]`` is a copy of the step's gt row.
    * Trials are generated batch-natively from the env's seeded generator.
    """

    default_rewards: ClassVar[Mapping[str, float]] = STANDARD_REWARDS
    default_timing: ClassVar[dict[str, Any]] = {"stimulus": 300}

    def __init__(
        self,
        dt: float = 8.3,
        timing: Mapping[str, Any] | None = None,
        rewards: Mapping[str, float] | None = None,
    ) -> None:
        super().__init__()
        self._gt_tables: dict[tuple[int, float], np.ndarray] = {}
        self.abort = False
        self.directions = np.arange(1, len(DIRECTIONS) + 1)
        self.contrasts = np.asarray(CONTRASTS)
        self.observation_space = spaces.Box(
            0,
            np.inf,
            shape=(len(DIRECTIONS) * N_SIZES,),
            dtype=np.float32,
            name={d: range(i * N_SIZES, (i + 1) * N_SIZES) for i, d in enumerate(DIRECTIONS)},
        )
        self.action_space = spaces.Box(
            0,
            1,
            shape=(len(DIRECTIONS),),
            dtype=np.float32,
            name={d: i for i, d in enumerate(DIRECTIONS)},
        )

    def _trial_variables(self, b: BatchBuilder) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        direction = b.choice("direction", self.directions)
        contrast = b.choice("contrast", self.contrasts).astype(float)
        if "diameter" in b.kwargs:
            diameter = b.choice("diameter", np.arange(1, N_SIZES + 1))
        else:
            diameter = b.set_param("diameter", np.where(contrast < 0.5, 1, N_SIZES))
        _check_forced("contrast", contrast, 0.0, 1.0, integer=False)
        return direction.astype(np.intp) - 1, contrast, diameter.astype(np.intp)

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        direction, contrast, diameter = self._trial_variables(b)
        b.add_period("stimulus")
        response = (np.cos(THETA[None, :] - THETA[direction][:, None]) + 1) * contrast[:, None] / 2
        driven = np.arange(N_SIZES)[None, :] < diameter[:, None]
        stim = (response[:, :, None] * driven[:, None, :]).reshape(b.n, -1)
        b.set_input(stim, "stimulus")
        gt = self._ground_truth(b.steps, direction, contrast)
        b.set_target(gt, "stimulus", per_step=True)
        b.set_param("ground_truth", b.gt.copy())
        return {}

    def _ground_truth(self, steps: int, direction: np.ndarray, contrast: np.ndarray) -> np.ndarray:
        """The ``(B, steps, 4)`` report probabilities of each trial at each step.

        They depend only on the direction and on whether the contrast is high, so they are
        gathered from a table of the 8 combinations (built once per trial length, with the
        same arithmetic as per trial, so the values are identical).
        """
        key = (steps, float(self.dt))
        table = self._gt_tables.get(key)
        if table is None:
            n_dir = len(DIRECTIONS)
            high = np.repeat(np.array([False, True]), n_dir)
            combo = np.tile(np.arange(n_dir), 2)
            table = self._gt_table(steps, combo, high).astype(self.action_space.dtype)
            self._gt_tables = {key: table}
        rows: np.ndarray = table.take(direction + len(DIRECTIONS) * (contrast >= 0.5), axis=0)
        return rows

    def _gt_table(self, steps: int, direction: np.ndarray, high: np.ndarray) -> np.ndarray:
        correct, opposite, orthogonal = report_probabilities(
            np.arange(steps) * float(self.dt), high
        )
        eye = np.eye(len(DIRECTIONS))
        own, anti = eye[direction], eye[OPPOSITE[direction]]
        gt: np.ndarray = (
            orthogonal[:, :, None]
            + own[:, None, :] * (correct - orthogonal)[:, :, None]
            + anti[:, None, :] * (opposite - orthogonal)[:, :, None]
        )
        return gt

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Reward 0 at every step; the last frame's report is scored (see Reward)."""
        gt = self.gt_now
        if self.t_ind == self.end_ind["stimulus"] - 1:  # the stimulus' last frame: the report
            self.performance = report_agreement(action, gt)
        return self.ob_now, 0.0, False, False, {"new_trial": False, "gt": gt.copy()}


_sum = np.add.reduce  # ndarray.sum's ufunc, without the method's Python wrapper


def report_agreement(action: Any, probabilities: np.ndarray) -> float:
    """One minus the total-variation distance between a report and the observers' one.

    ``action`` is normalised to sum to 1 (a zero action reports the uniform distribution); a
    report equal to the observers' to float32 precision (1e-6) scores exactly 1.
    """
    # np.clip(report, 0.0, None) and ndarray.sum, as the ufuncs they call: no Python wrappers
    # (this runs at every trial's last step)
    report = np.maximum(np.asarray(action, dtype=float), 0.0)
    total = _sum(report)
    report = report / total if total > 0 else np.full(report.shape, 1.0 / report.size)
    agreement = 1.0 - 0.5 * float(_sum(np.abs(report - np.asarray(probabilities, dtype=float))))
    return 1.0 if agreement > 1.0 - 1e-6 else agreement  # equal to float32 precision: 1


def _check_forced(name: str, value: np.ndarray, low: float, high: float, *, integer: bool) -> None:
    """Raises ``ValueError`` if a (forced) trial variable lies outside ``[low, high]``."""
    arr = np.asarray(value, dtype=float)
    bad = (arr < low) | (arr > high) | (np.round(arr) != arr if integer else False)
    if np.any(bad):
        kind = "an int" if integer else "a number"
        raise ValueError(
            f"SpatialSuppressMotion: {name}={arr[bad][0].item()!r} is invalid; expected "
            f"{kind} in [{low}, {high}]"
        )
