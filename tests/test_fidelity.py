"""The differential fidelity check: our tasks against upstream NeuroGym 2.3.1's own trials.

``tests/fidelity/upstream-2.3.1-seed1.json.gz`` holds summary statistics of 2,000 seeded trials
(and 2,000 trials played by a scripted ground-truth agent) of every task both sides have, made
by upstream 2.3.1 itself (``nox -s fidelity`` regenerates it, and ``-seed2`` beside it, from
PyPI's ``neurogym==2.3.1`` in a venv of its own; the command is recorded in each file). Here
the same statistics are collected from our tasks and compared (``tests/fidelity/compare.py``:
two-sample tests, Holm-corrected at a family-wise error of 0.001). Every difference found must
be declared by a plugin's ``differences.toml`` (``neurogym.testing.differences``), and every
declared pattern must still show.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import neurogym
from neurogym.testing import differences

FIDELITY = Path(__file__).resolve().parent / "fidelity"
sys.path.insert(0, str(FIDELITY))
import collect  # noqa: E402
import compare  # noqa: E402

REFERENCE = FIDELITY / "upstream-2.3.1-seed1.json.gz"
CALIBRATION = FIDELITY / "upstream-2.3.1-seed2.json.gz"
OUR_SEED = 3
TRIALS = 2000
PLUGINS = ("perceptual", "workingmemory", "valuebased", "motor", "multitask")


@pytest.fixture(scope="module")
def reference() -> dict[str, Any]:
    data = compare.load(REFERENCE)
    assert data["meta"] == {**data["meta"], "side": "upstream", "seed": 1, "trials": TRIALS}
    return data


@pytest.fixture(scope="module")
def ours() -> dict[str, Any]:
    configs = {
        label: collect.collect("ours", label, name, kwargs, OUR_SEED, TRIALS)
        for label, name, kwargs in collect.CONFIGS
    }
    return {"meta": {"side": "ours", "seed": OUR_SEED, "trials": TRIALS}, "configs": configs}


@pytest.fixture(scope="module")
def declared() -> list[differences.Difference]:
    return [d for plugin in PLUGINS for d in differences.declared(plugin)]


@pytest.fixture(scope="module")
def report(reference: dict[str, Any], ours: dict[str, Any]) -> compare.Report:
    return compare.compare(reference, ours)


def _listing(findings: list[compare.Finding]) -> str:
    return "\n".join(f"  {f.key}: {f.detail}" for f in findings)


def test_upstream_against_upstream_at_two_seeds_finds_nothing(reference: dict[str, Any]) -> None:
    # the calibration: two samples of the same tasks (seeds 1 and 2) must not differ
    calibration = compare.load(CALIBRATION)
    assert calibration["meta"]["seed"] == 2
    report = compare.compare(reference, calibration)
    assert report.tests > 20_000
    assert report.findings == [], _listing(report.findings)


def test_the_check_covers_every_shared_task_and_a_variant_per_family(
    reference: dict[str, Any], ours: dict[str, Any]
) -> None:
    labels = set(reference["configs"])
    assert labels == set(ours["configs"])
    names = {label.split("@")[0] for label in labels}
    assert len([n for n in names if n.startswith("yang19.")]) == 20
    assert len([n for n in names if n.startswith("perceptualdecisionmaking.")]) == 2
    assert len([n for n in names if "." not in n]) == 29  # every native task upstream registers
    variants = [label.split("@")[0] for label in labels if "@" in label]
    families = {neurogym.spec(f"neurogym/{name}-v0").plugin for name in variants}
    assert families == set(PLUGINS)


def test_every_difference_from_upstream_is_declared(
    report: compare.Report, declared: list[differences.Difference]
) -> None:
    undeclared = differences.unexplained(report.keys(), declared)
    missing = [f for f in report.findings if f.key in set(undeclared)]
    assert not missing, (
        f"{len(missing)} statistics differ from upstream 2.3.1 and no plugin's "
        f"differences.toml declares them (fix the task or declare the change):\n"
        + _listing(missing)
    )


def test_every_declared_pattern_still_shows(
    report: compare.Report, declared: list[differences.Difference]
) -> None:
    assert differences.unused_patterns(report.keys(), declared) == []


def test_per_task_table(report: compare.Report, declared: list[differences.Difference]) -> None:
    # one row per configuration: findings, all explained (printed with -s for the closing note)
    rows = []
    for label, findings in report.by_config().items():
        keys = [f.key for f in findings]
        explained = len(keys) - len(differences.unexplained(keys, declared))
        rows.append((label, len(findings), explained))
    assert len(rows) == len(collect.CONFIGS)
    assert all(n == explained for _, n, explained in rows)
    print("\n".join(f"{label}: {n} findings, {done} declared" for label, n, done in rows))


# ----------------------------------------------------------------------------- planted faults


def _planted_findings(
    reference: dict[str, Any], monkeypatch: pytest.MonkeyPatch, label: str, env: Any
) -> list[str]:
    """The findings of ``env()`` (a planted fault) against upstream's ``label``."""
    monkeypatch.setattr(collect, "make", lambda side, name, kwargs: env())
    planted = {"configs": {label: collect.collect("ours", label, label, {}, OUR_SEED, TRIALS)}}
    upstream = {"configs": {label: reference["configs"][label]}}
    return compare.compare(upstream, planted).keys()


class _FixationCueInStimulus(neurogym.make("PerceptualDecisionMaking").unwrapped.__class__):  # type: ignore[misc]
    """A planted fault: the fixation cue stays on through the stimulus (undeclared)."""

    def _new_trials(self, b: Any, **kwargs: Any) -> dict[str, Any]:
        out: dict[str, Any] = super()._new_trials(b, **kwargs)
        b.add_input(1, "stimulus", where="fixation")
        return out


def test_a_planted_fixation_cue_is_found_and_undeclared(
    reference: dict[str, Any],
    declared: list[differences.Difference],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    label = "PerceptualDecisionMaking"
    keys = _planted_findings(reference, monkeypatch, label, _FixationCueInStimulus)
    undeclared = differences.unexplained(keys, declared)
    assert f"{label}|ob:stimulus:0:mean" in undeclared
    assert f"{label}|ob:stimulus:0:sq" in undeclared
    prefixes = (f"{label}|ob:stimulus:0:", f"{label}|joint:stimulus:0:")
    assert all(key.startswith(prefixes) for key in undeclared), undeclared


def test_a_shifted_period_is_found_and_undeclared(
    reference: dict[str, Any],
    declared: list[differences.Difference],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    label = "DelayMatchSample"
    shifted = lambda: neurogym.make("DelayMatchSample", timing={"fixation": 400})  # noqa: E731
    keys = _planted_findings(reference, monkeypatch, label, shifted)
    undeclared = differences.unexplained(keys, declared)
    assert f"{label}|duration:fixation=3" in undeclared  # upstream's 300 ms: 3 steps
    assert f"{label}|duration:fixation=4" in undeclared
    assert any(key.startswith(f"{label}|length=") for key in undeclared)


def test_a_planted_change_of_a_reward_is_found(
    reference: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the scripted agent earns "correct" on the go half of the trials: 1 -> 0.5 moves its mean
    # reward by ~0.25, about 15 standard errors at 2,000 trials
    label = "GoNogo"
    halved = lambda: neurogym.make("GoNogo", rewards={"correct": 0.5})  # noqa: E731
    keys = _planted_findings(reference, monkeypatch, label, halved)
    assert f"{label}|agent:reward" in keys


def test_compare_flags_constants_that_differ_and_ignores_noise() -> None:
    def sample(values: Iterator[float] | list[float]) -> dict[str, Any]:
        array = np.asarray(list(values), dtype=float)
        var = float(array.var(ddof=1))
        return {"n": array.size, "mean": float(array.mean()), "var": var, "inflation": 1.0}

    def side(samples: dict[str, Any]) -> dict[str, Any]:
        return {"configs": {"T": {"exact": {}, "samples": samples, "counts": {}}}}

    rng = np.random.default_rng(0)
    a, b, c = rng.normal(size=500), rng.normal(size=500), rng.normal(0.5, size=500)
    same = compare.compare(side({"a": sample(a)}), side({"a": sample(b)}))
    assert same.findings == []
    assert same.tests == 1
    constant = compare.compare(side({"a": sample([0.0] * 50)}), side({"a": sample([1.0] * 50)}))
    assert [f.key for f in constant.findings] == ["T|a"]
    shifted = compare.compare(side({"a": sample(a)}), side({"a": sample(c)}))
    assert [f.key for f in shifted.findings] == ["T|a"]
