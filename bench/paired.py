"""Single-env steps/s, new_trial/s and Dataset timesteps/s, measured in pairs (same machine).

Whole repetitions of ``run.py`` and ``upstream.py`` take minutes each, and a shared 2-core VM
changes speed by up to 2x within that time (bench/results): a per-task ratio of two
repetitions minutes apart measured the VM as much as the code. Here each side runs in one
persistent worker process (its own venv), and the driver alternates short windows between
them, task by task: round ``r`` measures ours and upstream (and a baseline, if given) for
``WINDOW`` seconds each, back to back, in an order that alternates between rounds. A task's
ratio is the median over ``ROUNDS`` of the per-round ratios; its rates are the medians.

A worker keeps one env per task across windows (made with the adapter's ``make``, reset with
seed 0, random actions from the action space seeded 0, trials generated as they end), so a
window continues where the previous one stopped. Dataset windows (``next(ds)`` of the adapter's
``Dataset(name, 64, 100)``, as run.py's unpaired figure, refills included) keep the current
task's Dataset only: its cache is dropped when the next task starts.

Usage: ``compare.py`` calls :func:`measure`; ``python paired.py --serve run|upstream`` is a
worker (one JSON request per line on stdin, one JSON answer per line on stdout).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from workloads import DATASET_BATCH, DATASET_SEQ

HERE = Path(__file__).resolve().parent
ROUNDS = 7
WINDOW = 0.1  # seconds per side, task and figure in one round
STEP_BLOCK, TRIAL_BLOCK = 256, 32
FIGURES = (
    ("step", "steps_per_s"),
    ("new_trial", "new_trial_per_s"),
    ("dataset", "dataset_timesteps_per_s"),
)
"""Window kinds and the figure each gives (per task and side)."""


class _Served:
    """One worker's envs, made on first use and kept across windows."""

    def __init__(self, adapter: Any) -> None:
        self.adapter = adapter
        self.envs: dict[str, Any] = {}
        self.dataset: tuple[str, Any] | None = None  # (task, its Dataset): the current task's

    def _dataset(self, name: str) -> Any:
        if self.dataset is None or self.dataset[0] != name:
            self.dataset = None  # the previous task's cache goes first
            ds = self.adapter.dataset(name, DATASET_BATCH, DATASET_SEQ)
            next(ds)  # the first refill, and warm-up
            self.dataset = (name, ds)
        return self.dataset[1]

    def _dataset_window(self, name: str, seconds: float) -> dict[str, Any]:
        ds = self._dataset(name)
        units, start = 0, time.perf_counter()
        while True:
            next(ds)
            units += DATASET_BATCH * DATASET_SEQ
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                return {"rate": units / elapsed}

    def _env(self, name: str) -> dict[str, Any]:
        if name not in self.envs:
            env = self.adapter.make(name)
            env.reset(seed=0)
            env.action_space.seed(0)
            actions = [env.action_space.sample() for _ in range(4096)]
            for action in actions[:512]:  # warm up: first trials, caches, specialisation
                env.step(action)
            periods = bool(getattr(env.unwrapped, "timing", None))
            self.envs[name] = {"env": env, "actions": actions, "i": 512, "periods": periods}
        return self.envs[name]

    def window(self, name: str, what: str, seconds: float) -> dict[str, Any]:
        """Units/s of ``what`` ("step", "new_trial" or "dataset") of task ``name``."""
        if what == "dataset":
            return self._dataset_window(name, seconds)
        state = self._env(name)
        env, actions = state["env"], state["actions"]
        new_trial = env.unwrapped.new_trial
        units = 0
        start = time.perf_counter()
        while True:
            if what == "step":
                i = state["i"]
                for k in range(STEP_BLOCK):
                    env.step(actions[(i + k) & 4095])
                state["i"] = i + STEP_BLOCK
                units += STEP_BLOCK
            else:
                for _ in range(TRIAL_BLOCK):
                    new_trial()
                units += TRIAL_BLOCK
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                return {"rate": units / elapsed, "has_periods": state["periods"]}


def serve(adapter: Any) -> None:
    """Answers window requests from stdin until it closes."""
    warnings.simplefilter("ignore")
    served = _Served(adapter)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            answer = served.window(request["task"], request["what"], request["seconds"])
        except Exception as exc:  # the driver excludes the task and names the error
            answer = {"error": f"{type(exc).__name__}: {exc}"[:200]}
        print(json.dumps(answer), flush=True)


class _Worker:
    """A worker process of one side, spoken to over pipes."""

    def __init__(self, python: str, script: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(HERE)}
        self.process = subprocess.Popen(
            [python, str(HERE / "paired.py"), "--serve", script],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip
        self._read()  # the ready line, once the side's imports are done

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"a bench worker exited ({self.process.args})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def window(self, task: str, what: str) -> dict[str, Any]:
        assert self.process.stdin is not None
        request = {"task": task, "what": what, "seconds": WINDOW}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return self._read()

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


def measure(sides: dict[str, tuple[str, str]], tasks: list[str]) -> dict[str, Any]:
    """Paired single-env figures of every task on every side.

    Args:
        sides: Side name (``ours``, ``upstream``, optionally ``baseline``) to its python and
            worker script (``run`` or ``upstream``).
        tasks: Task names every side has.

    Returns:
        ``{"rates": {side: {task: {"steps_per_s", "new_trial_per_s",
        "dataset_timesteps_per_s"}}}, "ratios": {side:
        {task: {figure: [per-round ratio of ours to side]}}}, "has_periods": {task: bool},
        "errors": {...}}`` (ratios for every side but ours).
    """
    workers = {side: _Worker(python, script) for side, (python, script) in sides.items()}
    names = list(workers)
    rates: dict[str, dict[str, dict[str, Any]]] = {side: {} for side in names}
    ratios: dict[str, dict[str, dict[str, list[float]]]] = {s: {} for s in names if s != "ours"}
    has_periods: dict[str, bool] = {}
    errors: dict[str, str] = {}
    try:
        for task in tasks:
            for what, figure in FIGURES:
                per_round: dict[str, list[float]] = {side: [] for side in names}
                for r in range(ROUNDS):
                    for side in names if r % 2 == 0 else names[::-1]:
                        answer = workers[side].window(task, what)
                        if "error" in answer:
                            errors[f"single {task} ({side})"] = answer["error"]
                            per_round[side].append(float("nan"))
                            continue
                        per_round[side].append(answer["rate"])
                        if side == "ours" and "has_periods" in answer:
                            has_periods[task] = answer["has_periods"]
                for side in names:
                    rates[side].setdefault(task, {})[figure] = median(per_round[side])
                    if side != "ours":
                        pairs = zip(per_round["ours"], per_round[side], strict=True)
                        ratios[side].setdefault(task, {})[figure] = [a / b for a, b in pairs]
            print(f"  paired: {task} done", file=sys.stderr)
    finally:
        for worker in workers.values():
            worker.close()
    return {"rates": rates, "ratios": ratios, "has_periods": has_periods, "errors": errors}


def median(values: list[float]) -> float:
    """The median of the values that are not nan (nan if none).

    A task's rate, or its ratio from its per-round ratios; bench/compare.py uses it for every
    median it reports.
    """
    kept = [v for v in values if v == v]
    return statistics.median(kept) if kept else float("nan")


if __name__ == "__main__":
    if sys.argv[1:2] != ["--serve"]:
        raise SystemExit("usage: paired.py --serve run|upstream (compare.py drives the workers)")
    module = sys.argv[2]
    if module == "run":
        import run

        serve(run.Ours)
    else:
        import upstream

        serve(upstream.Upstream)
