"""A plugin README's task table, generated from its TaskSpecs and checked by its tests.

Between the markers ``<!-- task-table:start -->`` and ``<!-- task-table:end -->`` a README
holds the table that :func:`task_table` renders. ``python -m neurogym.testing.readme PLUGIN
README.md`` rewrites it; :func:`check_readme_table` (called from the plugin's tests) fails when
it is stale.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = [
    "check_block",
    "check_readme_table",
    "main",
    "replace_block",
    "run_update",
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


def _check_body(start: str, end: str, body: str) -> None:
    # A marker inside the body would end the block early: each rewrite would grow the README
    # and the check would never pass again.
    for marker in (start, end):
        if marker in body:
            raise ValueError(
                f"the generated text contains the marker {marker!r}, which would end the "
                "block early; remove it from the source it was generated from"
            )


def replace_block(readme: str | Path, start: str, end: str, body: str) -> bool:
    """Rewrites the text between the ``start`` and ``end`` markers of ``readme`` with ``body``.

    Returns:
        Whether the file changed.

    Raises:
        ValueError: If the README has no such block, or ``body`` contains a marker.
    """
    _check_body(start, end, body)
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

    Raises:
        ValueError: If ``body`` contains a marker (no README could ever match it).
    """
    _check_body(start, end, body)
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


def run_update(
    prog: str, argv: Sequence[str], update: Callable[[str, str], bool], what: str
) -> int:
    """``python -m PROG PLUGIN README``: runs ``update(plugin, readme)``, errors as one line.

    Returns:
        The exit status: 0 success; 2 for a usage error (arguments, an unknown plugin, no such
        README file); 1 when the plugin's data or the README is malformed or cannot be written.
    """
    args = list(argv)
    if len(args) != 2:
        print(f"usage: python -m {prog} PLUGIN README.md", file=sys.stderr)
        return 2
    plugin, readme = args
    if not Path(readme).is_file():
        print(f"{prog}: error: {readme}: no such file; give the plugin's README", file=sys.stderr)
        return 2
    try:
        changed = update(plugin, readme)
    except LookupError as exc:  # an unknown plugin
        print(f"{prog}: error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    except UnicodeDecodeError as exc:
        print(f"{prog}: {readme}: not UTF-8 text (byte {exc.start})", file=sys.stderr)
        return 1
    except (ValueError, OSError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 1
    print(f"{readme}: {what} {'updated' if changed else 'already up to date'}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m neurogym.testing.readme PLUGIN README``: rewrites the task table.

    Returns:
        The exit status, as :func:`run_update` says.
    """
    return run_update(
        "neurogym.testing.readme",
        sys.argv[1:] if argv is None else argv,
        update_readme_table,
        "task table",
    )
