"""The docs catalogue (docs/_gen) writes a plugin's text into pages as data, never as HTML.

A hostile fake plugin declares a tag, description and paper holding HTML (``<script>``,
``onerror=``), markdown links to ``javascript:``, attribute lists and table pipes; its task's
docstring and its README (the installed METADATA) do too. Every generated page must show that
text without markup: no raw tag but ``<code>`` and comments, no link that is not http(s) or
relative, no attribute list. Names that would be path parts (``..``) stay under their folder.
"""

from __future__ import annotations

import importlib
import posixpath
import re
import sys
from pathlib import Path

import gymnasium
import pytest

import neurogym
from neurogym import TaskSpec

GEN = Path(__file__).resolve().parents[1] / "docs" / "_gen"
HTML = "<img src=x onerror=alert(1)>"
SCRIPT = "<script>alert(1)</script>"
JS_LINK = "[click](javascript:alert(1))"
ATTRS = "{: onclick=alert(1) }"

EVIL_PLUGIN = f"""
from neurogym import TaskSpec, hookimpl


@hookimpl
def neurogym_tasks():
    return [
        TaskSpec(
            "evil/Louder-v0",
            "neurogym_evil.tasks:Louder",
            tags=("perceptual", {SCRIPT!r}, "a | b", "..", "x\\n| forged | row |"),
            paper_name={HTML!r},
            paper_link="javascript:alert(1)",
            description={f"{SCRIPT} {JS_LINK} {ATTRS} | cell **x**"!r},
        )
    ]
"""
EVIL_TASKS = f'''
from neurogym_perceptual.tasks.perceptualdecisionmaking import PerceptualDecisionMaking


class Louder(PerceptualDecisionMaking):
    """Report the louder tone {SCRIPT}.

    A {JS_LINK} and <a href="javascript:alert(1)">raw</a>, an image
    ![x](data:text/html,alert) and `<b>code stays code</b>`.
    {ATTRS}

    [ref]: javascript:alert(1)
    """
'''
README = f"""Metadata-Version: 2.1
Name: neurogym-evil
Version: 1.0
Summary: Evil {SCRIPT}

# neurogym-evil

{HTML} and {JS_LINK}; a fine [link](https://example.org/docs).

<!-- task-table:start -->
old table
<!-- task-table:end -->
"""


@pytest.fixture
def gen(monkeypatch):
    """docs/_gen's modules, imported afresh (docs/_gen is a script folder, not a package)."""
    monkeypatch.syspath_prepend(str(GEN))
    names = ("rst", "sitelinks", "catalogue", "gen_pages")
    yield {name: importlib.import_module(name) for name in names}
    for name in names:
        sys.modules.pop(name, None)


@pytest.fixture
def evil(installed_fake_plugin):
    """A hostile third-party plugin ``evil`` (distribution neurogym-evil), registered."""
    installed_fake_plugin(
        "neurogym-evil",
        EVIL_PLUGIN,
        module="evil_plugin",
        entry_point="evil",
        files={
            "neurogym_evil/__init__.py": "",
            "neurogym_evil/tasks.py": EVIL_TASKS,
            "neurogym_evil-1.0.dist-info/METADATA": README,
        },
    )
    before = set(gymnasium.registry)
    neurogym.get_registry.cache_clear()
    yield
    neurogym.get_registry.cache_clear()
    for task_id in set(gymnasium.registry) - before:
        del gymnasium.registry[task_id]


_TAG = re.compile(r"<(?!code>|/code>|!--)")
_LINK = re.compile(r"\]\(([^)]*)\)|^\s{0,3}\[[^\]]+\]:\s*(\S+)", re.MULTILINE)


def assert_no_markup(page: str) -> None:
    """No raw HTML but <code> and comments, no non-http(s) link, no attribute list.

    (Code spans are dropped first: markdown shows their content as it is.)
    """
    page = re.sub(r"(`+).+?\1", "", page)
    assert not _TAG.search(page), page
    assert "{" not in page, page
    for match in _LINK.finditer(page):
        target = match.group(1) or match.group(2)
        assert re.fullmatch(r"https?://\S+|[A-Za-z0-9_./#-]*", target), (target, page)


def test_plugin_text_is_data_on_every_catalogue_page(gen, evil):
    catalogue, gen_pages = gen["catalogue"], gen["gen_pages"]
    specs = [spec for spec in neurogym.tasks() if spec.plugin == "evil"]
    items = catalogue.entries(specs)
    pages, _ = catalogue.task_pages(items)
    (page,) = pages.values()
    assert_no_markup(page)
    assert "&#60;script&#62;alert(1)&#60;/script&#62;" in page  # shown, as text
    paper = "&#60;img src=x onerror=alert(1)&#62; (javascript:alert(1); not an http(s) link)"
    assert f"| paper | {paper} |" in page  # the paper link, as text
    assert "`<b>code stays code</b>`" in page  # a docstring's code span is left alone
    for line in page.splitlines():  # no row forged into the info table
        assert not line.startswith("| forged")

    others = {
        "index": catalogue.catalogue_index(items),
        "tags": catalogue.tags_index(items),
        **{
            tag: catalogue.tag_markdown(tag, group)
            for tag, group in catalogue.by_tag(items).items()
        },
        **catalogue.summary_nav(items),
        "family": gen_pages.family_markdown(
            "evil", items, gen["sitelinks"].SiteMap(), gen["sitelinks"].repo_distributions()
        ),
    }
    for name, text in others.items():
        assert_no_markup(text)
        assert not any(line.startswith("| forged") for line in text.splitlines()), name
    family = others["family"]
    assert "[link](https://example.org/docs)" in family  # an http(s) link stays a link
    assert "old table" not in family  # the README's task table is replaced by the generated one
    assert "Evil &#60;script&#62;" in family


def test_names_never_leave_their_folder(gen):
    catalogue = gen["catalogue"]
    for name in ("..", ".", "../..", "a/../../b", "", " ", "\x1b[2J"):
        for path in (catalogue.family_page(name), catalogue.tag_page(name)):
            folder = path.split("/")[0]
            assert posixpath.normpath(path).startswith(f"{folder}/"), path
            assert posixpath.normpath(path) == path, path
            assert path not in ("tasks/index.md", "tags/index.md"), path
    spec = TaskSpec("evil/Index-v0", "x:Y", plugin="..")
    (entry,) = catalogue.entries([spec])
    assert posixpath.normpath(entry.page) == entry.page
    assert entry.page.startswith("tasks/")
    assert entry.page.count("/") == 2
