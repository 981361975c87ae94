"""Code written for NeuroGym 2.3.1 runs unchanged and gives 3.0's numbers (issue #45).

Each ``tests/compat/legacy_<pattern>.py`` is written as a 2.3.1 user would (2.3.1's import
paths and bare ids); ``new_<pattern>.py`` is the same computation in 3.0's API. Both print one
JSON line, which must be identical. The legacy script runs once with
``-W always::DeprecationWarning`` (warning filters do not change its numbers) and must emit at
least one neurogym DeprecationWarning; the new one runs with ``-W error::DeprecationWarning``.
tests/packaging/test_wheels.py runs the same pairs in a 2.3.1 venv upgraded to the wheels.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

COMPAT = Path(__file__).parent / "compat"
PATTERNS = sorted(p.stem.removeprefix("legacy_") for p in COMPAT.glob("legacy_*.py"))
_WARNING = re.compile(r"^\S+:\d+: DeprecationWarning: (neurogym\S* .*)$", re.MULTILINE)


def _run(script: Path, warnings: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-W", warnings, str(script)],
        capture_output=True, text=True, cwd=script.parent, timeout=120, check=False,
    )  # fmt: skip


def _pair(pattern: str) -> tuple[subprocess.CompletedProcess[str], ...]:
    scripts = [
        (COMPAT / f"legacy_{pattern}.py", "always::DeprecationWarning"),
        (COMPAT / f"new_{pattern}.py", "error::DeprecationWarning"),
    ]
    with ThreadPoolExecutor(2) as pool:
        return tuple(pool.map(lambda args: _run(*args), scripts))


def test_there_is_a_new_script_for_every_legacy_one():
    assert PATTERNS == ["custom", "info", "plotting", "rl", "supervised", "yang19"]
    assert sorted(p.stem.removeprefix("new_") for p in COMPAT.glob("new_*.py")) == PATTERNS


@pytest.mark.parametrize("pattern", PATTERNS)
def test_legacy_script_prints_what_the_new_api_prints(pattern):
    if pattern == "rl":
        pytest.importorskip("stable_baselines3")
    legacy, new = _pair(pattern)
    assert new.returncode == 0, new.stderr
    assert legacy.returncode == 0, legacy.stderr
    assert json.loads(legacy.stdout) == json.loads(new.stdout)
    assert _WARNING.findall(legacy.stderr), legacy.stderr  # the 2.3.1 spellings warn
