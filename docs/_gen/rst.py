"""The reStructuredText left in docstrings, rewritten as Markdown for the site.

The docstrings are Google style with Markdown, but many still cite objects with Sphinx roles
(``:class:`~neurogym.TrialEnv```) and one module documents its forms in a simple RST table.
MkDocs renders Markdown only, so the site rewrites (the sources are untouched), in the API
reference (``griffe_rst.py``) and in the task pages' docstrings (``catalogue.py``):

* a role ``:kind:`target``` -> a code span of the target (``~`` keeps its last part);
* a simple RST table (``====  ====`` rules) -> a Markdown table;
* a paragraph ending in ``::`` (an RST literal block follows) -> ending in ``:``.
"""

from __future__ import annotations

import re

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|data|obj|exc|const):`(~?)([^`]+)`")
_RULE = re.compile(r"^\s*=+(?:\s+=+)+\s*$")


def _role(match: re.Match[str]) -> str:
    target = match.group(2).strip()
    if match.group(1):
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


def _columns(rule: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"=+", rule)]


def _row(line: str, columns: list[tuple[int, int]]) -> str:
    cells = []
    for i, (start, _end) in enumerate(columns):
        stop = columns[i + 1][0] if i + 1 < len(columns) else len(line)
        cells.append(line[start:stop].strip().replace("|", "\\|"))
    return "| " + " | ".join(cells) + " |"


def simple_tables(text: str) -> str:
    """Convert RST simple tables (rule, header, rule, rows, rule) to Markdown tables."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        rules = [j for j in range(i, min(len(lines), i + 200)) if _RULE.match(lines[j])]
        if (
            _RULE.match(lines[i])
            and len(rules) >= 3
            and rules[1] == i + 2
            and all(lines[j].strip() for j in range(rules[1] + 1, rules[2]))
        ):
            columns = _columns(lines[i])
            out += ["", _row(lines[i + 1], columns), "|" + "---|" * len(columns)]
            out += [_row(lines[j], columns) for j in range(rules[1] + 1, rules[2])]
            out.append("")
            i = rules[2] + 1
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


def to_markdown(text: str) -> str:
    """The docstring text with roles, simple tables and ``::`` rewritten (see module doc)."""
    text = _ROLE.sub(_role, text)
    if "==" in text:
        text = simple_tables(text)
    return re.sub(r"(\S)::$", r"\1:", text, flags=re.MULTILINE)
