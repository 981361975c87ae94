r"""Instructions per env step and per ``new_trial`` (callgrind), ours beside upstream 2.3.1.

Wall-clock rates on a shared 2-core VM move by up to 50 % between runs (bench/results); an
instruction count does not. This script runs each side once under ``valgrind --tool=callgrind``
with phase markers (an ``os.getppid()`` call before and after each measured loop, and
``--dump-before=getppid``), so one run per side gives every task's count.

Usage::

    python bench/instructions.py --upstream VENV/bin/python --what step --n 5000 \
        Null Bandit HierarchicalReasoning
    python bench/instructions.py --what new_trial --n 500 HierarchicalReasoning
    python bench/instructions.py --what new_trials --n 50 PerceptualDecisionMaking  # B = 256

Needs valgrind (``apt-get install valgrind``); about 1 minute per side for ours, several for
upstream (its import is slow under valgrind).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

# Runs inside the measured interpreter: warm up, marker, n units, marker; for each task.
PHASES = """
import os, sys, warnings
warnings.simplefilter("ignore")
side, what, n, names = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
import neurogym
for name in names:
    env = neurogym.make(f"neurogym/{name}-v0" if side == "ours" else f"{name}-v0")
    env.reset(seed=0)
    env.action_space.seed(0)
    actions = [env.action_space.sample() for _ in range(4096)]
    if what == "step":
        for i in range(500):
            env.step(actions[i % 4096])
        os.getppid()
        for i in range(n):
            env.step(actions[i % 4096])
        os.getppid()
    elif what == "new_trials":  # ours only: a batch of 256 trials from the builder
        task = env.unwrapped
        for _ in range(20):
            task.new_trials(256)
        os.getppid()
        for _ in range(n):
            task.new_trials(256)
        os.getppid()
    else:
        task = env.unwrapped
        for _ in range(50):
            task.new_trial()
        os.getppid()
        for _ in range(n):
            task.new_trial()
        os.getppid()
"""


def count(python: str, side: str, what: str, n: int, names: list[str]) -> dict[str, int]:
    """Instructions per unit for each task, from one callgrind run of ``python``."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "phases.py"
        script.write_text(PHASES)
        out = Path(tmp) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--dump-before=getppid",
             f"--callgrind-out-file={out}", python, str(script), side, what, str(n), *names],
            check=True, capture_output=True, text=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},  # str hashes move dict probes: +-5 %
        )  # fmt: skip
        # dumps: .1 up to the first marker, .2 the first loop, .3 up to the next marker, ...
        result = {}
        for i, name in enumerate(names):
            text = Path(f"{out}.{2 * i + 2}").read_text()
            total = next(
                int(line.split()[1]) for line in text.splitlines()
                if line.startswith(("totals:", "summary:"))
            )  # fmt: skip
            result[name] = total // n
        return result


def main(argv: list[str] | None = None) -> int:
    """Print a table: task, instructions (ours), instructions (upstream), ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks", nargs="+")
    parser.add_argument("--what", choices=("step", "new_trial", "new_trials"), default="step")
    parser.add_argument("--n", type=int, default=5000, help="units measured per task")
    parser.add_argument("--upstream", help="python of a venv with neurogym==2.3.1")
    args = parser.parse_args(argv)
    ours = count(sys.executable, "ours", args.what, args.n, args.tasks)
    theirs = {}
    if args.upstream and args.what != "new_trials":  # upstream has no batch builder
        theirs = count(args.upstream, "up", args.what, args.n, args.tasks)
    print(f"instructions per {args.what}")
    print("| task | ours | upstream 2.3.1 | upstream / ours |\n|---|---:|---:|---:|")
    for name in args.tasks:
        up = theirs.get(name)
        ratio = f"{up / ours[name]:.2f}x" if up else ""
        print(f"| {name} | {ours[name]:,} | {'' if up is None else f'{up:,}'} | {ratio} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
