"""The repository's pyproject files, read once for the tests that check requirements.

Used by tests/test_release.py (versions, first-party ranges) and tests/test_dependency_ranges.py
(no exact pins in published metadata).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DIRS = sorted(
    p.parent for p in [*ROOT.glob("*/pyproject.toml"), *ROOT.glob("plugins/*/pyproject.toml")]
)
PROJECTS = {d: tomllib.loads((d / "pyproject.toml").read_text(encoding="utf-8")) for d in DIRS}
META_HOOK = PROJECTS[ROOT / "neurogym-meta"]["tool"]["hatch"]["metadata"]["hooks"]["custom"]
TEMPLATE_PYPROJECT = next((ROOT / "template").glob("*/pyproject.toml"))


def requirements_of(
    pick: Callable[[dict[str, Any]], list[str]], *, root: bool = False
) -> list[tuple[str, str]]:
    """(where, requirement) for the requirements ``pick`` takes from each pyproject.

    Also the ``neurogym`` distribution's hook table and the template's dependencies (Jinja,
    read as text); with ``root``, the repository's own pyproject.toml too.
    """
    found = []
    if root:
        top = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
        found += [("pyproject.toml", r) for r in pick(top)]
    for directory, pyproject in PROJECTS.items():
        where = f"{directory.relative_to(ROOT).as_posix()}/pyproject.toml"
        found += [(where, r) for r in pick(pyproject)]
    hook = "neurogym-meta/pyproject.toml [tool.hatch.metadata.hooks.custom]"
    found += [(hook, r) for r in META_HOOK["dependencies"]]
    for extra in META_HOOK["optional-dependencies"].values():
        found += [(hook, r) for r in extra]
    line = re.search(r"^dependencies = \[(.*)\]$", TEMPLATE_PYPROJECT.read_text(), re.MULTILINE)
    assert line, f"no one-line dependencies list in {TEMPLATE_PYPROJECT}"
    found += [("template pyproject.toml", r) for r in re.findall(r'"([^"]+)"', line.group(1))]
    return found
