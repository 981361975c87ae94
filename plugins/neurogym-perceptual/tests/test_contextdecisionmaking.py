"""ContextDecisionMaking: explicit and implicit context, ring stimuli in two modalities."""

from __future__ import annotations

import math

import numpy as np
import pytest

from neurogym import TruncExp
from neurogym.testing import check_task
from neurogym.testing.trials import (
    correct,
    other_of_two,
    period_mean,
    respond,
    run_trial,
    trunc_exp_steps,
)
from neurogym_perceptual.tasks.contextdecisionmaking import ContextDecisionMaking


class TestContextDecisionMaking:
    @pytest.mark.parametrize(
        "kwargs",
        [{}, {"use_expl_context": True}, {"impl_context_modality": 1, "abort": True},
         {"dt": 20, "dim_ring": 4, "use_expl_context": True}],
    )  # fmt: skip
    def test_check_task(self, kwargs):
        check_task(ContextDecisionMaking(**kwargs))

    def test_defaults_match_upstream(self):
        env = ContextDecisionMaking()
        assert env.dt == 100
        assert env.rewards == {"abort": -0.1, "correct": 1.0}  # no "fail" key upstream
        assert dict(env.timing) == {
            "fixation": 300, "stimulus": 750, "delay": TruncExp(600, 300, 3000), "decision": 100,
        }  # fmt: skip
        assert env.cohs == [5, 15, 50]
        assert env.contexts == [0]
        assert ContextDecisionMaking(use_expl_context=True).contexts == [0, 1]
        assert ContextDecisionMaking(impl_context_modality=1).contexts == [1]
        assert env.sigma == pytest.approx(0.1)
        assert env.abort is False
        np.testing.assert_array_equal(env.choices, [1, 2])
        assert env.metadata["tags"] == [
            "perceptual", "context dependent", "two-alternative", "supervised",
        ]  # fmt: skip

    def test_spaces_implicit(self):
        env = ContextDecisionMaking(dim_ring=3)
        assert env.observation_space.shape == (7,)
        assert env.observation_space.name == {
            "fixation": 0, "stim1_mod1": 1, "stim2_mod1": 2, "stim3_mod1": 3,
            "stim1_mod2": 4, "stim2_mod2": 5, "stim3_mod2": 6,
        }  # fmt: skip
        assert env.action_space.n == 4
        assert env.action_space.name == {"fixation": 0, "choice": (1, 2, 3)}

    def test_spaces_explicit(self):
        env = ContextDecisionMaking(use_expl_context=True)
        assert env.observation_space.shape == (7,)
        assert env.observation_space.name == {
            "fixation": 0, "stim1_mod1": 1, "stim2_mod1": 2, "stim1_mod2": 3, "stim2_mod2": 4,
            "context1": 5, "context2": 6,
        }  # fmt: skip
        assert env.action_space.name == {"fixation": 0, "choice": (1, 2)}

    @pytest.mark.parametrize(
        ("kwargs", "match"),
        [({"impl_context_modality": 2}, "impl_context_modality must be 0 or 1 .* got 2"),
         ({"dim_ring": 1}, "dim_ring must be an int in .2, 4096., got 1"),
         ({"timing": {"delay": -5}}, "timing\\['delay'\\]")],
    )  # fmt: skip
    def test_bad_args(self, kwargs, match):
        with pytest.raises(ValueError, match=match):
            ContextDecisionMaking(**kwargs)

    def test_explicit_context_ignores_impl_context_modality(self):
        assert ContextDecisionMaking(use_expl_context=True, impl_context_modality=5).contexts == [
            0,
            1,
        ]

    @pytest.mark.parametrize(
        ("dt", "fixation", "stimulus", "decision"), [(100, 3, 7, 1), (20, 15, 37, 5)]
    )
    def test_periods_and_delay_distribution(self, dt, fixation, stimulus, decision):
        env = ContextDecisionMaking(dt=dt)
        env.reset(seed=0)
        batch = env.new_trials(5000)
        starts = {name: batch.periods[name][0] for name in batch.periods}
        ends = {name: batch.periods[name][1] for name in batch.periods}
        np.testing.assert_array_equal(starts["fixation"], 0)
        np.testing.assert_array_equal(ends["fixation"], fixation)
        np.testing.assert_array_equal(ends["stimulus"], fixation + stimulus)
        np.testing.assert_array_equal(starts["delay"], fixation + stimulus)
        np.testing.assert_array_equal(ends["decision"] - starts["decision"], decision)
        np.testing.assert_array_equal(batch.lengths, ends["decision"])
        delay = ends["delay"] - starts["delay"]
        pmf = trunc_exp_steps(600, 300, 3000, dt)
        assert set(np.unique(delay)) <= set(pmf)
        observed = np.array([(delay == k).mean() for k in pmf])
        np.testing.assert_allclose(observed, list(pmf.values()), atol=0.02 if dt == 100 else 0.012)
        fixed = fixation + stimulus + decision
        expected_mean = fixed + sum(k * p for k, p in pmf.items())
        assert batch.lengths.mean() == pytest.approx(expected_mean, abs=0.35 * 100 / dt)
        stats = env.trial_length_stats(5000)
        assert stats["mean"] == pytest.approx(expected_mean, abs=0.35 * 100 / dt)
        assert fixed + 300 // dt <= batch.lengths.min()
        assert stats["max"] < fixed + 3000 // dt

    def test_observations_and_gt_per_period(self):
        env = ContextDecisionMaking(use_expl_context=True)
        env.reset(seed=1)
        trial, ob = env.trial, env.ob
        stim = slice(env.start_ind["stimulus"], env.end_ind["stimulus"])
        decision = env.start_ind["decision"]
        # the fixation input is on until the decision (the go cue, Mante et al. 2013)
        np.testing.assert_array_equal(ob[:, 0], [1] * decision + [0] * (len(ob) - decision))
        assert np.all(ob[stim, 1:5] != 0)
        np.testing.assert_array_equal(ob[:3, 1:5], 0)
        np.testing.assert_array_equal(ob[stim.stop :, 1:5], 0)  # delay and decision: blank
        context = int(trial["context"])
        np.testing.assert_array_equal(ob[:, 5], context == 0)  # whole trial
        np.testing.assert_array_equal(ob[:, 6], context == 1)
        np.testing.assert_array_equal(env.gt, [0] * decision + [trial["ground_truth"]])

    @pytest.mark.parametrize("dim_ring", [2, 4])
    def test_relevant_modality_points_to_ground_truth(self, dim_ring):
        env = ContextDecisionMaking(use_expl_context=True, dim_ring=dim_ring, sigma=0.0)
        env.reset(seed=2)
        batch = env.new_trials(3000)
        trial = batch.trial
        mod1 = period_mean(batch, "stimulus", range(1, dim_ring + 1)).argmax(1) + 1
        mod2 = period_mean(batch, "stimulus", range(dim_ring + 1, 2 * dim_ring + 1)).argmax(1) + 1
        second = trial["context"] == 1
        np.testing.assert_array_equal(np.where(second, mod2, mod1), trial["ground_truth"])
        np.testing.assert_array_equal(np.where(second, mod1, mod2), trial["other_choice"])
        assert 0.45 < second.mean() < 0.55
        # The coherence sets the peak height: 0.5 + coh / 200.
        peak1 = period_mean(batch, "stimulus", range(1, dim_ring + 1)).max(1)
        np.testing.assert_allclose(peak1, 0.5 + trial["coh_1"] / 200, rtol=1e-6)

    def test_noisy_evidence_grows_with_coherence(self):
        env = ContextDecisionMaking()  # implicit context 0: modality 1 is relevant
        env.reset(seed=3)
        batch = env.new_trials(3000)
        gt, coh = batch.trial["ground_truth"], batch.trial["coh_1"]
        means = period_mean(batch, "stimulus", [1, 2])
        evidence = np.where(gt == 1, means[:, 0] - means[:, 1], means[:, 1] - means[:, 0])
        by_coh = [evidence[coh == c].mean() for c in env.cohs]
        np.testing.assert_allclose(by_coh, np.array(env.cohs) / 100, atol=0.008)
        start, end = batch.periods["stimulus"][0][0], batch.periods["stimulus"][1][0]
        noise = (
            batch.ob[:, start:end, 1:5] - period_mean(batch, "stimulus", range(1, 5))[:, None, :]
        )
        assert noise.std() == pytest.approx(0.1 * math.sqrt(6 / 7), rel=0.03)
        np.testing.assert_array_equal(batch.trial["context"], 0)

    def test_scripted_agents(self):
        env = ContextDecisionMaking()
        env.reset(seed=4)
        finished = env.trial
        decision = env.start_ind["decision"]
        rewards, info, steps = run_trial(env, respond(correct))
        assert (rewards[-1], info["performance"], steps) == (1.0, 1, decision + 1)
        assert sum(rewards[:-1]) == 0
        assert info["trial"] is finished
        rewards, info, _ = run_trial(env, respond(other_of_two))
        assert (rewards[-1], info["performance"]) == (0.0, 0)
        length = env.ob.shape[0]
        rewards, info, steps = run_trial(env, lambda env: 0)  # a miss
        assert (sum(rewards), info["performance"], steps) == (0.0, 0, length)

    def test_fail_reward_is_paid(self):
        # Upstream ignored a "fail" reward passed by the user and paid 0 for a wrong choice.
        env = ContextDecisionMaking(rewards={"fail": -1.0})
        env.reset(seed=5)
        rewards, info, _ = run_trial(env, respond(other_of_two))
        assert (rewards[-1], info["performance"]) == (-1.0, 0)

    @pytest.mark.parametrize("abort", [False, True])
    def test_breaking_fixation(self, abort):
        env = ContextDecisionMaking(abort=abort)
        env.reset(seed=6)
        _, reward, _, _, info = env.step(2)
        assert reward == pytest.approx(-0.1)
        assert info["new_trial"] is abort
        env.reset(seed=6)
        for _ in range(3):
            env.step(0)
        _, reward, _, _, info = env.step(1)  # stimulus: free
        assert (reward, info["new_trial"]) == (0, False)

    def test_forced_kwargs(self):
        env = ContextDecisionMaking(use_expl_context=True, sigma=0.0)
        env.reset(seed=7)
        trial = env.new_trial(ground_truth=2, other_choice=1, context=1, coh_1=50, coh_2=5)
        assert {k: int(v) for k, v in trial.items()} == {
            "ground_truth": 2, "other_choice": 1, "context": 1, "coh_1": 50, "coh_2": 5,
        }  # fmt: skip
        np.testing.assert_allclose(env.ob[3, 1:], [0.75, 0.25, 0.475, 0.525, 0, 1], rtol=1e-6)
        assert env.gt[-1] == 2
        forced = np.array([1, 2, 2, 1])
        batch = env.new_trials(4, ground_truth=forced, context=np.array([0, 0, 1, 1]))
        np.testing.assert_array_equal(batch.trial["ground_truth"], forced)
        np.testing.assert_array_equal(batch.gt[np.arange(4), batch.lengths - 1], forced)
        np.testing.assert_array_equal(batch.ob[:, 0, 6], [0, 0, 1, 1])

    def test_determinism(self):
        a, b = ContextDecisionMaking(), ContextDecisionMaking()
        a.reset(seed=8)
        b.reset(seed=8)
        np.testing.assert_array_equal(a.ob, b.ob)
        assert a.trial == b.trial
        np.testing.assert_array_equal(a.new_trials(30).lengths, b.new_trials(30).lengths)
        b.reset(seed=9)
        assert not np.array_equal(a.new_trials(30).ob, b.new_trials(30).ob)
