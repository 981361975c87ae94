"""The quickstart demo: list the installed tasks, then run a simple agent on a task.

Run it with ``python -m neurogym.demo [TASK_ID] [--trials N] [--seed S]``. The agent integrates
the stimulus channels over the trial and, once the stimulus is gone, reports the channel with
the most accumulated evidence: a drift-diffusion-style observer, so accuracy rises with
coherence.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

import neurogym

__all__ = ["IntegratorAgent", "main", "run_demo"]

DEFAULT_TASK = "neurogym/PerceptualDecisionMaking-v0"


class IntegratorAgent:
    """Accumulates stimulus evidence and answers when the stimulus disappears.

    Args:
        env: A task with ``fixation`` and ``stimulus`` observation dims and ``choice`` actions.
    """

    def __init__(self, env: Any) -> None:
        names = env.observation_space.name or {}
        if "stimulus" not in names or "choice" not in (env.action_space.name or {}):
            raise ValueError(
                f"{env} has no 'stimulus' observation dims or 'choice' actions; the demo agent "
                "needs both (try neurogym/PerceptualDecisionMaking-v0)"
            )
        self.stimulus = env._where("stimulus")
        self.choices = np.atleast_1d(np.asarray(env.action_space.name["choice"]))
        self.evidence = np.zeros(len(self.choices))
        self.seen_stimulus = False

    def reset(self) -> None:
        """Forgets the evidence of the previous trial."""
        self.evidence[:] = 0
        self.seen_stimulus = False

    def act(self, ob: np.ndarray) -> int:
        """Fixates while evidence comes in; reports its best guess once the stimulus is off."""
        stimulus = np.asarray(ob[self.stimulus], dtype=float)
        if np.any(stimulus != 0):
            self.evidence += stimulus
            self.seen_stimulus = True
            return 0
        if self.seen_stimulus and not np.any(ob != 0):
            return int(self.choices[int(np.argmax(self.evidence))])
        return 0


def list_tasks() -> None:
    """Prints every installed task: id, plugin and tags."""
    specs = neurogym.tasks()
    width = max((len(spec.id) for spec in specs), default=10)
    print(f"{len(specs)} installed tasks:")
    for spec in specs:
        print(f"  {spec.id:<{width}}  [{spec.plugin}]  {', '.join(spec.tags)}")


def run_demo(task_id: str = DEFAULT_TASK, trials: int = 20, seed: int = 0) -> dict[str, float]:
    """Runs the integrator agent for ``trials`` trials and prints each trial's outcome.

    Returns:
        ``{"trials", "accuracy", "mean_reward"}``.
    """
    env: Any = neurogym.make(task_id)
    agent = IntegratorAgent(env.unwrapped)
    ob, _ = env.reset(seed=seed)
    print(f"\nRunning an evidence-integrating agent on {task_id} (seed={seed}):")
    print("answer: the correct action (ground_truth + 1, since action 0 means fixate)")
    print("choice: the agent's response action (- if it never responded)")
    print(f"{'trial':>5} {'coh':>6} {'answer':>6} {'choice':>6} {'reward':>7}  outcome")
    outcomes: list[tuple[float, bool, float]] = []
    trial_reward, choice = 0.0, 0
    while len(outcomes) < trials:
        action = agent.act(ob)
        choice = action or choice
        ob, reward, _, _, info = env.step(action)
        trial_reward += float(reward)
        if info["new_trial"]:
            trial = info["trial"]
            correct = bool(info["performance"] == 1)
            coh = float(trial.get("coh", np.nan))
            answer = int(trial.get("ground_truth", -1)) + 1  # the action that is correct
            shown = choice if choice else "-"
            label = "correct" if correct else ("no answer" if not choice else "wrong")
            print(
                f"{len(outcomes) + 1:>5} {coh:>6.1f} {answer:>6} {shown!s:>6} "
                f"{trial_reward:>7.2f}  {label}"
            )
            outcomes.append((coh, correct, trial_reward))
            agent.reset()
            trial_reward, choice = 0.0, 0
    return _summarise(outcomes)


def _summarise(outcomes: list[tuple[float, bool, float]]) -> dict[str, float]:
    by_coh: dict[float, list[bool]] = defaultdict(list)
    for coh, correct, _ in outcomes:
        by_coh[coh].append(correct)
    accuracy = float(np.mean([c for _, c, _ in outcomes]))
    mean_reward = float(np.mean([r for _, _, r in outcomes]))
    print(f"\naccuracy {accuracy:.2f}, mean reward per trial {mean_reward:.2f}")
    for coh in sorted(by_coh):
        hits = by_coh[coh]
        print(f"  coherence {coh:>5.1f}: {np.mean(hits):.2f} correct over {len(hits)} trials")
    return {"trials": float(len(outcomes)), "accuracy": accuracy, "mean_reward": mean_reward}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m neurogym.demo``."""
    parser = argparse.ArgumentParser(prog="python -m neurogym.demo", description=__doc__)
    parser.add_argument("task", nargs="?", default=DEFAULT_TASK, help="task id to run")
    parser.add_argument("--trials", type=int, default=20, help="number of trials (20)")
    parser.add_argument("--seed", type=int, default=0, help="seed for reset (0)")
    args = parser.parse_args(argv)
    list_tasks()
    run_demo(args.task, args.trials, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
