"""Look at the built site in a real browser: screenshots, and a search for a task by name.

``python docs/_gen/screenshots.py SITE OUT`` (the ``screenshots`` nox session) serves SITE on
a local port and drives headless Chromium (``apt-get install chromium``):

* screenshots of the home page, a family index and a task page into OUT (PNG), each checked
  not to be blank (the pixels vary, most are not the background) and, from the page's DOM,
  to be the page asked for (its ``<h1>``), not a 404;
* material's search, which runs in JavaScript in the browser: a harness page loads the site
  with ``?q=<task name>`` in a frame, waits (in real time) until the search worker has
  answered, and reports the result links; the task's page must be among the first TOP
  pages found. The results are screenshotted too (``search.png``).

Exit status 0 when every check passes; each check prints one line.
"""

from __future__ import annotations

import argparse
import functools
import html
import http.server
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

import catalogue
from check_site import url_of

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
WINDOW = (1280, 1600)
TASK = "PerceptualDecisionMaking"  # the task searched for and shown, if installed
TOP = 5  # searching a task's name must list its page among the first TOP pages
HARNESS = """<!doctype html><html><body style="margin:0">
<iframe id="site" src="/?q=QUERY" style="width:1280px;height:1000px;border:0"></iframe>
<pre id="result">pending</pre>
<script>
(async () => {
  const out = document.getElementById("result");
  for (let i = 0; i < 120; i++) {
    // A pending fetch pauses Chromium's virtual time, so the search worker gets real time.
    await fetch("/__wait?ms=250", {cache: "no-store"});
    const doc = document.getElementById("site").contentDocument;
    const items = doc ? doc.querySelectorAll(".md-search-result__item a") : [];
    if (items.length) {
      out.textContent = [...items].map(a => "RESULT " + a.getAttribute("href")).join("\\n");
      return;
    }
  }
  out.textContent = "TIMEOUT: no search results after 30 s";
})();
</script></body></html>
"""


class Handler(http.server.SimpleHTTPRequestHandler):
    """The site's files, plus ``/__wait?ms=N`` (answers after N ms) and the search harness."""

    harness = b""

    def do_GET(self) -> None:
        """Serve a file of the site, the harness or a delayed empty answer."""
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/__wait":
            milliseconds = float(urllib.parse.parse_qs(url.query).get("ms", ["250"])[0])
            time.sleep(min(milliseconds, 2000) / 1000)
            self.send_response(204)
            self.end_headers()
        elif url.path == "/__search.html":
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(self.harness)))
            self.end_headers()
            self.wfile.write(self.harness)
        else:
            super().do_GET()

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the checks print what matters."""


@contextmanager
def serve(site: Path, query: str) -> Iterator[str]:
    """Serve ``site`` on a free local port while the block runs; yields the base URL."""
    harness = HARNESS.replace("QUERY", urllib.parse.quote(query)).encode()
    handler = type("SiteHandler", (Handler,), {"harness": harness})
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


def chromium(browser: str, *args: str, budget_ms: int = 5000) -> str:
    """Run headless Chromium with ``args``; return its stdout (the DOM for ``--dump-dom``)."""
    command = [browser, "--headless", "--disable-gpu", "--hide-scrollbars", "--mute-audio"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
    command += [f"--virtual-time-budget={budget_ms}", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
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


def heading(dom: str) -> str:
    """The text of the page's first ``<h1>`` (tags and the permalink sign removed)."""
    match = re.search(r"<h1[^>]*>(.*?)</h1>", dom, re.DOTALL)
    text = re.sub(r"<[^>]+>", "", match.group(1)) if match else ""
    return html.unescape(text).replace("¶", "").strip()


def shoot(browser: str, base: str, out: Path, name: str, page: str, title: str) -> list[str]:
    """Screenshot one page and check it; return the problems (empty when fine)."""
    url = base + url_of(page).lstrip("/")
    png = out / f"{name}.png"
    png.unlink(missing_ok=True)
    size = f"--window-size={WINDOW[0]},{WINDOW[1]}"
    chromium(browser, size, f"--screenshot={png}", url)
    dom = chromium(browser, "--dump-dom", url)
    problems = []
    if not png.is_file():
        return [f"{name}: no screenshot of {url}"]
    spread, ink = blankness(png)
    if spread < 0.05 or ink < 0.02:
        problems.append(f"{name}: {png} looks blank (grey std {spread:.3f}, {ink:.1%} ink)")
    found = heading(dom)
    if title not in found:
        problems.append(f"{name}: {url} shows the heading {found!r}, expected {title!r}")
    print(f"{name:8} {url}: heading {found!r}, grey std {spread:.3f}, {ink:.0%} non-background"
          f" -> {png}")  # fmt: skip
    return problems


def search(browser: str, base: str, out: Path, query: str, page: str) -> list[str]:
    """Search the site for ``query`` in the browser; the page ``page`` must be a result."""
    dom = chromium(browser, "--dump-dom", base + "__search.html", budget_ms=60000)
    match = re.search(r'<pre id="result">(.*?)</pre>', dom, re.DOTALL)
    report = html.unescape(match.group(1)) if match else "no report"
    results = re.findall(r"^RESULT (\S+)", report, re.MULTILINE)
    wanted = url_of(page)
    chromium(browser, "--window-size=1280,1000", f"--screenshot={out / 'search.png'}",
             base + "__search.html", budget_ms=60000)  # fmt: skip
    paths = [urllib.parse.urlsplit(urllib.parse.urljoin(base, r)).path for r in results]
    pages = list(dict.fromkeys(paths))  # a page's sections are results of their own
    print(f"search   {query!r}: {len(pages)} pages, first {pages[:3]} -> {out / 'search.png'}")
    if not results:
        return [f"search {query!r}: no results ({report.strip()[:200]})"]
    if f"/{wanted}" not in pages[:TOP]:
        return [f"search {query!r}: {wanted} is not among the first {TOP} pages found: {pages}"]
    return []


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
    entry = next((e for e in items if e.spec.name == TASK), items[0])
    family = catalogue.family_page(entry.spec.plugin)
    problems = []
    with serve(args.site, entry.spec.name) as base:
        problems += shoot(browser, base, args.out, "home", "index.md", "neurogym")
        problems += shoot(browser, base, args.out, "family", family, entry.spec.plugin)
        problems += shoot(browser, base, args.out, "task", entry.page, entry.spec.name)
        problems += search(browser, base, args.out, entry.spec.name, entry.page)
    for problem in problems:
        print("FAIL", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
