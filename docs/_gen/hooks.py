"""MkDocs hooks (``hooks:`` in mkdocs.yml): navigation files off the site, figures into it.

* mkdocs-literate-nav reads ``tasks/SUMMARY.md``, ``tags/SUMMARY.md`` and
  ``reference/SUMMARY.md`` (written by ``gen_pages.py``) to build the navigation; as
  generated files they escape ``exclude_docs``, so without :func:`on_files` they would also
  be published as pages.
* The task figures are drawn in worker processes while the pages render
  (``catalogue.PENDING``); :func:`on_post_build` waits for them and writes them over the
  placeholders, and :func:`on_build_error` stops the workers.
* :func:`on_post_build` also boosts the task pages in the search index (``searchboost.py``),
  after the search plugin wrote it and before the offline plugin copies it into
  ``search/search_index.js`` (the index a page opened from disk loads).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files, InclusionLevel

sys.path.insert(0, str(Path(__file__).resolve().parent))

import catalogue
from check_site import url_of
from searchboost import boost_index

NAV_FILE = "SUMMARY.md"


def on_files(files: Files, config: Any) -> Files:
    """Exclude every navigation file from the built site (literate-nav still reads it)."""
    for file in files:
        if file.src_uri.rsplit("/", 1)[-1] == NAV_FILE:
            file.inclusion = InclusionLevel.EXCLUDED
    return files


@event_priority(-50)  # after the search plugin (0), before the offline plugin (-100)
def on_post_build(config: Any) -> None:
    """Boost the task pages in the search index; wait for the task figures, write them."""
    index_file = Path(config["site_dir"]) / "search" / "search_index.json"
    index = json.loads(index_file.read_text(encoding="utf-8"))
    names = {url_of(entry.page): entry.spec.name for entry in catalogue.entries()}
    boosted = boost_index(index, names)
    text = json.dumps(index, ensure_ascii=False, separators=(",", ":"))
    index_file.write_text(text, encoding="utf-8")
    print(f"docs/_gen/hooks.py: {boosted} task pages boosted in the search index")
    start = time.perf_counter()
    while catalogue.PENDING:
        drawing, paths = catalogue.PENDING.pop()
        figures = drawing.result()
        for task_id, path in paths.items():
            (Path(config["site_dir"]) / path).write_bytes(figures[task_id])
        print(f"docs/_gen/hooks.py: {len(paths)} figures written, "
              f"{time.perf_counter() - start:.1f} s after the pages")  # fmt: skip


def on_build_error(error: Exception) -> None:
    """Stop drawing: the build failed."""
    while catalogue.PENDING:
        catalogue.PENDING.pop()[0].cancel()
