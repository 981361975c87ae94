"""Closed loops on cross-trial tasks run long streams of trials, not episode starts."""

from __future__ import annotations

import pytest

pytest.importorskip("torch", reason="neurogym_apps.train needs the torch extra")

import neurogym
from neurogym_apps.train._closed_loop import STREAM_TRIALS, run_closed_loop


def _alternate(obs, state, rng):
    """MatchingPenny with PassAction: play the other target than last time (obs[:, -1])."""
    del state, rng
    return 1 - obs[:, -1].astype(int), None


def _counting(task: str, **kwargs):
    made: list[object] = []

    def make():
        env = neurogym.make(task, **kwargs)
        made.append(env)
        return env

    return make, made


def test_an_agent_that_alternates_beats_the_matching_pennies_opponent():
    # The opponent plays the target the agent chose less often (a moving average of its
    # choices), which an alternating agent always matches once the average has settled
    # (it cycles between 0.444 and 0.556): the score of a running stream is near 1, while
    # 64 envs of 8 trials each scored the episodes' first trials (0.5).
    make, made = _counting("MatchingPenny", wrappers=["PassAction"])
    run = run_closed_loop(make, _alternate, 500, seed=1)
    assert len(made) == 500 // STREAM_TRIALS == 2
    assert run.performance.mean() > 0.95


def test_a_task_without_cross_trial_state_still_steps_64_envs():
    make, made = _counting("PerceptualDecisionMaking")
    guess = lambda obs, state, rng: (rng.integers(0, 3, len(obs)), None)  # noqa: E731
    run = run_closed_loop(make, guess, 500, seed=1)
    assert len(made) == 64
    assert len(run.performance) == 500


@pytest.mark.parametrize(("trials", "envs"), [(10, 1), (499, 1), (500, 2), (10**6, 64)])
def test_cross_trial_streams_are_at_least_stream_trials_long(trials, envs):
    from neurogym_apps.train._closed_loop import _parallel_envs

    assert _parallel_envs(neurogym.make("MatchingPenny"), trials) == envs
