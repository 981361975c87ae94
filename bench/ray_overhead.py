"""When does ``neurogym sweep --ray`` pay? Times sweeps run here and on a local Ray instance.

Each sweep is ``neurogym sweep PerceptualDecisionMaking --seeds 0 .. n-1 --steps STEPS``, timed
as a whole command (Python start, imports, training, evaluation; with ``--ray`` also starting
and stopping the local Ray instance), once without and once with ``--ray``, for each ``n``.
Both print the same results (checked here). It also lists what Ray wrote under ``~/.ray`` and
the temporary directory.

Run it in a venv with neurogym-apps, torch and Ray (``nox -s scale`` installs one)::

    python bench/ray_overhead.py --runs 2 8 32 --steps 2000 --out bench/results/ray.md

Not part of the test command: it takes about as long as the sweeps it times (minutes).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TASK = "PerceptualDecisionMaking"


def _sweep(n: int, steps: int, ray: bool) -> tuple[float, list[str]]:
    """Wall time of one sweep command, and its result lines (one per run)."""
    neurogym = Path(sys.executable).with_name("neurogym")
    seeds = [str(seed) for seed in range(n)]
    command = [str(neurogym), "sweep", TASK, "--seeds", *seeds, "--steps", str(steps)]
    if ray:
        command.append("--ray")
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"$ {' '.join(command)}\n{done.stdout}\n{done.stderr}")
    runs = [line for line in done.stdout.splitlines() if line.startswith(("neurogym/", TASK))]
    return elapsed, runs


def _tree(path: Path) -> set[str]:
    if not path.exists():
        return set()
    return {str(p) for p in path.rglob("*")}


def main(argv: list[str] | None = None) -> int:
    """Times the sweeps and prints (and optionally writes) a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, nargs="+", default=[2, 8, 32])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--out", type=Path, help="also write the report here")
    args = parser.parse_args(argv)
    watched = [Path.home() / ".ray", Path(tempfile.gettempdir()) / "ray"]
    before = {str(path): _tree(path) for path in watched}
    rows = []
    for n in args.runs:
        here, here_runs = _sweep(n, args.steps, ray=False)
        on_ray, ray_runs = _sweep(n, args.steps, ray=True)
        if here_runs != ray_runs:
            raise SystemExit(f"results differ for n={n}:\n{here_runs}\n{ray_runs}")
        rows.append((n, here, on_ray))
        print(f"n={n}: here {here:.1f} s, Ray {on_ray:.1f} s", flush=True)
    written = []
    for path in watched:
        new = sorted(_tree(path) - before[str(path)])
        top = sorted({str(Path(p).relative_to(path).parts[0]) for p in new})
        written.append(f"- `{path}`: {len(new)} new paths ({', '.join(top[:6]) or 'none'})")
    cpus = os.cpu_count()
    lines = [
        f"Sweeps of {TASK}, {args.steps} steps per run, on {cpus} CPUs "
        f"(`python bench/ray_overhead.py --runs {' '.join(map(str, args.runs))} "
        f"--steps {args.steps}`):",
        "",
        "| runs | here (s) | `--ray` (s) | Ray / here | per run here (s) |",
        "|---:|---:|---:|---:|---:|",
        *(f"| {n} | {h:.1f} | {r:.1f} | {r / h:.2f} | {h / n:.1f} |" for n, h, r in rows),
        "",
        "What Ray wrote:",
        *written,
    ]
    report = "\n".join(lines) + "\n"
    print(report)
    if args.out:
        args.out.write_text(report, encoding="utf-8")
    if shutil.which("ray"):
        subprocess.run(["ray", "stop"], capture_output=True, check=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
