"""A plugin README's task table, generated from its TaskSpecs and checked by its tests.

Between the markers ``<!-- task-table:start -->`` and ``<!-- task-table:end -->`` a README
holds the table that :func:`task_table` renders. ``python -m neurogym.testing.readme PLUGIN
README.md`` rewrites it; :func:`check_readme_table` (called from the plugin's tests) fails when
it is stale.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = [
    "check_block",
    "check_readme_table",
    "main",
    "replace_block",
    "task_table",
    "update_readme_table",
]

START = "<!-- task-table:start -->"
END = "<!-- task-table:end -->"


def task_table(plugin: str) -> str:
    """The markdown table of the installed plugin ``plugin``'s tasks (id, tags, paper)."""
    import neurogym

    specs = neurogym.tasks(plugin=plugin)
    if not specs:
        raise LookupError(f"no installed plugin {plugin!r} declares tasks")
    rows = ["| id | tags | description | reference |", "|---|---|---|---|"]
    for spec in specs:
        paper = f"[{spec.paper_name}]({spec.paper_link})" if spec.paper_link else spec.paper_name
        rows.append(f"| `{spec.id}` | {', '.join(spec.tags)} | {spec.description} | {paper} |")
    return "\n".join(rows)


def replace_block(readme: str | Path, start: str, end: str, body: str) -> bool:
    """Rewrites the text between the ``start`` and ``end`` markers of ``readme`` with ``body``.

    Returns:
        Whether the file changed.

    Raises:
        ValueError: If the README has no such block.
    """
    path = Path(readme)
    text = path.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
    if not pattern.search(text):
        raise ValueError(f"{path} has no {start} ... {end} block to fill")
    new = pattern.sub(lambda _: f"{start}\n{body}\n{end}", text)
    path.write_text(new, encoding="utf-8")
    return new != text


def check_block(readme: str | Path, start: str, end: str, body: str, what: str, fix: str) -> None:
    """Raises ``AssertionError`` if the README's ``start`` ... ``end`` block is not ``body``.

    ``what`` names the block in the message and ``fix`` is the command that regenerates it.
    """
    path = Path(readme)
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
    match = pattern.search(path.read_text(encoding="utf-8"))
    if match is None:
        raise AssertionError(f"{path} has no {start} ... {end} block")
    if match.group(0) != f"{start}\n{body}\n{end}":
        raise AssertionError(f"the {what} in {path} is stale; regenerate it with `{fix}`")


def update_readme_table(plugin: str, readme: str | Path) -> bool:
    """Rewrites the table in ``readme``; returns whether the file changed."""
    return replace_block(readme, START, END, task_table(plugin))


def check_readme_table(plugin: str, readme: str | Path) -> None:
    """Raises ``AssertionError`` if ``readme``'s task table differs from the specs."""
    fix = f"python -m neurogym.testing.readme {plugin} {readme}"
    check_block(readme, START, END, task_table(plugin), "task table", fix)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m neurogym.testing.readme PLUGIN README``: rewrites the task table."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print("usage: python -m neurogym.testing.readme PLUGIN README.md", file=sys.stderr)
        return 2
    changed = update_readme_table(args[0], args[1])
    print(f"{args[1]}: task table {'updated' if changed else 'already up to date'}")
    return 0
