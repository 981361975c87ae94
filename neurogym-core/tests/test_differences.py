"""neurogym.testing.differences: declared differences from upstream, validated and matched."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from neurogym.testing import differences
from neurogym.testing._readme import check_block, replace_block
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


# The command line (python -m neurogym.testing.differences PLUGIN README): every error is one
# line naming the file and what is valid, never a traceback (issue #47).

README = "# lab\n\n<!-- differences:start -->\nold\n<!-- differences:end -->\n"
ENTRY = """
[[difference]]
tasks = ["DelayMatchSample"]
summary = "Something differs."
reason = "Upstream had a bug."
follows = "fix"
"""


@pytest.fixture
def plugin_package(tmp_path, monkeypatch):
    """Writes ``differences.toml`` (text or bytes) into a fake plugin package; returns its path."""
    package = tmp_path / "site" / "fake_lab_tasks"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(package.parent))
    monkeypatch.setattr(differences, "_package_of", lambda plugin: "fake_lab_tasks")
    (tmp_path / "README.md").write_text(README)

    def write(content: str | bytes):
        path = package / differences.FILENAME
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
        return path

    yield write
    sys.modules.pop("fake_lab_tasks", None)


def _main(capsys, *args):
    status = differences.main([str(arg) for arg in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, out, err


def test_the_command_writes_the_section(plugin_package, tmp_path, capsys):
    plugin_package(ENTRY)
    readme = tmp_path / "README.md"
    assert _main(capsys, "lab", readme)[0] == 0
    assert "- **DelayMatchSample**: Something differs." in readme.read_text()
    assert _main(capsys, "lab", readme)[1].endswith("already up to date\n")
    differences.check_readme_section("lab", readme)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[[difference]\ntasks = 1\n", r": not valid TOML: .*; a differences\.toml is UTF-8 TOML"),
        (b'[[difference]]\nsummary = "caf\xe9"\n', r": not UTF-8 \(byte \d+ is b'\\xe9'\)"),
        (
            "difference = [1, 2]\n",
            r"entry 1: each entry must be a \[\[difference\]\] table, got int",
        ),
        ("x = " + "[" * 5000 + "]" * 5000 + "\n", r": nested too deeply to parse; a differences"),
        ("x = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n", r": nested too deeply to parse"),
        ("[difference]\nsummary = 'x'\n", r": only \[\[difference\]\] tables are allowed"),
        ("title = 'x'\n" + ENTRY, r"only \[\[difference\]\] tables are allowed, got top-level"),
    ],
    ids=["toml", "utf8", "int-entries", "nested-arrays", "nested-tables", "table", "extra-key"],
)
def test_a_malformed_file_is_one_line_naming_it_with_status_1(
    plugin_package, tmp_path, capsys, content, message
):
    path = plugin_package(content)
    status, out, err = _main(capsys, "lab", tmp_path / "README.md")
    assert (status, out) == (1, "")
    assert err.startswith(f"neurogym.testing.differences: {path}")
    assert re.search(message, err), err
    assert err.count("\n") == 1
    assert (tmp_path / "README.md").read_text() == README


@pytest.mark.parametrize("field", ["summary", "reason", "source", "tasks", "tests"])
@pytest.mark.parametrize("marker", [differences.END, differences.START])
def test_a_field_holding_a_readme_marker_is_refused(field, marker):
    value = [f"x {marker}"] if field in {"tasks", "tests"} else f"see {marker} here"
    with pytest.raises(ValueError, match=f"entry 2: '{field}' contains the README marker"):
        _entry("wm", 2, {**VALID, field: value})


def test_a_summary_with_the_end_marker_never_grows_the_readme(plugin_package, tmp_path, capsys):
    plugin_package(ENTRY.replace("Something differs.", f"Ends {differences.END} early."))
    readme = tmp_path / "README.md"
    for _ in range(2):
        status, _, err = _main(capsys, "lab", readme)
        assert status == 1
        assert "'summary' contains the README marker '<!-- differences:end -->'" in err
    assert readme.read_text() == README


def test_a_generated_body_holding_the_end_marker_is_refused_by_the_block_writer(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(README)
    end = differences.END
    with pytest.raises(ValueError, match="contains the marker '<!-- differences:end -->'"):
        replace_block(readme, differences.START, end, f"a {end} b")
    with pytest.raises(ValueError, match="contains the marker"):
        check_block(readme, differences.START, end, f"a {end} b", "differences section", "fix")
    assert readme.read_text() == README


def test_an_unknown_plugin_is_a_usage_error_naming_the_installed_ones(tmp_path, capsys):
    (tmp_path / "README.md").write_text(README)
    status, out, err = _main(capsys, "nope", tmp_path / "README.md")
    assert (status, out) == (2, "")
    assert err.startswith("neurogym.testing.differences: error: no installed plugin 'nope' ")
    assert "; installed plugins: " in err


@pytest.mark.parametrize("name", ["missing.md", "."])
def test_a_missing_readme_is_a_usage_error(plugin_package, tmp_path, capsys, name):
    plugin_package(ENTRY)
    status, out, err = _main(capsys, "lab", tmp_path / name)
    assert (status, out) == (2, "")
    assert (
        err == f"neurogym.testing.differences: error: {tmp_path / name}: no such file; "
        "give the plugin's README\n"
    )


def test_a_readme_without_the_block_or_not_utf8_is_status_1(plugin_package, tmp_path, capsys):
    plugin_package(ENTRY)
    readme = tmp_path / "README.md"
    readme.write_text("# lab\n")
    status, _, err = _main(capsys, "lab", readme)
    assert status == 1
    assert err == (
        f"neurogym.testing.differences: {readme} has no <!-- differences:start --> ... "
        "<!-- differences:end --> block to fill\n"
    )
    readme.write_bytes(b"# caf\xe9\n")
    status, _, err = _main(capsys, "lab", readme)
    assert (status, err) == (
        1,
        f"neurogym.testing.differences: {readme}: not UTF-8 text (byte 5)\n",
    )


def test_the_module_reports_an_error_without_a_traceback(tmp_path):
    (tmp_path / "README.md").write_text(README)
    result = subprocess.run(
        [sys.executable, "-m", "neurogym.testing.differences", "nope", "README.md"],
        cwd=tmp_path,
        env={**os.environ, "NEUROGYM_NO_PLUGINS": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr == (
        "neurogym.testing.differences: error: no installed plugin 'nope' declares tasks; "
        "installed plugins: core\n"
    )
