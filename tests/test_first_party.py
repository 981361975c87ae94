"""Core's first-party table agrees with the plugins in this repository and what they register."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

import neurogym
from neurogym._registry.firstparty import FIRST_PARTY, FIRST_PARTY_NAMESPACE

ROOT = Path(__file__).resolve().parents[1]
ROWS = {row.distribution: row for row in FIRST_PARTY}


def _repo_plugins() -> dict[str, str]:
    """Distribution -> entry-point name, for every package under plugins/ and neurogym-apps."""
    found = {}
    sources = [*ROOT.glob("plugins/*/pyproject.toml"), ROOT / "neurogym-apps" / "pyproject.toml"]
    for pyproject in sorted(sources):
        project = tomllib.loads(pyproject.read_text())["project"]
        (name,) = project["entry-points"]["neurogym.plugins"]
        found[project["name"]] = name
    return found


@pytest.mark.parametrize(("distribution", "entry_point"), sorted(_repo_plugins().items()))
def test_every_repo_plugin_has_its_row(distribution, entry_point):
    assert distribution in ROWS, f"{distribution} is missing from neurogym._registry.firstparty"
    assert ROWS[distribution].plugin == entry_point


@pytest.mark.parametrize("distribution", sorted(["neurogym-core", *_repo_plugins()]))
def test_row_lists_exactly_the_registered_tasks(distribution):
    registered = [spec for spec in neurogym.tasks() if spec.distribution == distribution]
    assert {spec.namespace for spec in registered} <= {FIRST_PARTY_NAMESPACE}
    assert sorted(spec.name for spec in registered) == sorted(ROWS[distribution].tasks)


def test_rows_are_unique():
    plugins = [row.plugin for row in FIRST_PARTY]
    tasks = [task.lower() for row in FIRST_PARTY for task in (*row.tasks, *row.planned)]
    assert len(set(plugins)) == len(plugins)
    assert len(set(tasks)) == len(tasks)


def test_the_template_reserves_exactly_the_first_party_plugin_names():
    import ast

    hook = (ROOT / "template" / "hooks" / "pre_gen_project.py").read_text(encoding="utf-8")
    (assignment,) = [
        node
        for node in ast.parse(hook.replace("{{", "{").replace("}}", "}")).body
        if isinstance(node, ast.Assign)
        and any(getattr(t, "id", None) == "RESERVED_PLUGIN_NAMES" for t in node.targets)
    ]
    reserved = ast.literal_eval(assignment.value)
    assert reserved == tuple(row.plugin for row in FIRST_PARTY)


RESERVED_SPELLINGS = ["neurogym", "Neurogym", "NEUROGYM", "neuro-gym", "Neuro_Gym", "neuro.gym"]
FREE_NAMES = ["neurogym2", "myneurogym", "neuro", "gym", "lab", "neurogyms", "neuro-gym-lab"]


@pytest.mark.parametrize("namespace", RESERVED_SPELLINGS + FREE_NAMES)
def test_core_and_the_template_reserve_the_same_namespaces(namespace):
    from neurogym._registry.firstparty import is_reserved_namespace

    hook = (ROOT / "template" / "hooks" / "pre_gen_project.py").read_text(encoding="utf-8")
    module: dict = {"__name__": "pre_gen_project"}
    exec(compile(re.sub(r"\{\{.*?\}\}", '""', hook), "pre_gen_project.py", "exec"), module)
    refused_by_template = bool(module["check_namespace"](namespace))
    assert is_reserved_namespace(namespace) == (namespace in RESERVED_SPELLINGS)
    assert refused_by_template == is_reserved_namespace(namespace)


def test_compatibility_forms_of_the_namespace_are_reserved_too():
    from neurogym._registry.firstparty import is_reserved_namespace

    full_width = "".join(chr(ord(c) + 0xFEE0) for c in "neurogym")  # U+FF4E ...
    assert is_reserved_namespace(full_width)


@pytest.mark.parametrize("distribution", sorted(["neurogym-core", *_repo_plugins()]))
def test_row_lists_exactly_the_declared_commands(distribution):
    from neurogym._registry.commands import plugin_commands

    declared = plugin_commands(neurogym.get_registry().plugin_manager)
    mine = sorted(name for name, spec in declared.items() if spec.distribution == distribution)
    assert mine == sorted(name for name, _ in ROWS[distribution].commands)


def test_first_party_command_extras_exist_in_the_neurogym_distribution():
    # The extras are written at build time from the metadata hook's table (hatch_build.py).
    meta = tomllib.loads((ROOT / "neurogym-meta" / "pyproject.toml").read_text())
    extras = meta["tool"]["hatch"]["metadata"]["hooks"]["custom"]["optional-dependencies"]
    for row in FIRST_PARTY:
        for command, extra in row.commands:
            assert extra in extras, f"{command}: neurogym has no extra {extra!r}"
            assert any(req.startswith(row.distribution) for req in extras[extra])


def _first_party_tool():
    import importlib.util

    spec = importlib.util.spec_from_file_location("first_party", ROOT / "tools" / "first_party.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generated_first_party_copies_are_current(capsys):
    assert _first_party_tool().main([]) == 0
    assert capsys.readouterr().out == "first-party copies are current\n"


def test_a_stale_copy_is_named_and_write_regenerates_it(tmp_path, monkeypatch, capsys):
    tool = _first_party_tool()
    module, hook = tmp_path / "firstparty.py", tmp_path / "pre_gen_project.py"
    module.write_text(
        tool.FIRST_PARTY_MODULE.read_text().replace('"DelayMatchSample",\n', ""), "utf-8"
    )
    hook.write_text(tool.TEMPLATE_HOOK.read_text(), "utf-8")
    monkeypatch.setattr(tool, "ROOT", tmp_path)
    monkeypatch.setattr(tool, "FIRST_PARTY_MODULE", module)
    monkeypatch.setattr(tool, "TEMPLATE_HOOK", hook)
    monkeypatch.setattr(tool, "_readmes", list)
    assert tool.main([]) == 1
    assert capsys.readouterr().err == (
        "stale first-party copies: firstparty.py (first-party-tasks); regenerate: "
        "python tools/first_party.py --write\n"
    )
    assert tool.main(["--write"]) == 0
    assert module.read_text() == tool.FIRST_PARTY_MODULE.read_text()
    assert tool.main([]) == 0
