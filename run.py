"""Run neurogym's nox sessions on a machine that has only Python >= 3.11 (stdlib only).

Usage::

    python3 run.py train         # the main job: train a network on a showcase task per family
    python3 run.py demo          # list the tasks, run PerceptualDecisionMaking with a policy
    python3 run.py test          # every check: tests, integration, lint, typecheck
    python3 run.py nox ARGS...   # any other nox command line, e.g. `nox -l` or `nox -s lint`

Arguments after the command go to nox unchanged (`python3 run.py test -- -x` hands `-x` to
pytest). The first run creates ``.venv-nox/`` next to this file and pip-installs nox into it,
at the version that ``noxfile.py`` asks for in ``nox.needs_version``; later runs reuse it.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
NOXFILE = ROOT / "noxfile.py"
VENV = ROOT / ".venv-nox"
STAMP = VENV / "run-py-requirement.txt"  # the requirement the venv was built for
MIN_PYTHON = (3, 11)

# What each command runs. The test command selects by tag, so sessions that later issues
# tag "test" (template, ...) join it without an edit here.
COMMANDS: dict[str, list[str]] = {
    "train": ["-s", "train"],
    "demo": ["-s", "demo"],
    "test": ["-t", "test"],
    "nox": [],
}


def nox_requirement() -> str:
    """Return ``nox<specifier>`` from the ``nox.needs_version = "..."`` line of the noxfile."""
    for node in ast.walk(ast.parse(NOXFILE.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
            and any(ast.unparse(t) == "nox.needs_version" for t in node.targets)
        ):
            return f"nox{node.value.value}"
    return "nox"


def venv_python() -> Path:
    """Return the interpreter of the bootstrap venv (POSIX or Windows layout)."""
    if os.name == "nt":
        return VENV / "Scripts" / "python.exe"
    return VENV / "bin" / "python"


def ensure_nox() -> Path:
    """Create ``.venv-nox`` with the required nox unless it already has it; return its python."""
    requirement = nox_requirement()
    python = venv_python()
    if python.exists() and STAMP.exists() and STAMP.read_text(encoding="utf-8") == requirement:
        return python
    print(f"run.py: creating {VENV.name}/ with {requirement} (first run only)", flush=True)
    venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    pip = [str(python), "-m", "pip", "--disable-pip-version-check", "install", "--quiet"]
    subprocess.run([*pip, requirement], check=True)
    STAMP.write_text(requirement, encoding="utf-8")
    return python


def main(argv: list[str]) -> int:
    """Parse ``argv`` (without the program name), bootstrap nox and run it; return its code."""
    if sys.version_info < MIN_PYTHON:
        print(f"run.py needs Python >= {'.'.join(map(str, MIN_PYTHON))}", file=sys.stderr)
        return 2
    if not argv or argv[0] not in COMMANDS:
        given = f"unknown command {argv[0]!r}; " if argv else ""
        print(f"run.py: {given}expected one of {', '.join(COMMANDS)}", file=sys.stderr)
        print(__doc__, file=sys.stderr)
        return 2
    python = ensure_nox()
    command = [str(python), "-m", "nox", "--noxfile", str(NOXFILE), *COMMANDS[argv[0]]]
    try:
        return subprocess.run([*command, *argv[1:]], cwd=ROOT, check=False).returncode
    except KeyboardInterrupt:  # nox got the same Ctrl-C and reports it; no traceback here
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
