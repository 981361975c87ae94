"""docs/architecture.md §1 lists every file of the neurogym package, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

import neurogym

REPO = Path(__file__).resolve().parents[1]
ARCHITECTURE = REPO / "docs" / "architecture.md"
PACKAGE = Path(neurogym.__file__).resolve().parent


def mapped_paths(text: str) -> set[str]:
    """The package paths (``x.py``, ``dir/x.py``, ``dir/``) of §1's map, below the package.

    An entry is the first word of a line indented one level (4 spaces) below its directory;
    ``#`` lines are layer headings, deeper lines continue a description.
    """
    section = text.split("## 1. Packages", 1)[1].split("\n## ", 1)[0]
    block = section.split("```", 2)[1]
    found: set[str] = set()
    stack: list[tuple[int, str]] = []  # (indentation, directory)
    for line in block.splitlines():
        if not line.strip() or line.strip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        word = line.split()[0]
        if not re.fullmatch(r"[\w.*<>/-]+(\.py|/)", word):  # a description's continuation
            continue
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if indent != (stack[-1][0] + 4 if stack else 0):  # deeper: a description's continuation
            continue
        path = "".join(directory for _, directory in stack) + word
        found.add(path)
        if word.endswith("/"):
            stack.append((indent, word))
    prefix = "neurogym-core/src/neurogym/"
    return {p[len(prefix) :] for p in found if p.startswith(prefix) and p != prefix}


def package_paths() -> set[str]:
    """Every module and subpackage of the installed package (the wheel-only template aside)."""
    paths = set()
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] == "_template" or "__pycache__" in relative.parts:
            continue
        paths.add(relative.as_posix())
        for parent in relative.parents:
            if parent != Path("."):
                paths.add(parent.as_posix() + "/")
    return paths


def test_the_map_parser_reads_nesting():
    text = "\n".join(
        [
            "## 1. Packages",
            "```",
            "neurogym-core/src/neurogym/",
            "    a.py   x",
            "    d/",
            "        b.py  y",
            "              continued.py description",
            "    # heading",
            "    c.py",
            "```",
        ]
    )
    assert mapped_paths(text) == {"a.py", "d/", "d/b.py", "c.py"}


def test_the_architecture_map_lists_every_file_of_the_package():
    mapped = mapped_paths(ARCHITECTURE.read_text(encoding="utf-8")) - {"_template/"}
    actual = package_paths()
    assert not actual - mapped, (
        f"files missing from docs/architecture.md §1: {sorted(actual - mapped)}"
    )
    assert not mapped - actual, f"§1 lists files that do not exist: {sorted(mapped - actual)}"
