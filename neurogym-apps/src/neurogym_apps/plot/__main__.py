"""``python -m neurogym_apps.plot DIR``: write the example figures of docs/plotting.md into DIR."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import neurogym
from neurogym.demo import IntegratorAgent
from neurogym.wrappers import Monitor
from neurogym_apps.plot import collect_choices, plot_env, plot_psychometric, plot_training


def _integrator(env: Any) -> Any:
    """The demo's evidence-integrating agent as a ``policy(ob, state)``."""
    agent = IntegratorAgent(env.unwrapped)

    def policy(ob: Any, state: Any) -> tuple[int, bool]:
        if state is None:  # a new trial
            agent.reset()
        return agent.act(ob), True

    return policy


def write_figures(out: Path) -> list[Path]:
    """Render the documentation's figures into ``out``; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    fig = plot_env("neurogym/PerceptualDecisionMaking-v0", num_trials=3, seed=0)
    written.append(out / "plot_env_pdm.png")
    fig.savefig(written[-1], dpi=90)
    fig = plot_env("neurogym/AntiReach-v0", num_trials=2, seed=0)
    written.append(out / "plot_env_antireach.png")
    fig.savefig(written[-1], dpi=90)
    env = neurogym.make("neurogym/PerceptualDecisionMaking-v0")
    strengths, choices = collect_choices(env, _integrator(env), 1000, seed=0)
    fig, _ = plot_psychometric(
        strengths, choices, xlabel="signed coherence (%)", ylabel="P(choice 2)"
    )
    written.append(out / "psychometric_pdm.png")
    fig.savefig(written[-1], dpi=90)
    fig, _ = plot_psychometric(
        strengths,
        choices,
        fit="psignifit",
        xlabel="signed coherence (%)",
        ylabel="P(choice 2)",
    )
    written.append(out / "psychometric_psignifit_pdm.png")
    fig.savefig(written[-1], dpi=90)
    monitor = Monitor(neurogym.make("neurogym/PerceptualDecisionMaking-v0"), verbose=False)
    policy, state = _integrator(monitor), None
    ob, _ = monitor.reset(seed=0)
    while monitor.num_tr < 600:
        action, state = policy(ob, state)
        ob, _, _, _, info = monitor.step(action)
        if info["new_trial"]:
            state = None
    fig = plot_training(monitor, window=50, title="integrator agent on PerceptualDecisionMaking")
    written.append(out / "training_pdm.png")
    fig.savefig(written[-1], dpi=90)
    return written


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m neurogym_apps.plot DIR``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m neurogym_apps.plot DIR", file=sys.stderr)
        return 2
    for path in write_figures(Path(args[0])):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
