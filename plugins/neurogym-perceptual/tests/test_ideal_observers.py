"""Ideal observers (the learnability table's ceilings) against analytic accuracies."""

from __future__ import annotations

import math

import numpy as np
import pytest

import neurogym

N = 20_000


def phi(x: float) -> float:
    """The standard normal CDF."""
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def observer(task: str, n: int = N, **kwargs: object) -> np.ndarray:
    env_kwargs = {k: kwargs.pop(k) for k in list(kwargs) if k in ("sigma",)}
    env = neurogym.make(task, **env_kwargs)
    # a Generator seed: one vectorised pass (a sample; the env's own stream is not needed)
    data = neurogym.batch(env, n, seed=np.random.default_rng(0), **kwargs)
    return env.unwrapped.ideal_observer(data)


@pytest.mark.parametrize(("coh", "expected"), [(0.0, 0.5), (6.4, None), (51.2, 1.0)])
def test_pdm_observer_matches_the_signal_to_noise_of_the_summed_stimulus(coh, expected):
    # two units differ by coh/100 per step; each carries noise sigma/sqrt(dt) = 0.1 per step;
    # 20 stimulus steps (2000 ms at dt 100) summed: d' = (coh/100) 20 / (0.1 sqrt(2) sqrt(20))
    if expected is None:
        expected = phi((coh / 100) * 20 / (0.1 * math.sqrt(2) * math.sqrt(20)))
    correct = observer("PerceptualDecisionMaking", coh=np.full(N, coh))
    assert correct.mean() == pytest.approx(expected, abs=0.012)


def test_cdm_observer_reads_the_relevant_modality():
    # coherence 5 %: 7 steps (750 ms) of a 0.05 difference against 0.1 noise per unit
    expected = phi(0.05 * 7 / (0.1 * math.sqrt(2) * math.sqrt(7)))
    weak = observer("ContextDecisionMaking", coh_1=np.full(N, 5), coh_2=np.full(N, 50))
    assert weak.mean() == pytest.approx(expected, abs=0.012)  # the strong one is irrelevant
    assert observer("ContextDecisionMaking", 2000, sigma=0.0).mean() == 1.0


def test_msi_and_delay_response_observers_are_perfect_without_noise():
    assert observer("MultiSensoryIntegration", 2000, sigma=0.0).mean() == 1.0
    delayed = neurogym.make("PerceptualDecisionMakingDelayResponse")
    data = neurogym.batch(delayed, 2000, seed=0, sigma=np.zeros(2000))
    coh = data.trial["coh"]
    correct = delayed.unwrapped.ideal_observer(data)
    assert correct[coh > 0].all()


def test_hierarchical_reasoning_observer_must_guess_the_uncued_rule():
    # blocks of 10-20 trials alternate the rule, which no input shows: about half are lost
    assert observer("HierarchicalReasoning").mean() == pytest.approx(0.5, abs=0.03)
    # with the rule known (one rule throughout), the interval judgement is certain at dt 100
    one_rule = observer("HierarchicalReasoning", 4000, rule=np.zeros(4000, dtype=int))
    assert one_rule.mean() == 1.0


def test_post_decision_wager_observer_is_perfect_without_noise_and_limited_with_it():
    clean = observer("PostDecisionWager", 4000, sigma=0.0)
    coh = neurogym.batch("PostDecisionWager", 4000, seed=np.random.default_rng(0)).trial["coh"]
    assert clean[coh > 0].all()
    assert clean[coh == 0].mean() == pytest.approx(0.5, abs=0.05)
    assert 0.7 < observer("PostDecisionWager").mean() < 0.85  # one or two noisy steps


def test_probabilistic_reasoning_observer_is_limited_by_the_drawn_answer():
    # The answer is drawn given the shapes: the best an observer can do is follow the evidence.
    # Count, independently of the observer, how often "the side the evidence favours" matches
    # the drawn answer (ties: half), and compare with the analytic single-shape case.
    env = neurogym.make("ProbabilisticReasoning")
    data = neurogym.batch(env, N, seed=np.random.default_rng(1))
    log_odd, answer = np.asarray(data.trial["log_odd"]), np.asarray(data.trial["ground_truth"])
    follows = np.where(log_odd == 0, 0.5, (log_odd > 0) == (answer == 1))
    assert env.unwrapped.ideal_observer(data).mean() == pytest.approx(follows.mean(), abs=0.01)
    one = neurogym.make("ProbabilisticReasoning", shape_weight=(-0.3, 0.3), n_loc=1)
    single = one.unwrapped.ideal_observer(neurogym.batch(one, 200, seed=0))
    assert single == pytest.approx(np.full(200, 10**0.3 / (1 + 10**0.3)))  # p = 0.666...


def test_pulse_observer_loses_half_of_the_ties():
    # P(tie) for two binomial counts over 6 bins, with the default pulse probabilities
    env = neurogym.make("PulseDecisionMaking")
    p, q = env.unwrapped.p_pulse
    n = env.unwrapped.n_bin

    def pmf(k: int, prob: float) -> float:
        return math.comb(n, k) * prob**k * (1 - prob) ** (n - k)

    tie = sum(pmf(k, p) * pmf(k, q) for k in range(n + 1))
    assert observer("PulseDecisionMaking").mean() == pytest.approx(1 - tie / 2, abs=0.006)
