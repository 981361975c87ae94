"""Every code block of docs/writing-a-task.md runs, in order, in one namespace."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "writing-a-task.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.DOTALL)


@pytest.mark.skipif(not PAGE.exists(), reason="docs/ is not part of an installed package")
def test_every_block_runs(monkeypatch):
    blocks = _blocks()
    assert len(blocks) >= 6
    module = types.ModuleType("writing_a_task_page")
    monkeypatch.setitem(sys.modules, module.__name__, module)  # so "module:Class" resolves
    for index, block in enumerate(blocks):
        code = compile(block, f"{PAGE.name}, block {index + 1}", "exec")
        exec(code, module.__dict__)  # the page's own example code, from this repository
