"""Every ``python`` block of the README and of docs/*.md runs as written.

Conventions of the pages:

* a ```` ```python ```` block runs on its own, with its own imports, in a fresh interpreter;
* a ```` ```python title="continues the block above" ```` block runs after the previous
  runnable block of the same page, in its namespace (the title shows on the site, and the
  page's text says so too);
* API sketches, upstream "before" code and cluster-only code (RLlib) use ```` ```py ````,
  which is not run.

:data:`PAGES` is the README and every page of docs/ (a new page joins by being there), except
docs/writing-a-task.md, which neurogym-core's own test runs block after block
(:data:`OWN_TEST`). A standalone block and the continued blocks after it are one *chain*,
executed once, block after block, in one fresh interpreter (as a user pastes them): each block
is a test that passes when its chain got through it, so a failure names its page and block.
Training budgets in the pages are literals; :data:`LOWERED` makes them small here, and each
lowering must still match its page (a changed page fails the test rather than running for
minutes). The module takes about a minute on 2 cores.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OWN_TEST = {"writing-a-task.md"}  # run by neurogym-core/tests/test_writing_a_task.py
PAGES = [ROOT / "README.md"] + [
    page for page in sorted((ROOT / "docs").glob("*.md")) if page.name not in OWN_TEST
]
CONTINUED = ' title="continues the block above"'
FENCE = re.compile(rf"^```python({re.escape(CONTINUED)})?\n(.*?)^```", re.MULTILINE | re.DOTALL)
OPENER = re.compile(r"^```(\S*)(.*)$", re.MULTILINE)  # every fence line: language, the rest

#: (page, literal in the page, what the test runs instead): budgets (training steps, trials,
#: trials drawn) made small.
LOWERED: list[tuple[str, str, str]] = [
    ("README.md", "steps=2000", "steps=5"),
    ("README.md", "trials=500", "trials=20"),
    ("README.md", 'PPO("MlpPolicy", venv, seed=0).learn(300_000)',
     'PPO("MlpPolicy", venv, seed=0, n_steps=8, batch_size=32, n_epochs=1).learn(128)'),
    ("training.md", "steps=2000, seed=0)", "steps=5, seed=0)"),
    ("training.md", "trials=1000, seed=1)", "trials=20, seed=1)"),
    ("training.md", "num_trials=300)", "num_trials=30)"),
    ("training.md", "num_trials=3, policy", "num_trials=1, policy"),
    ("rl.md", "n_steps=128, batch_size=256,", "n_steps=4, batch_size=64,"),
    ("rl.md", "ppo.learn(300_000)", "ppo.learn(64)"),
    ("rl.md", "n_steps=128, batch_size=512,", "n_steps=4, batch_size=64,"),
    ("rl.md", "[(300, 204_800), (1000, 204_800), (2000, 614_400)]", "[(300, 64), (2000, 64)]"),
    ("rl.md", "trials=1000", "trials=20"),
    ("rl.md", "num_trials=3", "num_trials=1"),
    ("scale.md", "seeds=[0, 1, 2],\n", "seeds=[0],\n"),
    ("scale.md", "config=TrainConfig(steps=2000), eval_trials=200)",
     "config=TrainConfig(steps=3), eval_trials=20)"),
]  # fmt: skip

#: (page, block number): why the block cannot run here (each one an xfail(strict=True)).
KNOWN: dict[tuple[str, int], str] = {}

#: Runs one chain: blocks from stdin (JSON), each numbered in tracebacks and done-file.
DRIVER = """
import json, linecache, sys, traceback
page, blocks = json.load(sys.stdin)
namespace = {"__name__": "__main__"}
for number, code in blocks:
    name = f"<{page}, block {number}>"
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    try:
        exec(compile(code, name, "exec"), namespace)
    except BaseException:
        traceback.print_exc()  # reads the block's lines from linecache
        sys.exit(1)
    with open(sys.argv[1], "a") as done:
        done.write(f"{number}\\n")
"""


@dataclass(frozen=True)
class Block:
    """One runnable block: its page, its number there and the chain it belongs to."""

    page: str
    number: int
    chain: tuple[tuple[int, str], ...]  # (number, code) from the chain's standalone block


def lowered(page: Path, table: list[tuple[str, str, str]] = LOWERED) -> str:
    """The page's text with the budgets of ``table`` (:data:`LOWERED`) made small."""
    text = page.read_text(encoding="utf-8")
    for old, new in ((o, n) for p, o, n in table if p == page.name):
        assert old in text, f"{page.name} no longer contains {old!r}: update LOWERED"
        text = text.replace(old, new)
    return text


def _blocks() -> list[Block]:
    blocks = []
    for page in PAGES:
        chain: tuple[tuple[int, str], ...] = ()
        for number, match in enumerate(FENCE.finditer(lowered(page)), start=1):
            continued, code = match.group(1), match.group(2)
            if continued and not chain:
                raise AssertionError(f"{page.name} block {number} continues no earlier block")
            chain = (*chain, (number, code)) if continued else ((number, code),)
            blocks.append(Block(page.name, number, chain))
    return blocks


BLOCKS = _blocks()


def _run_chain(
    page: str, chain: tuple[tuple[int, str], ...], folder: Path
) -> tuple[set[int], str]:
    """Runs a chain in a fresh interpreter in ``folder``: (numbers of the blocks done, stderr)."""
    done = folder / "done.txt"
    result = subprocess.run(
        [sys.executable, "-c", DRIVER, str(done)],
        input=json.dumps([page, chain]),
        capture_output=True,
        text=True,
        cwd=folder,
        timeout=300,
        check=False,
    )
    finished = {int(n) for n in done.read_text().split()} if done.exists() else set()
    return finished, result.stderr


def _longest_chains() -> dict[tuple[str, int], tuple[tuple[int, str], ...]]:
    """Each chain in full, keyed by (page, its first block): one run serves all its blocks."""
    full: dict[tuple[str, int], tuple[tuple[int, str], ...]] = {}
    for block in BLOCKS:
        full[(block.page, block.chain[0][0])] = block.chain
    return full


CHAINS = _longest_chains()
_RESULTS: dict[tuple[str, int], tuple[set[int], str]] = {}  # each chain runs once


def _param(block: Block) -> object:
    marks = []
    if (block.page, block.number) in KNOWN:
        marks.append(pytest.mark.xfail(strict=True, reason=KNOWN[(block.page, block.number)]))
    return pytest.param(block, id=f"{block.page}-{block.number}", marks=marks)


def test_the_pages_have_runnable_blocks():
    names = {page.name for page in PAGES}
    assert {"README.md", "data.md", "plotting.md", "rl.md", "training.md"} <= names
    assert not names & OWN_TEST
    per_page = {name: sum(b.page == name for b in BLOCKS) for name in names}
    assert len(BLOCKS) >= 44, per_page
    for name in ("README.md", "data.md", "plotting.md", "porting.md", "rl.md", "scale.md",
                 "training.md", "wrappers.md"):  # fmt: skip
        assert per_page[name] >= 1, f"{name} has no runnable block: {per_page}"


def test_every_python_fence_is_run_or_marked_as_not_run():
    # a typo in a fence ("```python continue", "```Python") would silently skip its block
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        runnable = 0
        for match in OPENER.finditer(text):
            language, rest = match.groups()
            where = f"{page.name}: {match.group(0)!r}"
            if language == "python":
                assert rest in ("", CONTINUED), f"{where}: use ```python or ```python{CONTINUED}"
                runnable += 1
            elif language.lower().startswith("py"):
                assert (language, rest) == ("py", ""), f"{where}: a block not run is ```py"
        assert runnable == len(FENCE.findall(text)), page.name


def test_a_continued_block_carries_the_blocks_before_it():
    rl = [block for block in BLOCKS if block.page == "rl.md"]
    assert [len(block.chain) for block in rl] == [1, 2, 3, 4]
    assert "ppo.learn(64)" in rl[1].chain[1][1]  # lowered
    with pytest.raises(AssertionError, match=r"rl.md no longer contains 'ppo.learn\(9\)'"):
        lowered(ROOT / "docs" / "rl.md", [("rl.md", "ppo.learn(9)", "ppo.learn(1)")])


def test_a_chain_stops_at_the_failing_block_and_names_it(tmp_path):
    chain = ((1, "x = 1\n"), (3, "y = x + 1\nz = y + w\n"), (4, "print('never')\n"))
    done, stderr = _run_chain("page.md", chain, tmp_path)
    assert done == {1}
    assert 'File "<page.md, block 3>", line 2' in stderr
    assert "z = y + w" in stderr  # the source line is in the traceback
    assert stderr.rstrip().endswith("NameError: name 'w' is not defined")


@pytest.mark.parametrize("block", [_param(block) for block in BLOCKS])
def test_the_block_runs(block, tmp_path_factory):
    key = (block.page, block.chain[0][0])
    full = CHAINS[key]
    if key not in _RESULTS:
        folder = tmp_path_factory.mktemp(f"{Path(block.page).stem}-{key[1]}")
        _RESULTS[key] = _run_chain(block.page, full, folder)
    done, stderr = _RESULTS[key]
    if block.number not in done:
        first = next((number for number, _ in full if number not in done), block.number)
        where = "it" if first == block.number else f"block {first}, which it continues,"
        raise AssertionError(
            f"{block.page} block {block.number}: {where} failed\n{stderr[-3000:]}"
        )
