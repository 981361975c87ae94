"""Runs this project's and upstream NeuroGym 2.3.1's benchmarks back to back and compares them.

Usage (``nox -s bench`` does this)::

    python bench/compare.py --upstream UPSTREAM_PYTHON [--ours OURS_PYTHON] [--reps 5]
        [--baseline BASELINE_PYTHON] [--instructions]

Repetitions are interleaved (ours, upstream, upstream, ours, ...) and every figure is the
median over repetitions. Prints one table and writes it, with a description of the machine
and the raw figures, to ``bench/results/<date>-<host>.md``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import baseline
import instructions
import paired

HERE = Path(__file__).resolve().parent
YANG19 = ("go", "anti", "rtgo", "rtanti", "dlygo", "dlyanti", "dm1", "dm2", "ctxdm1", "ctxdm2",
          "multidm", "dlydm1", "dlydm2", "ctxdlydm1", "ctxdlydm2", "multidlydm", "dms", "dnms",
          "dmc", "dnmc")  # fmt: skip
MAIN_TASKS = ("PerceptualDecisionMaking", "ContextDecisionMaking", "MultiSensoryIntegration",
              "PostDecisionWager")  # fmt: skip
IMPORT_CODE = """
import os, sys, time
t0 = time.perf_counter()
import {module}
t1 = time.perf_counter()
hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]
print(t1 - t0, int(hwm) / 1024)
"""


def _run(python: str, script: str, *args: str) -> Any:
    env = {**os.environ, "PYTHONPATH": str(HERE)}
    done = subprocess.run(
        [python, str(HERE / script), *args], capture_output=True, text=True, env=env, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{script} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _import(python: str, module: str) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of ``import module`` in a fresh interpreter.

    Bytecode is written (``PYTHONDONTWRITEBYTECODE`` is dropped) and the caller warms up
    once: an installed wheel imports from compiled ``.pyc`` files, so a source file edited
    since its last import must not be compiled inside the measurement.
    """
    code = IMPORT_CODE.format(module=module)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True, env=env)
    seconds, mb = out.stdout.split()
    return float(seconds), float(mb)


def _has(python: str, module: str) -> bool:
    code = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)"
    return subprocess.run([python, "-c", code], check=False).returncode == 0


def _versions(python: str, modules: tuple[str, ...]) -> dict[str, str]:
    code = (
        "import importlib.metadata as m, platform, json;"
        f"print(json.dumps({{'python': platform.python_version(), "
        f"**{{n: m.version(n) for n in {list(modules)!r}}}}}))"
    )
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _calibration() -> float:
    start = time.perf_counter()
    x = 0
    for i in range(2_000_000):
        x += i
    return 2_000_000 / (time.perf_counter() - start)


def machine() -> dict[str, Any]:
    """CPU model, cores, load average, OS."""
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "host": socket.gethostname(),
        "cpu": model,
        "cores": os.cpu_count(),
        "os": platform.platform(),
        "loadavg": os.getloadavg(),
    }


med = paired.median  # the median of the values that are not nan (nan if none)


def fmt(value: float) -> str:
    """A rate with a k/M suffix."""
    if value != value:
        return "n/a"
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.3g}"


def collect(ours: str, upstream: str, reps: int, baseline: str | None = None) -> dict[str, Any]:
    """Runs everything; returns medians and raw repetitions (and a baseline's, if given)."""
    mine = set(_run(ours, "run.py", "--list"))
    theirs = set(_run(upstream, "upstream.py", "--list"))
    common = sorted(mine & theirs)
    tasks = json.dumps(common)
    raw: dict[str, list[Any]] = {"ours": [], "upstream": []}
    calibration = []
    for rep in range(reps):
        order = [("ours", ours, "run.py"), ("upstream", upstream, "upstream.py")]
        if baseline:
            raw.setdefault("baseline", [])
            order.append(("baseline", baseline, "run.py"))
        if rep % 2:
            order.reverse()
        for side, python, script in order:
            calibration.append(_calibration())
            raw[side].append(_run(python, script, "--tasks", tasks))
            print(f"  rep {rep + 1}/{reps}: {side} done", file=sys.stderr)
    sides = {"ours": (ours, "run"), "upstream": (upstream, "upstream")}
    if baseline:
        sides["baseline"] = (baseline, "run")
    single = paired.measure(sides, common)  # per-task single-env figures, in pairs
    if _has(ours, "stable_baselines3"):  # the rl extra: adapter vs DummyVecEnv (ours only)
        for rep in range(reps):
            raw.setdefault("rl", []).append(_run(ours, "rl.py"))
            print(f"  rep {rep + 1}/{reps}: rl done", file=sys.stderr)
    imports: dict[str, list[tuple[float, float]]] = {"ours": [], "upstream": [], "gym": []}
    for python in (ours, upstream):  # warm-up: writes any missing bytecode
        _import(python, "neurogym")
    for _ in range(7):
        imports["ours"].append(_import(ours, "neurogym"))
        imports["gym"].append(_import(ours, "gymnasium"))
        imports["upstream"].append(_import(upstream, "neurogym"))
    return {"common": common, "raw": raw, "single": single, "imports": imports,
            "calibration": calibration}  # fmt: skip


def summarise(data: dict[str, Any]) -> tuple[list[tuple[str, str, str, str]], dict[str, Any]]:
    """Table rows (metric, ours, upstream, ratio) and the figures behind the targets."""
    raw = data["raw"]

    def per_rep(side: str, *path: str) -> float:
        values = []
        for rep in raw[side]:
            value: Any = rep
            for key in path:
                value = value.get(key) if isinstance(value, dict) else None
            if isinstance(value, (int, float)):
                values.append(float(value))
        return med(values)

    rows: list[tuple[str, str, str, str]] = []
    figures: dict[str, Any] = {}
    common = data["common"]
    ds_ratios = {}
    for name in common:
        a, b = per_rep("ours", "dataset", name), per_rep("upstream", "dataset", name)
        if a == a and b == b:
            ds_ratios[name] = a / b
            rows.append(
                (f"Dataset timesteps/s, {name} (64 x 100)", fmt(a), fmt(b), f"{a / b:.1f}x")
            )
    figures["dataset_ratios"] = ds_ratios
    pdm = "PerceptualDecisionMaking"
    up_len = per_rep("upstream", "trial_len", pdm)
    up_trials = per_rep("upstream", "dataset", pdm) / up_len
    figures["upstream_dataset_trials_per_s"] = up_trials
    for size in ("256", "1024"):
        a = per_rep("ours", "batch", size)
        rows.append((f"whole-batch trials/s, PDM, B={size} (upstream: its Dataset)", fmt(a),
                     fmt(up_trials), f"{a / up_trials:.1f}x"))  # fmt: skip
        figures[f"batch_{size}"] = a / up_trials
    rows += _rng_rows(per_rep, figures)
    for n in ("1", "16", "256"):
        a, b = per_rep("ours", "vector", n), per_rep("upstream", "vector", n)
        rows.append((f"vector env-steps/s, PDM, N={n} (upstream: SyncVectorEnv)", fmt(a), fmt(b),
                     f"{a / b:.1f}x"))  # fmt: skip
        figures[f"vector_{n}"] = a / b
    rows += _single_rows(data["single"], common, figures)
    for size in ("256", "1024"):
        a, b = per_rep("ours", "mixed", size), per_rep("upstream", "mixed", size)
        rows.append((f"mixed yang19 trials/s, B={size} (upstream: Dataset over ScheduleEnvs)",
                     fmt(a), fmt(b), f"{a / b:.1f}x"))  # fmt: skip
        figures[f"mixed_{size}"] = a / b
    y_ours = {n: per_rep("ours", "yang19", n) for n in YANG19}
    y_up = {n: per_rep("upstream", "yang19", n) for n in YANG19}
    y_both = [n for n in YANG19 if y_ours[n] == y_ours[n] and y_up[n] == y_up[n]]
    y_ratio = med([y_ours[n] / y_up[n] for n in y_both])
    rows.append((f"yang19 new_trial/s, median over {len(y_both)} tasks",
                 fmt(med([y_ours[n] for n in y_both])), fmt(med([y_up[n] for n in y_both])),
                 f"{y_ratio:.1f}x (median of per-task ratios)"))  # fmt: skip
    figures["yang19_new_trial"] = y_ratio
    figures["yang19_new_trial_per_task"] = {n: (y_ours[n], y_up[n]) for n in y_both}
    if raw.get("rl"):
        import rl

        rows += [
            (f"{w} (upstream column: DummyVecEnv)", a, b, r) for w, a, b, r in rl.rows(raw["rl"])
        ]
        figures["sb3_step_64"] = med(
            [r["vec_step"]["64"]["adapter"] / r["vec_step"]["64"]["dummy"] for r in raw["rl"]]
        )
    imp = data["imports"]
    t_ours, t_up = med([t for t, _ in imp["ours"]]), med([t for t, _ in imp["upstream"]])
    t_gym = med([t for t, _ in imp["gym"]])
    m_ours, m_up = med([m for _, m in imp["ours"]]), med([m for _, m in imp["upstream"]])
    rows.append(("import neurogym (s, all plugins)", f"{t_ours:.3f}", f"{t_up:.3f}",
                 f"{t_up / t_ours:.1f}x faster"))  # fmt: skip
    rows.append(("  over import gymnasium (ms)", f"{1000 * (t_ours - t_gym):.0f}", "", ""))
    rows.append(("peak RSS after import (MB)", f"{m_ours:.0f}", f"{m_up:.0f}", ""))
    figures.update(import_speedup=t_up / t_ours, import_over_gym_ms=1000 * (t_ours - t_gym),
                   rss_mb=m_ours)  # fmt: skip
    return rows, figures


def _single_rows(
    single: dict[str, Any], common: list[str], figures: dict[str, Any]
) -> list[tuple[str, str, str, str]]:
    """Rows of the paired single-env figures (bench/paired.py), and the targets' figures."""
    rates, ratios, periods = single["rates"], single["ratios"]["upstream"], single["has_periods"]
    rows = []
    pdm = "PerceptualDecisionMaking"
    for key, label in (("steps_per_s", "single-env steps/s"), ("new_trial_per_s", "new_trial/s")):
        measured = {n: med(ratios.get(n, {}).get(key, [])) for n in common}
        both = [n for n in common if measured[n] > 0]  # not nan: measured on both sides
        ours_t = {n: rates["ours"][n][key] for n in both}
        up_t = {n: rates["upstream"][n][key] for n in both}
        per_task = {n: measured[n] for n in both}
        ratio_med = med(list(per_task.values()))
        a, b = med(list(ours_t.values())), med(list(up_t.values()))
        rows.append((f"{label}, median over {len(both)} common tasks (paired)", fmt(a), fmt(b),
                     f"{ratio_med:.2f}x (median of per-task ratios)"))  # fmt: skip
        figures[key] = ratio_med
        figures[f"{key}_per_task"] = {n: (ours_t[n], up_t[n], per_task[n]) for n in both}
        timed = both if key == "steps_per_s" else [n for n in both if periods.get(n, True)]
        slowest = min((per_task[n] for n in timed), default=float("nan"))
        figures["slowest_step_ratio" if key == "steps_per_s" else "slowest_new_trial_ratio"] = (
            slowest
        )
        if pdm in per_task:
            rows.append((f"{label}, {pdm} (paired)", fmt(ours_t[pdm]), fmt(up_t[pdm]),
                         f"{per_task[pdm]:.2f}x"))  # fmt: skip
    return rows


def per_task_lines(figures: dict[str, Any], single: dict[str, Any]) -> list[str]:
    """One row per common task: steps/s and new_trial/s, ours, upstream and the ratio."""
    steps, trials = figures["steps_per_s_per_task"], figures["new_trial_per_s_per_task"]
    ratios = single["ratios"]["upstream"]
    lines = [
        "## Per task (single env, paired)",
        "",
        f"Measured in pairs (bench/paired.py): {paired.ROUNDS} rounds of {paired.WINDOW} s "
        "windows per side, ours and upstream back to back; rates are medians, a ratio is the "
        "median of the per-round ratios, [min-max] over rounds. Ratios below 1x are marked "
        "**below** (new_trial only counts for tasks with periods: a task without them "
        "generates a trial at every step boundary, which the steps/s figure includes).",
        "",
        "| task | periods | steps/s ours | upstream | ratio [min-max] | new_trial/s ours "
        "| upstream | ratio [min-max] |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    nan = (float("nan"),) * 3
    for name in sorted(steps):
        periods = single["has_periods"].get(name, True)
        (sa, sb, sr), (ta, tb, tr) = steps[name], trials.get(name, nan)
        s_rounds = ratios[name]["steps_per_s"]
        t_rounds = ratios[name].get("new_trial_per_s", [float("nan")])
        step_mark = " **below**" if sr < 1 else ""
        trial_mark = " **below**" if periods and tr < 1 else ""
        lines.append(
            f"| {name} | {'yes' if periods else 'no'} | {fmt(sa)} | {fmt(sb)} | "
            f"{sr:.2f}x{step_mark} [{min(s_rounds):.2f}-{max(s_rounds):.2f}] | {fmt(ta)} | "
            f"{fmt(tb)} | {tr:.2f}x{trial_mark} [{min(t_rounds):.2f}-{max(t_rounds):.2f}] |"
        )
    return [*lines, ""]


def _rng_rows(per_rep: Any, figures: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """``new_trials(256)`` of PDM, the RNG bound and the fraction (ours only, same process)."""
    ours, bound = per_rep("ours", "rng_bound", "new_trials"), per_rep("ours", "rng_bound", "bound")
    fraction = per_rep("ours", "rng_bound", "fraction")
    figures["rng_fraction"] = fraction
    rows = [
        ("new_trials(256) trials/s, PDM", fmt(ours), "", ""),
        ("RNG bound: standard_normal float32 into (256, 20, 2), trials/s", fmt(bound), "", ""),
        ("new_trials(256) as a fraction of the RNG bound", f"{fraction:.0%}", "", ""),
    ]
    by_hand = per_rep("ours", "rng_bound", "by_hand")
    if by_hand == by_hand:  # (not NaN: measured; bench/lean_pdm.py)
        by_hand_fraction = per_rep("ours", "rng_bound", "by_hand_fraction")
        rows += [
            ("the same batch in hand-written numpy, no framework (ceiling), trials/s",
             fmt(by_hand), "", ""),
            ("hand-written numpy as a fraction of the RNG bound", f"{by_hand_fraction:.0%}", "",
             ""),
        ]  # fmt: skip
        of_by_hand = per_rep("ours", "rng_bound", "of_by_hand")
        if of_by_hand == of_by_hand:  # (runs before this figure existed lack it)
            share = f"{of_by_hand:.0%}"
            rows.append(("new_trials(256) as a fraction of the hand-written batch", share, "", ""))
    return rows


TARGETS = (
    ("single-env step >= 1x upstream for every task (the slowest task's ratio)",
     lambda f: f["slowest_step_ratio"], 1),
    ("new_trial >= 1x upstream for every task with periods (the slowest task's ratio)",
     lambda f: f["slowest_new_trial_ratio"], 1),
    ("single-env step >= 2x (ratio of the medians over tasks)", lambda f: f["steps_per_s"], 2),
    ("new_trials(256) >= 60% of the RNG bound (PDM)", lambda f: f["rng_fraction"], 0.6),
    ("Dataset (batch 64) >= 40x upstream (median over common tasks)",
     lambda f: med(list(f["dataset_ratios"].values())), 40),
    ("Dataset PDM >= 50x", lambda f: f["dataset_ratios"].get("PerceptualDecisionMaking", 0), 50),
    ("vector env N=256 >= 50x upstream sync loop", lambda f: f["vector_256"], 50),
    ("yang19 new_trial >= 3x (median over the 20 tasks)", lambda f: f["yang19_new_trial"], 3),
    ("import adds <= 100 ms over gymnasium", lambda f: -f["import_over_gym_ms"], -100),
    ("peak RSS < 80 MB", lambda f: -f["rss_mb"], -80),
    ("no figure worse than the baseline beyond its spread (with --baseline)",
     lambda f: -f.get("worse_than_baseline", 0), 0),
)  # fmt: skip


NEAR_ONE = 1.1
"""Paired ratios under this are counted in instructions too (``--instructions``)."""


def near_one(single: dict[str, Any]) -> dict[str, list[str]]:
    """The tasks whose paired step (or, with periods, new_trial) ratio is under NEAR_ONE."""
    ratios, periods = single["ratios"]["upstream"], single["has_periods"]
    rows: dict[str, list[str]] = {"step": [], "new_trial": []}
    for name in sorted(ratios):
        if med(ratios[name].get("steps_per_s", [])) < NEAR_ONE:
            rows["step"].append(name)
        if periods.get(name, True) and med(ratios[name].get("new_trial_per_s", [])) < NEAR_ONE:
            rows["new_trial"].append(name)
    return rows


def count_near_one(ours: str, upstream: str, single: dict[str, Any]) -> dict[str, Any]:
    """Callgrind instructions per step / new_trial of the rows near 1x, both sides."""
    counted: dict[str, Any] = {}
    for what, names in near_one(single).items():
        if names:
            n = 5000 if what == "step" else 300
            counted[what] = {
                "ours": instructions.count(ours, "ours", what, n, names),
                "upstream": instructions.count(upstream, "up", what, n, names),
            }
    return counted


def instruction_lines(counted: dict[str, Any], figures: dict[str, Any]) -> list[str]:
    """The section of instruction counts beside the paired wall-clock ratios."""
    lines = [
        f"## Instructions of the rows under {NEAR_ONE}x (callgrind)",
        "",
        "A paired wall-clock ratio near 1x moves by tens of percent between runs on a shared "
        "VM; an instruction count does not (bench/instructions.py: one callgrind run per side "
        "and figure). upstream / ours above 1 means ours runs fewer instructions.",
        "",
        "| task | figure | paired ratio | instructions ours | upstream | upstream / ours |",
        "|---|---|---:|---:|---:|---:|",
    ]
    per_task = {"step": figures["steps_per_s_per_task"],
                "new_trial": figures["new_trial_per_s_per_task"]}  # fmt: skip
    for what, sides in counted.items():
        for name, ours in sides["ours"].items():
            theirs = sides["upstream"].get(name)
            paired_ratio = per_task[what].get(name, (0, 0, float("nan")))[2]
            ratio = f"{theirs / ours:.2f}x" if theirs else ""
            lines.append(
                f"| {name} | {what} | {paired_ratio:.2f}x | {ours:,} | "
                f"{'' if theirs is None else f'{theirs:,}'} | {ratio} |"
            )
    return [*lines, ""]


def report(data: dict[str, Any], info: dict[str, Any]) -> str:
    """The markdown report."""
    rows, figures = summarise(data)
    if data["raw"].get("baseline"):
        figures["worse_than_baseline"] = baseline.worse_count(
            data["raw"]["ours"], data["raw"]["baseline"], data["single"]
        )
    lines = [
        f"# Benchmark: neurogym (this repo) vs NeuroGym 2.3.1 — {info['date']}",
        "",
        f"Command: `{info['command']}`; {info['reps']} interleaved repetitions, medians.",
        "",
        "## Machine",
        "",
        f"- CPU: {info['machine']['cpu']}, {info['machine']['cores']} cores",
        f"- OS: {info['machine']['os']}",
        f"- load average at start {info['load_start']}, at end {info['load_end']}",
        f"- calibration loop (iterations/s, median; min-max): {med(data['calibration']):.3g} "
        f"({min(data['calibration']):.3g}-{max(data['calibration']):.3g})",
        f"- ours: {info['ours_versions']}",
        f"- upstream: {info['upstream_versions']}",
        "",
        "## Results",
        "",
        "| workload | ours | upstream 2.3.1 | ratio |",
        "|---|---:|---:|---:|",
        *(f"| {m} | {a} | {b} | {r} |" for m, a, b, r in rows),
        "",
    ]
    lines += per_task_lines(figures, data["single"])
    if data["raw"].get("baseline"):
        lines += baseline.section(
            data["raw"]["ours"], data["raw"]["baseline"], fmt, data["single"]
        )
    if "instructions" in data:
        lines += instruction_lines(data["instructions"], figures)
    lines += ["## Targets", ""]
    for label, get, threshold in TARGETS:
        value = get(figures)
        ok = value >= threshold
        shown = abs(value) if threshold < 0 else value
        lines.append(f"- {'MET' if ok else 'MISSED'}: {label} (measured {shown:.3g})")
    errors = {
        k: v
        for rep in data["raw"]["upstream"] + data["raw"]["ours"]
        for k, v in rep["errors"].items()
    } | data["single"]["errors"]
    if errors:
        lines += ["", "## Workloads that failed (excluded)", ""]
        lines += [f"- {k}: {v}" for k, v in sorted(errors.items())]
    lines += ["", "## Raw data", "", "```json", json.dumps(data, indent=1)[:200000], "```", ""]
    return "\n".join(lines)


def main() -> None:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ours", default=sys.executable)
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--baseline", default=None, help="python of an earlier commit's run")
    parser.add_argument("--out", default=str(HERE / "results"))
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count callgrind instructions of the per-task rows under 1.1x (valgrind)",
    )
    args = parser.parse_args()
    load_start = os.getloadavg()
    data = collect(args.ours, args.upstream, args.reps, args.baseline)
    if args.instructions:
        data["instructions"] = count_near_one(args.ours, args.upstream, data["single"])
    info = {
        "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "command": "nox -s bench" if os.environ.get("NOX_CURRENT_SESSION") else " ".join(sys.argv),
        "reps": args.reps,
        "machine": machine(),
        "load_start": tuple(round(x, 2) for x in load_start),
        "load_end": tuple(round(x, 2) for x in os.getloadavg()),
        "ours_versions": _versions(args.ours, ("numpy", "gymnasium", "neurogym-core")),
        "upstream_versions": _versions(args.upstream, ("numpy", "gymnasium", "neurogym", "torch")),
    }
    text = report(data, info)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    name = f"{datetime.date.today().isoformat()}-{info['machine']['host']}.md"
    (out / name).write_text(text)
    print(text.split("## Raw data")[0])
    print(f"written to {out / name}")


if __name__ == "__main__":
    main()
