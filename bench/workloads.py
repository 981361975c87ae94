"""Workloads shared by bench/run.py (this project) and bench/upstream.py (NeuroGym 2.3.1).

Each script runs every workload once (one repetition) in its own venv and prints one JSON
object; bench/compare.py interleaves repetitions of both and takes medians. Single-env
steps/s and new_trial/s are measured in pairs instead (bench/paired.py). This module uses
only the API both packages share (make, Dataset, gymnasium vector envs) plus an adapter.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

DATASET_BATCH, DATASET_SEQ = 64, 100
BATCH_SIZES = (256, 1024)
VECTOR_NS = (1, 16, 256)
VECTOR_TASK = "PerceptualDecisionMaking"
YANG19 = ("go", "anti", "rtgo", "rtanti", "dlygo", "dlyanti", "dm1", "dm2", "ctxdm1", "ctxdm2",
          "multidm", "dlydm1", "dlydm2", "ctxdlydm1", "ctxdlydm2", "multidlydm", "dms", "dnms",
          "dmc", "dnmc")  # fmt: skip
MIXED_SIZES = (256, 1024)
RNG_BATCH = 256
RNG_SHAPE = (RNG_BATCH, 20, 2)  # PDM's noise at dt=100: 20 stimulus steps x 2 channels
RNG_ROUNDS = 5
MIN_TIME = 0.25  # seconds per measurement


def rate(call: Callable[[], Any], units: float, min_time: float = MIN_TIME) -> float:
    """Units per second of ``call`` (calibrated so one measurement lasts ``min_time``)."""
    call()
    n = 1
    while True:
        start = time.perf_counter()
        for _ in range(n):
            call()
        elapsed = time.perf_counter() - start
        if elapsed >= min_time:
            return n * units / elapsed
        # grow at most 10x per round: a few fast calls (cache hits) mispredict slow ones
        n = min(n * 10, max(n * 2, int(n * min_time / max(elapsed, 1e-6) * 1.2)))


def _actions(space: Any, n: int = 4096) -> list[Any]:
    space.seed(0)
    return [space.sample() for _ in range(n)]


def dataset(make_dataset: Callable[[str, int, int], Any], name: str) -> float:
    """Timesteps/s of ``Dataset(name, batch_size=64, seq_len=100)`` (refills included)."""
    ds = make_dataset(name, DATASET_BATCH, DATASET_SEQ)
    next(ds)
    return rate(lambda: next(ds), DATASET_BATCH * DATASET_SEQ)


def vector(make_vec: Callable[[str, int], Any], n: int) -> float:
    """Env-steps/s of a vector env of ``n`` PerceptualDecisionMaking envs, random actions."""
    vec = make_vec(VECTOR_TASK, n)
    vec.reset(seed=0)
    acts = np.random.default_rng(0).integers(0, 3, (64, n))
    state = {"i": 0}

    def block() -> None:
        i = state["i"]
        for k in range(8):
            vec.step(acts[(i + k) % 64])
        state["i"] = i + 8

    block()
    out = rate(block, 8 * n)
    vec.close()
    return out


def rng_bound(
    new_trials: Callable[[int], Any], by_hand: Callable[[int], Any] | None = None
) -> dict[str, float]:
    """``new_trials(256)`` trials/s of PerceptualDecisionMaking against the RNG bound.

    The RNG bound is the rate of drawing that batch's noise alone:
    ``Generator.standard_normal(dtype=float32, out=...)`` into a ``(256, 20, 2)`` array, in
    trials/s. ``by_hand`` (optional) makes the same batch in hand-written numpy
    (bench/lean_pdm.py): the ceiling of a fixed-structure task without a framework, and
    ``new_trials`` as a fraction of it. All are measured in alternation (``RNG_ROUNDS``
    rounds, so a load change hits each); a fraction is the median of the per-round ratios.
    """
    gen = np.random.default_rng(0)
    noise = np.empty(RNG_SHAPE, dtype=np.float32)
    ours, bound, fraction, lean, lean_fraction, of_lean = [], [], [], [], [], []
    for _ in range(RNG_ROUNDS):
        ours.append(rate(lambda: new_trials(RNG_BATCH), RNG_BATCH))
        bound.append(rate(lambda: gen.standard_normal(dtype=np.float32, out=noise), RNG_BATCH))
        fraction.append(ours[-1] / bound[-1])
        if by_hand is not None:
            lean.append(rate(lambda: by_hand(RNG_BATCH), RNG_BATCH))
            lean_fraction.append(lean[-1] / bound[-1])
            of_lean.append(ours[-1] / lean[-1])
    out = {"new_trials": median(ours), "bound": median(bound), "fraction": median(fraction)}
    if by_hand is not None:
        out["by_hand"], out["by_hand_fraction"] = median(lean), median(lean_fraction)
        out["of_by_hand"] = median(of_lean)  # new_trials against the hand-written batch
    return out


def yang19(adapter: Any, out: dict[str, Any]) -> None:
    """new_trial()/s of each Yang et al. 2019 task and mixed-task trials/s of all 20.

    Ours: ``neurogym.batch`` of ``yang19.all`` (B = 256, 1024). Upstream: its ``Dataset``
    (64 x 100) over ``ScheduleEnvs`` of its 20 ``yang19.*`` envs with ``env_input=True`` (the
    setup of its own tests), timesteps/s divided by the mean trial length of the 20 tasks.
    """
    out["yang19"] = {}
    for name in YANG19:
        try:
            env = adapter.make(f"yang19.{name}")
            env.reset(seed=0)
            new_trial = env.unwrapped.new_trial
            out["yang19"][name] = rate(lambda f=new_trial: [f() for _ in range(32)], 32)
        except Exception as exc:
            out["errors"][f"yang19 {name}"] = f"{type(exc).__name__}: {exc}"[:200]
    try:
        out["mixed"] = {str(size): adapter.mixed(size) for size in MIXED_SIZES}
    except Exception as exc:
        out["errors"]["mixed"] = f"{type(exc).__name__}: {exc}"[:200]


def run(adapter: Any) -> None:
    """Runs every workload once and prints the results as one JSON object."""
    warnings.simplefilter("ignore")
    if "--list" in sys.argv:
        print(json.dumps(adapter.names()))
        return
    names = json.loads(sys.argv[sys.argv.index("--tasks") + 1])
    out: dict[str, Any] = {"dataset": {}, "vector": {}, "batch": {}, "errors": {}}
    for name in names:
        try:
            out["dataset"][name] = dataset(adapter.dataset, name)
        except Exception as exc:
            out["errors"][f"dataset {name}"] = f"{type(exc).__name__}: {exc}"[:200]
    for n in VECTOR_NS:
        out["vector"][str(n)] = vector(adapter.make_vec, n)
    if hasattr(adapter, "batch"):
        for size in BATCH_SIZES:
            out["batch"][str(size)] = rate(lambda s=size: adapter.batch(VECTOR_TASK, s), size)
    if hasattr(adapter, "new_trials"):
        by_hand = getattr(adapter, "by_hand", None)
        try:
            if by_hand is not None:
                by_hand(RNG_BATCH)  # checked against new_trials first (bench/lean_pdm.py)
        except Exception as exc:
            out["errors"]["by_hand"] = f"{type(exc).__name__}: {exc}"[:200]
            by_hand = None
        out["rng_bound"] = rng_bound(lambda n: adapter.new_trials(VECTOR_TASK, n), by_hand)
    if hasattr(adapter, "mixed"):
        yang19(adapter, out)
    out["trial_len"] = {}
    for name in names:
        try:
            out["trial_len"][name] = adapter.mean_trial_length(name)
        except Exception:
            out["errors"][f"trial_len {name}"] = traceback.format_exc(limit=1)[-200:]
    print(json.dumps(out))


def median(values: list[float]) -> float:
    """The median (nan if empty)."""
    return statistics.median(values) if values else float("nan")
