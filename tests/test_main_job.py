"""The main job's numbers depend on its command, not on the machine: budgets are steps."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch", reason="the main job trains with neurogym_apps.train")

from neurogym_apps.train import showcase


def _numbers(folder):
    """Everything the run wrote as numbers, without the wall times."""
    summary = json.loads((folder / "summary.json").read_text())
    for row in summary.values():
        del row["train_seconds"]
    metrics = {}
    for task in summary:
        run = json.loads((folder / task / "metrics.json").read_text())
        del run["seconds"]
        metrics[task] = run
    return summary, metrics


def test_the_main_job_gives_the_same_numbers_twice(tmp_path):
    args = ["--scale", "0.01", "--eval-trials", "16", "--no-figures"]
    for name in ("first", "second"):
        assert showcase.main([*args, "--out", str(tmp_path / name)]) == 0
    first, second = _numbers(tmp_path / "first"), _numbers(tmp_path / "second")
    assert first == second
    steps = {task: row["steps"] for task, row in first[0].items()}
    budgets = dict(showcase.SHOWCASE)
    assert steps == {task: round(budgets[task] * 0.01) for task in steps}
