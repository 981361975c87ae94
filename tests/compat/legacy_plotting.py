"""NeuroGym 2.3.1 style: plot_env and plot_psychometric (rl / pdm / cdm notebooks).

Written as a 2.3.1 user would; tests/compat/new_plotting.py is the same computation in 3.0's
API and must print the same JSON line.
"""

import json
import tempfile
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

import neurogym as ngym
from neurogym.utils import plot_env, plot_psychometric

matplotlib.use("Agg")
out = Path(tempfile.mkdtemp())

env = ngym.make("PerceptualDecisionMaking-v0", dt=100)
# 2.3.1 would call env.seed(0) here (gone in 3.0); reset(seed=) seeds the task in both.
# plot_env then resets without a seed: the run continues that seeded stream.
env.reset(seed=0)
fig = plot_env(
    env,
    num_steps=100,
    def_act=0,
    ob_traces=["Fixation cue", "Stim 1", "Stim 2"],
    fig_kwargs={"figsize": (8, 6)},
    fname=out / "pdm.png",
)
traces = fig.axes[0].lines[:3]

rng = np.random.default_rng(0)
strengths = rng.choice([-51.2, -25.6, -12.8, -6.4, 0, 6.4, 12.8, 25.6, 51.2], 400)
choices = (rng.random(400) < 1 / (1 + np.exp(-strengths / 10))).astype(int)
_, ax = plt.subplots()
plot_psychometric(strengths, choices, ax, title="PDM", legend="simulated")
# The per-strength mean choices (the points); 2.3.1's curve was fitted differently.
points = next(line for line in ax.lines if len(line.get_xdata()) == 9)

print(
    json.dumps(
        {
            "png_saved": (out / "pdm.png").stat().st_size > 0,
            "figsize": [float(v) for v in fig.get_size_inches()],
            "n_axes": len(fig.axes),
            "steps": [len(line.get_ydata()) for line in traces],
            "ob_sums": [float(np.sum(line.get_ydata(), dtype=float)) for line in traces],
            "psychometric_x": [float(v) for v in points.get_xdata()],
            "psychometric_mean_choice": [float(v) for v in points.get_ydata()],
        },
        sort_keys=True,
    )
)
