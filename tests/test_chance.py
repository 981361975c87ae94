"""Chance as an animal would guess: fixate, then answer at random (neurogym_apps.train.Guess)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import neurogym
from neurogym_apps.train._closed_loop import Guess, baseline_policies, run_closed_loop

TRIALS = 600
SE = 0.5 / np.sqrt(TRIALS)  # the standard error of a 0.5 rate


def guess_rate(task: str, **kwargs: object) -> float:
    def make() -> gym.Env:
        return neurogym.make(task, **kwargs)

    guess = Guess.of(make())
    assert guess is not None
    run = run_closed_loop(make, guess, TRIALS, seed=3, fixation_action=guess.fixation)
    if 0 not in guess.responses:  # (a "go" on a no-go trial counts as a break)
        assert not run.broke_fixation.any()  # a guess holds fixation until the answer
    return float(run.strict.mean())


@pytest.mark.parametrize(
    ("task", "expected"),
    [
        ("PerceptualDecisionMaking", 1 / 2),  # two choices
        ("DelayMatchSample", 1 / 2),  # match / non-match
        ("DelayMatchCategory", 1 / 2),  # answered in its "test" period (declared)
        ("PostDecisionWager", None),  # checked below: the sure option is not always offered
        ("GoNogo", 1 / 2),  # withholding is one of the two answers
    ],
)
def test_a_guess_scores_one_over_the_number_of_answers(task, expected):
    rate = guess_rate(task)
    if expected is not None:
        assert abs(rate - expected) < 4 * SE, rate
    else:
        assert 0.2 < rate < 0.5, rate


def test_a_task_that_asks_for_two_answers_is_guessed_twice():
    """HierarchicalReasoning: a rule in rule_target, then a choice in decision; a guess that
    held fixation through rule_target would never be paid (0)."""
    guess = Guess.of(neurogym.make("HierarchicalReasoning"))
    assert guess is not None
    assert (guess.period, guess.responses) == ("decision", (3, 4))
    assert guess.earlier == (("rule_target", (1, 2)),)
    rate = guess_rate("HierarchicalReasoning")
    assert abs(rate - 1 / 4) < 4 * np.sqrt(3 / 16 / TRIALS), rate


def test_a_guess_is_timed_by_the_periods_not_by_the_ground_truth():
    # On a no-go trial the ground truth stays "fixate": a policy timed by it would withhold
    # on exactly those trials and score 1. The guess answers "go" or withholds at random.
    guess = Guess.of(neurogym.make("GoNogo"))
    assert guess is not None
    assert guess.responses == (0, 1)
    assert guess_rate("GoNogo") < 0.5 + 4 * SE


def test_a_task_declares_its_answer_period_and_answers():
    guess = Guess.of(neurogym.make("DelayMatchCategory"))
    assert guess is not None
    assert guess.period == "test"
    assert Guess.of(neurogym.make("yang19.dm1")).responses == tuple(range(1, 17))
    assert Guess.of(neurogym.make("ReadySetGo")) is None  # scored by its own timing criterion
    assert Guess.of(neurogym.make("Detection")) is None  # no response period to guess in


def test_chance_includes_the_guess_and_the_bar_uses_the_best_baseline():
    pytest.importorskip("torch")
    from neurogym_apps.train import TrainConfig, evaluate, train

    model = train("DelayMatchSample", TrainConfig(steps=2, hidden_size=8), progress=False)
    result = evaluate(model, 200, seed=5)
    assert set(result.chance) == {"random", "fixation", "guess"}
    assert result.chance["fixation"] == 0.0
    assert result.chance_level == result.chance["guess"] > 0.35
    assert set(baseline_policies(neurogym.make("ReadySetGo"))) == {"random", "fixation"}
