"""Checks of a built site that need no browser (``check_site.py`` runs them after the build).

* Every link and every loaded file of every page resolves to a file of the site: opened
  from disk (file://), a link to a folder shows a directory listing, not the page.
* Nothing is loaded from another host (scripts, stylesheets, fonts, images, frames):
  offline the page would break, and each visit would be reported there. Links to papers
  are fine; they load nothing.
* The home page is the users' page (:data:`HOME_SECTIONS` come first, in order).
* Each task page's title is boosted in the search index, in both of its forms
  (``search_index.json`` served, ``search_index.js`` from disk): ``searchboost.py``.
* Every page links the site's stylesheet, whose code blocks wrap long lines.
"""

from __future__ import annotations

import html as html_module
import json
import posixpath
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from searchboost import TASK

#: The first ``<h2>`` headings of the home page, in order (docs/index.md).
HOME_SECTIONS = ("Install", "A 5-minute tour", "Task catalogue")
#: The site's own stylesheet (mkdocs.yml ``extra_css``) and what it must hold.
STYLESHEET = "stylesheets/extra.css"
WRAPS = "white-space: pre-wrap"

_URL_ATTR = re.compile(r"""<(a|link|script|img|iframe|source|video|audio|embed|object)\b"""
                       r"""[^>]*?\s(href|src|data)=["']([^"']*)["']""", re.IGNORECASE)  # fmt: skip
_CSS_URL = re.compile(r"""(?:@import\s+|url\()\s*["']?((?:https?:)?//[^"')\s]+)""")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_H2 = re.compile(r"<h2[^>]*>(.*?)</h2>", re.DOTALL)


def pages(site: Path) -> Iterator[tuple[str, str]]:
    """Every built HTML page: (path relative to the site, its text).

    Except ``404.html``: only a web server shows it, for any missing path, so its links are
    absolute (``/index.html``), and it is never opened from disk.
    """
    for path in sorted(site.rglob("*.html")):
        if path.relative_to(site).as_posix() != "404.html":
            yield path.relative_to(site).as_posix(), path.read_text(encoding="utf-8")


def is_remote(url: str) -> bool:
    """Whether ``url`` names another host (``http(s)://``, ``//host``)."""
    return url.startswith("//") or url.lower().startswith(("http://", "https://"))


def link_problems(site: Path, page: str, html: str) -> list[str]:
    """Links and loads of one page that do not resolve to a file, or load from another host."""
    found = []
    for tag, attr, url in _URL_ATTR.findall(html):
        if is_remote(url):
            if tag.lower() != "a":  # a plain link loads nothing
                found.append(f"{page}: <{tag} {attr}={url!r}> loads from another host")
            continue
        if not url or url.startswith("#") or _SCHEME.match(url):  # mailto:, data:, ...
            continue
        path = url.split("#", 1)[0].split("?", 1)[0]
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page), path))
        if path.endswith("/") or not (site / target).is_file():
            found.append(f"{page}: {url!r} is not a file of the site ({target})")
    return found


def stylesheet_problems(site: Path) -> list[str]:
    """CSS of the site that loads from another host."""
    found = []
    for css in sorted(site.rglob("*.css")):
        for url in _CSS_URL.findall(css.read_text(encoding="utf-8")):
            found.append(f"{css.relative_to(site)}: loads {url} from another host")
    return found


def text_of(fragment: str) -> str:
    """The text of an HTML fragment (tags and the permalink sign removed)."""
    return html_module.unescape(re.sub(r"<[^>]+>", "", fragment)).replace("¶", "").strip()


def home_problems(html: str) -> list[str]:
    """The home page must open with :data:`HOME_SECTIONS`."""
    first = [text_of(h) for h in _H2.findall(html)][: len(HOME_SECTIONS)]
    if tuple(first) != HOME_SECTIONS:
        return [f"index.html: its first sections are {first}, expected {list(HOME_SECTIONS)}"]
    return []


def boost_problems(site: Path, task_pages: Mapping[str, str]) -> list[str]:
    """Task pages (``{url: name}``) whose title is not boosted in both forms of the index."""
    index_json = site / "search" / "search_index.json"
    index_js = site / "search" / "search_index.js"
    if not index_json.is_file() or not index_js.is_file():
        return ["no search index for the served site and for file:// (search/search_index.js)"]
    served = json.loads(index_json.read_text(encoding="utf-8"))
    offline = json.loads(index_js.read_text(encoding="utf-8").partition("=")[2])
    found = []
    for name, index in (("search_index.json", served), ("search_index.js", offline)):
        boost = {doc["location"]: doc.get("boost", 1) for doc in index["docs"]}
        weak = [n for url, n in task_pages.items() if boost.get(url, 1) < TASK]
        if weak:
            found.append(f"{name}: task pages without their search boost: {', '.join(weak)}")
    return found


def style_problems(site: Path, all_pages: Mapping[str, str]) -> list[str]:
    """Pages that do not link the site's stylesheet, or a stylesheet that does not wrap."""
    css = site / STYLESHEET
    if not css.is_file() or WRAPS not in css.read_text(encoding="utf-8"):
        return [f"{STYLESHEET}: missing, or its code blocks do not wrap ({WRAPS!r})"]
    without = [
        page
        for page, html in all_pages.items()
        if posixpath.relpath(STYLESHEET, posixpath.dirname(page) or ".") not in html
    ]
    return [f"pages not linking {STYLESHEET}: {without[:5]}"] if without else []


def problems(site: Path, task_pages: Mapping[str, str]) -> list[str]:
    """Every problem above for the site built at ``site`` (empty when fine)."""
    all_pages = dict(pages(site))
    found = [p for page, html in all_pages.items() for p in link_problems(site, page, html)]
    found += stylesheet_problems(site)
    found += home_problems(all_pages.get("index.html", ""))
    found += boost_problems(site, task_pages)
    found += style_problems(site, all_pages)
    return found
