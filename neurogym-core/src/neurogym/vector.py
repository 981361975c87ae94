"""Vector envs: ``N`` neurogym tasks stepped in lockstep (``gymnasium.make_vec``).

Every neurogym id is registered with ``vector_entry_point="neurogym.vector:make_vector_env"``,
so ``gymnasium.make_vec("neurogym/<Task>-v0", num_envs=N)`` builds

* a :class:`TrialVectorEnv` (``metadata["neurogym_vectorization"] == "native"``) when the task
  can be stepped as array operations: a batch-native task (``_new_trials``) whose
  reward/termination is a declarative :class:`~neurogym.StandardDecision` rule (no custom
  ``_step``/``step``/``post_step``), a ``Discrete`` action space, no callable timing and no
  wrappers; its spec says so with ``TaskSpec.vectorized=True``;
* otherwise gymnasium's :class:`~gymnasium.vector.SyncVectorEnv` over ``N`` single envs
  (``"loop"``), which is the same thing stepped one env at a time.

Both equal ``N`` single envs made with the same arguments, reset with seeds ``s, s+1, ...``
(gymnasium's rule for an int seed) and stepped with the same actions: each sub-env keeps its
own generator, and its trials are drawn from it in the order a single env draws them
(``docs/architecture.md`` §9.3).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from neurogym import validate
from neurogym._data.vector_loop import LoopVectorEnv, check_actions, check_attribute, reset_mask
from neurogym._env.env import TrialEnv
from neurogym._env.prefetch import BLOCK
from neurogym._env.vectorizable import native_obstacle
from neurogym._trials.batch import concat_rows
from neurogym._trials.builder import TRIAL_BYTES, BatchBuilder, TrialBatch
from neurogym._trials.rowrng import RowGenerators

__all__ = ["TrialVectorEnv", "make_vector_env", "native_obstacle"]


def make_vector_env(
    num_envs: int = 1,
    *,
    task_id: str,
    vectorization: str = "auto",
    **kwargs: Any,
) -> gym.vector.VectorEnv[Any, Any, Any]:
    """The ``vector_entry_point`` of every neurogym id (``gymnasium.make_vec``).

    Args:
        num_envs: Number of sub-envs ``N``.
        task_id: The neurogym task id (from the registered gymnasium kwargs).
        vectorization: ``"auto"`` (native when possible, else the loop), ``"native"`` (raise
            if the task cannot be stepped natively) or ``"loop"`` (always the loop).
        **kwargs: Arguments of ``neurogym.make`` for every sub-env: the task's constructor
            arguments, ``wrappers=``, ``max_episode_steps=``, ``trials_per_episode=``,
            ``hold_fixation=``.

    Returns:
        A :class:`TrialVectorEnv` or a :class:`~gymnasium.vector.SyncVectorEnv`; its
        ``metadata["neurogym_vectorization"]`` is ``"native"`` or ``"loop"`` and, for the
        loop, ``metadata["neurogym_loop_reason"]`` says why.

    Raises:
        ValueError: ``vectorization`` is not one of the three values, or ``"native"`` was asked
            for a task that cannot be stepped natively.
    """
    from neurogym._registry.api import get_registry

    if vectorization not in ("auto", "native", "loop"):
        raise ValueError(
            f"vectorization must be 'auto', 'native' or 'loop', got {vectorization!r}"
        )
    num_envs = validate.positive_int(num_envs, "num_envs")
    # each sub-env holds up to a block of prefetched trials: refused before any env is made
    validate.allocation(
        float(num_envs) * BLOCK * TRIAL_BYTES, f"{num_envs:,} sub-envs", "num_envs"
    )
    kwargs.pop("render_mode", None)
    registry = get_registry()
    first = registry.make(task_id, **kwargs)
    reason = "vectorization='loop' was asked for" if vectorization == "loop" else None
    if reason is None:
        reason = native_obstacle(first)
    if reason is None:
        assert isinstance(first, TrialEnv)
        return TrialVectorEnv(first, num_envs)
    if vectorization == "native":
        raise ValueError(f"{task_id} cannot be stepped natively by a vector env: {reason}")
    envs = [first, *(registry.make(task_id, **kwargs) for _ in range(num_envs - 1))]
    vec = LoopVectorEnv([_Given(env) for env in envs])
    vec.metadata["neurogym_vectorization"] = "loop"
    vec.metadata["neurogym_loop_reason"] = reason
    return vec


class _Given:
    """An env factory that returns an env built beforehand (for SyncVectorEnv)."""

    def __init__(self, env: gym.Env[Any, Any]) -> None:
        self.env = env

    def __call__(self) -> gym.Env[Any, Any]:
        return self.env


class TrialVectorEnv(gym.vector.VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """``N`` copies of a rule-based task stepped as array operations (numpy-native).

    Each sub-env has its own generator (seeded ``s + i`` by ``reset(seed=s)``, like
    gymnasium's vector envs) and a short queue of upcoming trials. Trials are generated in
    passes: one :class:`~neurogym._trials.builder.BatchBuilder` call builds the next trial of many
    sub-envs at once, each row drawn from its own sub-env's generator exactly as a single env
    draws a trial (:class:`~neurogym._trials.rowrng.RowGenerators`). A step reads precomputed
    per-step tables (period code x ground truth x action -> reward, trial end, performance);
    when a sub-env's trial ends, only that sub-env moves on to its next trial.

    The results equal ``N`` single envs of the same task (made with the same arguments,
    reset with the same seeds, stepped with the same actions): observations, rewards,
    ``terminated``/``truncated`` and ``info`` (merged as gymnasium's ``SyncVectorEnv`` merges
    single-env infos: ``new_trial``, ``gt``, and at trial ends ``performance`` and ``trial``,
    each with its ``_key`` mask). Autoreset follows gymnasium's default ``NEXT_STEP`` mode;
    neurogym tasks only end episodes with ``max_episode_steps`` / ``trials_per_episode``.

    Args:
        env: A task env (the template: its configuration is shared by all sub-envs, its
            episode limits apply to each).
        num_envs: Number of sub-envs.
        queue: Trials kept ready per sub-env (a refill builds up to this many passes).
    """

    def __init__(self, env: TrialEnv, num_envs: int, queue: int = 4) -> None:
        obstacle = native_obstacle(env)
        if obstacle is not None:
            raise ValueError(f"TrialVectorEnv cannot step {env}: {obstacle}")
        self.task = env
        self.num_envs = num_envs
        self.queue = max(int(queue), 1)
        # A single env draws its trials as new_trials(BLOCK) blocks (env.prefetch, see
        # neurogym._env.prefetch); each sub-env then gets whole blocks from its generator.
        self._block = env.prefetch
        self._qcap = self.queue if self._block == 1 else 2 * self._block - 1
        self.single_observation_space = env.observation_space
        self.single_action_space = env.action_space
        self.observation_space = batch_space(env.observation_space, num_envs)
        self.action_space = batch_space(env.action_space, num_envs)
        self.metadata = {
            **env.metadata,
            "autoreset_mode": AutoresetMode.NEXT_STEP,
            "neurogym_vectorization": "native",
        }
        self._generators: list[np.random.Generator | None] = [None] * num_envs
        self._ones = np.ones(num_envs, dtype=bool)
        self._build_tables()
        self._clear()

    # ------------------------------------------------------------------ tables and pool
    def _build_tables(self) -> None:
        """The rule's outcome table (``StandardDecision.outcome_table``) as flat gathers.

        Entry ``(code * n + gt) * n + action`` is the rule's outcome for that period code,
        ground truth and action; the second half (``+ 3 * n * n``, a trial's last step) adds
        the timeout: a step the rule does not end ends the trial (``step`` adds ``r_tmax``).
        """
        env = self.task
        rule = env.rule
        assert rule is not None
        n = int(env.action_space.n)  # type: ignore[attr-defined]
        self._n_actions = n
        table = rule.outcome_table(env.rewards, env.abort)  # [code][hit][moved]
        fields = [np.array([[[e[f] for e in r] for r in by] for by in table]) for f in range(3)]
        code = np.arange(3)[:, None, None]
        gt = np.arange(n)[None, :, None]
        act = np.arange(n)[None, None, :]
        at = (code, (act == gt).astype(np.intp), (act != rule.fixation_action).astype(np.intp))
        full = (3, n, n)  # (period code, ground truth, action)
        reward = np.broadcast_to(fields[0].astype(float)[at], full)
        ends = np.broadcast_to(fields[1].astype(bool)[at], full)
        correct = np.broadcast_to(fields[2].astype(bool)[at], full)
        # a trial's last step that the rule does not end times out: r_tmax plus the rule's
        # timeout outcome (GoNoGoDecision: a withheld no-go trial is correct, a go trial
        # that never answered pays "miss"; LastStepReport: the last action is the report)
        hit = np.broadcast_to(act == gt, full)
        held = np.broadcast_to(act == rule.fixation_action, full)
        extra, timeout_correct = np.zeros(full), np.zeros(full, dtype=bool)
        for h, f in itertools.product((False, True), repeat=2):
            cells = (hit == h) & (held == f)
            extra[cells], timeout_correct[cells] = rule.timeout(env.rewards, h, f)
        timed_out = np.where(ends, reward, reward + extra)
        self._reward_table = np.concatenate([reward.reshape(-1), timed_out.reshape(-1)])
        # where a step times out: the env's r_tmax (read at each step, a per-trial value in
        # some tasks) is added there
        self._timeout_table = np.concatenate([np.zeros(ends.size), (~ends).reshape(-1)])
        self._end_table = np.concatenate([ends.reshape(-1), np.ones(ends.size, dtype=bool)])
        perf = correct.astype(np.int64).reshape(-1)
        last_perf = np.where(ends, correct, timeout_correct).astype(np.int64).reshape(-1)
        self._perf_table = np.concatenate([perf, last_perf])
        self._last_offset = 3 * n * n
        self._rule = rule
        self._version = env.config_version  # what the tables and queued trials were made at

    def _clear(self) -> None:
        """Forget every trial (pool, queues, current trials)."""
        n, q = self.num_envs, self._qcap
        obs_shape = self.single_observation_space.shape or ()
        self._ob = np.zeros((0, *obs_shape), dtype=self.single_observation_space.dtype)
        self._key = np.zeros(0, dtype=np.intp)
        self._gt = np.zeros(0, dtype=np.int64)
        self._t_start = np.zeros(0, dtype=np.intp)
        self._t_len = np.zeros(0, dtype=np.intp)
        self._params: dict[str, np.ndarray] = {}
        self._zero_row = 0
        self._qids = np.zeros((n, q), dtype=np.intp)
        self._qcount = np.zeros(n, dtype=np.intp)
        self._qhead = np.zeros(n, dtype=np.intp)
        self._cur = np.full(n, -1, dtype=np.intp)
        self._pos = np.zeros(n, dtype=np.intp)
        self._ep_steps = np.zeros(n, dtype=np.int64)
        self._ep_trials = np.zeros(n, dtype=np.int64)
        self._autoreset = np.zeros(n, dtype=bool)
        self._pending = False  # any self._autoreset
        self._started = False
        self._saved: list[dict[str, Any] | None] = [None] * n
        self._old_trials = 0
        self._old_start = self._t_start

    def _generator(self, i: int) -> np.random.Generator:
        gen = self._generators[i]
        if gen is None:  # gymnasium's rule: fresh OS entropy on first use
            gen = self._generators[i] = seeding.np_random()[0]
        return gen

    def _build(self, rows: np.ndarray) -> TrialBatch:
        """The next trial of each sub-env in ``rows``, each drawn from its own generator."""
        env = self.task
        generators = self._generators
        picked = [generators[i] for i in rows.tolist()]
        if None in picked:
            picked = [self._generator(i) for i in rows.tolist()]
        k = self._block
        if k > 1:  # generator states before each block, to rewind a block never started
            for i, g in zip(rows.tolist(), picked, strict=True):
                self._saved[i] = g.bit_generator.state
        rng = RowGenerators(picked, group=k)
        builder = BatchBuilder(env, len(rows) * k, {}, rng=rng)
        return builder.finish(env._new_trials(builder))

    def _refill(self) -> None:
        """Compacts the pool to the live trials and tops every queue up to ``queue``."""
        n, q, k = self.num_envs, self._qcap, self._block
        # a sub-env joins a pass while it holds fewer than `limit` trials; K > 1: one block
        limit, passes = (self.queue, self.queue) if k == 1 else (k, 1)
        # 1. queues, left-aligned
        cols = self._qhead[:, None] + np.arange(q)[None, :]
        queued = np.take_along_axis(self._qids, np.minimum(cols, q - 1), axis=1)
        valid_q = np.arange(q)[None, :] < self._qcount[:, None]
        has_cur = self._cur >= 0
        live = np.concatenate([self._cur[has_cur], queued[valid_q]])
        # 2. passes: row i joins pass p while its queue holds fewer than `queue` trials
        counts = self._qcount.copy()
        batches: list[tuple[np.ndarray, TrialBatch]] = []
        for _ in range(passes):
            rows = np.nonzero(counts < limit)[0]
            if rows.size == 0:
                break
            batches.append((rows, self._build(rows)))
            counts[rows] += k
        # 3. new pool: live trials first (in their old order), then the new ones
        self._rebuild_pool(live, batches)
        remap = np.full(max(self._old_trials, 1), -1, dtype=np.intp)
        remap[live] = np.arange(live.size)
        next_id = live.size
        qcount = self._qcount.copy()
        new_q = np.where(valid_q, remap[np.where(valid_q, queued, 0)], -1)
        for rows, batch in batches:
            ids = np.arange(next_id, next_id + batch.size).reshape(rows.size, k)
            next_id += batch.size
            new_q[rows[:, None], qcount[rows][:, None] + np.arange(k)] = ids
            qcount[rows] += k
        if has_cur.any():
            old_cur = self._cur[has_cur]
            offset = self._pos[has_cur] - self._old_start[old_cur]
            self._cur[has_cur] = remap[old_cur]
            self._pos[has_cur] = self._t_start[self._cur[has_cur]] + offset
        self._qids = new_q
        self._qcount = qcount
        self._qhead = np.zeros(n, dtype=np.intp)

    def _rebuild_pool(
        self, live: np.ndarray, batches: list[tuple[np.ndarray, TrialBatch]]
    ) -> None:
        self._old_trials = self._t_start.size
        self._old_start = self._t_start
        lens = self._t_len[live]
        total = int(lens.sum())
        starts = self._t_start[live]
        idx = np.repeat(starts - (np.cumsum(lens) - lens), lens) + np.arange(total)
        obs, keys, gts = [self._ob[idx]], [self._key[idx]], [self._gt[idx]]
        lengths = [lens]
        sizes = [int(live.size)]
        parts = [{k: v[live] for k, v in self._params.items()}]  # (drops the zero row)
        for _, batch in batches:
            ob, key, gt = self._flatten(batch)
            obs.append(ob)
            keys.append(key)
            gts.append(gt)
            lengths.append(batch.lengths)
            sizes.append(batch.size)
            parts.append(batch.trial)
        self._ob = np.concatenate(obs)
        self._key = np.concatenate(keys)
        self._gt = np.concatenate(gts)
        self._t_len = np.concatenate(lengths).astype(np.intp)
        self._t_start = np.cumsum(self._t_len) - self._t_len
        names = dict.fromkeys(k for part in parts for k in part)
        self._params = {
            k: _with_zero_row(concat_rows([part.get(k) for part in parts], sizes)) for k in names
        }
        self._zero_row = self._t_len.size

    def _flatten(self, batch: TrialBatch) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The steps of a batch back to back: obs, table keys and ground truth."""
        if batch.ob is None or batch.gt is None:
            raise ValueError(
                f"{type(self.task).__name__} sets no observation array or no ground truth; "
                "the native vector env needs both"
            )
        if np.any(batch.lengths < 1):
            raise ValueError(f"{type(self.task).__name__} generated a trial without steps")
        n = self._n_actions
        codes = self._rule.code_grid(batch.start_t, batch.end_t, batch.lengths, batch.dt)
        lengths = batch.lengths
        if lengths.min() == lengths.max():  # no padding: the arrays are already back to back
            steps = batch.size * int(lengths[0])
            ob = batch.ob.reshape(steps, *batch.ob.shape[2:])
            gt = batch.gt.reshape(steps).astype(np.int64)
            code = codes.reshape(steps)
        else:
            valid = batch.valid
            ob, gt, code = batch.ob[valid], batch.gt[valid].astype(np.int64), codes[valid]
        if gt.size and (gt.min() < 0 or gt.max() >= n):
            raise ValueError(
                f"{type(self.task).__name__}: ground truth outside the action space [0, {n})"
            )
        key = code.astype(np.intp)
        key *= n
        key += gt
        key *= n
        last = np.cumsum(lengths) - 1  # the last step of each trial (back to back)
        key[last] += self._last_offset
        return ob, key, gt

    def _start_next(self, idx: np.ndarray) -> None:
        """Sub-envs ``idx`` move on to the next trial of their queue."""
        if idx.size == 0:
            return
        count = self._qcount[idx]
        if count.min() == 0:
            self._refill()
            count = self._qcount[idx]
        head = self._qhead[idx]
        ids = self._qids[idx, head]
        self._qhead[idx] = head + 1
        self._qcount[idx] = count - 1
        self._cur[idx] = ids
        self._pos[idx] = self._t_start.take(ids)

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Resets the sub-envs (all, or ``options["reset_mask"]``), as ``SyncVectorEnv`` does.

        Args:
            seed: None (generators continue, or fresh entropy on first use), an int ``s``
                (sub-env ``i`` gets ``s + i``) or one seed (or None) per sub-env.
            options: ``{"reset_mask": bool array}`` resets only those sub-envs.

        Returns:
            The observations of all sub-envs and an empty info dict.
        """
        if self.task.config_version != self._version:  # a setting changed since
            self._reconfigured()
        n = self.num_envs
        if seed is None:
            seeds: list[int | None] = [None] * n
        elif isinstance(seed, (int, np.integer)):
            seeds = [int(seed) + i for i in range(n)]
        else:
            seeds = list(seed)
        if len(seeds) != n:
            raise ValueError(f"{len(seeds)} seeds for {n} sub-envs")
        mask = reset_mask(options, n)
        idx = np.nonzero(mask)[0]
        reseeded = [int(i) for i in idx if seeds[int(i)] is not None]
        for i in reseeded:
            self._generators[i] = seeding.np_random(seeds[i])[0]
        if reseeded:  # their queued trials and saved states belong to the old generators
            self._qcount[reseeded] = 0
            self._qhead[reseeded] = 0
            for i in reseeded:
                self._saved[i] = None
        self._start_next(idx)
        self._started = True
        self._ep_steps[idx] = 0
        self._ep_trials[idx] = 0
        self._autoreset[idx] = False
        self._pending = bool(self._autoreset.any())
        return self._ob[self._pos], {}

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Steps every sub-env with its action; see the class docstring for the semantics."""
        if not self._started:
            raise gym.error.ResetNeeded("call reset() before step()")
        if self.task.config_version != self._version:  # a setting changed since (in place)
            self._reconfigured()
        act = np.asarray(actions)
        if (
            act.dtype != np.intp
            or act.shape != self._ones.shape
            or act.view(np.uintp).max() >= self._n_actions  # negatives wrap to huge values
        ):
            act = check_actions(act, self.num_envs, self._n_actions)
        skipping = self._pending
        if skipping:  # NEXT_STEP autoreset: these sub-envs reset and ignore their action
            skip = self._autoreset
            idx = np.nonzero(skip)[0]  # (a reset without a seed: their trials go on)
            self._start_next(idx)
            self._ep_steps[idx] = 0
            self._ep_trials[idx] = 0
            act = np.where(skip, 0, act)
        k = self._key.take(pos := self._pos)
        k += act
        reward = self._reward_table.take(k)
        r_tmax = self.task.r_tmax
        if r_tmax:
            reward += r_tmax * self._timeout_table.take(k)
        new_trial = self._end_table.take(k)  # rule ends and timeouts (last-step keys)
        gt = self._gt.take(pos)
        if skipping:
            active = ~skip
            new_trial &= active
            reward[skip] = 0.0
            pos += active
            stepped = active
        else:
            pos += 1
            stepped = self._ones
        task, n = self.task, self.num_envs
        terminated, truncated = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
        info = self._info(new_trial, gt, k, stepped)
        if "trial" in info:
            if task.trials_per_episode is not None:
                self._ep_trials += new_trial
                terminated = new_trial & (self._ep_trials >= task.trials_per_episode)
            self._start_next(np.flatnonzero(new_trial))
        if task.max_episode_steps is not None:
            self._ep_steps += stepped
            truncated = self._ep_steps >= task.max_episode_steps
            if skipping:
                truncated &= stepped
        if task.trials_per_episode is not None or task.max_episode_steps is not None:
            self._autoreset = autoreset = terminated | truncated
            self._pending = bool(autoreset.any())
        return self._ob.take(self._pos, axis=0), reward, terminated, truncated, info

    def _info(
        self,
        new_trial: np.ndarray,
        gt: np.ndarray,
        k: np.ndarray,
        stepped: np.ndarray,
    ) -> dict[str, Any]:
        """The merged single-env infos (before the finished trials are replaced)."""
        all_stepped = stepped is self._ones
        info: dict[str, Any] = {
            "new_trial": new_trial,
            "_new_trial": stepped.copy(),
            "gt": gt if all_stepped else np.where(stepped, gt, 0),
            "_gt": stepped.copy(),
        }
        if not np.count_nonzero(new_trial):
            return info
        # performance is 0 wherever no trial ended (a correct response ends the trial)
        info["performance"] = self._perf_table.take(k)
        info["_performance"] = new_trial
        rows = np.where(new_trial, self._cur, self._zero_row)  # zero row: no trial ended
        trial: dict[str, Any] = {}
        for key, values in self._params.items():
            trial[key] = values.take(rows, axis=0)
            trial[f"_{key}"] = new_trial
        info["trial"] = trial
        info["_trial"] = new_trial
        return info

    # ------------------------------------------------------------------ attributes
    def get_attr(self, name: str) -> tuple[Any, ...]:
        """The task attribute ``name`` of every sub-env (they share one configuration)."""
        value = getattr(self.task, name)
        return tuple(value for _ in range(self.num_envs))

    def set_attr(self, name: str, values: Any) -> None:
        """Sets task attribute ``name`` for every sub-env (one value, or N equal values).

        Trials already prepared from the old configuration are dropped, so the change takes
        effect at each sub-env's next trial. (Their random draws are skipped: from then on the
        sub-envs no longer match single envs that made the same change.)

        Raises:
            ValueError: Per-env values differ; use ``vectorization="loop"`` for that.
        """
        if isinstance(values, (list, tuple)):
            if len(values) != self.num_envs:
                raise ValueError(f"{len(values)} values for {self.num_envs} sub-envs")
            first = values[0]
            if any(v is not first and not _same(v, first) for v in values[1:]):
                raise ValueError(
                    "the native vector env shares one task configuration across sub-envs; "
                    "make it with vectorization='loop' to give each its own value"
                )
            values = first
        task = self.task
        check_attribute(task, name)
        arguments = task.__dict__.get("_arguments", {})
        before = arguments[name] if name in arguments else getattr(task, name)
        setattr(task, name, values)
        try:
            self._reconfigured()
        except ValueError:  # the vector env keeps the settings it can step
            if name in arguments:
                task.configure(**{name: before})
            else:
                setattr(task, name, before)
            self._reconfigured()
            raise

    def _reconfigured(self) -> None:
        """The task's configuration changed: new tables, and the queued trials dropped."""
        task = self.task
        spaces = (task.observation_space, task.action_space)
        if spaces != (self.single_observation_space, self.single_action_space):
            raise ValueError(
                f"the new settings of {type(task).__name__} change its spaces (to {spaces[0]} "
                f"and {spaces[1]}): a vector env's spaces are fixed when it is made; make a new "
                "vector env with these settings"
            )
        obstacle = native_obstacle(self.task)
        if obstacle is not None:
            raise ValueError(
                f"{type(self.task).__name__} cannot be stepped natively with its new settings: "
                f"{obstacle}"
            )
        self._build_tables()
        self._discard(np.arange(self.num_envs))

    def _discard(self, idx: np.ndarray) -> None:
        """What a configuration change does to a single env's trials: its queue is dropped.

        A prefetching env (``K > 1``) drops the rest of its block and starts a new block from
        its generator; a block generated ahead and not started yet is undone by rewinding the
        generator. (``reset()`` without a seed and autoreset keep the queue, as a single env
        keeps its pool; a seeded reset drops it with the old generator's saved states.)
        """
        if self._block > 1:
            for i in idx.tolist():
                saved, gen = self._saved[i], self._generators[i]
                if self._qcount[i] >= self._block and saved is not None and gen is not None:
                    gen.bit_generator.state = saved
                self._saved[i] = None
        self._qcount[idx] = 0
        self._qhead[idx] = 0


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(np.all(a == b))
    except (TypeError, ValueError):
        return False


def _with_zero_row(v: np.ndarray) -> np.ndarray:
    return np.concatenate([v, np.zeros((1, *v.shape[1:]), dtype=v.dtype)])
