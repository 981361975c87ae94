"""The learnability table's Markdown: docs/learnability.md from the stored rows."""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from neurogym_apps._json import plain

__all__ = ["markdown"]


def _runs(rows: list[dict[str, Any]]) -> str:
    """The runs that wrote the rows: command, minutes and how many rows each wrote."""
    counts: dict[tuple[str, float], int] = {}
    for row in rows:
        run = row.get("run") or {"command": "an earlier run", "minutes": 0.0}
        key = (run["command"], float(run["minutes"]))
        counts[key] = counts.get(key, 0) + 1
    return "; ".join(
        f"`{cmd}` ({minutes:.0f} min, {n} rows)" for (cmd, minutes), n in counts.items()
    )


def _num(row: dict[str, Any], key: str) -> str:
    return f"{row[key]:.3f}" if row.get(key) is not None else ""


def _header(runs: str, learned_fraction: float, check_trials: int, check_margin: int) -> list[str]:
    return [
        "# Learnability",
        "",
        "Every task of every installed plugin, trained with one recipe and budget and evaluated",
        "closed loop: the network steps the env. *accuracy* is strict "
        "(`neurogym_apps.train.evaluate`:",
        "fixation held on every step before the response, then the correct response; tasks",
        "scored by their own criterion use the env's performance); *env perf.* is the env's own",
        '`info["performance"]`. *chance* is the best of a random policy, a fixation-only policy',
        "and a guess (fixate until the answer is due, then one answer drawn uniformly among the",
        "task's answers: how an animal guesses; `neurogym_apps.train.Guess`), measured the same",
        "way; *oracle* is a scripted agent that plays the ground truth;",
        "*ideal* is the task's ideal observer where its inputs leave answers undetermined",
        "(noise, zero coherence, a hidden context or rule, ties: `TrialEnv.ideal_observer`, whose",
        "docstring in each task says what the observer knows; 20,000 trials), without memory of",
        "earlier trials; *memory* is, for a task whose rule, context or block runs on across",
        "trials, the Bayesian observer of the stream (`stream_observer`: it remembers earlier",
        "trials and the outcomes of its own answers; 20,000 consecutive trials); *ceiling* is",
        "*memory* where there is one, else the lower of *oracle* and *ideal*. A task is",
        f"*learned* when the network closes {learned_fraction:.0%}",
        "of the gap from chance to the ceiling.",
        "",
        "- Command: `python3 run.py nox -s learn` (all installed plugins), or per family "
        "`... -- --plugin NAME` or per task `... -- --task NAME`, which keep the other rows "
        "(each row has its date); `... -- --rescore` recomputes chance, ceilings and statuses "
        "without training (with `--task` or `--plugin`, of those rows only). The rows come "
        f"from: {runs}.",
        "- Supervised recipe: GRU, 64 units, Adam lr 0.003, batches of 32 trials "
        "(`neurogym.batch`), at most *budget* training steps per task on one torch "
        "thread (two tasks at a time on 2 cores), seed 0 (weights and trials), loss over every "
        "step up to the response. Every 1,000 training steps a check evaluation "
        f"({check_trials} trials, seed 2) ends training once it clears the bar by "
        f"{check_margin} standard errors; *steps* are the training steps used and *trained* "
        "their wall time. Evaluation: 500 other trials, seed 1, the network's state "
        "restarting at every trial (carried across trials for a network trained across "
        "trials; a task whose trials depend on earlier ones runs streams of at least 250 "
        "trials). Task "
        "arguments other than the defaults are shown next to "
        "the task (`TASK_KWARGS`), per-task recipe changes in brackets (`RECIPES`); "
        "`neurogym_apps/train/learnability.py` says why for each.",
        "- RL recipe (tasks without a ground truth, or behind a step-level wrapper): "
        "stable-baselines3 PPO or sb3-contrib RecurrentPPO (`RL_RECIPES` in "
        "`neurogym_apps/train/_rl_rows.py`, with the reason for each), 16 envs, the budget in "
        "steps; evaluated the same way (with the state carried across trials where trained "
        "so). Their *oracle* is a scripted agent that sees what an agent sees (DawTwoStep's "
        "learns the rewarded state from rewards; MatchingPenny's opponent is predictable from "
        "the agent's own choices), so its score is reachable; it plays the trials the agent is "
        "evaluated on (a paired comparison: one trial's score varies far more than the gap "
        "from chance to the oracle in Reaching1D).",
        f"- Machine: {platform.platform()}, {os.cpu_count()} CPU cores, Python "
        f"{platform.python_version()}, torch {torch.__version__}, numpy {np.__version__}.",
        "",
        "| task | plugin | accuracy | env perf. | chance | oracle | ideal | memory | ceiling "
        "| steps | trained | budget | date | status |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]


def _listed(fields: dict[str, Any]) -> str:
    """``k=v, ...`` of ``fields`` as JSON stores them (a fresh row reads as once stored)."""
    return ", ".join(f"{k}={v!r}" for k, v in plain(fields).items())


def _table_row(row: dict[str, Any]) -> str:
    args = _listed(row.get("env_kwargs", {}))
    task = f"{row['task']} ({args})" if args else row["task"]
    changes = _listed(row.get("recipe", {}))
    task = f"{task} [{changes}]" if changes else task
    budget = row.get("rl") or _budget(row)
    return (
        f"| {task} | {row['plugin']} | {_num(row, 'accuracy')} | {_num(row, 'performance')} "
        f"| {_num(row, 'chance')} | {_num(row, 'oracle')} | {_num(row, 'ideal')} "
        f"| {_num(row, 'memory')} | {_num(row, 'ceiling')} | {row.get('steps', '')} "
        f"| {_seconds(row.get('trained'))} "
        f"| {budget} | {row['date']} | {row['status']} |"
    )


def _summary(rows: list[dict[str, Any]], notes: Mapping[str, str]) -> list[str]:
    scored = [row for row in rows if "accuracy" in row]
    learned = [row for row in scored if row["status"] == "learned"]
    missed = [row for row in scored if row["status"] != "learned"]
    lines = ["", f"**{len(learned)} of {len(scored)} scored tasks learned.**"]
    unscored = [row["task"] for row in rows if "accuracy" not in row]
    if unscored:
        lines.append(f"Not scored: {', '.join(unscored)} (see their status).")
    if missed:
        lines += ["", "## Not learned, and why", ""]
        for row in missed:
            note = notes.get(row["task"], "not investigated yet")
            lines.append(f"- **{row['task']}** ({_num(row, 'accuracy')} of "
                         f"{_num(row, 'ceiling')}): {note}")  # fmt: skip
    return lines


def markdown(
    rows: list[dict[str, Any]],
    notes: Mapping[str, str],
    learned_fraction: float,
    check_trials: int,
    check_margin: int,
) -> str:
    """docs/learnability.md from the rows: the header, the table, why rows were not learned."""
    header = _header(_runs(rows), learned_fraction, check_trials, check_margin)
    lines = header + [_table_row(row) for row in rows] + _summary(rows, notes)
    return "\n".join(lines) + "\n"


def _budget(row: dict[str, Any]) -> str:
    """A row's training budget: steps, or seconds for rows trained under a time budget."""
    if row.get("budget_steps") is not None:
        return f"{row['budget_steps']:,} steps"
    return _seconds(row.get("seconds"))


def _seconds(value: float | None) -> str:
    return "" if value is None else f"{value:.0f} s"
