"""Markdown written for the repository, rewritten for the site: links, headings, sections.

The README and the packages' READMEs link to files by their path in the repository
(``docs/training.md``, ``plugins/neurogym-motor/README.md``). On the site those files are
pages at other paths. :class:`SiteMap` maps repository paths to site pages and rewrites every
relative link of a page it generates; a link to a repository file that has no page fails the
build with a message naming it (the site is built in strict mode: no link may dangle).
"""

from __future__ import annotations

import posixpath
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

# [text](target) and ![alt](target); the target has no spaces (titles are not used here).
_LINK = re.compile(r"(!?\[(?:[^\[\]]|\[[^\]]*\])*\])\(([^()\s]+)\)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,5}) ")


def is_external(target: str) -> bool:
    """Whether a link target leaves the site (a URL with a scheme, or mailto)."""
    return bool(re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target)) or target.startswith("//")


def outside_fences(text: str) -> list[tuple[bool, str]]:
    """Split markdown into ``(is_code, line)`` pairs; lines inside fenced blocks are code."""
    out: list[tuple[bool, str]] = []
    fence: str | None = None
    for line in text.splitlines():
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
            out.append((True, line))
        elif fence is not None:
            out.append((True, line))
            if line.strip().startswith(fence):
                fence = None
        else:
            out.append((False, line))
    return out


def demote_headings(text: str, levels: int = 1) -> str:
    """Add ``levels`` ``#`` to every ATX heading outside code blocks (h6 stays h6)."""
    lines = []
    for code, line in outside_fences(text):
        match = None if code else _HEADING.match(line)
        if match and len(match.group(1)) + levels <= 6:
            line = "#" * levels + line
        lines.append(line)
    return "\n".join(lines)


def drop_title(text: str) -> str:
    """The markdown without its first line if that is an ``# H1`` title."""
    lines = text.lstrip("\n").splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    return "\n".join(lines).lstrip("\n")


def replace_block(text: str, start: str, end: str, new: str) -> tuple[str, bool]:
    """Replace what lies between the ``start`` and ``end`` markers; report whether found."""
    i, j = text.find(start), text.find(end)
    if i < 0 or j < i:
        return text, False
    return text[:i] + new + text[j + len(end) :], True


def _project_name(pyproject: Path) -> str:
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    return str(data.get("project", {}).get("name", ""))


def repo_distributions() -> dict[str, str]:
    """Distribution name -> its directory in this repository (``neurogym-motor`` -> ...)."""
    found = {}
    for pyproject in sorted(ROOT.glob("*/pyproject.toml")) + sorted(
        ROOT.glob("plugins/*/pyproject.toml")
    ):
        name = _project_name(pyproject)
        if name:
            found[name] = pyproject.parent.relative_to(ROOT).as_posix()
    return found


@dataclass
class SiteMap:
    """Repository paths (posix, relative to the repo root) -> site paths (relative to docs/).

    Every file under ``docs/`` is a page (or an asset) at its own path; generated pages are
    added with :meth:`add`.
    """

    pages: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for path in DOCS.rglob("*"):
            relative = path.relative_to(DOCS).as_posix()
            if path.is_file() and not relative.startswith(("_", ".")):
                self.pages[f"docs/{relative}"] = relative

    def add(self, repo_path: str, site_path: str) -> None:
        """Declare that the repository file ``repo_path`` is the page ``site_path``."""
        self.pages[repo_path] = site_path

    def rewrite(self, text: str, source: str | None, page: str) -> str:
        """Rewrite the relative links of ``text`` for the site page ``page``.

        Args:
            text: Markdown.
            source: Where ``text`` lives in the repository (relative links are relative to
                it), or None if unknown (a third-party package's README): its relative links
                then become plain text, since they cannot be followed from the site.
            page: The site path of the page ``text`` goes on (links are made relative to it).

        Raises:
            LookupError: A relative link names a repository file that has no page.
        """
        lines = []
        for code, line in outside_fences(text):
            if not code:
                line = _LINK.sub(lambda m: self._link(m, source, page), line)
            lines.append(line)
        return "\n".join(lines) + "\n"

    def _link(self, match: re.Match[str], source: str | None, page: str) -> str:
        label, target = match.group(1), match.group(2)
        if is_external(target) or target.startswith("#"):
            return match.group(0)
        if source is None:
            return label[2:-1] if label.startswith("!") else label[1:-1]
        path, _, anchor = target.partition("#")
        repo_path = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
        if repo_path not in self.pages:
            known = ", ".join(sorted(p for p in self.pages if p.endswith(".md")))
            raise LookupError(
                f"{source} links to {target!r} ({repo_path}), which has no page on the site; "
                f"pages for repository files: {known}. Add one in docs/_gen/ or change the link."
            )
        relative = posixpath.relpath(self.pages[repo_path], posixpath.dirname(page) or ".")
        return f"{label}({relative}{'#' + anchor if anchor else ''})"
