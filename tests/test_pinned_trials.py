"""Pinned behaviour of every task: the first seeded trials and the rewards of fixed actions.

For each registered task this records, from ``reset(seed=0)`` and two more ``new_trial()``
calls, each trial's observation (shape, per-dimension sum and sum of squares), ground truth,
trial dict and period boundaries; the rewards and episode flags of 150 steps of a fixed action
sequence from ``reset(seed=1)``; and, where a task supports whole batches, the sums of
``neurogym.batch(task, 8, seed=2)``. Integers and strings must match exactly, floats to a
relative 1e-6 (numpy's vectorised transcendental functions may differ in the last bit between
CPUs).

A change that alters these on purpose regenerates the file and says so in its commit message:

    python3 run.py nox -R -s integration -- tests/test_pinned_trials.py --update-pins

Then ``git diff tests/pinned/trials.json`` shows which tasks changed. A new task is added by
the same command (its entry is new; the others must stay unchanged).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest

import neurogym

PINS = Path(__file__).resolve().parent / "pinned" / "trials.json"
TASK_IDS = [spec.id for spec in neurogym.tasks()]
N_TRIALS = 3
N_STEPS = 150
REL = 1e-6


def _plain(value: Any) -> Any:
    """JSON-ready form of trial-dict values, arrays and numpy scalars."""
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in sorted(value.items(), key=str)}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, np.ndarray):
        return {
            "array": list(value.shape),
            "dtype": str(value.dtype),
            "values": _plain(value.ravel().tolist()[:64]),
        }
    if isinstance(value, np.bool_ | bool):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating | float):
        return float(value)
    if value is None or isinstance(value, int | str):
        return value
    return repr(value)


def _array_digest(array: Any) -> dict[str, Any] | None:
    if array is None:
        return None
    array = np.asarray(array)
    width = int(np.prod(array.shape[1:]))
    flat = array.reshape(array.shape[0], width).astype(np.float64) if array.ndim else array
    return {
        "shape": list(array.shape),
        "dtype": str(array.dtype),
        "sum": np.sum(flat, axis=0).tolist() if array.ndim else float(array),
        "sumsq": np.sum(flat * flat, axis=0).tolist() if array.ndim else float(array) ** 2,
    }


def _trial_record(env: Any) -> dict[str, Any]:
    env = env.unwrapped
    return {
        "trial": _plain(env.trial),
        "ob": _array_digest(getattr(env, "ob", None)),
        "gt": _array_digest(getattr(env, "gt", None)),
        "start_t": _plain(dict(env.start_t)),
        "end_t": _plain(dict(env.end_t)),
    }


def _fixed_action(space: gymnasium.Space[Any], step: int) -> Any:
    if isinstance(space, gymnasium.spaces.Discrete):
        return int(space.start + (7 * step + 3) % int(space.n))
    if isinstance(space, gymnasium.spaces.Box):
        phase = np.arange(space.shape[0] if space.shape else 1) + step
        low = np.where(np.isfinite(space.low), space.low, -1.0)
        high = np.where(np.isfinite(space.high), space.high, 1.0)
        return (low + (high - low) * (0.5 + 0.5 * np.sin(phase))).astype(space.dtype)
    raise NotImplementedError(f"no fixed action sequence for {space}")


def _batch_record(task_id: str) -> dict[str, Any]:
    try:
        batch = neurogym.batch(task_id, 8, seed=2)
    except Exception as exc:  # a task without batches pins the reason instead
        return {"error": type(exc).__name__}
    x, y, mask, _ = batch
    return {"x": _array_digest(x), "y": _array_digest(y), "mask": _array_digest(mask)}


def record(task_id: str) -> dict[str, Any]:
    """Everything pinned for one task."""
    env = neurogym.make(task_id)
    env.reset(seed=0)
    trials = [_trial_record(env)]
    for _ in range(N_TRIALS - 1):
        env.get_wrapper_attr("new_trial")()  # the outermost trial wrapper, else the task
        trials.append(_trial_record(env))
    env.reset(seed=1)
    steps = []
    for step in range(N_STEPS):
        _, reward, terminated, truncated, info = env.step(_fixed_action(env.action_space, step))
        steps.append(
            [float(reward), bool(terminated), bool(truncated), bool(info.get("new_trial"))]
        )
        if terminated or truncated:
            env.reset()
    return {"trials": trials, "steps": steps, "batch": _batch_record(task_id)}


def _compare(expected: Any, actual: Any, path: str) -> list[str]:
    if (
        isinstance(expected, float)
        and isinstance(actual, int | float)
        and not isinstance(actual, bool)
    ):
        same = (math.isnan(expected) and math.isnan(actual)) or math.isclose(
            expected, actual, rel_tol=REL, abs_tol=1e-9
        )
        return [] if same else [f"{path}: pinned {expected!r}, now {actual!r}"]
    if isinstance(expected, dict) and isinstance(actual, dict):
        problems = []
        if expected.keys() != actual.keys():
            return [f"{path}: pinned keys {sorted(expected)}, now {sorted(actual)}"]
        for key in expected:
            problems += _compare(expected[key], actual[key], f"{path}.{key}")
        return problems
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return [f"{path}: pinned length {len(expected)}, now {len(actual)}"]
        problems = []
        for index, (old, new) in enumerate(zip(expected, actual, strict=True)):
            problems += _compare(old, new, f"{path}[{index}]")
        return problems
    return [] if expected == actual else [f"{path}: pinned {expected!r}, now {actual!r}"]


def _dumps(pins: dict[str, Any]) -> str:
    """One line per task and section, so that ``git diff`` shows which tasks changed."""
    lines = ["{"]
    for task_index, task_id in enumerate(sorted(pins)):
        lines.append(f"  {json.dumps(task_id)}: {{")
        sections = sorted(pins[task_id].items())
        for index, (section, value) in enumerate(sections):
            comma = "," if index < len(sections) - 1 else ""
            lines.append(f"    {json.dumps(section)}: {json.dumps(value, sort_keys=True)}{comma}")
        lines.append("  }," if task_index < len(pins) - 1 else "  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _load() -> dict[str, Any]:
    return json.loads(PINS.read_text(encoding="utf-8")) if PINS.exists() else {}


@pytest.fixture(scope="module")
def pins(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The pinned records; with ``--update-pins``, rewritten from the current code first."""
    if request.config.getoption("--update-pins"):
        current = {task_id: record(task_id) for task_id in TASK_IDS}
        PINS.parent.mkdir(exist_ok=True)
        PINS.write_text(_dumps(current), encoding="utf-8")
    return _load()


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_task_matches_its_pin(pins, task_id):
    assert task_id in pins, (
        f"{task_id} has no pin yet; add it with: python3 run.py nox -R -s integration -- "
        "tests/test_pinned_trials.py --update-pins"
    )
    problems = _compare(pins[task_id], record(task_id), task_id)
    assert not problems, "behaviour changed:\n" + "\n".join(problems[:20])


def test_pins_name_only_installed_tasks(pins):
    stale = sorted(set(pins) - set(TASK_IDS))
    assert not stale, f"pins for tasks that are not registered (renamed or removed?): {stale}"


def test_compare_reports_differences():
    pinned = {"a": [1, 2.0, {"b": "x"}], "c": 1.0}
    assert _compare(pinned, {"a": [1, 2.0 * (1 + 1e-9), {"b": "x"}], "c": 1.0}, "t") == []
    assert _compare(pinned, {"a": [1, 2.1, {"b": "y"}], "c": 1.0}, "t") == [
        "t.a[1]: pinned 2.0, now 2.1",
        "t.a[2].b: pinned 'x', now 'y'",
    ]
    assert _compare(pinned, {"a": [1], "c": 1.0}, "t") == ["t.a: pinned length 3, now 1"]
