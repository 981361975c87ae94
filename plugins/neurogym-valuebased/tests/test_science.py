"""Science checks: agents that know a task's structure beat random agents by the margin the
parameters imply (computed here, not eyeballed), the matching-pennies opponent exploits bias,
contexts switch and blocks follow their priors at the documented rates."""

from __future__ import annotations

import math

import numpy as np
import pytest

import neurogym
from neurogym.testing.trials import respond, run_trial, seeded
from neurogym_valuebased.tasks.bandit import Bandit
from neurogym_valuebased.tasks.changingenvironment import ChangingEnvironment
from neurogym_valuebased.tasks.dawtwostep import DawTwoStep
from neurogym_valuebased.tasks.economicdecisionmaking import JUICES, OFFERS, EconomicDecisionMaking
from neurogym_valuebased.tasks.ibl import BLOCK_PRIORS, IBLBlock
from neurogym_valuebased.tasks.matchingpenny import MatchingPenny


def _within(values, mean, var, z=4.0):
    """The sample mean of ``values`` is within ``z`` standard errors of ``mean``."""
    se = math.sqrt(var / len(values))
    assert abs(float(np.mean(values)) - mean) < z * se, (np.mean(values), mean, se)


def test_bandit_best_arm_agent_beats_random_by_the_expected_margin():
    p, magnitudes, n = np.array([0.8, 0.3]), np.array([1.0, 2.0]), 20000
    expected = p * magnitudes  # 0.8 and 0.6
    best = int(np.argmax(expected))
    env = seeded(Bandit, seed=0, p=tuple(p), arm_rewards=tuple(magnitudes))
    greedy = [env.step(best)[1] for _ in range(n)]
    rng = np.random.default_rng(1)
    guessing = [env.step(int(rng.integers(2)))[1] for _ in range(n)]
    var_best = magnitudes[best] ** 2 * p[best] * (1 - p[best])
    second_moment = np.mean(p * magnitudes**2)
    var_random = second_moment - expected.mean() ** 2
    _within(greedy, expected[best], var_best)
    _within(guessing, expected.mean(), var_random)
    margin = expected[best] - expected.mean()  # 0.1
    se = math.sqrt((var_best + var_random) / n)
    assert np.mean(greedy) - np.mean(guessing) > margin - 4 * se > 0.05


def _offer_values():
    """(value1, value2) of every (juice, offer) pair, each equally likely."""
    r_a, r_b = 0.22, 0.22 / 2.2
    pairs = []
    for first, _ in JUICES:
        for n_b, n_a in OFFERS:
            a, b = n_a * r_a, n_b * r_b
            pairs.append((a, b) if first == "a" else (b, a))
    return np.array(pairs)


def test_economic_agent_choosing_the_higher_value_beats_random():
    values = _offer_values()
    best, chance = values.max(1), values.mean(1)
    env = seeded(EconomicDecisionMaking, seed=2)
    rng = np.random.default_rng(3)
    n = 1500
    greedy = [run_trial(env, respond(lambda e: int(e.gt_now)))[0][-1] for _ in range(n)]
    guessing = [
        run_trial(env, respond(lambda e: int(rng.integers(1, 3))))[0][-1] for _ in range(n)
    ]
    _within(greedy, best.mean(), best.var())
    _within(guessing, chance.mean(), values.var())  # a uniform pick among all 36 values
    margin = best.mean() - chance.mean()
    assert margin > 0.1
    assert np.mean(greedy) - np.mean(guessing) > margin - 4 * math.sqrt(
        (best.var() + values.var()) / n
    )


def test_two_step_agent_using_the_common_transition_beats_random():
    env = seeded(DawTwoStep, seed=4)
    common, high, low = env.p1, env.high_reward_p, env.low_reward_p
    assert env.p2 == common
    p_informed = common * high + (1 - common) * low  # 0.74
    p_random = (high + low) / 2  # either first choice: 0.5
    n = 6000
    rng = np.random.default_rng(5)
    informed, guessing = [], []
    for rewards, choose in ((informed, lambda: int(env.trial["hi_state"]) + 1),
                            (guessing, lambda: int(rng.integers(1, 3)))):  # fmt: skip
        for _ in range(n):
            reward = env.step(choose())[1]
            env.step(0)
            rewards.append(reward)
    _within(informed, p_informed, p_informed * (1 - p_informed))
    _within(guessing, p_random, p_random * (1 - p_random))
    se = math.sqrt((p_informed * (1 - p_informed) + p_random * (1 - p_random)) / n)
    assert np.mean(informed) - np.mean(guessing) > (p_informed - p_random) - 4 * se > 0.2


def test_matching_penny_opponent_exploits_a_biased_agent():
    lr = 0.2
    env = seeded(MatchingPenny, seed=6, learning_rate=lr)
    always_one = [env.step(1)[1] for _ in range(500)]
    # The opponent plays 1 while its running mean 1 - (1 - lr)^k rounds to 0 (<= 0.5).
    matched = math.floor(math.log(0.5) / math.log(1 - lr)) + 1  # 4
    assert always_one == [1.0] * matched + [0.0] * (500 - matched)

    rng = np.random.default_rng(7)
    n = 6000
    env.reset(seed=8)
    biased = [env.step(int(rng.random() < 0.8))[1] for _ in range(n)]
    env.reset(seed=9)
    fair = [env.step(int(rng.random() < 0.5))[1] for _ in range(n)]
    coin = seeded(MatchingPenny, seed=10, opponent_type="random")
    against_coin = [coin.step(int(rng.random() < 0.8))[1] for _ in range(n)]
    _within(against_coin, 0.5, 0.25)  # a coin cannot be exploited, nor exploit
    _within(fair, 0.5, 0.25)  # an unbiased agent cannot be exploited
    # The opponent's mean tracks the bias (0.8 > 0.5), so it plays 0 and the agent matches
    # only when it picks 0: about 1 - 0.8 = 0.2 of the trials.
    assert np.mean(biased) < 0.25


@pytest.mark.parametrize("p", [0.001, 0.05])
def test_changing_environment_switches_context_at_its_rate(p):
    env = seeded(ChangingEnvironment, seed=11, cxt_ch_prob=p)
    contexts = np.array([env.new_trial()["context"] for _ in range(8000)])
    _within(contexts[1:] != contexts[:-1], p, p * (1 - p))
    n = int(40 / p)  # about 40 switches expected
    batch = seeded(ChangingEnvironment, seed=12, cxt_ch_prob=p, sigma=0.0).new_trials(n)
    _within(np.diff(batch.trial["context"]) != 0, p, p * (1 - p))


def test_changing_environment_context_decides_the_rewarded_action():
    env = seeded(ChangingEnvironment, seed=13, cxt_ch_prob=0.0, sigma=0.0)
    context = int(env.trial["context"])
    for _ in range(30):
        side = int(env.trial["side"])
        ignoring = respond(lambda e, s=side: s)  # answers the side as in context 0
        _, info, _ = run_trial(env, ignoring)
        assert info["performance"] == int(context == 0)
        assert info["trial"]["context"] == context


def test_ibl_blocks_follow_their_priors():
    n_blocks, size = 150, 200
    env = IBLBlock()  # not reset: the batch starts the block sequence
    env.rng = np.random.default_rng(14)
    batch = env.new_trials(n_blocks * size)
    blocks = batch.trial["block"].reshape(n_blocks, size)
    assert (blocks == blocks[:, :1]).all()  # a block type holds for 200 consecutive trials
    kinds = blocks[:, 0]
    for kind, (_, p_right) in enumerate(BLOCK_PRIORS):
        count = int(np.sum(kinds == kind))
        _within(kinds == kind, 1 / 3, 2 / 9)
        sides = batch.trial["ground_truth"].reshape(n_blocks, size)[kinds == kind]
        _within(sides.ravel(), p_right, p_right * (1 - p_right))
        assert count > 0
    np.testing.assert_allclose(
        batch.trial["p_right"], np.array(BLOCK_PRIORS)[batch.trial["block"], 1]
    )
    single = seeded(IBLBlock, seed=15)
    stepped = [int(single.trial["block"])]
    for _ in range(3 * size - 1):
        single.step(0)
        stepped.append(int(single.trial["block"]))
    runs = np.flatnonzero(np.diff(stepped) != 0) + 1
    assert set(runs.tolist()) <= {size, 2 * size}  # a block changes only at block boundaries


def _phi(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


@pytest.mark.parametrize("task", ["IBL", "IBLBlock"])
@pytest.mark.parametrize("coh", [1.6, 6.4, 25.6])
def test_ibl_ideal_observer_matches_one_noisy_step(task, coh):
    # one step: the inputs differ by coh/100, each with noise 0.1: d' = (coh/100) / (0.1 sqrt 2)
    n = 20_000
    env = neurogym.make(task)
    data = neurogym.batch(env, n, seed=0, coh=np.full(n, coh))
    correct = env.unwrapped.ideal_observer(data)
    assert correct.mean() == pytest.approx(_phi((coh / 100) / (0.1 * math.sqrt(2))), abs=0.012)


@pytest.mark.parametrize(("cue", "share"), [(False, 0.5), (True, 1.0)])
def test_changing_environment_ideal_observer_guesses_a_hidden_context(cue, share):
    n = 4000
    env = neurogym.make("ChangingEnvironment", cxt_cue=cue)
    data = neurogym.batch(env, n, seed=0, coh=np.full(n, 51.2))  # the side is certain
    np.testing.assert_array_equal(env.unwrapped.ideal_observer(data), share)
