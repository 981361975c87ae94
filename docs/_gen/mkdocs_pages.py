"""Run by mkdocs-gen-files (``mkdocs.yml``): the generated pages go into the build, not docs/."""

from __future__ import annotations

import sys
from pathlib import Path

import mkdocs_gen_files

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_pages import generate


def write(path: str, content: str | bytes) -> None:
    """Write one generated page or figure into the build's virtual docs folder."""
    mode = "wb" if isinstance(content, bytes) else "w"
    with mkdocs_gen_files.open(path, mode) as handle:
        handle.write(content)


timings = generate(write, defer=True)  # the figures: drawn while the pages render (hooks.py)
print("docs/_gen/gen_pages.py: " + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items()))
