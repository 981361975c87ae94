"""neurogym.testing.differences: declared differences from upstream, validated and matched."""

from __future__ import annotations

import pytest

from neurogym.testing import differences
from neurogym.testing.differences import Difference, _entry

VALID = {
    "tasks": ["DelayMatchSample"],
    "summary": "Something  differs.",
    "reason": "Upstream had a bug.",
    "follows": "fix",
    "shows": ["DelayMatchSample*|ob:*:0:*"],
}


def test_an_entry_is_read_with_its_fields_and_normalised_text():
    entry = _entry("wm", 1, VALID)
    assert entry == Difference(
        plugin="wm",
        tasks=("DelayMatchSample",),
        summary="Something differs.",
        reason="Upstream had a bug.",
        follows="fix",
        shows=("DelayMatchSample*|ob:*:0:*",),
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"follows": "belief"}, r"follows='belief'; valid: \['upstream', 'fix', 'paper'"),
        ({"tasks": []}, "tasks must be a non-empty list of non-empty strings"),
        ({"shows": "DelayMatchSample"}, "shows must be a list of non-empty strings"),
        ({"summary": " "}, "'summary' must be a non-empty string"),
        ({"colour": "red"}, r"unknown fields \['colour'\]"),
    ],
)
def test_a_malformed_entry_names_the_field(change, message):
    with pytest.raises(ValueError, match=message):
        _entry("wm", 3, {**VALID, **change})


def test_findings_are_explained_by_patterns_and_unused_patterns_are_reported():
    entry = _entry("wm", 1, VALID)
    findings = ["DelayMatchSample|ob:sample:0:mean", "DelayMatchSample|ob:sample:1:mean"]
    assert differences.unexplained(findings, [entry]) == ["DelayMatchSample|ob:sample:1:mean"]
    assert differences.unused_patterns(findings, [entry]) == []
    assert differences.unused_patterns(findings[1:], [entry]) == ["wm: DelayMatchSample*|ob:*:0:*"]


def test_an_unknown_plugin_is_a_lookup_error():
    with pytest.raises(LookupError, match="no installed plugin 'nope'"):
        differences.declared("nope")


def test_a_plugin_whose_tasks_live_in_one_module_declares_nothing(monkeypatch):
    # importlib.resources.files() raised "TypeError: 'fnmatch' is not a package" on Python 3.11
    monkeypatch.setattr(differences, "_package_of", lambda plugin: "fnmatch")
    assert differences.declared("mylab") == []


def test_a_plugin_package_without_the_file_declares_nothing(monkeypatch):
    monkeypatch.setattr(differences, "_package_of", lambda plugin: "neurogym")
    assert differences.declared("core") == []
