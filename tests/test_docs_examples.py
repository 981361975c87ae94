"""The ``python`` blocks of the docs run as written, each in a fresh interpreter.

Conventions of the pages:

* a ```` ```python ```` block runs on its own, with its own imports;
* a ```` ```python continued ```` block runs after the previous runnable block of the same page,
  in its namespace (the page says so in the text too);
* sketches, upstream "before" code and cluster-only code use ```` ```py ````, which is not run.

:data:`PAGES` names the pages checked so far: the README, docs/data.md and docs/wrappers.md.
The other pages (architecture, plotting, porting, rl, scale, training) still hold blocks
that are fragments or need names defined elsewhere; each joins the list once it is fixed
(issue #28). docs/writing-a-task.md is run block after block by neurogym-core's own test.
Training budgets in the pages are literals; :data:`LOWERED` makes them small here, and each
lowering must still match its page (a changed page fails the test rather than running for
minutes).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "docs" / "data.md", ROOT / "docs" / "wrappers.md"]
OWN_TEST = {"writing-a-task.md"}  # run by neurogym-core/tests/test_writing_a_task.py
FENCE = re.compile(r"^```python( continued)?\n(.*?)^```", re.MULTILINE | re.DOTALL)

#: (page, literal in the page, what the test runs instead): training budgets made small.
LOWERED: list[tuple[str, str, str]] = [
    ("README.md", "steps=2000", "steps=5"),
    ("README.md", "trials=500", "trials=20"),
    ("README.md", 'PPO("MlpPolicy", venv, seed=0).learn(300_000)',
     'PPO("MlpPolicy", venv, seed=0, n_steps=8, batch_size=32, n_epochs=1).learn(128)'),
]  # fmt: skip

#: (page, block number): why the block cannot run here (each one an xfail(strict=True)).
KNOWN: dict[tuple[str, int], str] = {}


def _programs() -> list[tuple[str, int, str]]:
    """(page, block number, program): a continued block carries the blocks it continues."""
    programs = []
    for page in PAGES:
        if page.name in OWN_TEST:
            continue
        text = page.read_text(encoding="utf-8")
        for old, new in ((o, n) for p, o, n in LOWERED if p == page.name):
            assert old in text, f"{page.name} no longer contains {old!r}: update LOWERED"
            text = text.replace(old, new)
        chain = ""
        for number, match in enumerate(FENCE.finditer(text), start=1):
            continued, code = match.group(1), match.group(2)
            chain = (chain + "\n" + code) if continued else code
            programs.append((page.name, number, chain))
    return programs


PROGRAMS = _programs()


def _param(page: str, number: int, program: str) -> object:
    marks = []
    if (page, number) in KNOWN:
        marks.append(pytest.mark.xfail(strict=True, reason=KNOWN[(page, number)]))
    return pytest.param(program, id=f"{page}-{number}", marks=marks)


def test_the_pages_have_runnable_blocks():
    assert len(PROGRAMS) >= 22


@pytest.mark.parametrize("program", [_param(*item) for item in PROGRAMS])
def test_the_block_runs(program, tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
