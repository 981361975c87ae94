"""A hand-written numpy generator of PerceptualDecisionMaking batches: the bench's ceiling row.

It makes what ``env.new_trials(n)`` makes for the default task (dt = 100 ms, two choices,
fixation 100 ms, stimulus 2000 ms, no delay, decision 100 ms), bit for bit from the same
generator state, with no framework at all: no verbs, no checks, no period bookkeeping beyond
the arrays a batch holds. It is what a fixed-structure task costs written by hand; the
bench reports its rate beside ``new_trials(256)`` and the RNG bound, so the distance
between the builder and this ceiling is visible in every run. ``check`` refuses to time it
unless it reproduces the builder's batch exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

FIXATION, STIMULUS, DECISION = 1, 20, 1  # steps at dt = 100 ms
STEPS = FIXATION + STIMULUS + DECISION


def lean_batch(env: Any, n: int) -> dict[str, np.ndarray]:
    """``n`` default PerceptualDecisionMaking trials drawn from ``env.rng``.

    The draws come in the builder's order (ground truth, coherence, then the stimulus
    noise), so the same generator state gives the same trials.
    """
    rng = env.rng
    ground_truth = env.choices[(rng.random(n) * env.choices.shape[0]).astype(np.intp)]
    coh = env.cohs[(rng.random(n) * env.cohs.shape[0]).astype(np.intp)]
    ob = np.zeros((n, STEPS, 3), np.float32)
    ob[:, :FIXATION, 0] = 1
    theta = env.theta
    stimulus = np.cos(theta[None, :] - theta[ground_truth][:, None]) * (coh[:, None] / 200) + 0.5
    noise = rng.standard_normal((n, STIMULUS, 2), dtype=np.float32)
    noise *= env.sigma
    tile = np.empty((n, STIMULUS, 2), np.float32)  # the stimulus repeated over its steps
    tile.view("V8")[...] = stimulus.astype(np.float32)[:, None].view("V8")
    tile += noise
    ob[:, FIXATION : FIXATION + STIMULUS, 1:3].view("V8")[...] = tile.view("V8")
    gt = np.zeros((n, STEPS), np.int64)
    gt[:, STEPS - 1] = ground_truth + 1
    mask = np.zeros((n, STEPS), bool)
    mask[:, STEPS - 1] = True
    bounds = [0.0, 100.0, 2100.0, 2100.0, 100.0, 2100.0, 2100.0, 2200.0]
    times = np.empty((len(bounds), n))
    times[...] = np.array(bounds)[:, None]
    steps = np.empty((len(bounds), n), np.intp)
    steps[...] = np.array([int(bound // 100) for bound in bounds])[:, None]
    return {
        "ob": ob,
        "gt": gt,
        "mask": mask,
        "lengths": np.full(n, STEPS, np.intp),
        "times": times,
        "steps": steps,
        "ground_truth": ground_truth,
        "coh": coh,
    }


def check(env: Any, n: int) -> None:
    """Raises unless :func:`lean_batch` gives ``env.new_trials(n)``'s batch bit for bit."""
    env.reset(seed=12345)
    state = env.rng.bit_generator.state
    built = env.new_trials(n)
    env.rng.bit_generator.state = state
    lean = lean_batch(env, n)
    names = list(built.periods)
    expected = {
        "ob": built.ob,
        "gt": built.gt,
        "mask": built.mask,
        "lengths": built.lengths,
        "times": np.array([*(built.start_t[k] for k in names), *(built.end_t[k] for k in names)]),
        "steps": np.array(
            [*(built.periods[k][0] for k in names), *(built.periods[k][1] for k in names)]
        ),
        "ground_truth": built.trial["ground_truth"],
        "coh": built.trial["coh"],
    }
    wrong = [
        key
        for key, value in expected.items()
        if lean[key].dtype != value.dtype or not np.array_equal(lean[key], value)
    ]
    if wrong:
        raise AssertionError(f"bench/lean_pdm.py no longer makes new_trials' {wrong}: update it")
