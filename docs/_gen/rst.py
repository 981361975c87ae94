"""The reStructuredText left in docstrings, rewritten as Markdown for the site.

The docstrings are Google style with Markdown, but many still cite objects with Sphinx roles
(``:class:`~neurogym.TrialEnv```) and one module documents its forms in a simple RST table.
MkDocs renders Markdown only, so the site rewrites (the sources are untouched), in the API
reference (``griffe_rst.py``) and in the task pages' docstrings (``catalogue.py``):

* a role ``:kind:`target``` -> a code span of the target (``~`` keeps its last part);
* a simple RST table (``====  ====`` rules) -> a Markdown table;
* a paragraph ending in ``::`` (an RST literal block follows) -> ending in ``:``;
* in the API reference only (``docs=``), a mention of a guide, ``docs/training.md`` or
  ```docs/training.md```, -> a link to its page, labelled with the page's title
  (:func:`guide_links`); mentions inside a longer code span or a code block stay text.
"""

from __future__ import annotations

import re
from pathlib import Path

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|data|obj|exc|const):`(~?)([^`]+)`")
_RULE = re.compile(r"^\s*=+(?:\s+=+)+\s*$")
# A code span (`...` or ``...``), or a bare docs/<page>.md mention outside one.
_SPAN_OR_GUIDE = re.compile(r"(`+)(.+?)\1|(?<![\w/.-])docs/([\w-]+)\.md\b")
_GUIDE = re.compile(r"docs/([\w-]+)\.md")


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


def _title(page: Path) -> str:
    """A guide's title: its first ``# `` heading, else its file name."""
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return page.name


def guide_links(text: str, docs: Path, prefix: str) -> str:
    """Mentions of ``docs/<page>.md`` that exist under ``docs`` become links to the page.

    Args:
        text: Markdown (a docstring).
        docs: The docs folder (a mention of a file not in it stays text).
        prefix: The path from the page the text goes on to the docs root (``../``).
    """

    def link(name: str, original: str) -> str:
        page = docs / f"{name}.md"
        return f"[{_title(page)}]({prefix}{name}.md)" if page.is_file() else original

    def replace(match: re.Match[str]) -> str:
        if match.group(3):  # a bare mention
            return link(match.group(3), match.group(0))
        whole = _GUIDE.fullmatch(match.group(2).strip())
        return link(whole.group(1), match.group(0)) if whole else match.group(0)

    lines, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        lines.append(line if fenced else _SPAN_OR_GUIDE.sub(replace, line))
    return "\n".join(lines)


def to_markdown(text: str, docs: tuple[Path, str] | None = None) -> str:
    """The docstring text with roles, simple tables and ``::`` rewritten (see module doc).

    ``docs``, a ``(docs folder, prefix)`` pair, also links the guides it mentions
    (:func:`guide_links`).
    """
    text = _ROLE.sub(_role, text)
    if "==" in text:
        text = simple_tables(text)
    if docs is not None and "docs/" in text:
        text = guide_links(text, *docs)
    return re.sub(r"(\S)::$", r"\1:", text, flags=re.MULTILINE)
