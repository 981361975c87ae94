"""Check a built site's task catalogue against the registry: one page per registered task.

``python docs/_gen/check_site.py SITE`` (the ``docs`` nox session runs it after the strict
build, in the same environment) fails, naming the tasks, when a registered task has no page,
its page does not show its id, its example figure is missing or not a PNG, or the catalogue
holds a task page that no registered task explains (a stale or duplicated page). It also
checks the family and tag index pages and the search index, and every page as a user opens
it (``sitechecks.py``: links that work from disk, nothing loaded from another host, the
home page for users, the search boost of the task pages, the stylesheet).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import catalogue
import sitechecks

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def html_of(site: Path, page: str) -> Path:
    """The built HTML of a source page: ``a/b.md`` -> ``a/b.html`` (no directory URLs)."""
    return site / (page.removesuffix(".md") + ".html")


def url_of(page: str) -> str:
    """The site-relative URL of a source page, as the search index lists it."""
    return page.removesuffix(".md") + ".html"


def problems(site: Path) -> list[str]:
    """Everything wrong with the catalogue of the site built at ``site`` (empty when fine)."""
    items = catalogue.entries()
    found: list[str] = []
    if not items:
        found.append("the registry holds no task")
    expected: set[Path] = set()
    for entry in items:
        html = html_of(site, entry.page)
        expected.add(html)
        if not html.is_file():
            found.append(f"{entry.spec.id}: no page ({html})")
        elif f"<code>{entry.spec.id}</code>" not in html.read_text(encoding="utf-8"):
            found.append(f"{entry.spec.id}: its page {html} does not show its id")
        figure = site / entry.figure
        data = figure.read_bytes() if figure.is_file() else b""
        if not data.startswith(PNG_SIGNATURE) or data == catalogue.PLACEHOLDER:
            found.append(f"{entry.spec.id}: no example figure ({figure})")
    for plugin in catalogue.by_family(items):
        page = html_of(site, catalogue.family_page(plugin))
        expected.add(page)
        if not page.is_file():
            found.append(f"family {plugin!r}: no index page ({page})")
    for tag in catalogue.by_tag(items):
        if not html_of(site, catalogue.tag_page(tag)).is_file():
            found.append(f"tag {tag!r}: no page")
    expected.add(html_of(site, "tasks/index.md"))
    built = set((site / "tasks").rglob("*.html"))
    for extra in sorted(built - expected):
        found.append(f"{extra}: a catalogue page no registered task explains")
    index = site / "search" / "search_index.json"
    if not index.is_file():
        found.append("no search index (search/search_index.json)")
    else:
        locations = {doc["location"] for doc in json.loads(index.read_text("utf-8"))["docs"]}
        missing = [e.spec.id for e in items if url_of(e.page) not in locations]
        if missing:
            found.append(f"tasks missing from the search index: {', '.join(missing)}")
    found += sitechecks.problems(site, {url_of(e.page): e.spec.name for e in items})
    return found


def main(argv: list[str]) -> int:
    """Check the site given as the only argument; print the outcome, return the exit code."""
    if len(argv) != 1:
        print("usage: python docs/_gen/check_site.py SITE_DIR", file=sys.stderr)
        return 2
    site = Path(argv[0])
    found = problems(site)
    if found:
        print(f"{site}: {len(found)} problems:", *found, sep="\n  ")
        return 1
    items = catalogue.entries()
    families = len(catalogue.by_family(items))
    tags = len(catalogue.by_tag(items))
    print(
        f"{site}: one page and figure for each of the {len(items)} registered tasks, "
        f"{families} family pages, {tags} tag pages, every task in the search index; "
        "every link and load of every page is a file of the site, none from another host; "
        "the home page opens with " + ", ".join(sitechecks.HOME_SECTIONS) + "; task pages "
        "boosted in the search index; every page links " + sitechecks.STYLESHEET
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
