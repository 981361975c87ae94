"""What the applications write, other tools read: strict JSON, files the docs name, short reprs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch", reason="runs are trained with neurogym_apps.train (the torch extra)")

from neurogym_apps import _json
from neurogym_apps.train import TrainConfig
from neurogym_apps.train._report import RUN_FILES, train_and_report

ROOT = Path(__file__).resolve().parents[1]


def strict_load(text: str) -> Any:
    """``json.loads`` as strict readers (JSON.parse, jq) read: no NaN, no Infinity."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_the_strict_writer_writes_null_for_numbers_that_are_not_finite(tmp_path):
    np = pytest.importorskip("numpy")
    value = {"nan": float("nan"), "inf": np.float32("inf"), "array": np.array([1.0, -np.inf])}
    path = _json.write(tmp_path / "x.json", value)
    assert strict_load(path.read_text()) == {"nan": None, "inf": None, "array": [1.0, None]}
    with pytest.raises(TypeError, match="cannot write a set as JSON"):
        _json.dumps({"a": {1, 2}})


@pytest.fixture(scope="module")
def timing_run(tmp_path_factory):
    """A run of ReadySetGo: a task scored by performance, whose fixation-break rate is NaN."""
    folder = tmp_path_factory.mktemp("runs") / "rsg"
    config = TrainConfig(steps=3, hidden_size=8, seed=0)
    return train_and_report(
        "ReadySetGo", folder, config, eval_trials=10, figures=False, progress=False
    )


def test_a_runs_json_files_are_strict_json(timing_run):
    assert timing_run.evaluation.fixation_breaks != timing_run.evaluation.fixation_breaks  # NaN
    metrics = strict_load((timing_run.folder / "metrics.json").read_text())
    assert metrics["evaluation"]["fixation_breaks"] is None
    strict_load((timing_run.folder / "config.json").read_text())


def test_results_print_in_one_line(timing_run):
    for value in (timing_run, timing_run.evaluation):
        text = repr(value)
        assert "\n" not in text
        assert len(text) < 300, text
    assert repr(timing_run).startswith("RunResult(folder=")
    assert "accuracy=0.000" in repr(timing_run.evaluation)


def test_the_published_json_files_are_strict_json():
    published = sorted((ROOT / "docs").glob("*.json"))
    assert published  # docs/learnability.json, docs/yang19.json
    for path in published:
        strict_load(path.read_text(encoding="utf-8"))


def test_the_readme_names_the_files_the_main_job_writes():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`(runs/showcase/[^`]*)`", text))
    assert "runs/showcase/summary.json" in named
    assert "runs/showcase/<task>/" in named
    per_task = re.search(
        r"`runs/showcase/<task>/`[^.]*?holding (.*?) and\s+the\s+table", text, re.S
    )
    assert per_task is not None
    files = set(re.findall(r"`([\w.]+)`", per_task.group(1)))
    assert files == set(RUN_FILES)
