"""How :class:`~neurogym.TrialEnv` steps a task that declares its ``rule`` (architecture §5).

A task with a declarative ``rule`` (:class:`~neurogym.rules.StandardDecision`) and no
``_step`` of its own is stepped by the rule: each step's period code, the action and the
step's ground truth select an outcome in the rule's one table (reward, trial end, correct).
``TrialEnv.step`` evaluates the common case inline and calls these methods for the rest.

``hold_fixation`` is the env's view of its rule's ``hold_fixation``
(:class:`~neurogym.rules.StandardDecision`): assigning it replaces ``rule`` (a versioned
setting) by the same rule with or without held fixation.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from neurogym import validate
from neurogym._env.current import gt_at
from neurogym.rules import StandardDecision

if TYPE_CHECKING:
    from neurogym._env.current import CurrentTrial
    from neurogym.rules import OutcomeTable

__all__ = ["RuleStepping"]


def _hits(action: Any, gt: Any, t_ind: int) -> bool:
    """Whether ``action`` equals the ground truth of step ``t_ind`` (False if it has none)."""
    if gt is None or t_ind >= len(gt):
        return False
    return bool(action == gt_at(gt, t_ind))


class RuleStepping:
    """The declared rule's step outcomes, cached per ``config_version`` (a TrialEnv mixin)."""

    rule: StandardDecision | None
    rewards: dict[str, float]  # (a RewardDict at run time: RewardsAndTiming)
    abort: bool
    performance: float
    _outcomes: tuple[Any, ...]
    _steps_by_rule: bool

    @property
    def hold_fixation(self) -> bool:
        """Fixation is held until the response, as labs train it (False: the task's rule).

        When True, every step before a trial's first decision step is a fixation step and
        breaking fixation there ends the trial with ``rewards["abort"]`` and performance 0
        (whatever ``abort`` is): the agent cannot answer while the stimulus is on. Upstream's
        rewards check fixation only in their fixation periods; this is an opt-in setting of
        the env, never a task's default. It is the rule's ``hold_fixation``: assigning it
        replaces ``rule`` (so it is versioned, pickled and kept by ``configure``; vector envs
        and prefetched trials follow it from the next trial).

        Raises:
            TypeError: Assigned on a task that does not step by a declarative rule (it
                has its own ``_step``, or no ``rule = StandardDecision(...)``), or a value
                that is not a bool.
            ValueError: The rule has no decision period.
        """
        return bool(getattr(self.rule, "hold_fixation", False))

    @hold_fixation.setter
    def hold_fixation(self, value: Any) -> None:
        name = type(self).__name__
        held = validate.boolean(value, f"{name}.hold_fixation")
        rule = self.rule
        if not isinstance(rule, StandardDecision) or not self._steps_by_rule:
            how = "its own _step()" if not self._steps_by_rule else f"rule={rule!r}"
            raise TypeError(
                f"hold_fixation needs a task stepped by a declarative rule (rule = "
                f"StandardDecision(...) and no _step of its own); {name} steps with {how}, "
                "so which steps are fixation is the task's own code"
            )
        if not rule.decision_periods:
            raise ValueError(
                f"hold_fixation holds fixation until the first decision period, but "
                f"{name}'s rule has none (decision_periods=())"
            )
        if rule.hold_fixation != held:
            self.rule = dataclasses.replace(rule, hold_fixation=held)

    def _rule_step(self, action: Any, current: CurrentTrial, t_ind: int) -> tuple[float, bool]:
        """The reward and trial end of ``action`` at step ``t_ind`` under ``rule``.

        Reads the rule's one encoding, :meth:`StandardDecision.outcome_table` of the current
        ``rule``, ``rewards`` and ``abort`` (built again when ``config_version`` changed). Its
        entries for NEUTRAL steps and for ``fixation_action`` are ``(0, False, False)``
        whatever the configuration (pinned by a test): those steps, most of a trial, return
        without the lookup.
        """
        rule = self.rule
        code = current.codes[t_ind]  # type: ignore[index]
        if not code or action == rule.fixation_action:  # type: ignore[union-attr]
            return 0.0, False
        cached = self._outcomes
        if cached[0] != self.config_version:  # type: ignore[attr-defined]
            cached = self._rule_outcomes(rule)
        by_hit = cached[1][code][_hits(action, current.gt, t_ind)]
        reward, new_trial, correct = by_hit[True]
        if correct:
            self.performance = 1
        return reward, new_trial

    def _rule_timeout(self, action: Any, current: CurrentTrial, last: int) -> float:
        """The rule's reward for a trial that timed out at step ``last`` (sets performance)."""
        rule = self.rule
        assert rule is not None
        hit = _hits(action, current.gt, last)
        reward, correct = rule.timeout(self.rewards, hit, action == rule.fixation_action)
        if correct:
            self.performance = 1
        return reward

    def _rule_outcomes(self, rule: StandardDecision | None) -> tuple[Any, ...]:
        """Builds (and caches) the outcome table of ``rule`` for the current configuration."""
        if rule is None:
            raise NotImplementedError(
                f"{type(self).__name__} must implement _step(action) or declare a rule"
            )
        rewards: Any = self.rewards
        abort = self.abort
        table: OutcomeTable = rule.outcome_table(rewards, abort)
        self._outcomes = cached = (self.config_version, table)  # type: ignore[attr-defined]
        return cached
