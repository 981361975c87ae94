"""NeuroGym 3.0 API: the same computation as legacy_plotting.py (same JSON line)."""

import json
import tempfile
from pathlib import Path

import numpy as np

import neurogym
from neurogym_apps.plot import plot_env, plot_psychometric, run_env

out = Path(tempfile.mkdtemp())

env = neurogym.make("neurogym/PerceptualDecisionMaking-v0", dt=100)
# plot_env(seed=s) resets with that seed, so its figure draws the first trials after seeding;
# 2.3.1's plot_env (legacy_plotting.py) continued the stream after the user's seeding. The
# figure is compared by its properties, the observations by the stream 2.3.1's plot_env drew.
fig = plot_env(env, num_steps=100, policy=lambda ob: 0, seed=0, figsize=(8, 6))
fig.savefig(out / "pdm.png")
env.reset(seed=0)
run = run_env(env, None, 100, lambda ob: 0, seed=None)  # continue the seeded stream

rng = np.random.default_rng(0)
strengths = rng.choice([-51.2, -25.6, -12.8, -6.4, 0, 6.4, 12.8, 25.6, 51.2], 400)
choices = (rng.random(400) < 1 / (1 + np.exp(-strengths / 10))).astype(int)
psy, _ = plot_psychometric(strengths, choices, kind="probit", title="PDM")
# The per-strength mean choices (the points): the fitted curve differs by design (maximum
# likelihood on the choices here; 2.3.1 fitted the points by least squares).
points = next(line for line in psy.axes[0].lines if len(line.get_xdata()) == 9)

print(
    json.dumps(
        {
            "png_saved": (out / "pdm.png").stat().st_size > 0,
            "figsize": [float(v) for v in fig.get_size_inches()],
            "n_axes": len(fig.axes),
            "steps": [len(line.get_ydata()) for line in fig.axes[0].lines[:3]],
            "ob_sums": [float(v) for v in run.obs.sum(axis=0, dtype=float)],
            "psychometric_x": [float(v) for v in points.get_xdata()],
            "psychometric_mean_choice": [float(v) for v in points.get_ydata()],
        },
        sort_keys=True,
    )
)
