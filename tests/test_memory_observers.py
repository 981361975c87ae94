"""The Bayesian observers of a stream of trials (``stream_observer``) against independent answers.

Each observer's score on a seeded stream is compared with a value computed here another way:
a closed form of the generative process (HierarchicalReasoning), an exhaustive enumeration of
the hidden context paths (ChangingEnvironment), the exact expected accuracy from binomial
sums and decision thresholds (IBLBlock, ibl20), and known limits (a hazard of 0 or 1/2).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import neurogym
from neurogym_apps.train._ceilings import memory_ceiling, observed_ceiling, stream_correct

HR, CE, IBL, IBL_BLOCK = "HierarchicalReasoning", "ChangingEnvironment", "IBL", "IBLBlock"
IBL20 = "perceptualdecisionmaking.ibl20"


def stream(task_id, trials, seed, **env_kwargs):
    """A fresh env and its next ``trials`` consecutive trials (the fast vectorised pass)."""
    env = neurogym.make(task_id, **env_kwargs)
    return env, neurogym.batch(env, trials, seed=np.random.default_rng(seed))


def chunk_se(correct, chunk=1000):
    """Standard error of the mean from means of consecutive chunks (trials are correlated)."""
    means = np.asarray(correct)[: len(correct) // chunk * chunk].reshape(-1, chunk).mean(1)
    return means.std(ddof=1) / np.sqrt(len(means))


def normal_cdf(x):
    return 0.5 * np.vectorize(math.erfc)(-np.asarray(x, dtype=float) / math.sqrt(2))


def mixture_llr(d, means, sd):
    """Log odds of the positive side for evidence N(±m, sd²), m uniform over ``means``."""
    d = np.asarray(d, dtype=float)[..., None]
    plus = np.exp(-((d - means) ** 2) / (2 * sd**2)).sum(-1)
    minus = np.exp(-((d + means) ** 2) / (2 * sd**2)).sum(-1)
    return np.log(plus) - np.log(minus)


def threshold(log_prior_odds, means, sd):
    """The evidence at which the posterior is even: the LLR is monotone, so bisect."""
    target = -np.asarray(log_prior_odds, dtype=float)
    low, high = np.full(target.shape, -20 * sd), np.full(target.shape, 20 * sd)
    for _ in range(60):
        mid = (low + high) / 2
        above = mixture_llr(mid, means, sd) > target
        high, low = np.where(above, mid, high), np.where(above, low, mid)
    return (low + high) / 2


def accuracy_with_prior(p_positive, means, sd):
    """Exact accuracy of the Bayes choice with prior ``p_positive`` on the positive side."""
    p = np.asarray(p_positive, dtype=float)
    cut = threshold(np.log(p) - np.log1p(-p), means, sd)[..., None]
    hit = 1 - normal_cdf((cut - means) / sd)  # positive side, per strength
    rejection = normal_cdf((cut + means) / sd)  # negative side
    return (p * hit.mean(-1), (1 - p) * rejection.mean(-1))


# ---------------------------------------------------------------- HierarchicalReasoning
def test_hierarchical_reasoning_scores_the_renewal_closed_form():
    # Block lengths uniform over 10..20: after k trials of a block the next trial flips with
    # hazard P(L = k) / P(L >= k); the best bet errs with probability min(h, 1 - h) there.
    lengths = range(10, 21)
    p_len = {n: Fraction(1, len(lengths)) for n in lengths}
    errors = Fraction(0)
    for k in range(1, 21):
        reach = sum(p for n, p in p_len.items() if n >= k)
        h = p_len.get(k, Fraction(0)) / reach
        errors += reach * min(h, 1 - h)
    expected = 1 - float(errors / sum(n * p for n, p in p_len.items()))  # 1 - (10/11) / 15
    env, trials = stream(HR, 30_000, seed=3)
    correct = env.stream_observer(trials)
    assert abs(correct.mean() - expected) < 3 * chunk_se(correct) + 1e-3
    # "keep the last rule" (no hazard) would score 1 - 1/15 = 0.9333: resolved here
    assert correct.mean() - (1 - 1 / 15) > 4 * chunk_se(correct)
    assert observed_ceiling(env, 2000, seed=0) < 0.6  # the memoryless ceiling: a guess


# ---------------------------------------------------------------- ChangingEnvironment
def side_evidence(env, trials):
    """Summed stimulus difference (side 2 minus side 1), its possible means and its std."""
    summed = trials.period_sum("stimulus", [1, 2])
    start, end = trials.periods["stimulus"]
    steps = (end - start).astype(float)
    means = steps[:, None] * env.unwrapped.cohs / 100
    return summed[:, 1] - summed[:, 0], means, env.unwrapped.sigma * np.sqrt(2 * steps)


def enumerated_observer(env, trials, h):
    """The observer of the context written by brute force: every context path is weighed."""
    d, means, sd = side_evidence(env, trials)
    llr = np.array([mixture_llr(d[t], means[t], sd[t]) for t in range(len(d))])
    side = np.where(llr > 0, 2, 1)
    q = 1 / (1 + np.exp(-np.abs(llr)))
    truth = np.asarray(trials.trial["ground_truth"])
    history, correct = [], []
    for t in range(len(d)):
        weight = {0: 0.0, 1: 0.0}
        for path in itertools.product((0, 1), repeat=t + 1):
            p = 0.5 * np.prod([h if a != b else 1 - h for a, b in itertools.pairwise(path)])
            for s, (chosen, rewarded) in enumerate(history):
                p *= (q[s] if rewarded else 1 - q[s]) if path[s] == chosen else 1 - rewarded
            weight[path[-1]] += p
        context = int(weight[1] > weight[0])
        correct.append(float(side[t] + 2 * context == truth[t]))
        history.append((context, bool(correct[-1])))
    return np.array(correct)


@pytest.mark.parametrize("seed", range(6))
def test_changing_environment_matches_an_enumeration_of_context_paths(seed):
    h = 0.2
    env, trials = stream(CE, 9, seed, cxt_ch_prob=h, sigma=3.0)
    np.testing.assert_array_equal(env.stream_observer(trials), enumerated_observer(env, trials, h))


def test_changing_environment_limits_of_the_hazard():
    # h = 1/2: the context is a fresh coin each trial, memory is worth nothing
    env, trials = stream(CE, 8000, seed=1, cxt_ch_prob=0.5)
    memory, memoryless = env.stream_observer(trials), env.ideal_observer(trials)
    assert abs(memory.mean() - memoryless.mean()) < 3 * chunk_se(memory - memoryless)
    # h = 0: after its first reward the observer knows the context, so it errs exactly where
    # the stimulus misleads it (the context-known ceiling)
    env, trials = stream(CE, 3000, seed=2, cxt_ch_prob=0.0)
    memory = env.stream_observer(trials)
    d, _, _ = side_evidence(env, trials)
    side_right = np.where(d > 0, 2, 1) == np.asarray(trials.trial["side"])
    first = int(np.argmax(memory))
    np.testing.assert_array_equal(memory[first:], side_right[first:])
    assert first < 5


# ---------------------------------------------------------------- IBL, IBLBlock
def test_ibl_has_nothing_to_remember():
    env, trials = stream(IBL, 2000, seed=0)
    np.testing.assert_array_equal(env.stream_observer(trials), env.ideal_observer(trials))


def iblblock_expected_accuracy(env):
    """Exact mean accuracy of the block-prior observer over whole blocks (binomial sums)."""
    task = env.unwrapped
    probs, size = task.probs[:, 1], task.block_size
    means, sd = task.cohs / 100, task.sigma * math.sqrt(2)
    n, r = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
    seen = r <= n  # n trials of the block so far, r of them right
    n, r = n[seen], r[seen]
    like = probs[:, None] ** r * (1 - probs[:, None]) ** (n - r)  # (types, states)
    p_right = (like * probs[:, None]).sum(0) / like.sum(0)
    right, left = accuracy_with_prior(p_right, means, sd)
    log_comb = np.array([math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(a - b + 1)
                         for a, b in zip(n, r, strict=True)])  # fmt: skip
    total = 0.0
    for p in probs:  # each block type, drawn uniformly
        with np.errstate(divide="ignore"):
            chance = np.exp(log_comb + r * np.log(p) + (n - r) * np.log1p(-p))
        total += (chance * (p / p_right * right + (1 - p) / (1 - p_right) * left)).sum()
    return total / (len(probs) * size)


def test_iblblock_scores_its_exact_expected_accuracy():
    env, trials = stream(IBL_BLOCK, 24_000, seed=4)
    expected = iblblock_expected_accuracy(env)
    memory = env.stream_observer(trials)
    assert abs(memory.mean() - expected) < 3 * chunk_se(memory, 2000)
    assert memory.mean() - env.ideal_observer(trials).mean() > 0.04  # the prior is worth it


# ---------------------------------------------------------------- ibl20
def test_ibl20_scores_the_known_prior_ceiling():
    env, trials = stream(IBL20, 3600, seed=5)
    task = env.unwrapped
    steps = round(task.timing.spec("stimulus").args[0] / task.dt)
    means, sd = steps * task.cohs / 100, task.sigma * math.sqrt(2 * steps)
    expected = sum(accuracy_with_prior(0.8, means, sd))  # each block's likely side has p = 0.8
    memory = env.stream_observer(trials)
    assert abs(memory.mean() - expected) < 3 * memory.std() / np.sqrt(len(memory))
    assert memory.mean() - env.unwrapped.ideal_observer(trials).mean() > 0.03


# ---------------------------------------------------------------- the helper
def test_memory_ceiling_scores_the_env_stream_after_reset():
    env = neurogym.make(HR)
    expected = env.stream_observer(neurogym.batch(env, 300, seed=7))
    np.testing.assert_array_equal(stream_correct(HR, 300, seed=7), expected)
    assert memory_ceiling(HR, 300, seed=7) == pytest.approx(expected.mean())
    assert memory_ceiling("PerceptualDecisionMaking", 10, seed=0) is None
