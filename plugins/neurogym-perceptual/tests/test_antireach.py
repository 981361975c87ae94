"""AntiReach: respond opposite to (anti) or at (pro) a stimulus on a ring."""

from __future__ import annotations

import numpy as np
import pytest

from neurogym.testing import check_task
from neurogym.testing.trials import correct, respond, run_trial
from neurogym_perceptual.tasks.antireach import AntiReach


class TestAntiReach:
    @pytest.mark.parametrize(
        "kwargs", [{}, {"dt": 50, "anti": False}, {"dim_ring": 61}, {"dim_ring": 2}]
    )
    def test_check_task(self, kwargs):
        check_task(AntiReach(**kwargs))

    def test_defaults_and_spaces(self):
        env = AntiReach()
        assert env.dt == 100
        assert env.anti is True
        assert env.rewards == {"abort": -0.1, "correct": 1.0, "fail": 0.0}
        assert dict(env.timing) == {"fixation": 500, "stimulus": 500, "delay": 0, "decision": 500}
        assert env.abort is False
        assert env.dim_ring == 32
        np.testing.assert_array_equal(env.choices, np.arange(32))
        ring = tuple(range(1, 33))
        assert env.observation_space.shape == (33,)
        assert env.observation_space.dtype == np.float32
        assert env.observation_space.name == {"fixation": 0, "stimulus": ring}
        assert env.action_space.n == 33
        assert env.action_space.name == {"fixation": 0, "choice": ring}
        assert env.metadata["tags"] == ["perceptual", "steps action space"]

    @pytest.mark.parametrize("dim_ring", [61, 122, 197])
    def test_any_ring_size_works(self, dim_ring):
        # Upstream built the angles with np.arange(0, 2 pi, 2 pi / n), which yields n + 1 angles
        # for these n, so add_ob failed to broadcast the stimulus into the n ring dims.
        env = AntiReach(dim_ring=dim_ring)
        np.testing.assert_allclose(env.theta, 2 * np.pi * np.arange(dim_ring) / dim_ring)
        env.reset(seed=0)
        assert env.ob.shape == (15, dim_ring + 1)

    def test_bad_args(self):
        with pytest.raises(ValueError, match=r"dim_ring must be an int in .2, 4096., got 1"):
            AntiReach(dim_ring=1)
        with pytest.raises(TypeError, match=r"dim_ring must be an int in .2, 4096., got 2\.5"):
            AntiReach(dim_ring=2.5)

    @pytest.mark.parametrize(
        ("dt", "timing", "bounds"),
        [(100, None, (0, 5, 10, 10, 15)),
         (30, {"delay": 200}, (0, 16, 32, 38, 54))],  # 500 -> 480 ms, 200 -> 180 ms
    )  # fmt: skip
    def test_periods_and_lengths(self, dt, timing, bounds):
        env = AntiReach(dt=dt, timing=timing)
        env.reset(seed=1)
        names = ["fixation", "stimulus", "delay", "decision"]
        spans = {name: (env.start_ind[name], env.end_ind[name]) for name in names}
        assert spans == {name: bounds[i : i + 2] for i, name in enumerate(names)}
        assert set(env.new_trials(200).lengths) == {bounds[-1]}
        assert env.trial_length_stats(200)["mean"] == bounds[-1]
        assert env.trial_length_stats(200)["std"] == 0

    def test_observations_and_gt_per_period(self):
        env = AntiReach(dim_ring=8, timing={"delay": 200})
        env.reset(seed=2)
        ob, gt = env.ob, int(env.trial["ground_truth"])
        np.testing.assert_array_equal(ob[:, 0], [1] * 12 + [0] * 5)  # until the decision
        np.testing.assert_array_equal(ob[:5, 1:], 0)
        np.testing.assert_array_equal(ob[10:, 1:], 0)  # delay and decision: blank
        opposite = (gt + 4) % 8
        expected = np.cos(2 * np.pi * (np.arange(8) - opposite) / 8)
        np.testing.assert_allclose(ob[5:10, 1:], [expected] * 5, atol=1e-6)
        np.testing.assert_array_equal(env.gt, [0] * 12 + [gt + 1] * 5)

    @pytest.mark.parametrize(("anti", "shift"), [(True, 16), (False, 0)])
    def test_stimulus_location(self, anti, shift):
        env = AntiReach(anti=anti)
        env.reset(seed=3)
        batch = env.new_trials(2000)
        gt = batch.trial["ground_truth"]
        peak = batch.ob[:, 5, 1:].argmax(1)
        np.testing.assert_array_equal(peak, (gt + shift) % 32)
        np.testing.assert_allclose(batch.ob[:, 5:10, 1:].max(2), 1, atol=1e-6)
        np.testing.assert_array_equal(batch.trial["anti"], anti)
        counts = np.bincount(gt, minlength=32)
        assert counts.min() > 30  # every location is used (2000 / 32 = 62.5 expected)

    def test_scripted_agents(self):
        env = AntiReach()
        env.reset(seed=4)
        finished = env.trial
        rewards, info, steps = run_trial(env, respond(correct))
        assert (rewards[-1], info["performance"], steps, sum(rewards[:-1])) == (1.0, 1, 11, 0)
        assert info["trial"] is finished
        # Answering at the stimulus (a pro response) on an anti trial fails.
        stim = int(env.ob[5, 1:].argmax()) + 1
        rewards, info, steps = run_trial(env, respond(lambda env: stim))
        assert (rewards[-1], info["performance"], steps) == (0.0, 0, 11)
        rewards, info, steps = run_trial(env, lambda env: 0)  # a miss
        assert (sum(rewards), info["performance"], steps) == (0.0, 0, 15)

    def test_breaking_fixation_and_abort(self):
        env = AntiReach()
        env.reset(seed=5)
        _, reward, _, _, info = env.step(3)
        assert (reward, info["new_trial"]) == (pytest.approx(-0.1), False)
        env.abort = True
        _, reward, _, _, info = env.step(3)
        assert (reward, info["new_trial"]) == (pytest.approx(-0.1), True)
        for _ in range(5):
            env.step(0)
        _, reward, _, _, info = env.step(3)  # stimulus: free
        assert (reward, info["new_trial"]) == (0, False)

    def test_forced_kwargs(self):
        env = AntiReach()
        env.reset(seed=6)
        trial = env.new_trial(ground_truth=3, anti=False)
        assert (trial["ground_truth"], trial["anti"]) == (3, False)
        assert env.ob[5, 1:].argmax() == 3
        assert env.gt[-1] == 4
        anti = np.array([True, False, True])
        batch = env.new_trials(3, ground_truth=np.array([0, 0, 10]), anti=anti)
        np.testing.assert_array_equal(batch.ob[:, 5, 1:].argmax(1), [16, 0, 26])
        np.testing.assert_array_equal(batch.gt[:, -1], [1, 1, 11])
        np.testing.assert_array_equal(batch.trial["anti"], anti)

    def test_determinism(self):
        a, b = AntiReach(), AntiReach()
        a.reset(seed=7)
        b.reset(seed=7)
        assert a.trial == b.trial
        np.testing.assert_array_equal(
            a.new_trials(50).trial["ground_truth"], b.new_trials(50).trial["ground_truth"]
        )
        b.reset(seed=8)
        assert not np.array_equal(
            a.new_trials(50).trial["ground_truth"], b.new_trials(50).trial["ground_truth"]
        )
