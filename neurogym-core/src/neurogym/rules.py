"""Declarative reward/termination rules that TrialEnv steps for one env or many at once.

:class:`StandardDecision` holds the one encoding of the standard decision rule that both the
single env (``TrialEnv._step``) and the native vector env (``neurogym.vector``) step:

* :meth:`StandardDecision.code_grid` gives each step a period code (:data:`NEUTRAL`,
  :data:`FIXATE`, :data:`RESPOND`); a period covers the steps the builder writes its
  observations and ground truth into (``_trialbatch._to_steps``, ``floor(t / dt)``);
* :meth:`StandardDecision.outcome_table` maps (period code, action == ground truth,
  action != fixation_action) to (reward, trial ends, correct), from ``rewards`` and ``abort``;
* :meth:`StandardDecision.timeout` gives what a trial that runs out without the rule ending it
  adds (reward, correct): nothing for the standard rule; for :class:`GoNoGoDecision` a no-go
  trial withheld to its end is correct and a go trial that never answered pays ``miss``; for
  :class:`LastStepReport` the last step's action is the trial's report.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeAlias

import numpy as np

from neurogym.timing import _to_steps

__all__ = [
    "FIXATE",
    "NEUTRAL",
    "RESPOND",
    "STANDARD_REWARDS",
    "GoNoGoDecision",
    "LastStepReport",
    "Outcome",
    "OutcomeTable",
    "StandardDecision",
]

NEUTRAL = 0
"""Period code of steps where any action earns nothing."""
FIXATE = 1
"""Period code of steps where breaking fixation is penalised."""
RESPOND = 2
"""Period code of steps where a response ends the trial."""

STANDARD_REWARDS: Mapping[str, float] = MappingProxyType(
    {"abort": -0.1, "correct": +1.0, "fail": 0.0}
)
"""The rewards of the standard decision tasks (NeuroGym 2.3.1's ``abort``/``correct``/``fail``):
a task whose rewards are these declares ``default_rewards = STANDARD_REWARDS``."""

Outcome: TypeAlias = tuple[Any, bool, bool]
"""``(reward, trial ends, correct)`` of one step (``correct`` sets ``performance = 1``)."""
OutcomeTable: TypeAlias = list[list[list[Outcome]]]
"""``table[code][action == gt][action != fixation_action]``: the :data:`Outcome` of a step."""


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

    With ``hold_fixation`` (off in every task's default rule, as upstream), fixation is held
    as labs train it: every step before the trial's first decision step is a fixation step,
    whatever its period, and a break there ends the trial (``rewards["abort"]``, performance
    0) whether or not ``env.abort`` is set. Set it per env with
    ``env.unwrapped.hold_fixation = True`` (:class:`~neurogym.TrialEnv`).

    Attributes:
        fixation_periods: Periods in which the agent must hold ``fixation_action``.
        decision_periods: Periods in which a response is scored.
        fixation_action: The action that means "keep fixating".
        hold_fixation: Fixation is held from the trial's start to its first decision step,
            and a break ends the trial.
    """

    fixation_periods: tuple[str, ...] = ("fixation",)
    decision_periods: tuple[str, ...] = ("decision",)
    fixation_action: int = 0
    hold_fixation: bool = False

    def outcome_table(self, rewards: Mapping[str, Any], abort: bool) -> OutcomeTable:
        """The rule's outcomes: ``table[code][action == gt][action != fixation_action]``.

        Each entry is ``(reward, trial ends, correct)``. Rewards are read only for the
        periods the rule has (a rule without fixation periods needs no ``"abort"`` key), and
        ``"fail"`` defaults to 0.

        Raises:
            KeyError: ``rewards`` lacks ``"abort"`` (with fixation periods) or ``"correct"``
                (with decision periods).
        """
        nothing: Outcome = (0.0, False, False)
        held = bool(self.fixation_periods) or self.hold_fixation
        fixate = (rewards["abort"], bool(abort) or self.hold_fixation, False) if held else nothing
        correct = (rewards["correct"], True, True) if self.decision_periods else nothing
        wrong = (rewards.get("fail", 0.0), True, False) if self.decision_periods else nothing
        return [
            [[nothing, nothing], [nothing, nothing]],  # NEUTRAL
            [[nothing, fixate], [nothing, fixate]],  # FIXATE
            [[nothing, wrong], [nothing, correct]],  # RESPOND
        ]

    def timeout(self, rewards: Mapping[str, Any], hit: bool, held: bool) -> tuple[float, bool]:
        """``(reward, correct)`` added when a trial times out without the rule ending it.

        ``hit``: the action of the trial's last step equals that step's ground truth; ``held``:
        it is ``fixation_action``. The standard rule adds nothing (the env's ``r_tmax`` is
        added in either case).
        """
        del rewards, hit, held
        return 0.0, False

    def _painted(self, present: Mapping[str, Any]) -> list[tuple[int, str]]:
        """``(code, period)`` of each rule period in ``present``, in painting order.

        Decision periods come first so that fixation, painted last, wins where they overlap.
        """
        return [
            (kind, name)
            for kind, names in ((RESPOND, self.decision_periods), (FIXATE, self.fixation_periods))
            for name in names
            if name in present
        ]

    def _spans(
        self, start_t: Mapping[str, Any], end_t: Mapping[str, Any], dt: float
    ) -> Iterator[tuple[int, Any, Any]]:
        """``(code, first step, stop step)`` of each rule period, in painting order.

        Steps follow the builder's rule (``_to_steps``), so codes cover exactly the steps the
        period's observations and ground truth were written to.
        """
        for kind, name in self._painted(start_t):
            yield kind, _to_steps(start_t[name], dt), _to_steps(end_t[name], dt)

    def _paint(self, steps: int, spans: Iterable[tuple[int, int, int]]) -> list[int]:
        """The codes of one trial of ``steps`` steps from its ``(code, first, stop)`` spans.

        With ``hold_fixation``, the steps before the first decision step are fixation first.
        """
        spans = list(spans)
        codes = [NEUTRAL] * steps
        if self.hold_fixation:
            starts = [first for kind, first, _ in spans if kind == RESPOND]
            if starts:
                held = min(max(min(starts), 0), steps)
                codes[:held] = [FIXATE] * held
        for kind, first, stop in spans:
            first, stop = max(first, 0), min(stop, steps)
            if stop > first:
                codes[first:stop] = [kind] * (stop - first)
        return codes

    def codes(
        self, start_t: dict[str, float], end_t: dict[str, float], steps: int, dt: float
    ) -> list[int]:
        """Per-step period codes of one trial (:meth:`code_grid` of a batch of one).

        Step ``k`` is in a period when ``floor(start / dt) <= k < floor(end / dt)``.
        """
        return self._paint(steps, self._spans(start_t, end_t, dt))

    def code_rows(
        self, first: Mapping[str, list[int]], stop: Mapping[str, list[int]], lengths: list[int]
    ) -> list[list[int]]:
        """:meth:`codes` of each trial of a batch, from its periods' step indices.

        Args:
            first: Period name to each trial's first step (``_to_steps(start_t)``).
            stop: Period name to each trial's step after the period (``_to_steps(end_t)``).
            lengths: Each trial's number of steps.

        Returns:
            One list per trial, equal to row ``i`` of :meth:`code_grid` cut to its length
            (plain lists, never edited in place: trials with the same spans share one; a
            pool of prefetched trials needs no array for them).
        """
        painted = self._painted(first)
        kinds = [kind for kind, _ in painted]
        columns = [lengths, *[bounds[name] for _, name in painted for bounds in (first, stop)]]

        def codes_of(key: tuple[int, ...]) -> list[int]:  # key: (steps, first_0, stop_0, ...)
            return self._paint(key[0], zip(kinds, key[1::2], key[2::2], strict=True))

        # one list per distinct key, shared by its trials
        if lengths and all(column.count(column[0]) == len(column) for column in columns):
            return [codes_of(tuple(column[0] for column in columns))] * len(lengths)
        keys = list(zip(*columns, strict=True))
        made = {key: codes_of(key) for key in set(keys)}
        return [made[key] for key in keys]

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
        starts = {name: np.asarray(value, dtype=float) for name, value in start_t.items()}
        ends = {name: np.asarray(value, dtype=float) for name, value in end_t.items()}
        spans = list(self._spans(starts, ends, dt))
        responds = [
            np.broadcast_to(first, lengths.shape) for kind, first, _ in spans if kind == RESPOND
        ]
        if self.hold_fixation and responds:  # fixation to the first decision step, painted first
            held = np.minimum(np.min(responds, axis=0), lengths)
            grid[k < held[:, None]] = FIXATE
        for kind, first, stop in spans:
            inside = (k >= first[:, None]) & (k < np.minimum(stop, lengths)[:, None])
            grid[inside] = kind
        return grid


@dataclass(frozen=True)
class GoNoGoDecision(StandardDecision):
    """The standard rule for go/no-go tasks, where withholding is an answer.

    As :class:`StandardDecision` on every step; in addition, at a trial's timeout:

    * a **no-go** trial (its last step's ground truth is ``fixation_action``) withheld to its
      end is correct (``performance = 1``; no reward beyond the env's ``r_tmax``);
    * a **go** trial that never answered pays ``rewards["miss"]`` (0 if the task has none).

    A response in a decision period of a no-go trial is wrong (``rewards["fail"]``), as under
    the standard rule. Used by GoNogo, DelayPairedAssociation and Yang et al.'s dms, dnms,
    dmc and dnmc; vector envs step it natively like the standard rule.
    """

    def timeout(self, rewards: Mapping[str, Any], hit: bool, held: bool) -> tuple[float, bool]:
        """``(0, True)`` for a withheld no-go trial, ``(rewards["miss"], False)`` otherwise."""
        if hit and held:  # the ground truth was to keep fixating, and the agent did
            return 0.0, True
        return float(rewards.get("miss", 0.0)), False


@dataclass(frozen=True)
class LastStepReport(StandardDecision):
    """The standard rule, and the action at a trial's last step is its report.

    A trial that times out is correct (``performance = 1``, nothing paid) when the action of
    its last step equals that step's ground truth. For tasks read out at the end of the
    trial, such as ToneDetection (report the tone's position, or its absence).
    """

    def timeout(self, rewards: Mapping[str, Any], hit: bool, held: bool) -> tuple[float, bool]:
        """``(0, hit)``: the last step's report is correct or not; nothing is paid."""
        del rewards, held
        return 0.0, hit
