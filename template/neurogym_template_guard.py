"""Answers are literal text: a Jinja extension that refuses to evaluate template syntax in them.

Cookiecutter renders every value of the context with Jinja before the questions are asked, so
an answer given on its command line (``cookiecutter template/ author='{{ 7*7 }}'``), in a
user config's ``default_context`` or in a replay file would be evaluated as a template, and a
template can run arbitrary code. ``cookiecutter.json`` loads this module through
``_extensions``; its :meth:`LiteralAnswers.preprocess` sees every string cookiecutter renders
and stops generation (before anything is written) when a string holds template syntax that is
not the template's own: the Jinja blocks written in ``cookiecutter.json``, in file and
directory names and in the hooks. Template files themselves (loaded by name) are not checked.

``neurogym new`` also rejects such answers itself, with a one-line message, before calling
cookiecutter; this extension is what protects plain ``cookiecutter template/``.

Standard library and Jinja only: it runs wherever cookiecutter does.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from jinja2.ext import Extension

__all__ = ["LiteralAnswers", "UnsafeAnswerError"]

HERE = Path(__file__).resolve().parent
# Every Jinja block: {{ expression }}, {% statement %}, {# comment #}.
BLOCK_RE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.DOTALL)
OPENERS = ("{{", "{%", "{#")


class UnsafeAnswerError(ValueError):
    """A value to render holds template syntax the template does not itself contain."""


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in (*_strings(key), *_strings(item))]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


def _own_blocks() -> frozenset[str]:
    """The Jinja blocks the template itself writes outside its template files."""
    texts = _strings(json.loads((HERE / "cookiecutter.json").read_text(encoding="utf-8")))
    for path in HERE.rglob("*"):
        if "__pycache__" in path.parts:
            continue
        texts.append(path.relative_to(HERE).as_posix())
        if path.parent.name == "hooks" and path.is_file():
            texts.append(path.read_text(encoding="utf-8"))
    return frozenset(block for text in texts for block in BLOCK_RE.findall(text))


class LiteralAnswers(Extension):
    """Refuses to render strings whose template syntax is not the template's own."""

    def __init__(self, environment: object) -> None:
        super().__init__(environment)  # type: ignore[arg-type]
        self.own = _own_blocks()

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        """Return ``source`` unchanged, or raise if it smuggles in template syntax."""
        if name is not None or not any(opener in source for opener in OPENERS):
            return source  # a template file of the template, or plain text
        foreign = [block for block in BLOCK_RE.findall(source) if block not in self.own]
        leftover = BLOCK_RE.sub("", source)
        if foreign or any(opener in leftover for opener in OPENERS):
            raise UnsafeAnswerError(
                f"refusing to render {source!r}: answers are literal text, and this one holds "
                "template syntax ('{{', '{%' or '{#') that the neurogym plugin template does not "
                "contain; remove it from the answer"
            )
        return source
