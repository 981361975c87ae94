"""Summary statistics of seeded trials of a task, the same way on both sides of the fidelity check.

This file is standalone on purpose: it runs in the venv of upstream NeuroGym 2.3.1 (whose import
package is also called ``neurogym``) and in ours, and uses only what both expose: ``make``, the
outermost object's ``new_trial()``, and the unwrapped env's ``ob``, ``gt``, ``trial``,
``start_ind``, ``end_ind``, spaces and ``dt``. It never imports anything of this repository.

Usage (``nox -s fidelity`` runs it in upstream's venv)::

    python tests/fidelity/collect.py --side upstream --seed 1 --out reference/upstream-seed1.json

What it records per configuration (a task id and keyword arguments, see ``CONFIGS``):

* exact facts: observation and action spaces, named dims, ``dt``, the period names and order,
  the keys of the trial dict;
* per trial (the sampling unit of every test): the length in steps and each period's duration;
  each period's per-dim mean of the observation and of its square; the fraction of a period's
  steps at each ground-truth value (discrete) or its mean (continuous); the period means again
  per *answer* (the ground truth at the trial's last step), which is the joint of the ground
  truth and the input; the trial variables (value counts when few, moments otherwise);
* the rewards and performance a scripted agent earns that plays the ground truth whenever it
  is a valid action (a fixed action otherwise), over 1,000 full trials in closed loop (fewer
  where 100,000 steps do not hold them: PulseDecisionMaking).

Each recorded statistic is a sample summary: ``n``, ``mean``, ``var`` of per-trial values, or
``n`` and ``counts`` of a categorical variable. ``compare.py`` runs two-sample tests on them.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import warnings
from collections import Counter
from collections.abc import Iterable
from typing import Any

import numpy as np

# (label, task name as both sides know it, keyword arguments). Names are upstream's ids without
# "-v0"; ours are the same under the "neurogym/" namespace. Non-default variants cover every
# family: another dt (perceptual, working memory, value-based, motor, multitask), explicit
# context and other timing.
NATIVE = [
    "AntiReach",
    "ContextDecisionMaking",
    "DelayComparison",
    "DelayMatchCategory",
    "DelayMatchSample",
    "DelayMatchSampleDistractor1D",
    "DelayPairedAssociation",
    "DualDelayMatchSample",
    "EconomicDecisionMaking",
    "GoNogo",
    "HierarchicalReasoning",
    "IntervalDiscrimination",
    "MotorTiming",
    "MultiSensoryIntegration",
    "OneTwoThreeGo",
    "PerceptualDecisionMaking",
    "PerceptualDecisionMakingDelayResponse",
    "PostDecisionWager",
    "ProbabilisticReasoning",
    "PulseDecisionMaking",
    "Reaching1D",
    "Reaching1DWithSelfDistraction",
    "ReachingDelayResponse",
    "ReadySetGo",
    "SpatialSuppressMotion",
    "ToneDetection",
    "Bandit",
    "DawTwoStep",
]
YANG19 = [
    "go",
    "anti",
    "rtgo",
    "rtanti",
    "dlygo",
    "dlyanti",
    "dm1",
    "dm2",
    "ctxdm1",
    "ctxdm2",
    "multidm",
    "dlydm1",
    "dlydm2",
    "ctxdlydm1",
    "ctxdlydm2",
    "multidlydm",
    "dms",
    "dnms",
    "dmc",
    "dnmc",
]
VARIANTS: list[tuple[str, str, dict[str, Any]]] = [
    # upstream's AnnubesEnv has no defaults for these two; ours documents these as defaults
    ("AnnubesEnv", "AnnubesEnv", {"session": {"v": 0.5, "a": 0.5}, "catch_prob": 0.5}),
    ("PerceptualDecisionMaking@dt=20", "PerceptualDecisionMaking", {"dt": 20}),
    (
        "ContextDecisionMaking@explicit_context",
        "ContextDecisionMaking",
        {"use_expl_context": True},
    ),
    ("DelayMatchSample@dt=50", "DelayMatchSample", {"dt": 50}),
    ("DelayComparison@delay=2000", "DelayComparison", {"timing": {"delay": 2000}}),
    ("EconomicDecisionMaking@dt=50", "EconomicDecisionMaking", {"dt": 50}),
    ("Bandit@n=3", "Bandit", {"n": 3, "p": (0.2, 0.3, 0.5)}),
    ("ReadySetGo@dt=50", "ReadySetGo", {"dt": 50}),
    ("GoNogo@dt=50", "GoNogo", {"dt": 50}),
    ("yang19.dm1@dt=20", "yang19.dm1", {"dt": 20}),
    ("yang19.dms@sigma=0", "yang19.dms", {"sigma": 0.0}),
]
COLLECTIONS = ["perceptualdecisionmaking.roitman02", "perceptualdecisionmaking.ibl20"]
CONFIGS: list[tuple[str, str, dict[str, Any]]] = [
    *((name, name, {}) for name in NATIVE),
    *((name, name, {}) for name in COLLECTIONS),
    *((f"yang19.{name}", f"yang19.{name}", {}) for name in YANG19),
    *VARIANTS,
]
AGENT_TRIALS, AGENT_STEPS = 1000, 100_000  # the scripted agent's trials, and a cap on its steps
MAX_CATEGORIES = 40  # a trial variable with more distinct values is summarised by moments


def make(side: str, name: str, kwargs: dict[str, Any]) -> Any:
    """The env of ``name`` on ``side`` ("ours" or "upstream"), seeded later."""
    if side == "upstream":
        import neurogym as ngym

        return ngym.make(f"{name}-v0", **kwargs)
    import neurogym

    return neurogym.make(f"neurogym/{name}-v0", **kwargs)


def seed(side: str, env: Any, value: int) -> None:
    """Seed every random draw of ``env`` and generate its first trial."""
    if side == "upstream":
        driver = _driver(env)
        (driver if hasattr(driver, "seed") else env.unwrapped).seed(value)
        env.reset()
    else:
        env.reset(seed=value)


def _driver(env: Any) -> Any:
    """The outermost object whose class defines ``new_trial`` (a trial wrapper or the task)."""
    obj = env
    while not hasattr(type(obj), "new_trial"):
        obj = obj.env
    return obj


def inflation(values: np.ndarray) -> float:
    """Variance inflation of a mean from serial correlation, ``(1 + r) / (1 - r)``.

    ``r`` is the lag-1 autocorrelation of the per-trial values (in trial order), clipped to
    [0, 0.98]: trials of tasks with state carried across trials (DawTwoStep's reward
    contingency, block priors) are not independent, and their effective sample is smaller.
    """
    if values.size < 3 or np.all(values == values[0]):
        return 1.0
    a, b = values[:-1] - values.mean(), values[1:] - values.mean()
    denominator = float(np.sqrt((a * a).sum() * (b * b).sum()))
    r = float((a * b).sum()) / denominator if denominator > 0 else 0.0
    r = min(max(r, 0.0), 0.98)
    return (1.0 + r) / (1.0 - r)


class Stats:
    """All statistics of one configuration, keyed by ``kind:detail`` strings."""

    def __init__(self) -> None:
        self.exact: dict[str, Any] = {}
        self.rows: dict[str, list[np.ndarray]] = {}
        self.series: dict[str, list[str]] = {}

    def add(self, key: str, value: float) -> None:
        """One trial's value of the statistic ``key``."""
        self.add_row(key, np.array([value], dtype=float))

    def add_row(self, template: str, row: np.ndarray) -> None:
        """One trial's values of the statistics ``template.format(i)`` for every column i."""
        self.rows.setdefault(template, []).append(row)

    def _sample_summaries(self) -> dict[str, dict[str, float]]:
        """Per statistic: n, mean, variance and inflation of its per-trial values."""
        out = {}
        for template, rows in self.rows.items():
            table = np.asarray(rows, dtype=float)
            n = table.shape[0]
            means = table.mean(axis=0)
            variances = table.var(axis=0, ddof=1) if n > 1 else np.zeros(table.shape[1])
            for column in range(table.shape[1]):
                out[template.format(column)] = {
                    "n": n,
                    "mean": float(means[column]),
                    "var": float(variances[column]),
                    "inflation": inflation(table[:, column]),
                }
        return out

    def count(self, key: str, value: Any) -> None:
        self.series.setdefault(key, []).append(_label(value))

    def summary(self) -> dict[str, Any]:
        samples = dict(sorted(self._sample_summaries().items()))
        counts = {}
        for key, series in sorted(self.series.items()):
            labels = np.asarray(series)
            categories = sorted(set(series))
            worst = max(inflation((labels == c).astype(float)) for c in categories)
            counts[key] = {
                "n": len(series),
                "counts": {c: int(np.sum(labels == c)) for c in categories},
                "inflation": worst,
            }
        return {"exact": self.exact, "samples": samples, "counts": counts}


def _label(value: Any) -> str:
    """A category label: ints as ints, floats rounded to 9 significant digits."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return str(int(number)) if number.is_integer() else f"{number:.9g}"
    return str(value)


def _space(space: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": type(space).__name__}
    if hasattr(space, "n"):
        out["n"] = int(space.n)
    if getattr(space, "shape", None) is not None:
        out["shape"] = list(space.shape)
    if getattr(space, "dtype", None) is not None:
        out["dtype"] = str(np.dtype(space.dtype))
    if hasattr(space, "low") and hasattr(space, "high"):
        out["low"] = sorted({float(v) for v in np.ravel(space.low)})
        out["high"] = sorted({float(v) for v in np.ravel(space.high)})
    name = getattr(space, "name", None)
    if isinstance(name, dict):
        out["name"] = {
            str(k): [int(x) for x in v]
            if isinstance(v, (list, tuple, range, np.ndarray))
            else int(v)
            for k, v in sorted(name.items())
        }
    return out


def _trial_values(trial: dict[str, Any]) -> Iterable[tuple[str, Any]]:
    """Scalar trial variables (numbers, bools, strings); arrays are recorded by size only."""
    for key, value in trial.items():
        if isinstance(value, (str, bool, int, float, np.bool_, np.integer, np.floating)):
            yield key, value
        elif isinstance(value, np.ndarray) and value.ndim == 0:
            yield key, value.item()
        elif isinstance(value, (list, tuple, np.ndarray)):
            yield f"{key}#size", int(np.size(value))


def record_trials(env: Any, stats: Stats, trials: int) -> None:
    """Record ``trials`` trials generated by ``new_trial()`` (no agent involved)."""
    driver = _driver(env)
    trial_keys: Counter[str] = Counter()
    trial_values: dict[str, list[Any]] = {}
    gt_fractions: dict[str, list[dict[str, float]]] = {}
    for _ in range(trials):
        driver.new_trial()
        task = driver.unwrapped
        if getattr(task, "ob", None) is None:  # upstream's DawTwoStep builds no ob array
            stats.count("length", "no ob array")
            ob = np.zeros((0, 1))
        else:
            ob = np.asarray(task.ob, dtype=float)
            stats.count("length", len(ob))
        gt = getattr(task, "gt", None)
        gt = None if gt is None else np.asarray(gt)
        if ob.ndim == 1:
            ob = ob[:, None]
        answer = None if gt is None or gt.ndim != 1 or len(gt) == 0 else _label(gt[-1])
        if answer is not None:
            stats.count("answer", answer)
        periods = sorted(task.start_ind, key=lambda p: (task.start_ind[p], task.end_ind[p]))
        stats.count("periods", ",".join(periods))
        for period in periods:
            start, end = int(task.start_ind[period]), int(task.end_ind[period])
            stats.count(f"duration:{period}", end - start)
            if end <= start or end > len(ob):
                continue
            block = ob[start:end]
            means = block.mean(axis=0)
            stats.add_row(f"ob:{period}:{{}}:mean", means)
            stats.add_row(f"ob:{period}:{{}}:sq", (block**2).mean(axis=0))
            if answer is not None:
                stats.add_row(f"joint:{period}:{{}}:answer={answer}", means)
            if gt is None or len(gt) < end:
                continue
            gblock = gt[start:end]
            if gblock.ndim == 1 and np.issubdtype(gblock.dtype, np.integer):
                fractions = {_label(v): float(np.mean(gblock == v)) for v in np.unique(gblock)}
                gt_fractions.setdefault(period, []).append(fractions)
                continue
            stats.add_row(f"gt:{period}:{{}}:mean", gblock.reshape(len(gblock), -1).mean(axis=0))
        trial = task.trial or {}
        trial_keys.update(trial.keys())
        for key, value in _trial_values(trial):
            trial_values.setdefault(key, []).append(value)
    stats.exact["trial_keys"] = sorted(trial_keys)
    for key, values in sorted(trial_values.items()):
        if len({_label(v) for v in values}) <= MAX_CATEGORIES or isinstance(values[0], str):
            for value in values:
                stats.count(f"trial:{key}", value)
        if not isinstance(values[0], str):
            for value in values:
                stats.add(f"trial:{key}:mean", float(value))
                stats.add(f"trial:{key}:sq", float(value) ** 2)
    for period, per_trial in gt_fractions.items():  # a value absent from a trial counts 0
        for value in sorted({v for fractions in per_trial for v in fractions}):
            for fractions in per_trial:
                stats.add(f"gt:{period}:={value}", fractions.get(value, 0.0))


def _policy(space: Any) -> Any:
    """The scripted agent: ground truth -> action, or None where the gt is not a valid action.

    A discrete action space takes an integer-valued scalar ground truth in its range; a box
    takes a ground truth of its shape inside its bounds. The same rule runs on both sides.
    """
    if hasattr(space, "n"):
        start, n = int(getattr(space, "start", 0)), int(space.n)

        def discrete(gt: Any) -> Any:
            if isinstance(gt, (int, np.integer)):
                action = int(gt)
            else:
                value = np.asarray(gt)
                if value.ndim != 0 or not np.isfinite(value) or float(value) != int(value):
                    return None
                action = int(value)
            return action if start <= action < start + n else None

        return discrete

    def box(gt: Any) -> Any:
        value = np.asarray(gt, dtype=space.dtype)
        return value if value.shape == space.shape and space.contains(value) else None

    return box


def record_agent(env: Any, stats: Stats, trials: int, max_steps: int) -> None:
    """Play the ground truth (a fixed action where it is not a valid action) for ``trials``."""
    space = env.action_space
    fixed = np.zeros(space.shape, dtype=space.dtype) if space.shape else 0
    policy = _policy(space)
    total, steps, done_trials, first = 0.0, 0, 0, True
    while done_trials < trials and steps < max_steps:
        try:  # re-read: upstream's ScheduleEnvs switches its unwrapped env every trial
            gt_now = env.unwrapped.gt_now
        except (AttributeError, IndexError, TypeError):
            gt_now = None
        action = None if gt_now is None else policy(gt_now)
        _, reward, terminated, truncated, info = env.step(fixed if action is None else action)
        total += float(reward)
        steps += 1
        if info.get("new_trial"):
            if not first:  # upstream's reset takes a hidden step into the first trial
                stats.add("agent:reward", total)
                stats.add("agent:performance", float(info.get("performance", 0.0)))
                done_trials += 1
            first, total = False, 0.0
        if terminated or truncated:
            env.reset()
            first, total = True, 0.0
    stats.exact["agent_trials"] = done_trials


def collect(
    side: str, label: str, name: str, kwargs: dict[str, Any], seed_value: int, trials: int
) -> dict[str, Any]:
    """The summary of ``trials`` seeded trials (and the scripted agent's) of one configuration."""
    stats = Stats()
    env = make(side, name, kwargs)
    task = env.unwrapped
    stats.exact["observation_space"] = _space(task.observation_space)
    stats.exact["action_space"] = _space(task.action_space)
    stats.exact["dt"] = float(task.dt)
    seed(side, env, seed_value)
    record_trials(env, stats, trials)
    env = make(side, name, kwargs)
    seed(side, env, seed_value + 1000)
    record_agent(env, stats, AGENT_TRIALS, max_steps=AGENT_STEPS)
    out = stats.summary()
    out.update({"label": label, "task": name, "kwargs": kwargs})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--side", choices=["ours", "upstream"], required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--only", nargs="*", help="configuration labels to collect")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    results = {}
    for label, name, kwargs in CONFIGS:
        if args.only and label not in args.only:
            continue
        results[label] = collect(args.side, label, name, kwargs, args.seed, args.trials)
        print(f"{label}: collected", file=sys.stderr, flush=True)
    meta = {
        "side": args.side,
        "seed": args.seed,
        "trials": args.trials,
        "command": " ".join(["python", "tests/fidelity/collect.py", *(argv or sys.argv[1:])]),
    }
    write(args.out, {"meta": meta, "configs": results})
    return 0


def write(path: str, data: dict[str, Any]) -> None:
    """Write a summary as JSON, gzipped (reproducibly: no timestamp) when ``path`` ends in .gz."""
    text = json.dumps(
        data,
        sort_keys=True,
        separators=(",", ":"),
        default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o),
    )
    if path.endswith(".gz"):
        with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as fh:
            fh.write(text.encode("utf-8"))
    else:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)


if __name__ == "__main__":
    raise SystemExit(main())
