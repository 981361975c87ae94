"""Searching a task's exact name lists that task's page first.

mkdocs-material's search (lunr, in the browser) matches every query word as a prefix
(``PerceptualDecisionMaking`` also finds ``PerceptualDecisionMakingDelayResponse``) and weighs
a word by its rarity: the short name, mentioned on many pages, weighs less than the long one,
so the longer name's page came first. The post-build hook (``hooks.py``) therefore boosts, in
the built search index, the entry of each task page's title (not its sections, which would
then crowd out the guides for words such as "learnability"):

* every task page by :data:`TASK`, so a task's page comes before the guides and API pages
  that mention it (``yang19.all`` was second to ``neurogym_apps.train.yang19``);
* a task whose name another task's name extends (``Reaching1D``, ``IBL``,
  ``DelayMatchSample``) by :data:`EXTENDED` more.

Measured in Chromium by the ``screenshots`` nox session, which searches every installed
task's name: without the boosts 5 of 61 names (PerceptualDecisionMaking, DelayMatchSample,
Reaching1D, IBL, yang19.all) listed another page first; with them none does. A much larger
:data:`EXTENDED` (4) puts ``PerceptualDecisionMaking`` above
``perceptualdecisionmaking.ibl20`` when searching the latter.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

#: The boost of every task page's title entry.
TASK = 2.0
#: The further factor for a task whose name is extended by another task's name.
EXTENDED = 2.5


def words(name: str, separator: str) -> list[str]:
    """The lowercase words the search index splits ``name`` into."""
    return [word.lower() for word in re.split(separator, name) if word]


def extended(name: str, others: list[str], separator: str) -> bool:
    """Whether another name matches every word of ``name`` as a prefix and adds a word.

    That other name is found by a search for ``name`` and, being rarer, would outrank it.
    """
    mine = words(name, separator)
    for other in others:
        theirs = words(other, separator)
        adds_a_word = other != name and bool(set(theirs) - set(mine))
        if adds_a_word and all(any(w.startswith(m) for w in theirs) for m in mine):
            return True
    return False


def boosts(names: Mapping[str, str], separator: str) -> dict[str, float]:
    """The boost of each task page (its site URL) given ``{url: task name}``."""
    everyone = list(names.values())
    return {
        url: TASK * (EXTENDED if extended(name, everyone, separator) else 1.0)
        for url, name in names.items()
    }


def boost_index(index: dict[str, Any], names: Mapping[str, str]) -> int:
    """Set the boost of the task pages' title entries in a search index; return how many.

    Args:
        index: The parsed ``search/search_index.json`` (its ``config.separator`` is the
            word separator the browser uses).
        names: ``{page URL: task name}``, the URLs as the index lists them (``a/b.html``).

    Raises:
        LookupError: A task page has no entry in the index.
    """
    wanted = boosts(names, index["config"]["separator"])
    done = 0
    for doc in index["docs"]:
        if doc["location"] in wanted:
            doc["boost"] = wanted[doc["location"]]
            done += 1
    if done != len(wanted):
        found = {doc["location"] for doc in index["docs"]}
        missing = sorted(set(wanted) - found)
        raise LookupError(f"task pages missing from the search index: {missing}")
    return done
