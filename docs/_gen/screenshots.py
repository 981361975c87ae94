"""Look at the built site in a real browser: screenshots, and a search for a task by name.

``python docs/_gen/screenshots.py SITE OUT`` (the ``screenshots`` nox session) drives headless
Chromium (``apt-get install chromium``) over the site, opened from disk and served on a local
port, and writes a PNG of each view into OUT:

* ``home.png``: the home page opened from disk (file://);
* ``guide.png``: the guide its navigation links to (``training.html``), followed from the
  home page's DOM and opened from disk: it must show the guide's heading, not a directory
  listing ("Index of ...", what a folder link shows from disk);
* ``task.png``: a task page opened from disk;
* ``search.png``: material's search opened from disk (``index.html?q=<task name>``, the
  search index loaded as a script, the worker run in an iframe): the task's own page must
  be the first result. The same search served over http runs in a harness page that waits
  (in real time) for the search worker; its first result must be the task's page too, and
  so must the first result of every installed task's name typed into the search box;
* ``code.png``: the README's page (long lines at the top); a probe in a harness page
  measures every code block of :data:`CODE_PAGES` served at 1280 px: at least one block
  holds a line too long for its width, and no block is wider than what it shows (its lines
  wrap; nothing is cut off).

Each page shot is checked not to be blank (the pixels vary, most are not the background)
and, from its DOM, to be the page asked for (its ``<h1>``). Exit status 0 when every check
passes; each check prints one line.
"""

from __future__ import annotations

import argparse
import functools
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parent))

import catalogue
from check_site import url_of
from sitelinks import DOCS

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
WINDOW = (1280, 1600)
TASK = "PerceptualDecisionMaking"  # the task searched for and shown, if installed
GUIDE = "training.md"  # the guide followed from the home page's navigation
CODE_PAGES = ("index.md", "checkout.md", GUIDE)  # pages whose code blocks are measured
#: Polls the page in the frame (same origin) until ``probe(doc)`` returns a report.
HARNESS = """<!doctype html><html><body style="margin:0">
<iframe id="site" src="SRC" style="width:1280px;height:1000px;border:0"></iframe>
<pre id="result">pending</pre>
<script>
const probe = PROBE;
(async () => {
  const out = document.getElementById("result");
  for (let i = 0; i < 1200; i++) {
    // A pending fetch pauses Chromium's virtual time, so the search worker gets real time.
    await fetch("/__wait?ms=100", {cache: "no-store"});
    const doc = document.getElementById("site").contentDocument;
    const report = doc && doc.readyState === "complete" ? probe(doc) : null;
    if (report) { out.textContent = report; return; }
  }
  out.textContent = "TIMEOUT: nothing to report after 120 s";
})();
</script></body></html>
"""
#: The search results' links, once the search worker has answered.
SEARCH_PROBE = """doc => {
  const items = [...doc.querySelectorAll(".md-search-result__item a")];
  return items.length ? items.map(a => "RESULT " + a.getAttribute("href")).join("\\n") : null;
}"""
#: Types each of NAMES into the search box in turn (clearing it between two) and reports the
#: first result of each: ``<name> <first result's href>`` per line.
EVERY_NAME_PROBE = """(() => {
  const names = NAMES, found = [];
  let i = 0, phase = "clear";
  const type = (input, value) => {
    input.value = value;
    input.dispatchEvent(new KeyboardEvent("keyup", {bubbles: true}));
  };
  return doc => {
    const input = doc.querySelector("input.md-search__input");
    if (!input) return null;
    const items = doc.querySelectorAll(".md-search-result__item a");
    if (phase === "clear") { type(input, ""); phase = "empty"; }
    else if (phase === "empty" && !items.length) { type(input, names[i]); phase = "typed"; }
    else if (phase === "typed" && items.length) {
      found.push(names[i] + " " + items[0].getAttribute("href"));
      i += 1;
      phase = "clear";
      if (i === names.length) return found.join("\\n");
    }
    return null;
  };
})()"""
#: Per code block: the width it shows, its content's width, and its width without wrapping.
CODE_PROBE = """doc => {
  const blocks = [...doc.querySelectorAll(".md-typeset pre > code")];
  if (!blocks.length) return null;
  return JSON.stringify(blocks.map(code => {
    const shown = [code.clientWidth, code.scrollWidth];
    const saved = code.style.whiteSpace;
    code.style.whiteSpace = "pre";                     // as if the block did not wrap
    const unwrapped = code.scrollWidth;
    code.style.whiteSpace = saved;
    return {client: shown[0], scroll: shown[1], unwrapped: unwrapped};
  }));
}"""


class Handler(http.server.SimpleHTTPRequestHandler):
    """The site's files, plus ``/__wait?ms=N`` (answers after N ms) and the harness pages."""

    harnesses: ClassVar[dict[str, bytes]] = {}

    def do_GET(self) -> None:
        """Serve a file of the site, a harness page or a delayed empty answer."""
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/__wait":
            milliseconds = float(urllib.parse.parse_qs(url.query).get("ms", ["250"])[0])
            time.sleep(min(milliseconds, 2000) / 1000)
            self.send_response(204)
            self.end_headers()
        elif url.path in self.harnesses:
            page = self.harnesses[url.path]
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
        else:
            super().do_GET()

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the checks print what matters."""


def harness(src: str, probe: str) -> bytes:
    """A harness page: ``src`` (a site URL) in a frame, reporting what ``probe`` returns."""
    return HARNESS.replace("SRC", html.escape(src)).replace("PROBE", probe).encode()


@contextmanager
def serve(site: Path, harnesses: dict[str, bytes]) -> Iterator[str]:
    """Serve ``site`` and the harness pages on a free local port; yields the base URL."""
    handler = type("SiteHandler", (Handler,), {"harnesses": harnesses})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(site))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def find_browser(given: str | None) -> str:
    """The Chromium executable: ``given``, or the first of BROWSERS on the PATH."""
    for name in (given,) if given else BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    raise SystemExit(
        f"no headless browser found (looked for {given or ', '.join(BROWSERS)} on the PATH); "
        "install Chromium, e.g. `apt-get install chromium`, or pass --browser PATH"
    )


def chromium(browser: str, *args: str, budget_ms: int = 5000, timeout: int = 120) -> str:
    """Run headless Chromium with ``args``; return its stdout (the DOM for ``--dump-dom``)."""
    command = [browser, "--headless", "--disable-gpu", "--hide-scrollbars", "--mute-audio"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
    command += [f"--virtual-time-budget={budget_ms}", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stderr[-2000:]}")
    return done.stdout


def blankness(png: Path) -> tuple[float, float]:
    """(standard deviation of the grey levels, share of pixels unlike the commonest colour)."""
    import matplotlib.image
    import numpy as np

    pixels = matplotlib.image.imread(png)[..., :3]
    grey = pixels.mean(axis=2)
    colours, counts = np.unique(pixels.reshape(-1, 3), axis=0, return_counts=True)
    del colours
    return float(grey.std()), float(1 - counts.max() / counts.sum())


def first(tag: str, dom: str) -> str:
    """The text of the page's first ``<tag>`` (tags and the permalink sign removed)."""
    match = re.search(rf"<{tag}[^>]*>(.*?)</{tag}>", dom, re.DOTALL)
    text = re.sub(r"<[^>]+>", "", match.group(1)) if match else ""
    return html.unescape(text).replace("¶", "").strip()


def title_of(page: str) -> str:
    """The ``# `` title of a page of docs/ (what its ``<h1>`` shows)."""
    lines = (DOCS / page).read_text(encoding="utf-8").splitlines()
    return next(line[2:].strip() for line in lines if line.startswith("# "))


def shoot(browser: str, url: str, png: Path, title: str, size: str = "") -> tuple[str, list[str]]:
    """Screenshot ``url`` into ``png`` and check it; return its DOM and the problems."""
    png.unlink(missing_ok=True)
    size = size or f"--window-size={WINDOW[0]},{WINDOW[1]}"
    chromium(browser, size, f"--screenshot={png}", url)
    dom = chromium(browser, "--dump-dom", url)
    name = png.stem
    if not png.is_file():
        return dom, [f"{name}: no screenshot of {url}"]
    problems = []
    spread, ink = blankness(png)
    if spread < 0.05 or ink < 0.02:
        problems.append(f"{name}: {png} looks blank (grey std {spread:.3f}, {ink:.1%} ink)")
    heading, head = first("h1", dom), first("title", dom)
    if head.startswith("Index of") or title not in heading:
        problems.append(f"{name}: {url} shows {head!r}, heading {heading!r}; expected {title!r}")
    print(f"{name:8} {url}: title {head!r}, heading {heading!r}, grey std {spread:.3f}, "
          f"{ink:.0%} non-background -> {png}")  # fmt: skip
    return dom, problems


def from_disk(browser: str, site: Path, out: Path, task: catalogue.Entry) -> list[str]:
    """The home page, the guide its navigation links to and a task page, from file://."""
    home = (site / "index.html").resolve().as_uri()
    dom, problems = shoot(browser, home, out / "home.png", "neurogym")
    guide = url_of(GUIDE)
    hrefs = re.findall(r'<a [^>]*href="([^"]*)"[^>]*class="md-(?:tabs|nav)__link', dom)
    hrefs += re.findall(r'<a [^>]*class="md-(?:tabs|nav)__link[^"]*"[^>]*href="([^"]*)"', dom)
    followed = [h for h in hrefs if urllib.parse.urlsplit(h).path.endswith(guide)]
    if not followed:
        return [*problems, f"home: no navigation link to {guide} in {home} (links: {hrefs})"]
    url = urllib.parse.urljoin(home, followed[0])
    problems += shoot(browser, url, out / "guide.png", title_of(GUIDE))[1]
    page = (site / url_of(task.page)).resolve().as_uri()
    return problems + shoot(browser, page, out / "task.png", task.spec.name)[1]


def first_result(dom_or_report: str, base: str) -> list[str]:
    """The pages of the search results, in order (a page's sections are results too)."""
    links = re.findall(r'md-search-result__item"?><a href="([^"]+)"', dom_or_report)
    links += re.findall(r"^RESULT (\S+)", dom_or_report, re.MULTILINE)
    paths = [urllib.parse.urlsplit(urllib.parse.urljoin(base, link)).path for link in links]
    return list(dict.fromkeys(paths))


def search(browser: str, site: Path, base: str, out: Path, task: catalogue.Entry) -> list[str]:
    """Search the task's name from disk and served; its page must be the first result."""
    query, problems = task.spec.name, []
    home = (site / "index.html").resolve().as_uri()
    wanted = url_of(task.page)
    disk_url = f"{home}?q={urllib.parse.quote(query)}"
    dom = chromium(browser, "--dump-dom", disk_url, budget_ms=20000)
    chromium(browser, "--window-size=1280,1000", f"--screenshot={out / 'search.png'}",
             disk_url, budget_ms=20000)  # fmt: skip
    served = chromium(browser, "--dump-dom", base + "__search.html", budget_ms=60000)
    match = re.search(r'<pre id="result">(.*?)</pre>', served, re.DOTALL)
    report = html.unescape(match.group(1)) if match else "no report"
    for where, found in (
        ("from disk", first_result(dom, home)),
        ("served", first_result(report, base)),
    ):
        print(f"search   {query!r} {where}: {len(found)} pages, first {found[:3]}"
              f" -> {out / 'search.png'}")  # fmt: skip
        if not found or not found[0].endswith("/" + wanted):
            problems.append(f"search {query!r} {where}: first page is not {wanted}: {found[:5]}")
    return problems


def every_name(browser: str, base: str, items: list[catalogue.Entry]) -> list[str]:
    """Search every task's name, served: each name's own page must be the first result."""
    dom = chromium(browser, "--dump-dom", base + "__names.html", budget_ms=600000, timeout=300)
    match = re.search(r'<pre id="result">(.*?)</pre>', dom, re.DOTALL)
    report = html.unescape(match.group(1)) if match else "no report"
    firsts = dict(line.split(" ", 1) for line in report.splitlines() if " " in line)
    wrong = []
    for entry in items:
        href = firsts.get(entry.spec.name, "")
        if urllib.parse.urlsplit(urllib.parse.urljoin(base, href)).path != "/" + url_of(
            entry.page
        ):
            wrong.append(f"{entry.spec.name} -> {href or report[:100]!r}")
    print(f"search   every task name, served: {len(items) - len(wrong)} of {len(items)} "
          "list their own page first")  # fmt: skip
    return [f"search: a name's first result is not its page: {w}" for w in wrong]


def code_blocks(browser: str, base: str, out: Path) -> list[str]:
    """The code blocks of CODE_PAGES: some are longer than they are wide, none cut off."""
    problems, long_blocks = [], 0
    for page in CODE_PAGES:
        dom = chromium(browser, "--dump-dom", f"{base}__code/{url_of(page)}", budget_ms=20000)
        match = re.search(r'<pre id="result">(.*?)</pre>', dom, re.DOTALL)
        report = html.unescape(match.group(1)) if match else "no report"
        if not report.startswith("["):
            problems.append(f"code: {page}: {report[:200]}")
            continue
        blocks = json.loads(report)
        cut = [b for b in blocks if b["scroll"] > b["client"] + 1]
        long = [b for b in blocks if b["unwrapped"] > b["client"] + 1]
        long_blocks += len(long)
        print(f"code     {page}: {len(blocks)} blocks, {len(long)} with a line longer than the "
              f"block is wide, {len(cut)} wider than shown (cut off)")  # fmt: skip
        if cut:
            problems.append(f"code: {page}: {len(cut)} code blocks are cut off: {cut}")
    if not long_blocks:
        problems.append(f"code: no block of {CODE_PAGES} has a line too long to show unwrapped")
    shot = out / "code.png"
    chromium(browser, f"--window-size={WINDOW[0]},1000", f"--screenshot={shot}",
             base + url_of(CODE_PAGES[1]))  # fmt: skip
    print(f"code     {url_of(CODE_PAGES[1])}, long lines wrapped -> {shot}")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, run every check, print them; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("site", type=Path, help="the built site (mkdocs build --site-dir)")
    parser.add_argument("out", type=Path, help="directory for the screenshots")
    parser.add_argument("--browser", help="Chromium executable (default: found on the PATH)")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        parser.error(f"{args.site} holds no built site (no index.html); run `nox -s docs`")
    browser = find_browser(args.browser)
    args.out.mkdir(parents=True, exist_ok=True)
    items = catalogue.entries()
    task = next((e for e in items if e.spec.name == TASK), items[0])
    harnesses = {
        "/__search.html": harness(f"/?q={urllib.parse.quote(task.spec.name)}", SEARCH_PROBE)
    }
    for page in CODE_PAGES:
        harnesses[f"/__code/{url_of(page)}"] = harness("/" + url_of(page), CODE_PROBE)
    names = json.dumps([entry.spec.name for entry in items])
    harnesses["/__names.html"] = harness("/", EVERY_NAME_PROBE.replace("NAMES", names))
    problems = from_disk(browser, args.site, args.out, task)
    with serve(args.site, harnesses) as base:
        problems += search(browser, args.site, base, args.out, task)
        problems += every_name(browser, base, items)
        problems += code_blocks(browser, base, args.out)
    for problem in problems:
        print("FAIL", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
