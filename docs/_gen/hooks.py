"""MkDocs hooks (``hooks:`` in mkdocs.yml): keep the generated navigation files off the site.

mkdocs-literate-nav reads ``tasks/SUMMARY.md`` and ``reference/SUMMARY.md`` (written by
``gen_pages.py``) to build the navigation; as generated files they escape ``exclude_docs``, so
without this they would also be published as pages.
"""

from __future__ import annotations

from typing import Any

from mkdocs.structure.files import Files, InclusionLevel

NAV_FILE = "SUMMARY.md"


def on_files(files: Files, config: Any) -> Files:
    """Exclude every navigation file from the built site (literate-nav still reads it)."""
    for file in files:
        if file.src_uri.rsplit("/", 1)[-1] == NAV_FILE:
            file.inclusion = InclusionLevel.EXCLUDED
    return files
