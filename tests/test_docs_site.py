"""The documentation site's generator (docs/_gen) follows the registry, third-party plugins too.

The docs nox session builds the real site and checks one page per registered task and every
page as a user opens it (docs/_gen/check_site.py); these tests run the generator and the
checks without mkdocs or a browser, with a third-party plugin installed, and check the pieces
that can silently go wrong: link rewriting, the RST left in docstrings, pages for tasks no
fixed list knows about, the home page, the search boost of exact task names, and the checks
of a built site (links that only work served, loads from other hosts).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import gymnasium
import pytest

import neurogym

GEN = Path(__file__).resolve().parents[1] / "docs" / "_gen"
PNG = b"\x89PNG\r\n\x1a\n"

MYLAB_PLUGIN = """
from neurogym import TaskSpec, hookimpl


@hookimpl
def neurogym_tasks():
    return [
        TaskSpec(
            "mylab/LouderTone-v0",
            "neurogym_mylab.tasks:LouderTone",
            tags=("perceptual", "lab tag"),
            paper_name="A paper of my lab",
            paper_link="https://example.org/paper",
            description="Report the louder of two tones.",
        )
    ]
"""
MYLAB_TASKS = '''
from neurogym_perceptual.tasks.perceptualdecisionmaking import PerceptualDecisionMaking


class LouderTone(PerceptualDecisionMaking):
    """Report the louder of two tones.

    ## Arguments
    dt: Step size in ms (100).
    sigma: Input noise, see :class:`~neurogym.TrialEnv`
        (continued on a second line).
    """
'''


@pytest.fixture
def gen(monkeypatch):
    """docs/_gen's modules, imported afresh (docs/_gen is a script folder, not a package)."""
    monkeypatch.syspath_prepend(str(GEN))
    names = (
        "rst",
        "sitelinks",
        "catalogue",
        "gen_pages",
        "searchboost",
        "sitechecks",
        "check_site",
    )
    yield {name: importlib.import_module(name) for name in names}
    for name in names:
        sys.modules.pop(name, None)


@pytest.fixture
def mylab(installed_fake_plugin):
    """A third-party plugin ``mylab`` (distribution neurogym-mylab) in the default registry.

    Laid out as ``neurogym new`` lays one out: the tasks in a package (no differences.toml).
    """
    installed_fake_plugin(
        "neurogym-mylab", MYLAB_PLUGIN, module="mylab_plugin", entry_point="mylab",
        files={"neurogym_mylab/__init__.py": "", "neurogym_mylab/tasks.py": MYLAB_TASKS},
    )  # fmt: skip
    before = set(gymnasium.registry)
    neurogym.get_registry.cache_clear()
    yield
    neurogym.get_registry.cache_clear()
    for task_id in set(gymnasium.registry) - before:  # if anything registered mylab's id
        del gymnasium.registry[task_id]


def test_a_third_party_task_gets_its_page_figure_family_and_tag_pages(gen, mylab, monkeypatch):
    catalogue, gen_pages = gen["catalogue"], gen["gen_pages"]
    drawn = {}

    def draw_only_mylab(jobs):  # drawing all 60 first-party figures belongs to the docs session
        drawn.update(jobs)
        return {
            t: catalogue.draw((t, n)) if t.startswith("mylab/") else PNG for t, n in jobs.items()
        }

    monkeypatch.setattr(catalogue, "draw_all", draw_only_mylab)
    written: dict[str, str | bytes] = {}
    gen_pages.generate(written.__setitem__)

    ids = [spec.id for spec in neurogym.tasks()]
    assert "mylab/LouderTone-v0" in ids
    assert set(drawn) == set(ids)  # every registered task is drawn, none twice
    pages = [entry.page for entry in catalogue.entries()]
    assert len(set(pages)) == len(ids)
    assert set(pages) <= set(written)

    page = written["tasks/mylab/LouderTone.md"]
    assert "`mylab/LouderTone-v0`" in page
    assert "[A paper of my lab](https://example.org/paper)" in page
    assert "[lab tag](../../tags/lab-tag.md)" in page
    assert "[mylab](index.md)" in page
    assert "None declared by its plugin." in page  # no differences.toml
    assert "Not measured yet" in page  # no learnability row
    assert "| `stimulus` | 1\N{EN DASH}2 |" in page  # the named dims, inherited
    # the docstring's arguments as a list; the continuation line joined; the role a code span
    assert "- `sigma`: Input noise, see `TrialEnv` (continued on a second line)." in page
    assert written["tasks/mylab/LouderTone.png"].startswith(PNG)
    assert len(written["tasks/mylab/LouderTone.png"]) > 10_000  # a drawn figure

    family = written["tasks/mylab/index.md"]
    assert "Distribution `neurogym-mylab`, 1 task." in family
    assert "| [LouderTone](LouderTone.md) |" in family
    assert "[LouderTone](../tasks/mylab/LouderTone.md)" in written["tags/lab-tag.md"]
    assert "- [mylab](mylab/index.md)" in written["tasks/SUMMARY.md"]
    assert "    - [LouderTone](mylab/LouderTone.md)" in written["tasks/SUMMARY.md"]

    # the home page is the users' page, with every installed family; the README is a page too
    home = written["index.md"]
    assert home.index("## Install") < home.index("## A 5-minute tour") < home.index("## Task")
    assert "| [mylab](tasks/mylab/index.md) | `neurogym-mylab` | 1 |" in home
    assert "<!-- home-catalogue" not in home
    assert written["checkout.md"].startswith("# neurogym\n")
    assert "python3 run.py test" in written["checkout.md"]


def test_readme_links_are_rewritten_for_the_site_and_unknown_ones_fail(gen):
    sitelinks = gen["sitelinks"]
    site = sitelinks.SiteMap()
    site.add("README.md", "index.md")
    site.add("plugins/neurogym-motor/README.md", "tasks/motor/index.md")
    text = (
        "[training](docs/training.md), [§11](docs/architecture.md#11-x), "
        "[motor](plugins/neurogym-motor/README.md), [web](https://x.org/a.md), [top](#top)\n"
        "```python\nx = d[0](1)  # [not](a/link.md)\n```\n"
    )
    out = site.rewrite(text, "README.md", "index.md")
    assert "[training](training.md)" in out
    assert "[§11](architecture.md#11-x)" in out
    assert "[motor](tasks/motor/index.md)" in out
    assert "[web](https://x.org/a.md)" in out
    assert "[top](#top)" in out
    assert "[not](a/link.md)" in out  # code blocks are left alone
    back = site.rewrite(
        "[home](../../README.md)", "plugins/neurogym-motor/README.md", "tasks/motor/index.md"
    )
    assert back.strip() == "[home](../../index.md)"
    with pytest.raises(LookupError, match=r"links to 'tests/conftest.py'.*no page on the site"):
        site.rewrite("[x](tests/conftest.py)", "README.md", "index.md")
    # a third-party README (no repository path): relative links cannot be followed, keep text
    assert site.rewrite("see [docs](docs/a.md)", None, "tasks/x/index.md").strip() == "see docs"


def test_rst_in_docstrings_becomes_markdown(gen):
    to_markdown = gen["rst"].to_markdown
    table = (
        "x\n\n=====  =====\nform   meaning\n=====  =====\n``1``  one\n``2``  two\n=====  =====\n"
    )
    assert "| form | meaning |\n|---|---|\n| ``1`` | one |\n| ``2`` | two |" in to_markdown(table)
    assert to_markdown(":class:`~neurogym.TrialEnv` and :func:`neurogym.make`") == (
        "`TrialEnv` and `neurogym.make`"
    )
    assert to_markdown("Example::\n\n    code") == "Example:\n\n    code"


def test_guides_named_in_docstrings_become_links_on_api_pages(gen):
    to_markdown, docs = gen["rst"].to_markdown, gen["sitelinks"].DOCS
    guides = (docs, "../")
    assert (
        to_markdown("See docs/training.md.", guides) == "See [Training a network](../training.md)."
    )
    assert to_markdown("(``docs/rl.md`` §2)", guides) == "([Reinforcement learning](../rl.md) §2)"
    assert to_markdown("See docs/training.md.") == "See docs/training.md."  # not an API page
    kept = [
        "``python -m x --out docs/learnability.md``",  # inside a longer code span
        "```\nsee docs/rl.md\n```",  # inside a code block
        "docs/no-such-guide.md",  # no such page
        "plugins/x/docs/rl.md",  # another folder's docs/
    ]
    for text in kept:
        assert to_markdown(text, guides) == text


def test_exact_task_names_are_boosted_above_the_names_that_extend_them(gen):
    searchboost = gen["searchboost"]
    separator = r"[\s\-\.\/_:]+"
    names = ["PerceptualDecisionMaking", "PerceptualDecisionMakingDelayResponse", "IBL",
             "perceptualdecisionmaking.ibl20", "IBLBlock", "yang19.go", "GoNogo"]  # fmt: skip
    boosts = searchboost.boosts({f"{n}.html": n for n in names}, separator)
    extended = {n for n in names if boosts[f"{n}.html"] > searchboost.TASK}
    assert extended == {"PerceptualDecisionMaking", "IBL"}  # GoNogo does not extend yang19.go
    assert min(boosts.values()) == searchboost.TASK > 1

    index = {
        "config": {"separator": separator},
        "docs": [
            {"location": "IBL.html", "title": "IBL", "text": ""},
            {"location": "IBL.html#spaces", "title": "Spaces", "text": ""},  # a section
            {"location": "IBLBlock.html", "title": "IBLBlock", "text": ""},
        ],
    }
    assert searchboost.boost_index(index, {"IBL.html": "IBL", "IBLBlock.html": "IBLBlock"}) == 2
    assert [doc.get("boost") for doc in index["docs"]] == [
        searchboost.TASK * searchboost.EXTENDED,
        None,
        searchboost.TASK,
    ]
    with pytest.raises(LookupError, match=r"missing from the search index: \['Gone.html'\]"):
        searchboost.boost_index(index, {"Gone.html": "Gone"})


BUILT_PAGE = """<html><head>
<link rel="stylesheet" href="{css}"><link rel="stylesheet" href="https://fonts.example/css">
<script src="https://cdn.example/shim.js"></script></head><body>
<a class="md-nav__link" href="{up}training/">Training</a> <a href="{up}training.html#x">ok</a>
<a href="https://doi.org/10.1/paper">a paper</a> <a href="#top">top</a>
<img src="//images.example/a.png"> <a href="mailto:a@b.org">mail</a>
<h2>Install</h2><h2>A 5-minute tour &para;</h2><h2>Task catalogue</h2></body></html>
"""


def test_site_checks_refuse_folder_links_and_loads_from_other_hosts(gen, tmp_path):
    sitechecks = gen["sitechecks"]
    (tmp_path / "stylesheets").mkdir()
    (tmp_path / "stylesheets" / "extra.css").write_text("code { white-space: pre-wrap; }")
    (tmp_path / "training.html").write_text('<link href="stylesheets/extra.css"><h1>T</h1>')
    (tmp_path / "training").mkdir()  # a folder: served, its index.html; from disk, a listing
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "b.html").write_text(
        BUILT_PAGE.format(css="../stylesheets/extra.css", up="../")
    )
    page = BUILT_PAGE.format(css="stylesheets/extra.css", up="")
    found = sitechecks.link_problems(tmp_path, "index.html", page)
    assert len(found) == 4, found
    assert "'training/' is not a file of the site" in found[2]  # file:// shows a listing
    assert [f for f in found if "another host" in f] == [
        "index.html: <link href='https://fonts.example/css'> loads from another host",
        "index.html: <script src='https://cdn.example/shim.js'> loads from another host",
        "index.html: <img src='//images.example/a.png'> loads from another host",
    ]
    assert sitechecks.home_problems(page) == []
    assert sitechecks.home_problems("<h2>Quickstart</h2>") != []
    (tmp_path / "index.html").write_text(page)
    assert sitechecks.style_problems(tmp_path, dict(sitechecks.pages(tmp_path))) == []
    (tmp_path / "c.html").write_text("<p>no stylesheet</p>")
    assert "c.html" in sitechecks.style_problems(tmp_path, dict(sitechecks.pages(tmp_path)))[0]
