"""Hierarchical reasoning: infer an unannounced rule, then apply it to a timed interval."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, spaces, validate
from neurogym.rules import STANDARD_REWARDS
from neurogym.timing import TimingSpec

__all__ = ["HierarchicalReasoning"]

BLOCK_MIN, BLOCK_MAX = 10, 20
"""A rule block lasts a uniform number of trials in ``BLOCK_MIN..BLOCK_MAX`` (inclusive)."""
PERIODS = ("fixation", "rule_target", "fixation2", "flash1", "delay", "flash2", "decision")
"""The periods of a trial, in order."""
DEFAULT_DELAYS = (530, 610, 690, 770, 850, 930, 1010, 1090, 1170)


class HierarchicalReasoning(ngym.TrialEnv):
    """Hierarchical reasoning: judge an interval as short or long under a rule that switches.

    ## Description
    Two flashes at the same location are separated by a delay. The agent judges whether the
    delay is longer than a threshold (the median delay, 850 ms) and answers with the flashed
    location (pro) or the opposite one (anti). Which interval maps to pro depends on a rule
    that switches between blocks of 10 to 20 trials without announcement; at the start of each
    trial the agent reports the rule it believes in (Sarafyazd & Jazayeri 2019).

    ## Trial structure (periods)
    ``fixation`` (``TruncExp(600, 400, 800)``) → ``rule_target`` (1000 ms) → ``fixation2``
    (``TruncExp(600, 400, 900)``) → ``flash1`` (100 ms) → ``delay`` (one of 530, 610, …,
    1170 ms) → ``flash2`` (100 ms) → ``decision`` (700 ms).

    ## Observation space (named dims)
    ``Box(-inf, inf, (5,), float32)``: ``fixation`` (0) is 1 except in the decision period;
    ``rule`` (1, 2) are both 1 during ``rule_target`` (the rule is not cued); ``stimulus``
    (3, 4): the flashed location is 1 during ``flash1`` and ``flash2``.

    ## Action space
    ``Discrete(5)``: ``fixation`` (0), ``rule`` (1, 2), ``choice`` (3, 4).

    ## Reward
    During ``rule_target`` every step records whether the action is the current rule's action
    (``gt``); the last one counts. In the decision period any action other than 0 ends the
    trial with ``correct`` (+1, performance 1) if it equals ``gt`` **and** the rule was chosen
    correctly, else ``fail`` (0). Elsewhere an action other than 0 pays ``abort`` (-0.1) and
    ends the trial only when ``abort`` is True.

    Ground truth: ``rule + 1`` during ``rule_target``; the choice action ``3 + choice`` in the
    decision period, where ``choice`` is the flashed location on pro trials and the other one
    on anti trials. A trial is pro when ``long_interval == rule``; ``long_interval`` is
    ``interval > mid_delay + U(-0.5, 0.5)``, ``interval`` being the delay shown (floored to
    ``dt``) and ``mid_delay`` the median delay, 850 ms (the jitter only breaks exact ties).

    Rule blocks: the first trial after ``reset`` starts a block with rule 1; a block lasts a
    uniform 10..20 trials (drawn from ``rng``), then the rule flips. The block state
    (``block_rule``, ``block_size``, ``trial_in_block``) lives in the env and advances
    with every generated trial: ``new_trial()`` advances it by one, ``new_trials(B)`` assigns
    its ``B`` trials to the next ``B`` positions of the sequence (trial ``i`` of the batch is
    the ``i``-th next trial) and advances it by ``B``; ``reset()`` restarts it.

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form; ``delay`` must be a constant,
        choice, uniform or truncated-exponential spec, whose median is the threshold).
    rule_cue: The probability that a trial cues its rule (0, the default: the task as
        published, never). A cued trial's ``rule_target`` shows the rule one-hot on the
        ``rule`` inputs (``rule + 1``) instead of both. Not part of the paper's task: a
        training aid, the first stages of the curriculum a network learns the task with
        (``neurogym_apps``' learnability recipe; from scratch, the uncued task's only
        teacher is the feedback, which says nothing until the network has a rule to test).

    Trial dict: ``interval`` (the delay in ms), ``long_interval``, ``pro_choice``, ``rule``
    (0/1), ``stimulus`` (flashed location 0/1), ``ground_truth`` (choice index 0/1). Forcing
    ``interval`` (the delay: ms >= 0, one for all trials or one per trial), ``rule`` or
    ``stimulus`` is honoured; a forced ``ground_truth`` sets the flashed location that makes it
    correct. With ``rule_cue`` > 0 the dict adds ``rule_cued`` (whether the trial cues its
    rule; drawn from the trial's generator, forceable).

    ## References
    Sarafyazd & Jazayeri (2019), "Hierarchical reasoning by neural circuits in the frontal
    cortex", Science 364(6441):eaav8911.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, periods, rewards) with these
    differences:

    * the long/short threshold is the median delay, 850 ms (upstream took the median of the
      second delay value only, 610 ms, so two thirds of the trials were "long");
    * the delay period lasts ``interval``, the value the ground truth is computed from
      (upstream drew the delay period's duration again, independently of ``interval``, so the
      ground truth did not depend on the delay shown);
    * a forced ``interval`` sets the delay and the long/short judgement (upstream recorded it
      only); a forced ``ground_truth`` is honoured; the trial dict adds ``ground_truth``;
    * the rule-block sequence restarts at ``reset`` (upstream drew the first block at
      construction from an unseeded generator) and ``trial_length_stats`` does not advance it;
    * whether the rule was chosen correctly is forgotten at the start of every trial (upstream
      kept it across a trial that timed out);
    * the block state is ``block_rule``, ``block_size`` and ``trial_in_block`` (upstream's
      ``rule`` attribute is the env's step rule in neurogym, None here); ``block_rule`` is the
      rule of the latest generated trial (upstream flipped ``rule`` as soon as a block's last
      trial was generated).
    """

    default_rewards: ClassVar[Mapping[str, float]] = STANDARD_REWARDS
    default_timing: ClassVar[dict[str, Any]] = {
        "fixation": ngym.TruncExp(600, 400, 800),
        "rule_target": 1000,
        "fixation2": ngym.TruncExp(600, 400, 900),
        "flash1": 100,
        "delay": DEFAULT_DELAYS,
        "flash2": 100,
        "decision": 700,
    }

    cross_trial_state = True  # the rule blocks run on across trials
    # a guess (chance in neurogym_apps' evaluation) picks a rule, then a choice: 0.25
    guess_earlier: Mapping[str, tuple[int, ...]] | None = {"rule_target": (1, 2)}
    guess_responses = (3, 4)

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        rule_cue: float = 0.0,
    ) -> None:
        super().__init__()
        self.rule_cue = validate.probability(rule_cue, "rule_cue")
        self.choices = np.arange(2)
        self.mid_delay = median_ms(self.timing.spec("delay"))
        self.abort = False
        self.observation_space = spaces.Box(
            -np.inf,
            np.inf,
            shape=(5,),
            dtype=np.float32,
            name={"fixation": 0, "rule": [1, 2], "stimulus": [3, 4]},
        )
        self.action_space = spaces.Discrete(
            5, name={"fixation": 0, "rule": [1, 2], "choice": [3, 4]}
        )
        self.chose_correct_rule = False
        self._restart_blocks()

    # ------------------------------------------------------------------ rule blocks
    def _restart_blocks(self) -> None:
        """Puts the block sequence before its first block (whose rule will be 1)."""
        self.block_rule = 0
        self.block_size = 0
        self.trial_in_block = 0

    def _next_rules(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """Rules of the next ``n`` trials of the block sequence; advances it by ``n``."""
        rules = np.empty(n, dtype=np.int64)
        done = 0
        while done < n:
            if self.trial_in_block >= self.block_size:
                self.block_rule = 1 - self.block_rule
                self.block_size = int(rng.integers(BLOCK_MIN, BLOCK_MAX + 1))
                self.trial_in_block = 0
            take = min(self.block_size - self.trial_in_block, n - done)
            rules[done : done + take] = self.block_rule
            self.trial_in_block += take
            done += take
        return rules

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts a new episode and a new rule-block sequence (see ``TrialEnv.reset``)."""
        self._restart_blocks()
        self.chose_correct_rule = False
        return super().reset(seed=seed, options=options)

    # ------------------------------------------------------------------ trials
    def ideal_observer(self, batch: Any) -> np.ndarray:
        """Without memory of earlier trials, the rule is a guess: the more frequent one.

        No input shows the rule (the animal infers it from feedback across trials), so an
        observer whose state restarts every trial, or that is trained on independent trials,
        reports the batch's more frequent rule (or the rule of a trial that cues it,
        ``rule_cue``); the interval judgement is then certain, except for a delay equal to
        the threshold (a hidden coin flip).
        """
        rule = np.asarray(batch.trial["rule"])
        guess = int(np.mean(rule) > 0.5)
        judged = np.where(np.asarray(batch.trial["interval"]) == self.mid_delay, 0.5, 1.0)
        known = (rule == guess) | _cued(batch)  # a cued trial shows its rule
        correct: np.ndarray = known * judged
        return correct

    def stream_observer(self, batch: Any) -> np.ndarray:
        """Per trial of a stream, whether the Bayesian observer of the rule blocks is correct.

        What the observer knows: the generative process. The first block after ``reset``
        has rule 1; a block lasts a uniform ``BLOCK_MIN..BLOCK_MAX`` trials, then the rule
        flips, so after ``k`` trials of a block it ends with the hazard
        ``1 / (BLOCK_MAX + 1 - k)`` for ``k >= BLOCK_MIN`` (0 before). What it sees: each
        trial's flashed location and delay (shown without noise) and, after answering,
        whether it was rewarded, and the rule of a trial that cues it (``rule_cue``). What
        it does not know: the rule, the run of the current
        block (except through the outcomes), the coin that decides a delay equal to the
        threshold.

        It filters the hidden (rule, trials into the block) chain forward: it reports the
        more probable rule (ties: rule 0), judges the delay long when it exceeds the
        threshold (a delay equal to it is right half of the time) and answers as that rule
        maps the judgement; then it weighs the outcome: a reward has probability ``q`` (1,
        or 1/2 at the threshold) under the rule it reported and 0 under the other. With
        unambiguous delays a reward or a failure tells it the rule, so it errs only on a
        block's first trial unless the hazard made the switch the better bet.

        Args:
            batch: Consecutive trials of one env from its ``reset``, a numpy
                :class:`~neurogym.data.TrainingBatch` (``neurogym.batch(env, n, seed=0)``).

        Returns:
            ``(B,)``: 1.0 where the observer's rule and choice are both correct (the
            task's reward criterion), else 0.0.
        """
        interval = np.asarray(batch.trial["interval"])
        long_judged = (interval > self.mid_delay).astype(np.int64)
        q = np.where(interval == self.mid_delay, 0.5, 1.0)  # P(judged right)
        stimulus = np.asarray(batch.trial["stimulus"])
        rules, truth = np.asarray(batch.trial["rule"]), np.asarray(batch.trial["ground_truth"])
        hazard = block_hazard()
        belief = np.zeros((2, BLOCK_MAX))  # P(rule r, k + 1 trials into the block)
        belief[1, 0] = 1.0  # the first block has rule 1
        correct = np.empty(len(rules))
        cued = _cued(batch)
        for t in range(len(rules)):
            if t:
                belief = _next_trial(belief, hazard)
            if cued[t]:  # the trial shows its rule
                belief[1 - rules[t]] = 0.0
                belief /= belief.sum()
            rule = int(belief[1].sum() > belief[0].sum())
            choice = stimulus[t] if long_judged[t] == rule else 1 - stimulus[t]
            correct[t] = rule == rules[t] and choice == truth[t]
            belief[rule] *= q[t] if correct[t] else 1 - q[t]
            belief[1 - rule] *= 0.0 if correct[t] else 1.0
            belief /= belief.sum()
        return correct

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        rules = self._next_rules(b.rng, b.n)
        rule = b.set_param("rule", kwargs.get("rule", rules))
        if "rule" in kwargs:
            validate.integers_in_range(rule, "rule", 0, 1)
        interval = self._add_periods(b)
        long_interval = interval > self.mid_delay + (b.rng.random(b.n) - 0.5)
        pro_choice = long_interval.astype(np.int64) == rule
        stimulus, choice = self._stimulus_and_choice(b, pro_choice)

        # the fixation cue is on until the decision (the last period)
        b.add_input(
            1, ["fixation", "rule_target", "fixation2", "flash1", "delay", "flash2"], "fixation"
        )
        b.add_input(self._rule_inputs(b, rule), "rule_target", where="rule")
        b.add_input(1, ["flash1", "flash2"], where="stimulus", index=stimulus)
        b.set_target(choice, "decision", where="choice")
        b.set_target(rule, "rule_target", where="rule")
        return {"long_interval": long_interval, "pro_choice": pro_choice}

    def _rule_inputs(self, b: BatchBuilder, rule: np.ndarray) -> np.ndarray:
        """The ``rule`` inputs during ``rule_target``, ``(B, 2)``: both 1, or a cued rule.

        Draws (or reads a forced) ``rule_cued`` only when ``rule_cue`` > 0 or it is forced,
        so the uncued task's trials are those it always drew.
        """
        rows = np.ones((b.n, 2))
        forced = b.forced("rule_cued")
        if forced is None and self.rule_cue == 0:
            return rows
        if forced is not None and forced.dtype != bool:
            raise ValueError(
                f"forced rule_cued must be True or False (one for all trials or one per "
                f"trial), got {b.kwargs['rule_cued']!r}"
            )
        cued = b.set_param(
            "rule_cued", forced if forced is not None else b.rng.random(b.n) < self.rule_cue
        )
        rule = np.broadcast_to(rule, (b.n,))
        rows[cued] = np.eye(2)[rule[cued]]
        return rows

    def _add_periods(self, b: BatchBuilder) -> np.ndarray:
        """Adds the seven periods, the delay lasting a forced ``interval`` if there is one.

        Returns:
            The delay in ms, ``(B,)`` (recorded as ``interval``).
        """
        if "interval" in b.kwargs:
            interval = b.set_param("interval", _forced_interval(b))
            b.add_period(PERIODS, [interval if name == "delay" else None for name in PERIODS])
            return interval
        b.add_period(PERIODS)  # one chain, the delay sampled in its place
        interval = np.empty(b.n)  # (np.full costs three times as much for a single trial)
        interval[...] = b.end_t["delay"] - b.start_t["delay"]  # floats, or (B,) arrays
        return b.set_param("interval", interval)

    def _stimulus_and_choice(
        self, b: BatchBuilder, pro_choice: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Flashed location and correct choice; a forced ``ground_truth`` sets the location."""
        if "ground_truth" not in b.kwargs:
            stimulus = b.choice("stimulus", self.choices)
            choice = np.where(pro_choice, stimulus, 1 - stimulus)
            return stimulus, b.set_param("ground_truth", choice)
        choice = b.set_param("ground_truth", b.kwargs["ground_truth"])
        validate.integers_in_range(choice, "ground_truth", 0, 1)
        stimulus = np.where(pro_choice, choice, 1 - choice)
        if "stimulus" in b.kwargs and np.any(b.kwargs["stimulus"] != stimulus):
            raise ValueError(
                f"forced stimulus={b.kwargs['stimulus']!r} and "
                f"ground_truth={b.kwargs['ground_truth']!r} contradict each other under this "
                "trial's rule and interval; force only one of them"
            )
        return b.set_param("stimulus", stimulus), choice

    # ------------------------------------------------------------------ stepping
    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self.t_ind == 0:
            self.chose_correct_rule = False
        reward = 0.0
        new_trial = False
        gt = self.gt_now
        if self.in_period("decision"):
            if action != 0:
                new_trial = True
                if action == gt and self.chose_correct_rule:
                    reward = self.rewards["correct"]
                    self.performance = 1
                else:
                    reward = self.rewards["fail"]
        elif self.in_period("rule_target"):
            self.chose_correct_rule = action == gt
        elif action != 0:
            reward = self.rewards["abort"]
            new_trial = self.abort
        return self.ob_now, reward, False, False, {"new_trial": new_trial, "gt": gt}


def _cued(batch: Any) -> np.ndarray:
    """``(B,)``: whether each trial of ``batch`` cued its rule (none without ``rule_cue``)."""
    rule = np.asarray(batch.trial["rule"])
    cued: np.ndarray = np.broadcast_to(batch.trial.get("rule_cued", False), rule.shape)
    return cued


def block_hazard() -> np.ndarray:
    """``hazard[k - 1]``: the probability that a block ends after its ``k``-th trial.

    Given that it lasted ``k`` trials, for a length uniform over ``BLOCK_MIN..BLOCK_MAX``:
    ``P(L = k) / P(L >= k)``, 0 below ``BLOCK_MIN`` and 1 at ``BLOCK_MAX``.
    """
    k = np.arange(1, BLOCK_MAX + 1)
    hazard: np.ndarray = np.where(k >= BLOCK_MIN, 1 / (BLOCK_MAX + 1 - k), 0.0)
    return hazard


def _next_trial(belief: np.ndarray, hazard: np.ndarray) -> np.ndarray:
    """The belief over (rule, trials into the block) one trial on: stay in the block or flip."""
    ends = belief * hazard
    moved = np.zeros_like(belief)
    moved[:, 1:] = (belief - ends)[:, :-1]
    moved[:, 0] = ends.sum(axis=1)[::-1]  # a block that ends starts one of the other rule
    return moved


def median_ms(spec: TimingSpec) -> float:
    """The median duration in ms of a timing spec (the long/short threshold).

    Raises:
        ValueError: The spec is a callable or an ``until`` spec, whose median is unknown.
    """
    kind, args = spec.kind, spec.args
    if kind in ("constant", "choice"):
        return float(np.median(args))
    if kind == "uniform":
        return (args[0] + args[1]) / 2
    if kind == "truncated_exponential":
        mean, low, high = args
        if low >= high:
            return high
        tail = 0.0 if math.isinf(high) else math.exp(-high / mean)
        return -mean * math.log((math.exp(-low / mean) + tail) / 2)
    raise ValueError(
        f"timing['delay'] = {spec.raw!r}: the long/short threshold is the median delay, so the "
        "delay must be a constant, choice, uniform or truncated-exponential spec"
    )


def _forced_interval(b: BatchBuilder) -> np.ndarray:
    """A forced ``interval`` as ``(B,)`` floats: one delay of 0 ms or more, or one per trial.

    Raises:
        ValueError: Naming ``interval``, for a value of the wrong shape (from
            :meth:`~neurogym.BatchBuilder.forced`), one that is not a number, or a negative one.
    """
    forced = b.forced("interval")
    assert forced is not None  # (the caller checked that it was forced)
    if forced.dtype.kind not in "iuf":  # (bools, strings, objects)
        raise ValueError(
            f"forced interval must be the delay in ms (a number, or one per trial), got "
            f"{b.kwargs['interval']!r}"
        )
    if np.any(forced < 0):
        raise ValueError(
            f"forced interval must be >= 0 ms (it is the delay's duration), got "
            f"{forced[forced < 0].tolist()}"
        )
    return forced.astype(float)
