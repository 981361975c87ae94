"""CVLearning: a curriculum ("shaping") of the delayed two-alternative response task."""

from __future__ import annotations

import dataclasses
import itertools
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, spaces, validate

__all__ = ["STAGES", "CVLearning", "Curriculum"]

STAGES = (0, 1, 2, 3, 4)
"""The curriculum's stages, easiest first (see :class:`CVLearning`)."""

_DELAY_STEP = 0.25  # fraction of the full delays added or removed at once in stage 3
_DELAY_DROP_PERF = 0.5  # stage 3: delays shrink again at or below this windowed performance
_REMINDER_PERF = 0.5  # stage 2: below this windowed performance, back to stage 1


@dataclasses.dataclass
class Curriculum:
    """Where an agent is in the curriculum; advanced by the outcomes of stepped trials.

    Attributes:
        index: Index of the current stage in ``CVLearning.stages``.
        days_left: Consecutive good days still needed before the stage advances.
        day: First-choice outcomes (1 rewarded as correct, 0 not) of today's trials.
        window: The last ``perf_len`` outcomes.
        trials_today: Trials completed today (a day is ``trials_day`` trials).
        window_perf: Mean of ``window``, updated once today's trials exceed ``perf_len``.
        last_day_perf: Mean outcome of the last completed day.
        reminder: Whether the agent was sent back from stage 2 to stage 1.
        side_run: Signed run length of stage-0 choices on one side (+ right, - left).
        last_side: The choice (1 or 2) that ended the last stage-0 trial, or 0.
        delay_fraction: Stage 3: fraction of the full delays currently used (0 to 1).
        delay_floor: Stage 3: ``delay_fraction`` at the start of the day (it never drops below).
        trials_at_delay: Trials since ``delay_fraction`` last changed.
    """

    index: int
    days_left: int
    day: list[int] = dataclasses.field(default_factory=list)
    window: deque[int] = dataclasses.field(default_factory=deque)
    trials_today: int = 0
    window_perf: float = 0.0
    last_day_perf: float = 0.0
    reminder: bool = False
    side_run: int = 0
    last_side: int = 0
    delay_fraction: float = 0.0
    delay_floor: float = 0.0
    trials_at_delay: int = 0


class CVLearning(ngym.TrialEnv):
    """Delayed two-alternative response, taught by a curriculum that follows the agent.

    ## Description
    The full task (stage 4): two channels carry evidence for left and right, a delay follows,
    and the agent reports the stronger channel (Inagaki et al. 2019). Stages 0-3 shape it:

    * **0**: no stimulus and no delay; either choice is rewarded, unless the agent chose the
      same side ``max_num_reps`` times in a row: then only the other side is rewarded (a wrong
      choice pays 0).
    * **1**: the stimulus is unambiguous (coherence 100, no noise), no delay; a wrong choice
      pays 0 and the trial goes on, so the agent can still find the right side.
    * **2**: as 1, but the first choice ends the trial and a wrong one pays ``fail``.
    * **3**: as 2, with a delay of ``delay_fraction`` times 1000 or 3000 ms (equally likely). The
      fraction starts at 0 and grows by 0.25 whenever the windowed performance reaches
      ``th_stage`` (after more than ``perf_len`` trials at the current delays), and shrinks by
      0.25 at or below 0.5, never below its value at the start of the day.
    * **4**: the full task: coherence drawn from ``(0, 6.4, 12.8, 25.6, 51.2) * stim_scale``,
      noise, and a delay of U(1000, 3000) ms.

    A day is ``trials_day`` stepped trials. The stage advances after ``keep_days + 1``
    consecutive days whose mean first-choice performance reaches ``th_stage`` (in stage 3 only
    once the delays are at full length). In stage 2, a windowed performance below 0.5 sends the
    agent back to stage 1 until it exceeds ``th_stage`` again. Each trial is scored by the
    agent's first choice in the decision period (``info["performance"]``); a trial without a
    choice counts as wrong.

    **Batches** (``neurogym.batch``, ``Dataset``) have no agent, so the curriculum does not
    move: they are drawn at the stage given as ``stage=`` (and, in stage 3, the current delay
    fraction, 0 for a new env; in stage 0, with the current repeat cap). Supervised training on
    the full task is ``neurogym.batch("CVLearning", n, env_kwargs={"stage": 4})``.

    ## Trial structure (periods)
    ``fixation`` (200 ms) → ``stimulus`` (1150 ms; 0 in stage 0) → ``delay`` (stage 4:
    uniform 1000-3000 ms; stage 3: see above; 0 before) → ``decision`` (1500 ms): at ``dt=100``
    17 steps in stage 0, 28 in stages 1-2 and 38-57 in stage 4.

    ## Observation space (named dims)
    ``Box(-inf, inf, (1 + n_ch,), float32)``: ``fixation`` (0) is 1 in every period but the
    decision. ``stimulus`` (1..n_ch): during the stimulus, dim ``ground_truth`` holds
    ``(1 + coh/100) / 2``, the other of dims 1 and 2 ``(1 - coh/100) / 2`` and dims 3..n_ch
    0.5, plus (stage 4) Gaussian noise of std ``sigma / sqrt(dt)`` on all of them.

    ## Action space
    ``Discrete(1 + n_ch)``: ``fixation`` (0), ``choice`` (1: left, 2: right); actions 3..n_ch
    choose nothing (as fixation in the decision period, as a break of fixation before it).

    ## Reward
    Any action but fixation before the decision period pays ``abort`` (-0.1; the trial goes
    on). In the decision period the right side pays ``correct`` (+1) and ends the trial; the
    other side pays ``fail`` (-1) in stages 2-4, 0 in stage 1 (the trial goes on) and in
    stage 0 (the trial ends; when both sides are rewarded it pays ``correct``).

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict (``abort``, ``correct``, ``fail``).
    timing: Overrides of the timing dict (any timing spec form).
    stim_scale: Scales the coherences, i.e. the difficulty of stage 4 (1.0).
    sigma: Input noise in stage 4, scaled by ``1 / sqrt(dt)`` (1.0).
    max_num_reps: Stage 0: choices in a row on one side before only the other is rewarded (3).
    th_stage: Performance a day (and, in stage 3, the window) must reach to move on (0.7);
        -1 starts at the last stage (upstream's convention for "no curriculum").
    keep_days: Good days, after the first, required before the stage advances (1).
    trials_day: Stepped trials per day (300).
    perf_len: Trials in the moving performance window (20).
    stages: The stages to go through, a strictly increasing subset of 0..4 ((0, 1, 2, 3, 4)).
    n_ch: Stimulus dims and choice-like actions (10); only dims/actions 1 and 2 are used.
    stage: The stage to start at (the first of ``stages``, or the last if ``th_stage`` is
        -1); batches are drawn at it.

    Trial dict: ``ground_truth`` (1 or 2), ``coh`` (coherence in %), ``sigma`` (the noise
    std used), ``stage`` and ``both_rewarded`` (stage 0 with no repeat cap hit).
    ``ground_truth`` and ``coh`` can be forced; a forced ``ground_truth`` wins over the
    stage-0 repeat cap. ``env.stage`` is the current stage and ``env.curriculum`` the whole
    curriculum state; ``reset`` restarts the curriculum at ``stage`` unless called with
    ``options={"keep_curriculum": True}``. Every step's info holds ``stage``.

    ## References
    Inagaki, Fontolan, Romani & Svoboda (2019), "Discrete attractor dynamics underlies
    persistent activity in the frontal cortex", Nature 566:212-217.

    ## Version history
    v0: upstream NeuroGym 2.3.1's contrib task (never registered), repaired: every draw comes
    from the env's generator (stage-3 delays came from an unseeded generator); the curriculum
    moves on the outcome of each stepped trial, scored by the first choice (upstream scored a
    trial by the reward of its last step, counted one trial before the first, and in stage 0
    counted a trial without a choice as a repeat of the previous choice); ``env.rewards`` is
    never rewritten (upstream changed ``rewards["fail"]`` per stage); bad arguments raise.
    It needs ``_step``: the payoff of a wrong choice and whether it ends the trial depend on
    the stage, and trial outcomes move the curriculum.
    """

    default_rewards: ClassVar[dict[str, float]] = {"abort": -0.1, "correct": +1.0, "fail": -1.0}

    cross_trial_state = True

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        stim_scale: float = 1.0,
        sigma: float = 1.0,
        max_num_reps: int = 3,
        th_stage: float = 0.7,
        keep_days: int = 1,
        trials_day: int = 300,
        perf_len: int = 20,
        stages: Sequence[int] = STAGES,
        n_ch: int = 10,
        stage: int | None = None,
    ) -> None:
        super().__init__(dt=dt, rewards=rewards)
        self.n_ch = validate.integer(n_ch, "n_ch", minimum=2)
        self.stim_scale = validate.number(stim_scale, "stim_scale", minimum=0)
        self.sigma = validate.number(sigma, "sigma", minimum=0) / np.sqrt(self.dt)
        self.max_num_reps = validate.integer(max_num_reps, "max_num_reps", minimum=1)
        self.th_stage = _threshold(th_stage)
        self.keep_days = validate.integer(keep_days, "keep_days", minimum=0)
        self.trials_day = validate.integer(trials_day, "trials_day", minimum=1)
        self.perf_len = validate.integer(perf_len, "perf_len", minimum=1)
        self.stages = _stages(stages)
        default = self.stages[-1] if self.th_stage == -1 else self.stages[0]
        if stage is not None:
            stage = validate.choice(validate.integer(stage, "stage"), "stage", self.stages)
        self.start_stage = default if stage is None else stage
        self.choices = np.array([1, 2])
        self.cohs = np.array([0, 6.4, 12.8, 25.6, 51.2]) * self.stim_scale
        self.delay_durs = (1000.0, 3000.0)
        self.timing = {
            "fixation": 200,
            "stimulus": 1150,
            "delay": ("uniform", self.delay_durs),
            "decision": 1500,
        }
        if timing:
            self.timing.update(timing)
        self.abort = False
        self.observation_space = spaces.Box(
            -np.inf,
            np.inf,
            shape=(1 + self.n_ch,),
            dtype=np.float32,
            name={"fixation": 0, "stimulus": range(1, 1 + self.n_ch)},
        )
        self.action_space = spaces.Discrete(1 + self.n_ch, name={"fixation": 0, "choice": [1, 2]})
        self.curriculum = self._new_curriculum()
        # The trial being stepped: its outcome so far (None until its first step), whether the
        # agent has chosen yet and the choice that ended it; fed to the curriculum when the
        # next trial is generated.
        self._pending: int | None = None
        self._chosen = False
        self._ended_by = 0

    # ------------------------------------------------------------------ curriculum state
    @property
    def stage(self) -> int:
        """The current stage."""
        return self.stages[self.curriculum.index]

    def _new_curriculum(self) -> Curriculum:
        return Curriculum(
            index=self.stages.index(self.start_stage),
            days_left=self.keep_days,
            window=deque(maxlen=self.perf_len),
        )

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts a new episode; restarts the curriculum unless ``options["keep_curriculum"]``."""
        if not (options or {}).get("keep_curriculum", False):
            self.curriculum = self._new_curriculum()
        self._pending = None
        return super().reset(seed=seed, options=options)

    def _record_stepped_trial(self) -> None:
        """Feeds the outcome of the trial just stepped (if any) into the curriculum."""
        if self._pending is None:
            return
        outcome, ended_by = self._pending, self._ended_by
        self._pending, self._ended_by = None, 0
        cur = self.curriculum
        if self.trial is not None and self.trial["stage"] == 0 and ended_by in (1, 2):
            same_side = cur.last_side == ended_by and cur.side_run != 0
            cur.side_run = cur.side_run + 1 if same_side else 1
            cur.last_side = ended_by
        cur.day.append(outcome)
        cur.window.append(outcome)
        cur.trials_today += 1
        cur.trials_at_delay += 1
        if cur.trials_today > self.perf_len:
            self._update_window_perf(cur)
        if cur.trials_today >= self.trials_day:
            self._end_day(cur)
        if self.stage == 3:
            self._update_delays(cur)

    def _update_window_perf(self, cur: Curriculum) -> None:
        cur.window_perf = float(np.mean(cur.window))
        if cur.window_perf < _REMINDER_PERF and self.stage == 2 and 1 in self.stages:
            cur.index = self.stages.index(1)
            cur.reminder = True
        elif cur.window_perf > self.th_stage and cur.reminder:
            cur.index = self.stages.index(2)
            cur.reminder = False

    def _end_day(self, cur: Curriculum) -> None:
        cur.last_day_perf = float(np.mean(cur.day))
        cur.day = []
        cur.trials_today = 0
        cur.delay_floor = cur.delay_fraction
        delays_done = self.stage != 3 or cur.delay_fraction >= 1
        if cur.last_day_perf >= self.th_stage and delays_done:
            if cur.days_left <= 0 and cur.index < len(self.stages) - 1:
                cur.index += 1
                cur.days_left = self.keep_days + 1
            cur.days_left -= 1
        else:
            cur.days_left = self.keep_days

    def _update_delays(self, cur: Curriculum) -> None:
        if cur.trials_at_delay <= self.perf_len:
            return
        if cur.window_perf >= self.th_stage and cur.delay_fraction < 1:
            cur.delay_fraction += _DELAY_STEP
            cur.trials_at_delay = 0
        elif cur.window_perf <= _DELAY_DROP_PERF and cur.delay_fraction > cur.delay_floor:
            cur.delay_fraction -= _DELAY_STEP
            cur.trials_at_delay = 0

    # ------------------------------------------------------------------ trials
    def ideal_observer(self, batch: Any) -> np.ndarray | None:
        """Correct when the stronger summed channel (dims 1, 2) is the answer.

        Stage 4's zero coherence is right half of the time and its low coherences are
        noise-limited; stages 1-3 show the answer without noise. None in stage 0, where
        there is no stimulus (either side may be paid).
        """
        stage = np.asarray(batch.trial["stage"])
        if np.any(stage == 0):
            return None
        choice = 1 + batch.period_sum("stimulus", [1, 2]).argmax(1)
        correct: np.ndarray = (choice == batch.trial["ground_truth"]).astype(float)
        return correct

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        self._record_stepped_trial()
        stage, cur = self.stage, self.curriculum
        ground_truth = validate.integers_in_range(
            b.choice("ground_truth", self.choices), "ground_truth", 1, 2
        )
        coh = b.choice("coh", self.cohs, minimum=0)
        both_rewarded = np.zeros(b.n, dtype=bool)
        if stage == 0:
            capped = cur.side_run >= self.max_num_reps
            if capped and b.forced("ground_truth") is None:
                ground_truth[:] = 3 - cur.last_side
            both_rewarded[:] = not capped
        if stage in (1, 2, 3) and b.forced("coh") is None:
            coh = np.full(b.n, 100.0)
        sigma = self.sigma if stage == 4 else 0.0
        b.set_param("ground_truth", ground_truth)
        b.set_param("coh", coh)
        b.set_param("sigma", np.full(b.n, sigma))
        b.set_param("stage", np.full(b.n, stage))
        b.set_param("both_rewarded", both_rewarded)
        b.add_period(["fixation", "stimulus", "delay", "decision"], self._durations(b, stage))
        b.add_input(1, ["fixation", "stimulus", "delay"], where="fixation")
        b.add_input(self._stimulus(ground_truth, coh), "stimulus", where="stimulus")
        if sigma > 0:
            b.add_noise(0, sigma, "stimulus", where="stimulus")
        b.set_target(ground_truth, "decision")
        return {}

    def _durations(self, b: BatchBuilder, stage: int) -> list[Any]:
        """Per-period durations: None samples the timing dict; stages 0-3 fix some."""
        if stage == 0:
            return [None, 0, 0, None]
        if stage in (1, 2):
            return [None, None, 0, None]
        if stage == 3:
            fraction = self.curriculum.delay_fraction
            full = np.array([int(d * fraction) for d in self.delay_durs], dtype=float)
            return [None, None, b.rng.choice(full, size=b.n), None]
        return [None, None, None, None]

    def _stimulus(self, ground_truth: np.ndarray, coh: np.ndarray) -> np.ndarray:
        """``(B, n_ch)`` stimulus values: evidence in dims 1 and 2, 0.5 elsewhere."""
        values = np.full((len(ground_truth), self.n_ch), 0.5)
        strength = coh / 100
        values[:, :2] = ((1 - strength) / 2)[:, None]
        values[np.arange(len(ground_truth)), ground_truth - 1] = (1 + strength) / 2
        return values

    # ------------------------------------------------------------------ stepping
    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        trial = self.trial
        assert trial is not None
        if self._pending is None:  # the first step of this trial
            self._pending, self._chosen = 0, False
        stage = int(trial["stage"])
        reward, new_trial = 0.0, False
        if not self.in_period("decision"):
            if action != 0:
                reward, new_trial = self.rewards["abort"], self.abort
        elif action in (1, 2):
            first, self._chosen = not self._chosen, True
            if action == trial["ground_truth"] or bool(trial["both_rewarded"]):
                reward, new_trial, outcome = self.rewards["correct"], True, 1
            else:
                reward = 0.0 if stage in (0, 1) else self.rewards["fail"]
                new_trial, outcome = stage != 1, 0
            if first:
                self.performance = outcome
                self._pending = outcome
            if new_trial:
                self._ended_by = int(action)
        return self.ob_now, reward, False, False, {"new_trial": new_trial, "stage": stage}


def _threshold(value: Any) -> float:
    if value == -1:
        return -1.0
    return validate.probability(value, "th_stage")


def _stages(stages: Any) -> tuple[int, ...]:
    values = tuple(validate.integer(s, "stages[]", minimum=0, maximum=4) for s in stages)
    if not values or any(b <= a for a, b in itertools.pairwise(values)):
        raise ValueError(
            f"stages must be a non-empty, strictly increasing subset of {list(STAGES)}, "
            f"got {list(stages)!r}"
        )
    return values
