"""A griffe extension (``mkdocs.yml``): docstrings' leftover RST rendered as Markdown.

mkdocstrings renders the API reference from griffe's docstrings; this extension passes each
through :func:`rst.to_markdown` first (roles, simple tables, ``::``, and a mention of
``docs/<guide>.md`` made a link to the guide; see ``rst.py``). Every API page is
``reference/<module>.md``, so a guide is at ``../<guide>.md`` from it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import griffe

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rst import to_markdown
from sitelinks import DOCS

#: The guides as seen from an API page (``reference/<module>.md``).
GUIDES = (DOCS, "../")


class RstToMarkdown(griffe.Extension):
    """Rewrite every loaded object's docstring with :func:`to_markdown`."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Called by griffe for every object once its package is loaded."""
        if obj.docstring is not None:
            obj.docstring.value = to_markdown(obj.docstring.value, GUIDES)
