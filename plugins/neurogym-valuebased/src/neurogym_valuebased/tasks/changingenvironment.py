"""Changing environment: random dots whose response mapping follows a hidden context."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, StandardDecision, spaces, validate
from neurogym.rules import STANDARD_REWARDS

from ._stream import side_log_odds

__all__ = ["ChangingEnvironment"]


class ChangingEnvironment(ngym.TrialEnv):
    """Random-dots discrimination whose correct action depends on a hidden, switching context.

    ## Description
    After fixation, two noisy stimulus channels carry a coherence toward one side. The agent
    reports the side, but through one of two pairs of actions: in context 0 the answer for
    side 1 (2) is action 1 (2), in context 1 it is action 3 (4). The context is not shown
    (unless ``cxt_cue``): it switches with probability ``cxt_ch_prob`` at the start of each
    trial, so the agent must notice a switch from its rewards (after Purcell & Kiani 2016,
    who studied choices and changes of strategy over distinct timescales).

    ## Trial structure (periods)
    ``fixation`` (500 ms) → ``stimulus`` (``TruncExp(1000, 500, 1500)``) → ``decision``
    (500 ms).

    ## Observation space (named dims)
    Without ``cxt_cue``, ``Box(-inf, inf, (3,), float32)``: ``fixation`` (0) is 1 in the
    fixation period; ``stimulus`` (1, 2) is ``(1 + coh/100) / 2`` on the trial's side and
    ``(1 - coh/100) / 2`` on the other, plus Gaussian noise of std ``sigma / sqrt(dt)``, in the
    stimulus period. With ``cxt_cue``, ``(4,)``: ``context`` (0) shows the context in the
    stimulus and decision periods (0 during fixation, as upstream), ``fixation`` (1), and
    ``stimulus`` (2, 3).

    ## Action space
    ``Discrete(5)``: ``fixation`` (0), ``choice`` (1-4): ``side + 2 * context``.

    ## Reward
    The standard decision rule: in fixation an action other than 0 pays ``abort`` (-0.1) and
    ends the trial only if ``abort`` is True (False); in the decision period the first action
    other than 0 ends the trial with ``correct`` (+1) if it is the ground truth, else ``fail``
    (0). The stimulus period is unscored.

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).
    stim_scale: Scales the coherences (0, 6.4, 12.8, 25.6, 51.2) (1.0).
    sigma: Input noise, scaled by ``1 / sqrt(dt)`` (1.0).
    cxt_ch_prob: Probability that the context switches at the start of a trial (0.001).
    cxt_cue: Whether an extra input shows the context (False).

    Trial dict: ``side`` (1 or 2), ``coh``, ``context`` (0 or 1) and ``ground_truth``
    (``side + 2 * context``). ``side`` and ``coh`` can be forced; a forced ``ground_truth``
    sets the side and must agree with the current context. The context is drawn at random
    for the first trial after ``reset`` and runs on across trials (``cross_trial_state``): a
    batch is consecutive trials.

    ## References
    Purcell & Kiani (2016), "Hierarchical decision processes that operate over distinct
    timescales underlie choice and changes in strategy", PNAS 113(31):E4531-E4540.

    ## Version history
    v0: repaired from upstream NeuroGym 2.3.1's unregistered contrib task: the first context
    is drawn from the seeded generator when an episode starts (upstream drew it at
    construction from an unseeded generator and never reset it); with ``cxt_cue`` the
    stimulus of side 1 is shown on its stimulus channel (upstream wrote it onto the fixation
    channel, and side 2 onto the other side's channel); the context is in the trial dict
    (upstream put it in every step's ``info``); the task has no ``choices`` attribute (its
    sides are ``sides``), so ground-truth wrappers, which would force a side as the answer
    whatever the context, refuse it.
    """

    default_rewards: ClassVar[Mapping[str, float]] = STANDARD_REWARDS
    default_timing: ClassVar[dict[str, Any]] = {
        "fixation": 500,
        "stimulus": ngym.TruncExp(1000, 500, 1500),
        "decision": 500,
    }

    cross_trial_state = True  # the context runs on across trials
    rule = StandardDecision(fixation_periods=("fixation",), decision_periods=("decision",))

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        stim_scale: float = 1.0,
        sigma: float = 1.0,
        cxt_ch_prob: float = 0.001,
        cxt_cue: bool = False,
    ) -> None:
        super().__init__()
        self.cxt_ch_prob = validate.probability(cxt_ch_prob, "cxt_ch_prob")
        self.cxt_cue = validate.boolean(cxt_cue, "cxt_cue")
        self.sides = np.array([1, 2])
        scale = validate.number(stim_scale, "stim_scale")
        self.cohs = np.array([0, 6.4, 12.8, 25.6, 51.2]) * scale
        self.sigma = validate.number(sigma, "sigma", minimum=0) / np.sqrt(self.dt)
        self.abort = False
        names: dict[str, int | list[int]] = (
            {"context": 0, "fixation": 1, "stimulus": [2, 3]}
            if self.cxt_cue
            else {"fixation": 0, "stimulus": [1, 2]}
        )
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(3 + self.cxt_cue,), dtype=np.float32, name=names
        )
        self.action_space = spaces.Discrete(5, name={"fixation": 0, "choice": [1, 2, 3, 4]})
        self.curr_cxt: int | None = None  # drawn with the episode's first trial

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts a new episode; its first context is drawn at random (``TrialEnv.reset``)."""
        self.curr_cxt = None
        return super().reset(seed=seed, options=options)

    def _contexts(self, b: BatchBuilder) -> np.ndarray:
        """Contexts of the next ``b.n`` trials; advances the running context by ``b.n``."""
        if self.curr_cxt is None:
            self.curr_cxt = int(b.rng.random() < 0.5)
        switches = np.cumsum(b.rng.random(b.n) < self.cxt_ch_prob)
        contexts = (self.curr_cxt + switches) % 2
        self.curr_cxt = int(contexts[-1])
        return contexts.astype(np.int64)

    def ideal_observer(self, batch: Any) -> np.ndarray:
        """The side from the stronger summed stimulus input, times the chance of the context.

        That chance is 1 with ``cxt_cue``, else 1/2: no input shows the context, and a
        network whose state restarts at every trial never sees a reward.
        """
        dims = [2, 3] if self.cxt_cue else [1, 2]
        side = self.sides[batch.period_sum("stimulus", dims).argmax(1)]
        knows_context = 1.0 if self.cxt_cue else 0.5
        correct: np.ndarray = (side == batch.trial["side"]) * knows_context
        return correct

    def stream_observer(self, batch: Any) -> np.ndarray:
        """Per trial of a stream, whether the Bayesian observer of the context is correct.

        What the observer knows: the generative process. The first context of an episode is
        0 or 1 with probability 1/2 and at the start of every trial it switches with
        probability ``cxt_ch_prob`` (a two-state hidden Markov chain); the side is 1 or 2 with
        probability 1/2 and the coherence uniform over ``cohs``; each stimulus input carries
        Gaussian noise of std ``sigma / sqrt(dt)`` per step. What it sees: each trial's
        inputs (the number of stimulus steps included; the context with ``cxt_cue``) and,
        after answering, whether it was rewarded. What it does not know: the context
        (without ``cxt_cue``), the side, the coherence, the noise.

        Per trial it predicts the context (``P(c_t) = P(c_{t-1})(1 - h) + (1 - P(c_{t-1}))h``,
        ``h = cxt_ch_prob``), answers with the more probable context (ties: 0) and the side the
        summed stimulus favours (its log odds with the coherence marginalised; ties: side 1),
        then updates on the outcome: a reward proves the context it chose; a failure has
        probability ``1 - q`` under that context, ``q`` its posterior probability that the
        side was right, and 1 under the other. It bets greedily (each trial's most probable
        answer; it never answers against its posterior to learn more). With ``h = 1/2``
        nothing carries over and it scores :meth:`ideal_observer`'s mean; as ``h`` goes to 0
        it approaches the score with the context known.

        Args:
            batch: Consecutive trials of one env from its ``reset``, a numpy
                :class:`~neurogym.data.TrainingBatch` (``neurogym.batch(env, n, seed=0)``).

        Returns:
            ``(B,)``: 1.0 where the observer's answer (``side + 2 * context``) is the ground
            truth, else 0.0.
        """
        odds = self._side_log_odds(batch)
        side = np.where(odds > 0, 2, 1)
        q = 1 / (1 + np.exp(-np.abs(odds)))  # P(the chosen side is right | the stimulus)
        truth = np.asarray(batch.trial["ground_truth"])
        cued = np.asarray(batch.trial["context"]) if self.cxt_cue else None
        h = self.cxt_ch_prob
        p_one = 0.5  # P(context 1), before the episode's first trial
        correct = np.empty(len(truth))
        for t in range(len(truth)):
            p_one = p_one * (1 - h) + (1 - p_one) * h
            context = int(p_one > 0.5) if cued is None else int(cued[t])
            correct[t] = side[t] + 2 * context == truth[t]
            p_one = _after_outcome(p_one, context, bool(correct[t]), q[t])
        return correct

    def _side_log_odds(self, batch: Any) -> np.ndarray:
        """Per trial, the log odds of side 2 given its summed stimulus inputs."""
        dims = [2, 3] if self.cxt_cue else [1, 2]
        summed = batch.period_sum("stimulus", dims)
        start, end = batch.periods["stimulus"]
        steps = np.asarray(end) - np.asarray(start)
        means = steps[:, None] * self.cohs[None, :] / 100  # side 2's mean difference
        return side_log_odds(summed[:, 1] - summed[:, 0], means, self.sigma * np.sqrt(2 * steps))

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        context = b.set_param("context", self._contexts(b))
        forced_gt = b.forced("ground_truth")
        if forced_gt is not None:
            validate.integers_in_range(forced_gt, "ground_truth", 1, 4)
            if np.any((forced_gt - 1) // 2 != context):
                raise ValueError(
                    f"forced ground_truth={b.kwargs['ground_truth']!r} needs context "
                    f"{(np.asarray(forced_gt) - 1) // 2}, but the context is {context}; the "
                    "answer of side s in context c is s + 2 * c (force side= instead)"
                )
            b.kwargs["side"] = (forced_gt - 1) % 2 + 1
        side = b.choice("side", self.sides)
        coh = b.choice("coh", self.cohs, minimum=0)
        ground_truth = b.set_param("ground_truth", side + 2 * context)

        b.add_period(["fixation", "stimulus", "decision"])
        cue = int(self.cxt_cue)
        b.add_input(1, "fixation", where="fixation")
        if cue:
            b.add_input(context.astype(float), ["stimulus", "decision"], where="context")
        strong, weak = (1 + coh / 100) / 2, (1 - coh / 100) / 2
        stimulus = np.where(side[:, None] == self.sides, strong[:, None], weak[:, None])
        b.add_input(stimulus, "stimulus", where="stimulus")
        b.add_noise(0, self.sigma, "stimulus", where="stimulus")
        b.set_target(ground_truth, "decision")
        return {}


def _after_outcome(p_one: float, chosen: int, rewarded: bool, q: float) -> float:
    """P(context 1) after the outcome of an answer given under context ``chosen``.

    A reward happens only under the chosen context (with probability ``q``, that the side
    was right); a failure has probability ``1 - q`` under it and 1 under the other.
    """
    if rewarded:
        return float(chosen)
    under_chosen = (p_one if chosen else 1 - p_one) * (1 - q)
    under_other = 1 - p_one if chosen else p_one
    total = under_chosen + under_other
    return (under_chosen if chosen else under_other) / total
