"""The documentation site's generator (docs/_gen) follows the registry, third-party plugins too.

The docs nox session builds the real site and checks one page per registered task
(docs/_gen/check_site.py); these tests run the generator without mkdocs, with a third-party
plugin installed, and check the pieces that can silently go wrong: link rewriting, the
RST left in docstrings, and pages for tasks no fixed list knows about.
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
    names = ("rst", "sitelinks", "catalogue", "gen_pages", "check_site")
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
