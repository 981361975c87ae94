"""Generate the site's pages at build time (mkdocs-gen-files runs this; nothing is committed).

* ``index.md``: the home page for users, ``docs/index.md`` with the task families filled in
  (:func:`home_markdown`).
* ``checkout.md``: the repository's README (working from a checkout), its links rewritten
  for the site.
* ``packages/<distribution>.md``: the README of each distribution of this repository that
  declares no tasks (the apps, the meta distribution).
* ``tasks/...``: the task catalogue (see ``catalogue.py``); a family's index page is its
  distribution's README with the task table linked to the task pages.
* ``reference/...``: the API reference, one page per public module of ``neurogym`` and
  ``neurogym_apps``, rendered from the docstrings by mkdocstrings.

mkdocs-gen-files runs ``mkdocs_pages.py``, which calls :func:`generate`;
``python docs/_gen/gen_pages.py`` lists the pages it would write, without mkdocs.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import catalogue
from sitelinks import (
    DOCS,
    ROOT,
    SiteMap,
    demote_headings,
    drop_title,
    replace_block,
    repo_distributions,
)

#: The packages whose public modules the API reference documents.
API_PACKAGES = ("neurogym", "neurogym_apps")
TASK_TABLE = ("<!-- task-table:start -->", "<!-- task-table:end -->")
HOME_CATALOGUE = ("<!-- home-catalogue:start -->", "<!-- home-catalogue:end -->")
#: The README's page on the site ("From a checkout", under Developer in mkdocs.yml).
README_PAGE = "checkout.md"


def public_modules(package: str) -> list[str]:
    """``package`` and its submodules without a ``_``-prefixed part, found without importing.

    (Importing would need every optional dependency: ``neurogym_apps.train`` needs torch,
    which the docs environment does not install; mkdocstrings reads the sources.)
    """
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise LookupError(f"package {package!r} is not installed in the docs environment")
    names = {package}
    for location in spec.submodule_search_locations:
        base = Path(location)
        for path in base.rglob("*.py"):
            parts = path.relative_to(base).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if not any(part.startswith("_") for part in parts) and parts:
                names.add(".".join((package, *parts)))
    return sorted(names)


def reference_pages() -> dict[str, str]:
    """One mkdocstrings page per public module, and ``reference/SUMMARY.md``."""
    pages: dict[str, str] = {}
    nav = []
    for package in API_PACKAGES:
        for module in public_modules(package):
            path = f"reference/{module}.md"
            pages[path] = f"# `{module}`\n\n::: {module}\n"
            depth = module.count(".")
            nav.append(f"{'    ' * min(depth, 1)}- [{module}]({module}.md)")
    pages["reference/SUMMARY.md"] = "\n".join(nav) + "\n"
    return pages


def about(distribution: str, repo: dict[str, str]) -> tuple[str, str, str | None]:
    """A distribution's summary, README and the README's path in this repository.

    The README of a distribution from this repository is read from the checkout (its links
    can then be resolved); any other's from its installed metadata, with no path. An unknown
    distribution (a task declared outside any installed distribution) has neither.
    """
    try:
        meta = importlib.metadata.metadata(distribution)
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return "", "", None
    summary = str(meta.get("Summary") or "")
    if distribution in repo:
        source = f"{repo[distribution]}/README.md"
        return summary, (ROOT / source).read_text(encoding="utf-8"), source
    return summary, str(meta.get_payload() or meta.get("Description") or ""), None  # type: ignore[attr-defined]


def family_markdown(
    plugin: str, items: list[catalogue.Entry], sitemap: SiteMap, repo: dict[str, str]
) -> str:
    """A family's index page: its README, with the generated task table linked to the pages.

    The table replaces the README's own task table (between neurogym.testing.readme's
    markers), or comes first when the README has none.
    """
    page = catalogue.family_page(plugin)
    distribution = items[0].spec.distribution
    table = "\n".join(catalogue.task_table(items, page, family=False))
    summary, readme, source = about(distribution, repo)
    if source is None:  # a third-party README, from installed metadata: plugin text
        readme = catalogue.safe_markdown(readme)
    body = sitemap.rewrite(demote_headings(drop_title(readme)), source, page)
    body, found = replace_block(body, *TASK_TABLE, table)
    count = f"{len(items)} task{'s' * (len(items) != 1)}"
    shown = catalogue.code(distribution)
    about_it = f"Distribution {shown}, {count}. {catalogue.text(summary)}"
    lines = [f"# Family: {catalogue.text(plugin)}", "", about_it.rstrip(), ""]
    if not found:
        lines += ["## Tasks", "", table, ""]
    if body.strip():
        lines.append(body)
    return "\n".join(lines)


def package_markdown(distribution: str, source: str, sitemap: SiteMap) -> str:
    """The page of a distribution without tasks: its README."""
    text = (ROOT / source).read_text(encoding="utf-8")
    return sitemap.rewrite(text, source, f"packages/{distribution}.md")


def home_markdown(items: list[catalogue.Entry]) -> str:
    """The home page: ``docs/index.md`` with a table of the installed task families.

    The table (each family's distribution, task count and summary, linked to its page)
    replaces what lies between the page's :data:`HOME_CATALOGUE` markers.
    """
    page = "index.md"
    text, rel, code = catalogue.text, catalogue.rel, catalogue.code
    lines = [f"{len(items)} tasks are installed here, in these families:", ""]
    lines += ["| family | package | tasks | what |", "|---|---|---|---|"]
    for plugin, group in catalogue.by_family(items).items():
        family = f"[{text(plugin)}]({rel(catalogue.family_page(plugin), page)})"
        distribution = group[0].spec.distribution
        summary = about(distribution, {})[0].removesuffix(", for neurogym")
        lines.append(f"| {family} | {code(distribution)} | {len(group)} | {text(summary)} |")
    lines += [
        "",
        "Every task has a page (spaces, timing, rewards, example trials, learnability): "
        "[all tasks](tasks/index.md), or [by tag](tags/index.md). A family is one pip "
        "package; `neurogym.make` of a task whose family is not installed says which.",
    ]
    source = (DOCS / "index.md").read_text(encoding="utf-8")
    home, found = replace_block(source, *HOME_CATALOGUE, "\n".join(lines))
    if not found:
        raise LookupError(f"docs/index.md lacks the markers {HOME_CATALOGUE} of the task table")
    return home


def generate(
    write: Callable[[str, str | bytes], None], *, defer: bool = False
) -> dict[str, float]:
    """Write every generated page and figure with ``write(path, content)``; return timings.

    With ``defer``, the figures are drawn in the background while mkdocs renders the pages:
    each figure file holds a placeholder, and ``catalogue.PENDING`` gets the drawing and the
    figure paths, for the post-build hook to write into the site.
    """
    timings: dict[str, float] = {}
    start = time.perf_counter()
    items = catalogue.entries()
    families = catalogue.by_family(items)
    repo = repo_distributions()
    sitemap = SiteMap()
    sitemap.add("README.md", README_PAGE)
    plain = {}
    for distribution, folder in repo.items():
        family = next(
            (p for p, e in families.items() if e[0].spec.distribution == distribution), None
        )
        if family is not None:
            sitemap.add(f"{folder}/README.md", catalogue.family_page(family))
        elif (ROOT / folder / "README.md").is_file():
            sitemap.add(f"{folder}/README.md", f"packages/{distribution}.md")
            plain[distribution] = f"{folder}/README.md"

    readme = (ROOT / "README.md").read_text("utf-8")
    write(README_PAGE, sitemap.rewrite(readme, "README.md", README_PAGE))
    write("index.md", home_markdown(items))
    for distribution, source in plain.items():
        write(f"packages/{distribution}.md", package_markdown(distribution, source, sitemap))
    for path, text in reference_pages().items():
        write(path, text)
    timings["pages"] = time.perf_counter() - start

    start = time.perf_counter()
    pages, trials = catalogue.task_pages(items)
    for path, text in pages.items():
        write(path, text)
    for plugin, group in families.items():
        write(catalogue.family_page(plugin), family_markdown(plugin, group, sitemap, repo))
    for tag, group in catalogue.by_tag(items).items():
        write(catalogue.tag_page(tag), catalogue.tag_markdown(tag, group))
    write("tasks/index.md", catalogue.catalogue_index(items))
    write("tags/index.md", catalogue.tags_index(items))
    for path, text in catalogue.summary_nav(items).items():
        write(path, text)
    timings["catalogue"] = time.perf_counter() - start

    start = time.perf_counter()
    if defer:
        paths = {entry.spec.id: entry.figure for entry in items}
        catalogue.PENDING.append((catalogue.Drawing(trials), paths))
        for entry in items:
            write(entry.figure, catalogue.PLACEHOLDER)
        return timings
    figures = catalogue.draw_all(trials)
    for entry in items:
        write(entry.figure, figures[entry.spec.id])
    timings[f"{len(items)} figures"] = time.perf_counter() - start
    return timings


def _print_path(path: str, content: str | bytes) -> None:
    print(f"{path} ({len(content)} {'bytes' if isinstance(content, bytes) else 'chars'})")


if __name__ == "__main__":  # a dry run listing the pages (mkdocs runs mkdocs_pages.py)
    print(generate(_print_path))
