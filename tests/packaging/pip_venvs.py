"""Helpers of the packaging tests: this checkout's distributions, pip and fresh venvs."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DIRS = sorted(
    p.parent for p in [*ROOT.glob("*/pyproject.toml"), *ROOT.glob("plugins/*/pyproject.toml")]
)
TIMEOUT = 900  # seconds for one pip command (cold caches)
# The exact builds of dev and CI (torch==2.13.0, the CPU wheel): every ``pip install`` of these
# tests passes it, since the published ranges (torch>=2.3,<3) would let pip pull a CUDA build.
CONSTRAINTS = ROOT / "constraints.txt"


def project(directory: Path) -> dict[str, Any]:
    """The ``[project]`` table of a distribution's pyproject.toml."""
    table = tomllib.loads((directory / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert isinstance(table, dict)
    return table


def archive_stem(directory: Path) -> str:
    """``name-version`` as wheel and sdist file names spell it (name normalized: ``_``)."""
    table = project(directory)
    return f"{str(table['name']).replace('-', '_')}-{table['version']}"


def clean_env() -> dict[str, str]:
    """This process's environment without the variables of its own venv and of neurogym."""
    return {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTHON", "NEUROGYM_")) and key != "VIRTUAL_ENV"
    }


def run(command: list[object], **kwargs: object) -> str:
    """Run ``command``, fail the test with its output unless it exits 0, return its stdout."""
    result = subprocess.run(
        [str(part) for part in command],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        **kwargs,  # type: ignore[arg-type]
    )
    assert result.returncode == 0, f"$ {command}\n{result.stdout}\n{result.stderr}"
    return result.stdout


def make_venv(path: Path) -> Path:
    """Create a fresh virtual environment at ``path``; return its ``bin`` directory."""
    run([sys.executable, "-m", "venv", path])
    return path / "bin"
