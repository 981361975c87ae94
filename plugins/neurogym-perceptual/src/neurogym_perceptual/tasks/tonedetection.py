"""Auditory tone detection: report whether, and where, a brief tone is embedded in noise."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, LastStepReport, spaces, validate

__all__ = ["ToneDetection"]

_EPS = 1e-9


class ToneDetection(ngym.TrialEnv):
    """Detect a brief pure tone in background noise and report its position (or its absence).

    ## Description
    A model of human tone-in-noise detection (no fixation or saccade stage). A noisy auditory
    channel may carry a short tone (``toneDur``, 50 ms) at one of several onsets
    (``toneTiming``: 500, 1000 or 1500 ms). The condition is 0 (no tone) or ``k`` (tone at the
    ``k``-th onset); the ground truth is the condition at every step, so a supervised network
    learns to report it (typically read out at the last step).

    ## Trial structure (periods)
    ``stimulus`` (2000 ms) only. ``timing`` also holds two non-period keys, read once at
    construction: ``toneTiming`` (list of tone onsets in ms from the stimulus start) and
    ``toneDur`` (tone duration in ms). The tone of condition ``k`` covers steps
    ``floor(toneTiming[k-1] / dt)`` to that plus ``floor(toneDur / dt)`` (exclusive).

    ## Observation space (named dims)
    ``Box(-inf, inf, (1,), float32)``: ``stimulus`` (0) is 1 during the tone, 0 elsewhere, plus
    Gaussian noise of std ``sigma / sqrt(dt)`` over the whole stimulus.

    ## Action space
    ``Discrete(1 + len(toneTiming))`` (4 by default): ``no_tone`` (0), ``tone``
    (1..len(toneTiming), the tone position).

    ## Reward
    Always 0 (``rewards`` = abort -0.1, correct +1, noresp -0.1 is kept for reference but never
    paid, as upstream). Trials never end early: each ends by timeout after the stimulus. The
    action at the trial's last step is the report (:class:`neurogym.LastStepReport`):
    ``performance`` is 1 when it names the condition (the tone's position, or 0 for none),
    the criterion of the detection experiment; upstream reported no performance at all.

    ## Arguments
    dt: Step size in ms (50); must not exceed the tone duration ``timing["toneDur"]``.
    sigma: Input noise, scaled by ``1 / sqrt(dt)`` (0.2).
    timing: Overrides of the timing dict: ``stimulus`` (any timing spec form), ``toneTiming``
        (a list of onsets in ms) and ``toneDur`` (ms).

    Trial dict: ``ground_truth`` (condition 0..len(toneTiming)). Force a condition with
    ``new_trial(ground_truth=k)``; upstream's ``condition=k`` is accepted as an alias.

    ## References
    Costalupes (1985), "Representation of Tones in Noise in the Responses of Auditory
    Nerve Fibers in Cats", J. Neurosci. 5(12):3261 (task by Ru-Yuan Zhang).

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, periods, timing keys, rewards, gt), with these
    differences:

    * Works at any ``dt`` up to the tone duration, and with any timing spec form for
      ``stimulus``; a ``dt`` longer than the tone raises ``ValueError`` naming ``dt`` and the
      tone duration. Upstream sized the tone array with ``int(ms / dt)`` but the period with a
      floored float division, so some ``dt <= 50`` failed (``dt=3.2``: a 625-step tone array
      against a 624-step trial) and a non-numeric ``stimulus`` spec raised ``TypeError``.
    * A tone that would not fit in the shortest stimulus raises ``ValueError`` (upstream
      silently cut or dropped it); ``toneTiming`` and ``toneDur`` are validated.
    * The action space has ``1 + len(toneTiming)`` actions (4 by default, as upstream) and
      names; upstream's ``act_dict`` listed 5 choices for a 4-action space and is dropped,
      as is ``ob_dict`` (the observation has one dim, now named ``stimulus``).
    * ``new_trial`` accepts the standard forced kwargs (``ground_truth=``, recorded in the
      trial dict) instead of only ``condition=``.
    * Trials are generated batch-natively from the env's seeded generator.
    * ``paper_name`` loses upstream's double space ("Fibers  in").
    """

    default_timing: ClassVar[dict[str, Any]] = {
        "stimulus": 2000,
        "toneTiming": [500, 1000, 1500],
        "toneDur": 50,
    }

    # the action at the trial's last step is the report: performance 1 when it names the
    # condition (upstream never scored the task)
    rule = LastStepReport(fixation_periods=(), decision_periods=())

    def __init__(
        self, dt: float = 50, sigma: float = 0.2, timing: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(dt=dt, timing=timing)
        self.sigma = validate.number(sigma, "sigma", minimum=0) / np.sqrt(self.dt)
        self.rewards = {"abort": -0.1, "correct": +1.0, "noresp": -0.1}
        self.abort = False
        self.tone_onsets = self._tone_onsets()
        self.tone_duration = self._tone_duration()
        self.tone_steps = math.floor(self.tone_duration / self.dt + _EPS)
        self.onset_steps = np.floor(self.tone_onsets / self.dt + _EPS).astype(np.intp)
        self._check_tones_fit()
        n_tones = len(self.tone_onsets)
        self.conditions = np.arange(n_tones + 1)
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(1,), dtype=np.float32, name={"stimulus": 0}
        )
        self.action_space = spaces.Discrete(
            n_tones + 1, name={"no_tone": 0, "tone": range(1, n_tones + 1)}
        )

    def _tone_onsets(self) -> np.ndarray:
        spec = self.timing.spec("toneTiming")
        if spec.kind not in ("choice", "constant"):
            raise ValueError(
                f"timing['toneTiming'] = {spec.raw!r}: expected a list of tone onsets in ms, "
                "e.g. [500, 1000, 1500]"
            )
        return np.asarray(spec.args, dtype=float)

    def _tone_duration(self) -> float:
        spec = self.timing.spec("toneDur")
        if spec.kind != "constant" or spec.args[0] <= 0:
            raise ValueError(
                f"timing['toneDur'] = {spec.raw!r}: expected a tone duration in ms > 0, e.g. 50"
            )
        duration = spec.args[0]
        if self.dt > duration:
            raise ValueError(
                f"dt={self.dt} ms is longer than the tone duration timing['toneDur']="
                f"{duration:g} ms, so the tone would last less than one step; use dt <= "
                f"{duration:g} or a longer toneDur"
            )
        return duration

    def _check_tones_fit(self) -> None:
        shortest = self.timing.spec("stimulus").minmax()[0]
        if math.isnan(shortest):  # a callable spec: nothing to check up front
            return
        stim_steps = math.floor(shortest / self.dt + _EPS)
        last = int(self.onset_steps.max()) + self.tone_steps
        if last > stim_steps:
            raise ValueError(
                f"a tone at {self.tone_onsets.max():g} ms lasting {self.tone_duration:g} ms "
                f"ends after the shortest stimulus ({shortest:g} ms at dt={self.dt}); "
                "shorten timing['toneTiming'] or lengthen timing['stimulus']"
            )

    def _conditions(self, b: BatchBuilder) -> np.ndarray:
        """Draws (or takes the forced) condition of each trial; ``condition=`` is an alias."""
        name = "condition" if "condition" in b.kwargs and "ground_truth" not in b.kwargs else None
        condition = b.choice(name or "ground_truth", self.conditions)
        if name:
            b.set_param("ground_truth", condition)
        return condition.astype(np.intp)

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        condition = self._conditions(b)
        b.add_period("stimulus")
        steps = np.arange(b.steps)
        onset = self.onset_steps[np.maximum(condition - 1, 0)]
        tone = (
            (steps[None, :] >= onset[:, None])
            & (steps[None, :] < onset[:, None] + self.tone_steps)
            & (condition[:, None] > 0)
        )
        b.add_input(tone[:, :, None].astype(np.float32), "stimulus", per_step=True)
        b.add_noise(0, self.sigma, "stimulus")
        b.set_target(condition)
        return {}
