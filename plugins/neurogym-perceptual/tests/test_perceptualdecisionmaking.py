"""PerceptualDecisionMaking, PerceptualDecisionMakingDelayResponse and PulseDecisionMaking."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from neurogym import EmptyPeriodWarning
from neurogym.testing import check_task
from neurogym.testing.trials import correct, other_of_two, period_mean, respond, run_trial
from neurogym_perceptual.tasks.perceptualdecisionmaking import (
    PerceptualDecisionMaking,
    PerceptualDecisionMakingDelayResponse,
    PulseDecisionMaking,
)

Policy = Callable[[Any], int]


# ----------------------------------------------------------------------------- helpers
def spans(env: Any) -> dict[str, tuple[int, int]]:
    return {name: (env.start_ind[name], env.end_ind[name]) for name in env.start_ind}


# ============================================================================ PDM
class TestPerceptualDecisionMaking:
    @pytest.mark.parametrize("kwargs", [{}, {"dt": 20}, {"dim_ring": 4, "abort": True}])
    def test_check_task(self, kwargs):
        check_task(PerceptualDecisionMaking(**kwargs))

    def test_defaults_match_upstream(self):
        env = PerceptualDecisionMaking()
        assert env.dt == 100
        assert env.rewards == {"abort": -0.1, "correct": 1.0, "fail": 0.0}
        assert dict(env.timing) == {"fixation": 100, "stimulus": 2000, "delay": 0, "decision": 100}
        np.testing.assert_allclose(env.cohs, [0, 6.4, 12.8, 25.6, 51.2])
        assert env.sigma == pytest.approx(0.1)
        assert env.abort is False
        np.testing.assert_array_equal(env.choices, [0, 1])
        assert env.metadata["tags"] == ["perceptual", "two-alternative", "supervised"]

    @pytest.mark.parametrize("dim_ring", [2, 5])
    def test_named_spaces(self, dim_ring):
        env = PerceptualDecisionMaking(dim_ring=dim_ring)
        ring = tuple(range(1, dim_ring + 1))
        assert env.observation_space.shape == (1 + dim_ring,)
        assert env.observation_space.dtype == np.float32
        assert env.observation_space.name == {"fixation": 0, "stimulus": ring}
        assert env.action_space.n == 1 + dim_ring
        assert env.action_space.name == {"fixation": 0, "choice": ring}

    def test_overrides_and_bad_args(self):
        env = PerceptualDecisionMaking(rewards={"fail": -1}, timing={"delay": 300}, cohs=[10])
        assert env.rewards == {"abort": -0.1, "correct": 1.0, "fail": -1}
        assert env.timing["delay"] == 300
        with pytest.raises(ValueError, match=r"dim_ring must be an int in .2, 4096., got 1"):
            PerceptualDecisionMaking(dim_ring=1)

    @pytest.mark.parametrize(
        ("dt", "bounds"),
        [(100, (0, 1, 21, 21, 22)),
         (30, (0, 3, 69, 69, 72))],  # 100 -> 90 ms and 2000 -> 1980 ms (floored per period)
    )  # fmt: skip
    def test_periods(self, dt, bounds):
        env = PerceptualDecisionMaking(dt=dt)
        env.reset(seed=0)
        names = ["fixation", "stimulus", "delay", "decision"]
        assert spans(env) == {name: bounds[i : i + 2] for i, name in enumerate(names)}
        length = bounds[-1]
        assert env.ob.shape == (length, 3)
        batch = env.new_trials(50)
        assert set(batch.lengths) == {length}
        assert env.trial_length_stats(200) == {
            "mean": length, "std": 0.0, "percentile_95": length, "max": length,
        }  # fmt: skip

    def test_observations_and_gt_per_period(self):
        env = PerceptualDecisionMaking()
        env.reset(seed=1)
        gt = int(env.trial["ground_truth"])
        ob = env.ob
        np.testing.assert_array_equal(ob[:, 0], [1] + [0] * 21)  # fixation cue: fixation only
        np.testing.assert_array_equal(ob[0, 1:], 0)
        np.testing.assert_array_equal(ob[21, :], 0)  # decision: blank
        assert np.all(ob[1:21, 1:] != 0)  # noisy stimulus
        np.testing.assert_array_equal(env.gt, [0] * 21 + [gt + 1])

    def test_stimulus_encodes_ground_truth_by_coherence(self):
        env = PerceptualDecisionMaking()
        env.reset(seed=2)
        batch = env.new_trials(4000)
        gt, coh = batch.trial["ground_truth"], batch.trial["coh"]
        mean_1 = period_mean(batch, "stimulus", 1)
        mean_2 = period_mean(batch, "stimulus", 2)
        evidence = np.where(gt == 0, mean_1 - mean_2, mean_2 - mean_1)
        # dim_ring=2: the correct unit gets 0.5 + coh/200, the other 0.5 - coh/200. Per trial
        # the evidence has std 0.1 * sqrt(2 / 20) = 0.032; ~800 trials per coherence.
        means = [evidence[coh == c].mean() for c in env.cohs]
        np.testing.assert_allclose(means, env.cohs / 100, atol=0.006)
        assert np.all(np.diff(means) > 0.03)
        signal = 0.5 + np.where(np.arange(2) == gt[:, None], 1, -1) * coh[:, None] / 200
        noise = batch.ob[:, 1:21, 1:] - signal[:, None, :]
        assert noise.mean() == pytest.approx(0, abs=0.002)
        assert noise.std() == pytest.approx(0.1, rel=0.02)  # sigma / sqrt(dt)

    def test_scripted_agents(self):
        env = PerceptualDecisionMaking()
        env.reset(seed=3)
        finished = env.trial
        rewards, info, steps = run_trial(env, respond(correct))
        assert (rewards[-1], info["performance"], steps) == (1.0, 1, 22)
        assert info["trial"] is finished
        assert sum(rewards[:-1]) == 0
        rewards, info, steps = run_trial(env, respond(other_of_two))
        assert (rewards[-1], info["performance"], steps) == (0.0, 0, 22)
        # Responding in the stimulus period is free and does not end the trial.
        rewards, info, steps = run_trial(env, respond(lambda env: 1, "stimulus"))
        assert (sum(rewards), info["performance"], steps) == (0.0, 0, 22)  # then a miss

    @pytest.mark.parametrize("abort", [False, True])
    def test_breaking_fixation(self, abort):
        env = PerceptualDecisionMaking(abort=abort)
        env.reset(seed=4)
        _, reward, _, _, info = env.step(1)
        assert reward == pytest.approx(-0.1)
        assert info["new_trial"] is abort
        assert env.t_ind == (0 if abort else 1)

    def test_forced_kwargs(self):
        env = PerceptualDecisionMaking()
        env.reset(seed=5)
        trial = env.new_trial(ground_truth=1, coh=51.2)
        assert (trial["ground_truth"], trial["coh"]) == (1, 51.2)
        assert env.gt[-1] == 2
        forced = np.array([0, 1, 1, 0, 1])
        batch = env.new_trials(5, ground_truth=forced, coh=0.0)
        np.testing.assert_array_equal(batch.trial["ground_truth"], forced)
        np.testing.assert_array_equal(batch.gt[:, -1], forced + 1)
        np.testing.assert_array_equal(batch.trial["coh"], 0.0)

    def test_determinism(self):
        a, b = PerceptualDecisionMaking(), PerceptualDecisionMaking()
        a.reset(seed=7)
        b.reset(seed=7)
        np.testing.assert_array_equal(a.ob, b.ob)
        np.testing.assert_array_equal(a.new_trials(20).ob, b.new_trials(20).ob)
        b.reset(seed=8)
        assert not np.array_equal(a.ob, b.ob)


# ============================================================================ delay response
class TestPerceptualDecisionMakingDelayResponse:
    DELAYS = np.array([300, 500, 700, 900, 1200, 2000, 3200, 4000])

    @pytest.mark.parametrize("kwargs", [{}, {"dt": 50, "stim_scale": 0.5}])
    def test_check_task(self, kwargs):
        check_task(PerceptualDecisionMakingDelayResponse(**kwargs))

    def test_defaults_match_upstream(self):
        env = PerceptualDecisionMakingDelayResponse()
        assert env.rewards == {"abort": -0.1, "correct": 1.0, "fail": 0.0}
        assert dict(env.timing) == {
            "fixation": 0, "stimulus": 1150, "delay": tuple(self.DELAYS), "decision": 1500,
        }  # fmt: skip
        np.testing.assert_allclose(env.cohs, [0, 6.4, 12.8, 25.6, 51.2])
        np.testing.assert_allclose(
            PerceptualDecisionMakingDelayResponse(stim_scale=2).cohs[-1], 102.4
        )
        assert env.sigma == pytest.approx(0.1)
        assert env.abort is False
        np.testing.assert_array_equal(env.choices, [1, 2])
        # Unnamed spaces, as upstream.
        assert env.observation_space.shape == (3,)
        assert env.observation_space.name is None
        assert env.action_space.n == 3
        assert env.action_space.name is None
        tags = ["perceptual", "delayed response", "two-alternative", "supervised"]
        assert env.metadata["tags"] == tags

    @pytest.mark.parametrize(
        ("kwargs", "match"),
        [({"sigma": -1}, "sigma must be a finite number >= 0, got -1"),
         ({"sigma": float("nan")}, "sigma must be a finite number >= 0, got nan"),
         ({"stim_scale": "x"}, "stim_scale must be a finite number, got 'x'")],
    )  # fmt: skip
    def test_bad_args(self, kwargs, match):
        with pytest.raises((TypeError, ValueError), match=match):
            PerceptualDecisionMakingDelayResponse(**kwargs)

    @pytest.mark.parametrize(("dt", "stimulus", "decision"), [(100, 11, 15), (50, 23, 30)])
    def test_periods_and_lengths(self, dt, stimulus, decision):
        env = PerceptualDecisionMakingDelayResponse(dt=dt)
        env.reset(seed=0)
        batch = env.new_trials(5000)
        for name, (start, end) in {"fixation": (0, 0), "stimulus": (0, stimulus)}.items():
            np.testing.assert_array_equal(batch.periods[name][0], start)
            np.testing.assert_array_equal(batch.periods[name][1], end)
        delay = batch.periods["delay"][1] - batch.periods["delay"][0]
        np.testing.assert_array_equal(batch.periods["delay"][0], stimulus)
        np.testing.assert_array_equal(
            batch.periods["decision"][1] - batch.periods["decision"][0], decision
        )
        np.testing.assert_array_equal(batch.lengths, stimulus + delay + decision)
        counts = np.array([(delay == d // dt).sum() for d in self.DELAYS])
        assert counts.sum() == 5000
        np.testing.assert_allclose(counts / 5000, 1 / 8, atol=0.025)  # uniform choice
        expected_mean = stimulus + decision + (self.DELAYS // dt).mean()
        assert batch.lengths.mean() == pytest.approx(expected_mean, abs=0.8)
        stats = env.trial_length_stats(5000)
        assert stats["mean"] == pytest.approx(expected_mean, abs=0.8)
        assert stats["max"] == stimulus + decision + 4000 // dt

    def test_observations_and_gt_per_period(self):
        env = PerceptualDecisionMakingDelayResponse()
        env.reset(seed=1)
        ob, gt = env.ob, int(env.trial["ground_truth"])
        delay, decision = slice(*spans(env)["delay"]), slice(*spans(env)["decision"])
        np.testing.assert_array_equal(ob[:11, 0], 1)
        np.testing.assert_array_equal(ob[delay], [[1, 0, 0]] * (delay.stop - delay.start))
        np.testing.assert_array_equal(ob[decision], 0)
        assert np.all(env.gt[: decision.start] == 0)
        np.testing.assert_array_equal(env.gt[decision], gt)

    @pytest.mark.parametrize("stim_scale", [1.0, 0.5])
    def test_stimulus_encodes_ground_truth(self, stim_scale):
        env = PerceptualDecisionMakingDelayResponse(stim_scale=stim_scale)
        env.reset(seed=2)
        batch = env.new_trials(4000)
        gt, coh = batch.trial["ground_truth"], batch.trial["coh"]
        right = period_mean(batch, "stimulus", 1) * (gt == 1) + period_mean(
            batch, "stimulus", 2
        ) * (gt == 2)
        wrong = period_mean(batch, "stimulus", 1) * (gt == 2) + period_mean(
            batch, "stimulus", 2
        ) * (gt == 1)
        for c in env.cohs:
            assert right[coh == c].mean() == pytest.approx((1 + c / 100) / 2, abs=0.005)
            assert wrong[coh == c].mean() == pytest.approx((1 - c / 100) / 2, abs=0.005)
        assert np.all(np.diff([(right - wrong)[coh == c].mean() for c in env.cohs]) > 0.02)

    def test_noise_std_and_forced_sigma(self):
        env = PerceptualDecisionMakingDelayResponse(dt=50, sigma=2.0)
        env.reset(seed=3)
        batch = env.new_trials(1000, coh=25.6, ground_truth=2)
        stim = batch.ob[:, :23, 1:]
        assert stim.std(axis=(0, 1)) == pytest.approx([2 / np.sqrt(50)] * 2, rel=0.03)
        assert batch.trial["sigma"][0] == pytest.approx(2 / np.sqrt(50))
        quiet = env.new_trials(3, coh=25.6, ground_truth=2, sigma=0.0)
        np.testing.assert_allclose(quiet.ob[:, :23], [[[1, 0.372, 0.628]] * 23] * 3, rtol=1e-6)
        np.testing.assert_array_equal(quiet.trial["sigma"], 0.0)

    def test_scripted_agents(self):
        env = PerceptualDecisionMakingDelayResponse()
        env.reset(seed=4)
        decision = env.start_ind["decision"]
        rewards, info, steps = run_trial(env, respond(correct))
        assert (rewards[-1], info["performance"], sum(rewards[:-1])) == (1.0, 1, 0)
        assert steps == decision + 1  # the first response in the decision period ends it
        rewards, info, _ = run_trial(env, respond(other_of_two))
        assert (rewards[-1], info["performance"]) == (0.0, 0)
        length = env.ob.shape[0]
        rewards, info, steps = run_trial(env, respond(lambda env: 2, "delay"))  # free, then a miss
        assert (sum(rewards), info["performance"], steps) == (0.0, 0, length)

    def test_abort_when_fixation_is_given_time(self):
        env = PerceptualDecisionMakingDelayResponse(timing={"fixation": 200})
        env.reset(seed=6)
        assert spans(env)["fixation"] == (0, 2)
        _, reward, _, _, info = env.step(1)
        assert (reward, info["new_trial"]) == (pytest.approx(-0.1), False)
        np.testing.assert_array_equal(env.ob[:2], [[1, 0, 0]] * 2)

    def test_forced_kwargs_and_determinism(self):
        env = PerceptualDecisionMakingDelayResponse()
        env.reset(seed=7)
        assert env.new_trial(ground_truth=1)["ground_truth"] == 1
        assert env.gt[-1] == 1
        forced = np.array([2, 1, 2])
        batch = env.new_trials(3, ground_truth=forced)
        np.testing.assert_array_equal(batch.gt[np.arange(3), batch.lengths - 1], forced)
        twin = PerceptualDecisionMakingDelayResponse()
        env.reset(seed=8)
        twin.reset(seed=8)
        np.testing.assert_array_equal(env.ob, twin.ob)
        assert env.trial == twin.trial


# ============================================================================ pulses
class TestPulseDecisionMaking:
    @pytest.mark.parametrize("kwargs", [{}, {"dt": 5}, {"n_bin": 3, "p_pulse": (0.1, 0.9)}])
    def test_check_task(self, kwargs):
        check_task(PulseDecisionMaking(**kwargs))

    def test_defaults_and_spaces(self):
        env = PulseDecisionMaking()
        assert env.dt == 10
        assert env.rewards == {"abort": -0.1, "correct": 1.0, "fail": 0.0}
        expected = {"fixation": 500, "decision": 500}
        for i in range(6):
            expected.update({f"cue{i}": 10, f"bin{i}": 240})
        assert dict(env.timing) == expected
        assert (env.p_pulse, env.n_bin, env.abort) == ((0.3, 0.7), 6, False)
        assert env.observation_space.shape == (3,)
        assert env.observation_space.name == {"fixation": 0, "stimulus": (1, 2)}
        assert env.action_space.name == {"fixation": 0, "choice": (1, 2)}

    @pytest.mark.parametrize(
        ("kwargs", "match"),
        [({"p_pulse": (0.3,)}, "p_pulse must be two probabilities"),
         ({"p_pulse": (0.3, 1.5)}, r"p_pulse\[1\] must be a finite number in \[0, 1\], got 1.5"),
         ({"n_bin": 0}, "n_bin must be an int >= 1, got 0")],
    )  # fmt: skip
    def test_bad_args(self, kwargs, match):
        with pytest.raises(ValueError, match=match):
            PulseDecisionMaking(**kwargs)

    @pytest.mark.parametrize(("dt", "scale"), [(10, 1), (5, 2)])
    def test_periods(self, dt, scale):
        env = PulseDecisionMaking(dt=dt)
        env.reset(seed=0)
        expected = {"fixation": (0, 50 * scale), "decision": (200 * scale, 250 * scale)}
        for i in range(6):
            cue = (50 + 25 * i) * scale
            expected[f"cue{i}"] = (cue, cue + scale)
            expected[f"bin{i}"] = (cue + scale, cue + 25 * scale)
        assert spans(env) == expected
        assert set(env.new_trials(100).lengths) == {250 * scale}
        assert env.trial_length_stats(100)["max"] == 250 * scale

    def test_cues_vanish_with_a_warning_above_10ms(self):
        env = PulseDecisionMaking(dt=20)
        with pytest.warns(EmptyPeriodWarning, match="shorter than dt=20 ms"):
            env.reset(seed=0)
        assert np.all(env.ob[:, 1:] == 0)

    def test_observations_and_gt(self):
        env = PulseDecisionMaking()
        env.reset(seed=1)
        trial = env.trial
        ob = env.ob
        np.testing.assert_array_equal(ob[:200, 0], 1)
        np.testing.assert_array_equal(ob[200:], 0)
        cue_steps = [50 + 25 * i for i in range(6)]
        np.testing.assert_array_equal(ob[cue_steps, 1], trial["pulse1"])
        np.testing.assert_array_equal(ob[cue_steps, 2], trial["pulse2"])
        assert ob[:, 1:].sum() == trial["pulse1"].sum() + trial["pulse2"].sum()
        np.testing.assert_array_equal(env.gt, [0] * 200 + [trial["ground_truth"] + 1] * 50)

    def test_ground_truth_is_the_channel_with_more_pulses(self):
        env = PulseDecisionMaking()
        env.reset(seed=2)
        batch = env.new_trials(6000)
        n1, n2 = batch.trial["pulse1"].sum(1), batch.trial["pulse2"].sum(1)
        gt = batch.trial["ground_truth"]
        np.testing.assert_array_equal(gt[n1 != n2], (n2 > n1)[n1 != n2])
        ties = n1 == n2
        # P(tie) = sum_k Binom(6, 0.3)(k) * Binom(6, 0.7)(k) = 0.0792 (SE 0.0035 here)
        assert ties.mean() == pytest.approx(0.0792, abs=0.014)
        # ties broken at random: within 4 standard errors of 1/2 (~475 ties, SE ~0.023)
        assert gt[ties].mean() == pytest.approx(0.5, abs=4 * 0.5 / np.sqrt(ties.sum()))
        # One channel pulses at 0.3, the other at 0.7, assigned at random per trial.
        assert np.maximum(n1, n2).mean() > 3.5
        assert np.minimum(n1, n2).mean() < 2.5
        assert np.concatenate([n1, n2]).mean() == pytest.approx(6 * 0.5, abs=0.05)
        assert gt.mean() == pytest.approx(0.5, abs=0.03)

    def test_scripted_agents(self):
        env = PulseDecisionMaking()
        env.reset(seed=3)
        rewards, info, steps = run_trial(env, respond(correct))
        assert (rewards[-1], info["performance"], steps, sum(rewards[:-1])) == (1.0, 1, 201, 0)
        rewards, info, steps = run_trial(env, respond(other_of_two))
        assert (rewards[-1], info["performance"], steps) == (0.0, 0, 201)
        rewards, info, steps = run_trial(env, lambda env: 0)  # a miss: timeout, no reward
        assert (sum(rewards), info["performance"], steps) == (0.0, 0, 250)

    @pytest.mark.parametrize("period", ["fixation", "cue2", "bin4"])
    def test_responding_before_decision_aborts(self, period):
        env = PulseDecisionMaking()
        env.reset(seed=4)
        rewards, _, steps = run_trial(env, respond(lambda env: 1, period))
        length = env.end_ind[period] - env.start_ind[period]
        assert rewards.count(pytest.approx(-0.1)) == length
        assert steps == 250  # the trial goes on (abort is False), then times out
        env.abort = True
        rewards, _, steps = run_trial(env, respond(lambda env: 1, period))
        assert (rewards[-1], steps) == (pytest.approx(-0.1), env.start_ind[period] + 1)

    def test_forced_ground_truth_is_honoured(self):
        # Upstream overwrote a forced ground_truth with the one of its own pulses, so about
        # half of these trials had ground_truth 0.
        env = PulseDecisionMaking()
        env.reset(seed=5)
        batch = env.new_trials(4000, ground_truth=1)
        np.testing.assert_array_equal(batch.trial["ground_truth"], 1)
        np.testing.assert_array_equal(batch.gt[:, -1], 2)
        n1, n2 = batch.trial["pulse1"].sum(1), batch.trial["pulse2"].sum(1)
        assert np.all(n2 >= n1)
        # The conditional distribution: the same as free trials that happen to have gt 1.
        free = env.new_trials(8000)
        f1, f2 = free.trial["pulse1"].sum(1), free.trial["pulse2"].sum(1)
        f_gt = free.trial["ground_truth"]
        assert (n2 - n1).mean() == pytest.approx((f2 - f1)[f_gt == 1].mean(), abs=0.1)
        assert (n1 == n2).mean() == pytest.approx((f1 == f2)[f_gt == 1].mean(), abs=0.03)
        cue_steps = [50 + 25 * i for i in range(6)]
        np.testing.assert_array_equal(batch.ob[:, cue_steps, 2], batch.trial["pulse2"])
        single = env.new_trial(ground_truth=0)
        assert single["ground_truth"] == 0
        assert env.gt[-1] == 1
        with pytest.raises(
            ValueError, match=r"^ground_truth must hold ints in \[0, 1\], got \[2\]$"
        ):
            env.new_trial(ground_truth=2)

    def test_forced_pulses_drive_observations_and_gt(self):
        # Upstream recorded forced pulses in the trial dict but showed and scored fresh ones.
        env = PulseDecisionMaking()
        env.reset(seed=6)
        pulse1, pulse2 = [1, 1, 1, 1, 0, 0], [0, 0, 1, 0, 0, 0]
        trial = env.new_trial(pulse1=pulse1, pulse2=pulse2)
        cue_steps = [50 + 25 * i for i in range(6)]
        np.testing.assert_array_equal(env.ob[cue_steps, 1], pulse1)
        np.testing.assert_array_equal(env.ob[cue_steps, 2], pulse2)
        assert trial["ground_truth"] == 0
        assert env.gt[-1] == 1
        per_trial = np.array([pulse2, pulse1])
        batch = env.new_trials(2, pulse1=per_trial, pulse2=np.array([pulse1, pulse2]))
        np.testing.assert_array_equal(batch.trial["ground_truth"], [1, 0])
        np.testing.assert_array_equal(batch.ob[:, cue_steps, 1], per_trial)
        message = (
            r"^forced pulse1 must have shape \(6,\) \(one value for every trial\) or \(2, 6\) "
            r"\(one per trial of this batch of 2\), got shape \(2,\)$"
        )
        with pytest.raises(ValueError, match=message):
            env.new_trials(2, pulse1=[1, 0])

    def test_determinism(self):
        a, b = PulseDecisionMaking(), PulseDecisionMaking()
        a.reset(seed=9)
        b.reset(seed=9)
        np.testing.assert_array_equal(a.ob, b.ob)
        batch_a, batch_b = a.new_trials(50), b.new_trials(50)
        np.testing.assert_array_equal(batch_a.trial["pulse1"], batch_b.trial["pulse1"])
        np.testing.assert_array_equal(batch_a.gt, batch_b.gt)


@pytest.mark.parametrize("units", [2, 3, 8, 32])
def test_ring_input_is_ring_stimulus_at_the_units_directions(units):
    from neurogym_perceptual.tasks.perceptualdecisionmaking import ring_input, ring_stimulus

    theta = np.linspace(0, 2 * np.pi, units + 1)[:-1]
    rng = np.random.default_rng(units)
    for size in (1, 5, 256):
        index = rng.integers(0, units, size)
        coh = rng.choice([0.0, 3.3, 6.4, 12.8, 25.6, 51.2, 100.0], size)
        fast = ring_input(theta, index, coh)
        assert fast.shape == (size, units)
        np.testing.assert_array_equal(fast, ring_stimulus(theta, theta[index], coh))
    # the stimulus points at its unit: strongest there, 0.5 + cos(0) * 100 / 200 = 1
    row = ring_input(theta, np.array([1]), np.array([100.0]))[0]
    assert row.argmax() == 1
    assert row[1] == 1.0
