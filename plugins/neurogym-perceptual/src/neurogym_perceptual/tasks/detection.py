"""Detection: respond as soon as a brief pulse appears in a noisy input (go/no-go)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, spaces, validate

__all__ = ["Detection"]

PULSE = 0.5
"""Height of the stimulus pulse added to the noisy input on go trials."""
_EPS = 1e-9


class Detection(ngym.TrialEnv):
    """Detection: go as soon as a brief pulse appears in a noisy input, otherwise keep still.

    ## Description
    A reaction-time go/no-go task. After fixation, a noisy input is shown; on go trials (half
    of them) a pulse of height 0.5 lasting ``stim_dur`` appears at a random onset within the
    stimulus period. The agent must respond (go) after the pulse onset and before the end of
    the stimulus period; on no-go trials it must keep fixating until the trial ends.

    ## Trial structure (periods)
    ``fixation`` (500 ms) → ``stimulus`` (``TruncExp(1000, 500, 1500)``).

    ## Observation space (named dims)
    ``Box(-inf, inf, (2,), float32)``: ``fixation`` (0) is 1 during fixation; ``stimulus`` (1)
    carries Gaussian noise of std ``sigma / sqrt(dt)`` during the stimulus period plus, on go
    trials, the pulse (+0.5 for ``stim_dur``, floored to whole steps). The pulse onset is
    ``delay`` after the stimulus start if given, else a uniform step in ``0 .. n - s - e - 1``
    (``n`` stimulus steps, ``s`` pulse steps, ``e = 1`` extra step when the pulse lasts one
    step, else 0), so there is time left to respond.

    ## Action space
    ``Discrete(2)``: ``fixation`` (0), ``go`` (1).

    ## Reward
    ``abort`` (-0.1) for going during fixation (ends the trial only when ``abort`` is True,
    with performance 0). In the stimulus period ``go`` ends the trial: ``correct`` (+1,
    performance 1) on a go trial at or after the pulse onset (where ``gt`` is 1), else
    ``fail`` (-1, performance 0). A go trial without response ends with ``miss`` (-1,
    performance 0) at its last step; a no-go trial without response ends with 0 reward and
    performance 1.

    Ground truth: 0 (fixate) everywhere except on go trials from the pulse onset to the end of
    the stimulus period, where it is 1 (go).

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict (``abort``, ``correct``, ``fail``, ``miss``).
    timing: Overrides of the timing dict (any timing spec form).
    sigma: Input noise, scaled by ``1 / sqrt(dt)`` (1.0).
    delay: Pulse onset in ms after the stimulus start (None: random, see above). Onsets that
        would push the pulse past the end of the stimulus period are moved back to the last
        onset that fits.
    stim_dur: Pulse duration in ms (100); must be at least ``dt``.

    Trial dict: ``ground_truth`` (1 go, 0 no-go), ``delay`` (pulse onset in ms after the
    stimulus start; 0 on no-go trials). Both can be forced, ``delay`` per trial.

    ## References
    Molano-Mazón et al. (2022), "NeuroGym: An open resource for developing and sharing
    neuroscience tasks", PsyArXiv, doi:10.31234/osf.io/aqc9n (the toolbox that introduced this
    task; upstream names no paper).

    ## Version history
    v0: repaired and registered; upstream NeuroGym 2.3.1 ships it unregistered. As upstream
    (defaults, spaces, periods, rewards, pulse-onset distribution), with these differences:

    * no-go trials have a ground truth (0 throughout), so stepping them works (upstream set no
      ground truth on no-go trials and ``step`` raised ``AttributeError``); the ground truth of
      the fixation period is set too, so the supervised mask covers the whole trial;
    * no-go trials get the same input noise as go trials (upstream added a second,
      independent noise draw on no-go trials, doubling their noise variance, which gave the
      answer away);
    * ``delay`` is in ms, as documented (upstream used it as a step index);
    * performance and the miss penalty are set from the current trial at its first step
      (upstream set them when a trial was generated, and ``step`` then reset performance to 0,
      so a withheld no-go response scored 0 except on the first trial after ``reset``);
    * ``stim_dur`` shorter than ``dt`` is rejected (upstream warned and never showed the
      pulse); no warning for one-step pulses (upstream warned at every construction with the
      defaults);
    * metadata cite the NeuroGym paper (upstream had no paper name or link);
    * trials are generated batch-natively and drawn from the env's seeded generator.
    """

    default_rewards: ClassVar[dict[str, float]] = {
        "abort": -0.1,
        "correct": +1.0,
        "fail": -1.0,
        "miss": -1.0,
    }
    default_timing: ClassVar[dict[str, Any]] = {
        "fixation": 500,
        "stimulus": ngym.TruncExp(1000, 500, 1500),
    }

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        sigma: float = 1.0,
        delay: float | None = None,
        stim_dur: float = 100,
    ) -> None:
        super().__init__()
        validate.number(sigma, "sigma", minimum=0)
        if delay is not None:
            validate.number(delay, "delay", minimum=0)
        validate.number(stim_dur, "stim_dur", minimum=self.dt)
        self.choices = np.arange(2)
        self.sigma = sigma / math.sqrt(self.dt)
        self.delay = delay
        self.stim_dur = math.floor(stim_dur / self.dt + _EPS)
        self.extra_step = 1 if self.stim_dur == 1 else 0
        self.abort = False
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(2,), dtype=np.float32, name={"fixation": 0, "stimulus": 1}
        )
        self.action_space = spaces.Discrete(2, name={"fixation": 0, "go": 1})

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        ground_truth = b.choice("ground_truth", self.choices)
        go = ground_truth == 1
        b.add_period(["fixation", "stimulus"])
        start, end = b.period_steps("stimulus")
        n_stim = np.broadcast_to(np.asarray(end) - np.asarray(start), (b.n,))
        onset = np.where(go, self._onsets(b, n_stim), 0)
        b.set_param("delay", onset * float(self.dt))

        steps = np.arange(int(n_stim.max()))[None, :]
        responding = go[:, None] & (steps >= onset[:, None])
        pulse = responding & (steps < (onset + self.stim_dur)[:, None])
        b.set_input(1, "fixation", where="fixation")
        b.add_input(PULSE * pulse, "stimulus", where="stimulus", per_step=True)
        b.add_noise(0, self.sigma, "stimulus", where="stimulus")
        b.set_target(0, "fixation")
        b.set_target(responding.astype(np.int64), "stimulus", per_step=True)
        return {}

    def _onsets(self, b: BatchBuilder, n_stim: np.ndarray) -> np.ndarray:
        """Pulse onset in steps after the stimulus start, ``(B,)`` ints."""
        latest = np.maximum(n_stim - self.stim_dur - self.extra_step, 0)
        forced = b.forced("delay")  # (B,): a wrong shape is refused naming delay
        if forced is not None:
            if forced.dtype.kind not in "iuf" or np.any(forced < 0):  # (bools, strings, < 0)
                raise ValueError(
                    f"forced delay must be >= 0 ms (a number: the pulse onset), got "
                    f"{b.kwargs['delay']!r}"
                )
            steps = np.floor(forced / self.dt + _EPS).astype(np.int64)
        elif self.delay is not None:
            steps = np.full(b.n, math.floor(self.delay / self.dt + _EPS), dtype=np.int64)
        else:
            steps = np.floor(b.rng.random(b.n) * latest).astype(np.int64)
        onsets: np.ndarray = np.minimum(steps, latest)
        return onsets

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self.t_ind == 0:
            self._start_trial()
        reward = 0.0
        new_trial = False
        gt = self.gt_now
        if self.in_period("fixation"):
            if action != 0:
                reward = self.rewards["abort"]
                if self.abort:
                    new_trial = True
                    self.performance = 0
        elif action != 0 and self.in_period("stimulus"):
            new_trial = True
            if action == gt:
                reward = self.rewards["correct"]
                self.performance = 1
            else:
                reward = self.rewards["fail"]
                self.performance = 0
        return self.ob_now, reward, False, False, {"new_trial": new_trial, "gt": gt}

    def _start_trial(self) -> None:
        """Timeout penalty and default performance of the trial that starts now."""
        trial = self.trial
        assert trial is not None
        go = trial["ground_truth"] == 1
        self.r_tmax = self.rewards["miss"] if go else 0.0
        self.performance = 0 if go else 1
