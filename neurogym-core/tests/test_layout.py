"""The package's shape: no runtime import cycles, small modules (docs/architecture.md §1)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import neurogym

PACKAGE_DIR = Path(neurogym.__file__).resolve().parent
MAX_LINES = 600

# The layers of docs/architecture.md §1, lowest first: a module imports only from its own
# layer or lower ones (the package's lazy attributes go through importlib, not an import).
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("foundation", ("neurogym.errors", "neurogym.validate", "neurogym.spaces", "neurogym.timing",
                    "neurogym.rules", "neurogym._deprecation")),
    ("trial generation", ("neurogym._trials",)),
    ("single env", ("neurogym._env",)),
    ("registry and plugins", ("neurogym._registry", "neurogym._gym", "neurogym.hookspecs")),
    ("data and vector envs", ("neurogym._data", "neurogym.data", "neurogym.vector")),
    ("wrappers", ("neurogym.wrappers",)),
    ("public API", ("neurogym",)),
    # NeuroGym 2.3.1's module paths: shells over everything below (reached lazily from above).
    ("2.3.1 compatibility", ("neurogym._legacy", "neurogym.core", "neurogym.envs",
                             "neurogym.utils", "neurogym.config", "neurogym.wrappers.block",
                             "neurogym.wrappers.noise", "neurogym.wrappers.pass_action",
                             "neurogym.wrappers.pass_reward", "neurogym.wrappers.reaction_time",
                             "neurogym.wrappers.side_bias", "neurogym.wrappers.components")),
    ("conformance kit", ("neurogym.testing",)),
    ("applications", ("neurogym.cli", "neurogym.commands", "neurogym.demo", "neurogym.__main__")),
]  # fmt: skip


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        if "_template" in path.relative_to(PACKAGE_DIR).parts:
            continue
        parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _target(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The neurogym modules an import statement runs (a package for its own names)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name in MODULES]
    if node.level:
        base = module.split(".")
        if MODULES[module].name != "__init__.py":
            base.pop()
        base = base[: len(base) - node.level + 1]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    if source not in MODULES:
        return []
    return [
        f"{source}.{alias.name}" if f"{source}.{alias.name}" in MODULES else source
        for alias in node.names
    ]


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def runtime_imports(module: str) -> set[str]:
    """Every neurogym module ``module`` imports when it runs, function-local imports included.

    Imports under ``if TYPE_CHECKING:`` are left out (they never run).
    """
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.update(_target(module, node))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(MODULES[module].read_text(encoding="utf-8")))
    found.discard(module)
    return found


def import_cycles() -> list[list[str]]:
    """Strongly connected groups of more than one module in the runtime import graph."""
    graph = {module: runtime_imports(module) for module in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return cycles


def test_the_module_walk_sees_the_package():
    assert {"neurogym", "neurogym.vector", "neurogym.wrappers", "neurogym.testing"} <= set(MODULES)


def test_there_are_no_runtime_import_cycles():
    cycles = import_cycles()
    described = [
        " -> ".join(f"{m} (imports {sorted(runtime_imports(m) & set(group))})" for m in group)
        for group in cycles
    ]
    assert not cycles, "runtime import cycles:\n" + "\n".join(described)


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of the layer holding ``module``."""
    best = -1, -1  # (length of the matching prefix, layer)
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best[0]:
                best = len(prefix), rank
    if best[1] < 0:
        raise AssertionError(f"{module} is in no layer of LAYERS (docs/architecture.md §1)")
    return best[1]


def test_function_local_imports_count_and_type_checking_ones_do_not():
    # neurogym._data.sources makes ids through the registry inside a function; the builder
    # names TrialEnv (a layer up) only for type checking.
    assert "neurogym._registry.api" in runtime_imports("neurogym._data.sources")
    assert "neurogym._env.env" not in runtime_imports("neurogym._trials.builder")


def test_every_module_imports_only_its_own_layer_or_lower_ones():
    def named(module: str) -> str:
        return f"{module} ({LAYERS[layer_of(module)][0]})"

    upward = [
        f"{named(module)} imports {named(target)}"
        for module in MODULES
        for target in sorted(runtime_imports(module))
        if layer_of(target) > layer_of(module)
    ]
    assert not upward, "imports that go up a layer:\n" + "\n".join(upward)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_modules_stay_small(module):
    lines = MODULES[module].read_text(encoding="utf-8").count("\n")
    assert lines < MAX_LINES, f"{module} has {lines} lines; split it (limit {MAX_LINES})"
