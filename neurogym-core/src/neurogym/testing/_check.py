"""``check_task``: the conformance kit every task of every plugin must pass."""

from __future__ import annotations

import copy
import pickle
import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.utils.env_checker import check_env

from neurogym._deprecation import as_task_generator
from neurogym._env.contract import DRAW_THROUGH_THE_BUILDER

__all__ = ["TaskCheckError", "check_task"]

# gymnasium warnings that are informational for neurogym tasks (upstream's spaces are
# Box(-inf, inf) by design; instances made without gymnasium have no spec to re-make).
INFORMATIONAL_WARNINGS = (
    r"Box observation space (minimum|maximum) value is (-)?infinity",
    r"Box action space (minimum|maximum) value is (-)?infinity",
    r"environment not having a spec",
    # A tuning tip for RL libraries, not a defect: tasks keep upstream's action ranges.
    r"we recommend using a symmetric and normalized space",
)
_INFORMATIONAL = re.compile("|".join(INFORMATIONAL_WARNINGS))


class TaskCheckError(AssertionError):
    """Raised by :func:`check_task` with one line per failed check."""

    def __init__(self, task: str, failures: list[str]) -> None:
        self.task = task
        self.failures = failures
        lines = "\n".join(f"  - {failure}" for failure in failures)
        super().__init__(f"{task} failed {len(failures)} conformance check(s):\n{lines}")


@contextmanager
def _quiet_informational() -> Iterator[list[warnings.WarningMessage]]:
    """Records warnings, dropping gymnasium's informational ones."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kept: list[warnings.WarningMessage] = []
        yield kept
    kept.extend(w for w in caught if not _INFORMATIONAL.search(str(w.message)))


def _equal(a: Any, b: Any) -> bool:
    """Deep equality for obs, rewards and info dicts (arrays compared exactly, NaN == NaN)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a_arr, b_arr = np.asarray(a), np.asarray(b)
        if a_arr.shape != b_arr.shape:
            return False
        if a_arr.dtype.kind in "fc" and b_arr.dtype.kind in "fc":
            return bool(np.array_equal(a_arr, b_arr, equal_nan=True))
        return bool(np.array_equal(a_arr, b_arr))
    try:
        return bool(a == b) or (a != a and b != b)
    except (TypeError, ValueError):
        return False


def _actions(env: gym.Env[Any, Any], n: int, seed: int) -> list[Any]:
    """``n`` actions: half "fixate" (0) for Discrete spaces, the rest sampled with ``seed``."""
    space = copy.deepcopy(env.action_space)
    space.seed(seed)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        action = space.sample()
        if isinstance(space, gym.spaces.Discrete) and rng.random() < 0.5:
            action = space.start
        out.append(action)
    return out


def _rollout(env: gym.Env[Any, Any], seed: int, actions: list[Any]) -> list[Any]:
    first = env.reset(seed=seed)
    return [first, *(env.step(a) for a in actions)]


class _Checker:
    """Runs each check, collecting failures instead of stopping at the first."""

    def __init__(self, factory: Callable[[], gym.Env[Any, Any]], spec: Any, steps: int) -> None:
        self.factory = factory
        self.spec = spec
        self.steps = steps
        self.failures: list[str] = []

    def run(self, name: str, check: Callable[[], None]) -> None:
        try:
            check()
        except Exception as error:
            self.failures.append(f"{name}: {type(error).__name__}: {error}")

    # -------------------------------------------------------------- individual checks
    def gymnasium_checker(self) -> None:
        env = self.factory()
        with _quiet_informational() as caught:
            check_env(env.unwrapped, skip_render_check=True)
        if caught:
            messages = "; ".join(str(w.message) for w in caught)
            raise AssertionError(f"gymnasium's check_env warned: {messages}")

    def determinism(self) -> None:
        env_a, env_b = self.factory(), self.factory()
        actions = _actions(env_a, self.steps, seed=7)
        run_a = _rollout(env_a, 123, actions)
        run_b = _rollout(env_b, 123, actions)
        for i, (a, b) in enumerate(zip(run_a, run_b, strict=True)):
            if not _equal(a, b):
                raise AssertionError(
                    f"two envs reset with seed=123 diverge at step {i}: {a!r} != {b!r}; "
                    f"{DRAW_THROUGH_THE_BUILDER}"
                )

    def pickling(self) -> None:
        env = self.factory()
        actions = _actions(env, 2 * (self.steps // 4), seed=11)
        half = len(actions) // 2
        env.reset(seed=5)
        for action in actions[:half]:
            env.step(action)
        clone = pickle.loads(pickle.dumps(env))
        for i, action in enumerate(actions[half:]):
            a, b = env.step(action), clone.step(action)
            if not _equal(a, b):
                raise AssertionError(f"a pickled copy diverges {i} steps after the round trip")

    def spaces_and_arrays(self) -> None:
        env = self.factory()
        task = env.unwrapped
        ob, _ = env.reset(seed=3)
        if not env.observation_space.contains(ob):
            raise AssertionError(f"reset's observation {ob!r} is outside {env.observation_space}")
        self._trial_arrays(task)
        for i, action in enumerate(_actions(env, self.steps, seed=3)):
            ob, reward, _, _, info = env.step(action)
            if not env.observation_space.contains(ob):
                raise AssertionError(f"step {i}: observation {ob!r} outside the space")
            if not np.isfinite(float(reward)):
                raise AssertionError(f"step {i}: reward {reward!r} is not finite")
            if "gt" in info and not task.action_space.contains(_as_action(info["gt"], task)):
                raise AssertionError(f"step {i}: info['gt'] = {info['gt']} outside the space")
            if info.get("new_trial"):
                if "trial" not in info:
                    raise AssertionError(f"step {i}: trial ended without info['trial']")
                self._trial_arrays(task)

    def _trial_arrays(self, task: Any) -> None:
        current = task._current  # empty if a trial wrapper generates the next trial
        if current.ob is None:
            return
        ob, steps = current.ob, round(current.tmax / task.dt)
        obs_space = task.observation_space
        # A wrapper may end trials early (ReactionTime lowers tmax): the ob array may be longer
        # than the trial, never shorter.
        if ob.shape[1:] != obs_space.shape or ob.shape[0] < steps:
            raise AssertionError(
                f"ob has shape {ob.shape}, expected ({steps}, *{obs_space.shape}) or more steps"
            )
        if ob.dtype != obs_space.dtype:
            raise AssertionError(f"ob dtype {ob.dtype} differs from the space's {obs_space.dtype}")
        if current.gt is not None and current.gt.shape[0] != ob.shape[0]:
            raise AssertionError(f"gt has {current.gt.shape[0]} steps, ob has {ob.shape[0]}")
        for name, start in current.start_ind.items():
            end = current.end_ind[name]
            if not 0 <= start <= end <= ob.shape[0]:
                raise AssertionError(
                    f"period {name!r} spans steps [{start}, {end}) of {ob.shape[0]}"
                )

    def named_dims(self) -> None:
        env = self.factory()
        for kind, space in (("observation", env.observation_space), ("action", env.action_space)):
            names = getattr(space, "name", None) or {}
            size = space.shape[-1] if space.shape else int(getattr(space, "n", 1))
            low = int(getattr(space, "start", 0)) if not space.shape else 0
            for dim, index in names.items():
                flat = [index] if isinstance(index, int) else list(index)
                bad = [i for i in flat if not low <= i < low + size]
                if bad:
                    raise AssertionError(f"{kind} dim {dim!r} has indices {bad} out of range")

    def metadata(self) -> None:
        env = self.factory()
        cls = type(env.unwrapped)
        meta = env.unwrapped.metadata
        problems = [key for key in ("paper_name", "paper_link") if not meta.get(key)]
        tags = meta.get("tags")
        if not tags or not all(isinstance(t, str) for t in tags):
            problems.append("tags")
        if "render_modes" not in meta:
            problems.append("render_modes")
        if not (cls.__doc__ or "").strip():
            problems.append("docstring")
        if problems:
            raise AssertionError(f"{cls.__name__}.metadata/docstring lacks {problems}")
        if self.spec is not None:
            self._written_once(cls, meta)

    def _written_once(self, cls: type, meta: dict[str, Any]) -> None:
        """The spec holds the paper, tags and description; the class does not restate them."""
        spec = self.spec
        assert spec is not None
        restated = [key for key in spec.metadata if key in getattr(cls, "metadata", {})]
        if restated:
            raise AssertionError(
                f"{cls.__name__}.metadata restates {restated}: the TaskSpec of {spec.id} holds "
                "them (write each fact once, in the plugin's hook module)"
            )
        diffs = [key for key, value in spec.metadata.items() if meta.get(key) != value]
        if diffs:
            raise AssertionError(f"the env made from {spec.id} lacks its spec's {diffs}")
        target = spec.load()
        if isinstance(target, type) and target is not cls:
            raise AssertionError(
                f"entry point {spec.entry_point} makes {cls.__module__}.{cls.__name__}"
            )

    def supervised_data(self) -> None:
        from neurogym._env.contract import check_declaration

        check_declaration(self.factory, self.steps)

    def batch(self) -> None:
        env = self.factory()
        task: Any = env.unwrapped
        if not hasattr(task, "new_trials"):
            return
        env.reset(seed=9)
        batch = task.new_trials(4)
        if batch.ob is None:
            return
        n, steps = batch.ob.shape[:2]
        if n != 4 or steps != int(batch.lengths.max()):
            raise AssertionError(f"batch ob shape {batch.ob.shape} vs lengths {batch.lengths}")
        for name, (start, end) in batch.periods.items():
            if np.any(start > end) or np.any(end > batch.lengths) or np.any(start < 0):
                raise AssertionError(f"batch period {name!r} outside its trial")
        if task.batch_native and env is task:
            self._batch_of_one_equals_first_trial()

    def _batch_of_one_equals_first_trial(self) -> None:
        single: Any = self.factory().unwrapped
        batched: Any = self.factory().unwrapped
        # A single env generates its trials `prefetch` at a time: the first `n` trials after
        # reset(seed) are one batch of n drawn from that seed (n = 1 without prefetching).
        n = max(1, int(getattr(single, "prefetch", 1)))
        single.reset(seed=21)
        batched.np_random = as_task_generator(np.random.default_rng(21))
        batch = batched.new_trials(n)
        for i in range(min(n, 3)):
            if i:
                single.new_trial()
            if not _equal(single.ob, batch.ob[i, : batch.lengths[i]]):
                raise AssertionError(
                    f"trial {i} after reset(seed) differs from row {i} of new_trials({n}) "
                    "drawn from the same seed"
                )


def _as_action(gt: Any, task: Any) -> Any:
    space = task.action_space
    if isinstance(space, gym.spaces.Box):
        return np.asarray(gt, dtype=space.dtype)
    return gt


def check_task(env_or_id: str | gym.Env[Any, Any], *, steps: int = 600, **kwargs: Any) -> None:
    """Checks that a task honours the neurogym task contract.

    Checks: gymnasium's ``check_env`` (its infinite-bounds warnings are informational);
    ``reset(seed)`` determinism over several trials with identical actions; a pickle round trip;
    observations inside the observation space and ``info["gt"]`` inside the action space over
    many steps and trials; ob/gt arrays consistent with the periods; named dims in range;
    the supervised-data declaration (``has_groundtruth``, ``agent_dependent_dims``,
    ``cross_trial_state``) true; metadata complete (paper name and link, tags, docstring)
    and, for an id, taken from its
    :class:`~neurogym.TaskSpec` without the class restating it; batches consistent with single
    trials.

    Args:
        env_or_id: A task id (made with ``neurogym.make(id, **kwargs)``) or an env instance
            (copied, never stepped itself).
        steps: Steps per rollout.
        **kwargs: Constructor kwargs when ``env_or_id`` is an id.

    Raises:
        TaskCheckError: Listing every failed check.
    """
    if isinstance(env_or_id, str):
        import neurogym

        spec = neurogym.spec(env_or_id)
        task_id = env_or_id

        def factory() -> gym.Env[Any, Any]:
            return neurogym.make(task_id, **kwargs)

        label = spec.id
    else:
        pristine = copy.deepcopy(env_or_id)
        spec = None

        def factory() -> gym.Env[Any, Any]:
            return copy.deepcopy(pristine)

        label = str(env_or_id)
    checker = _Checker(factory, spec, steps)
    for name in (
        "gymnasium_checker",
        "determinism",
        "pickling",
        "spaces_and_arrays",
        "named_dims",
        "metadata",
        "batch",
        "supervised_data",
    ):
        checker.run(name, getattr(checker, name))
    if checker.failures:
        raise TaskCheckError(label, checker.failures)
