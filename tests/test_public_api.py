"""The public import paths of docs/architecture.md §10 exist, and plugins use nothing else."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import gymnasium
import pytest

import neurogym

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "architecture.md"
# `from neurogym.x import a, b` / `import neurogym.x` at any indentation (template files hold
# Jinja, so they are scanned as text, not parsed).
IMPORT_RE = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<from>neurogym(?:\.\w+)*)[ \t]+import[ \t]+"
    r"(?P<names>\([^)]*\)|[\w \t,]+)"
    r"|import[ \t]+(?P<module>neurogym(?:\.\w+)*))",
    re.MULTILINE,
)


def _documented_modules() -> list[str]:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("## 10. Public import paths", 1)[1].split("Registered strings", 1)[0]
    found = re.findall(r"`(neurogym(?:_apps)?(?:\.\w+)*)`:", section)  # "`module`: what"
    return sorted(set(found))


PUBLIC = _documented_modules()


def _sources() -> list[Path]:
    """Code outside neurogym-core: the plugins, the applications and the template."""
    files = [*ROOT.glob("plugins/*/src/**/*.py"), *ROOT.glob("plugins/*/tests/**/*.py")]
    files += ROOT.glob("neurogym-apps/src/**/*.py")
    return sorted([*files, *ROOT.glob("template/**/*.py")])


def test_the_section_lists_the_expected_modules():
    assert "neurogym" in PUBLIC
    assert "neurogym_apps.train" in PUBLIC
    assert "neurogym.data" in PUBLIC
    assert "neurogym.wrappers" in PUBLIC
    assert "neurogym.commands" in PUBLIC
    assert len(PUBLIC) >= 12


@pytest.mark.parametrize("module", PUBLIC)
def test_documented_module_imports(module):
    imported = importlib.import_module(module)
    assert not any(part.startswith("_") for part in module.split("."))
    if hasattr(imported, "__all__"):
        for name in imported.__all__:
            assert hasattr(imported, name), f"{module}.__all__ names missing {name!r}"


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_plugins_and_template_import_only_public_paths(path):
    problems = []
    for match in IMPORT_RE.finditer(path.read_text(encoding="utf-8")):
        module = match["from"] or match["module"]
        if module.split(".")[0] != "neurogym":
            continue
        if module not in PUBLIC:
            problems.append(f"imports module {module!r}")
        # "a as b, c" -> ["a", "c"]: the imported names, not their aliases
        names = [
            item.split()[0]
            for item in re.sub(r"[()]", " ", match["names"] or "").split(",")
            if item.strip()
        ]
        problems += [f"imports private name {module}.{n}" for n in names if n.startswith("_")]
        if module == "neurogym":
            problems += [
                f"imports neurogym.{name}, not in neurogym.__all__"
                for name in names
                if name not in neurogym.__all__
            ]
    assert not problems, f"{path.relative_to(ROOT)}: " + "; ".join(problems)


def imported_modules(source: str) -> set[str]:
    """Every module a Python source imports: statements (function-local ones too) and
    ``importlib.import_module``/``__import__`` calls with a literal name.

    ``from a import b`` counts as ``a`` and ``a.b`` (``b`` may be a submodule).
    """
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and node.args:
            called = node.func
            name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
            first = node.args[0]
            if name in ("import_module", "__import__") and isinstance(first, ast.Constant):
                found.add(str(first.value))
    return found


def test_the_import_scan_sees_every_spelling():
    source = (
        "import neurogym.cli as c\nfrom neurogym import cli\n"
        "def f():\n    from neurogym.cli import main\n"
        "importlib.import_module('neurogym.cli')\n"
    )
    assert imported_modules(source) == {"neurogym", "neurogym.cli", "neurogym.cli.main"}
    assert imported_modules("from neurogym.commands import CommandError") == {
        "neurogym.commands",
        "neurogym.commands.CommandError",
    }


def _command_sources() -> list[Path]:
    """The code ``neurogym.cli`` loads as plugin commands: the applications and the plugins."""
    return sorted([*ROOT.glob("neurogym-apps/src/**/*.py"), *ROOT.glob("plugins/*/src/**/*.py")])


@pytest.mark.parametrize("path", _command_sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_applications_and_plugins_do_not_import_the_command_line(path):
    # The command line loads their commands; they use neurogym.commands (issue #46, item 5).
    imported = imported_modules(path.read_text(encoding="utf-8"))
    cli = sorted(m for m in imported if m == "neurogym.cli" or m.startswith("neurogym.cli."))
    assert not cli, f"{path.relative_to(ROOT)} imports {cli}; use neurogym.commands"


def test_registered_entry_points_resolve():
    spec = gymnasium.spec("neurogym/Null-v0")
    assert spec.entry_point == "neurogym._gym:make_from_registry"
    assert spec.vector_entry_point == "neurogym.vector:make_vector_env"
    for target in (spec.entry_point, spec.vector_entry_point, "neurogym.cli:main"):
        module, attr = target.split(":")
        assert callable(getattr(importlib.import_module(module), attr))
    hooks = importlib.import_module("neurogym.hookspecs")
    for hook in ("neurogym_tasks", "neurogym_wrappers", "neurogym_env_created"):
        assert callable(getattr(hooks, hook))
