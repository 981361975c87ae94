"""MultiSensoryIntegration: one direction in two modalities sharing the coherence."""

from __future__ import annotations

import numpy as np
import pytest

from neurogym.testing import check_task
from neurogym.testing.trials import correct, other_of_two, respond, run_trial
from neurogym_perceptual.tasks.multisensory import MultiSensoryIntegration


class TestMultiSensoryIntegration:
    @pytest.mark.parametrize("kwargs", [{}, {"dt": 20, "dim_ring": 3}])
    def test_check_task(self, kwargs):
        check_task(MultiSensoryIntegration(**kwargs))

    def test_defaults_and_spaces(self):
        env = MultiSensoryIntegration()
        assert env.dt == 100
        assert env.rewards == {"abort": -0.1, "correct": 1.0}  # no "fail" key upstream
        assert dict(env.timing) == {"fixation": 300, "stimulus": 750, "decision": 100}
        assert env.cohs == [5, 15, 50]
        assert env.sigma == pytest.approx(0.1)
        assert env.abort is False
        np.testing.assert_array_equal(env.choices, [0, 1])
        assert env.observation_space.shape == (5,)
        assert env.observation_space.name == {
            "fixation": 0, "stimulus_mod1": (1, 2), "stimulus_mod2": (3, 4),
        }  # fmt: skip
        assert env.action_space.n == 3
        assert env.action_space.name == {"fixation": 0, "choice": (1, 2)}
        assert env.metadata["tags"] == ["perceptual", "two-alternative", "supervised"]

    def test_metadata_names_a_paper(self):
        # Upstream's metadata had paper_name = paper_link = None.
        meta = MultiSensoryIntegration().metadata
        assert meta["paper_name"] == "Multisensory decision-making in rats and humans"
        assert meta["paper_link"] == "https://www.jneurosci.org/content/32/11/3726"

    def test_bad_args(self):
        with pytest.raises(ValueError, match=r"dim_ring must be an int in .2, 4096., got 1"):
            MultiSensoryIntegration(dim_ring=1)
        with pytest.raises(ValueError, match="timing\\['stimulus'\\]"):
            MultiSensoryIntegration(timing={"stimulus": -1})

    @pytest.mark.parametrize(("dt", "bounds"), [(100, (0, 3, 10, 11)), (20, (0, 15, 52, 57))])
    def test_periods_and_lengths(self, dt, bounds):
        env = MultiSensoryIntegration(dt=dt)
        env.reset(seed=0)
        names = ["fixation", "stimulus", "decision"]
        spans = {name: (env.start_ind[name], env.end_ind[name]) for name in names}
        assert spans == {name: bounds[i : i + 2] for i, name in enumerate(names)}
        batch = env.new_trials(500)
        assert set(batch.lengths) == {bounds[-1]}
        assert env.trial_length_stats(500) == {
            "mean": bounds[-1], "std": 0.0, "percentile_95": bounds[-1], "max": bounds[-1],
        }  # fmt: skip

    def test_observations_and_gt_per_period(self):
        env = MultiSensoryIntegration(sigma=0.0)
        env.reset(seed=1)
        trial, ob = env.trial, env.ob
        np.testing.assert_array_equal(ob[:10, 0], 1)  # fixation input through the stimulus
        np.testing.assert_array_equal(ob[:3, 1:], 0)
        np.testing.assert_array_equal(ob[10], 0)  # decision: blank
        gt, coh, prop = int(trial["ground_truth"]), trial["coh"], trial["coh_prop"]
        sign = np.where(np.arange(2) == gt, 1, -1)
        np.testing.assert_allclose(ob[3:10, 1:3], [0.5 + sign * coh * prop / 200] * 7, rtol=1e-6)
        np.testing.assert_allclose(
            ob[3:10, 3:5], [0.5 + sign * coh * (1 - prop) / 200] * 7, rtol=1e-6
        )
        np.testing.assert_array_equal(env.gt, [0] * 10 + [gt + 1])

    def test_modalities_share_the_coherence(self):
        env = MultiSensoryIntegration()
        env.reset(seed=2)
        batch = env.new_trials(4000)
        trial = batch.trial
        gt, coh, prop = trial["ground_truth"], trial["coh"], trial["coh_prop"]
        means = batch.ob[:, 3:10].mean(1)
        sign = np.where(gt == 0, 1, -1)
        evidence_1 = sign * (means[:, 1] - means[:, 2])
        evidence_2 = sign * (means[:, 3] - means[:, 4])
        # Each modality gets its share; together they carry coh / 100. Per trial the noise on
        # one difference has std 0.1 * sqrt(2 / 7) = 0.053.
        residual_1 = evidence_1 - coh * prop / 100
        residual_2 = evidence_2 - coh * (1 - prop) / 100
        assert abs(residual_1.mean()) < 0.004
        assert abs(residual_2.mean()) < 0.004
        assert residual_1.std() == pytest.approx(0.1 * np.sqrt(2 / 7), rel=0.05)
        total = [(evidence_1 + evidence_2)[coh == c].mean() for c in env.cohs]
        np.testing.assert_allclose(total, np.array(env.cohs) / 100, atol=0.01)
        high_share = prop > 0.8
        assert evidence_1[high_share].mean() > 3 * evidence_2[high_share].mean()
        # coh_prop ~ U[0, 1)
        assert prop.min() >= 0
        assert prop.max() < 1
        assert prop.mean() == pytest.approx(0.5, abs=0.015)
        assert np.histogram(prop, bins=4, range=(0, 1))[0] / 4000 == pytest.approx(
            [0.25] * 4, abs=0.03
        )

    def test_noise_on_every_dim_during_stimulus(self):
        # As upstream: the noise is added to all dims, the fixation input included.
        env = MultiSensoryIntegration(sigma=2.0)
        env.reset(seed=3)
        batch = env.new_trials(2000)
        fixation = batch.ob[:, 3:10, 0]
        assert fixation.mean() == pytest.approx(1.0, abs=0.01)
        assert fixation.std() == pytest.approx(0.2, rel=0.03)
        np.testing.assert_array_equal(batch.ob[:, :3, 0], 1)
        np.testing.assert_array_equal(batch.ob[:, 10], 0)

    def test_scripted_agents(self):
        env = MultiSensoryIntegration()
        env.reset(seed=4)
        rewards, info, steps = run_trial(env, respond(correct))
        assert (rewards[-1], info["performance"], steps, sum(rewards[:-1])) == (1.0, 1, 11, 0)
        rewards, info, steps = run_trial(env, respond(other_of_two))
        assert (rewards[-1], info["performance"], steps) == (0.0, 0, 11)
        rewards, info, steps = run_trial(env, lambda env: 0)  # a miss
        assert (sum(rewards), info["performance"], steps) == (0.0, 0, 11)
        _, reward, _, _, info = env.step(1)  # breaking fixation: abort, the trial goes on
        assert (reward, info["new_trial"]) == (pytest.approx(-0.1), False)
        for _ in range(3):
            _, reward, _, _, info = env.step(1)  # stimulus: free
        assert (reward, info["new_trial"]) == (0, False)

    def test_fail_reward_is_paid(self):
        # Upstream ignored a "fail" reward passed by the user and paid 0 for a wrong choice.
        env = MultiSensoryIntegration(rewards={"fail": -0.5})
        env.reset(seed=5)
        rewards, _, _ = run_trial(env, respond(other_of_two))
        assert rewards[-1] == -0.5

    def test_forced_kwargs(self):
        env = MultiSensoryIntegration(sigma=0.0)
        env.reset(seed=6)
        trial = env.new_trial(ground_truth=1, coh=50, coh_prop=0.2)
        assert (trial["ground_truth"], trial["coh"], trial["coh_prop"]) == (1, 50, 0.2)
        np.testing.assert_allclose(env.ob[3, 1:], [0.45, 0.55, 0.3, 0.7], rtol=1e-6)
        assert env.gt[-1] == 2
        props = np.array([0.0, 0.5, 1.0])
        batch = env.new_trials(3, coh_prop=props, ground_truth=0)
        np.testing.assert_array_equal(batch.trial["coh_prop"], props)
        np.testing.assert_array_equal(batch.gt[:, -1], 1)

    def test_determinism(self):
        a, b = MultiSensoryIntegration(), MultiSensoryIntegration()
        a.reset(seed=7)
        b.reset(seed=7)
        np.testing.assert_array_equal(a.ob, b.ob)
        np.testing.assert_array_equal(a.new_trials(20).ob, b.new_trials(20).ob)
        b.reset(seed=8)
        assert not np.array_equal(a.ob, b.ob)
