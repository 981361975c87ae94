"""The closed loop: a policy steps envs of a task together until enough trials have ended.

Also what a closed loop is scored with: the strict criterion, the chance policies (random,
always-fixate, :class:`Guess`) and the ideal observer on a run's own trials
(:func:`observer_on_run`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

import neurogym
from neurogym import validate
from neurogym.rules import GoNoGoDecision
from neurogym.wrappers import iter_chain

__all__ = [
    "FIXATE_THEN_RESPOND",
    "PERFORMANCE",
    "STREAM_TRIALS",
    "BatchPolicy",
    "ClosedLoop",
    "Guess",
    "baseline_policies",
    "observer_on_run",
    "run_closed_loop",
    "strict_criterion",
]

#: ``act(obs (N, n_in), state, rng) -> (actions (N, ...), state)`` for N envs stepped together.
BatchPolicy = Callable[[np.ndarray, Any, np.random.Generator], tuple[np.ndarray, Any]]

FIXATE_THEN_RESPOND = "fixate-then-respond"
PERFORMANCE = "performance"
_PARALLEL = 64  # envs stepped together (one network call per step for all of them)
#: Trials each env runs at least in a closed loop when the task's trials depend on earlier ones
#: (``cross_trial_state``: an opponent, a block, a rule or a context that runs on): streams
#: that long keep the start of an episode (a fresh opponent, a first block) from dominating
#: the score, as 64 envs of 8 trials each did.
STREAM_TRIALS = 250


def strict_criterion(env: gym.Env[Any, Any]) -> tuple[str, int | None]:
    """A task's strict criterion and its fixation action (None for ``"performance"``).

    A wrapper's ``strict_criterion`` attribute decides (the outermost that declares one: a
    wrapper that changes when the response may start, such as ``ReactionTime``), else the
    task's (see :class:`neurogym.TrialEnv`); None derives it: ``"fixate-then-respond"`` when
    the action space names a ``fixation`` action and trials have a ground truth, else
    ``"performance"``.

    Raises:
        ValueError: An unknown criterion, or fixate-then-respond without a named fixation
            action.
    """
    task = env.unwrapped
    names = getattr(env.action_space, "name", None)
    fixation = names.get("fixation") if isinstance(names, dict) else None
    fixation = int(fixation) if isinstance(fixation, int | np.integer) else None
    declared = getattr(task, "strict_criterion", None)
    for link in iter_chain(env):  # outermost first: a wrapper's declaration wins
        by_wrapper = getattr(link, "strict_criterion", None) if link is not task else None
        if by_wrapper is not None:
            declared = by_wrapper
            break
    if declared is None:
        has_gt = getattr(task, "has_groundtruth", True)
        declared = FIXATE_THEN_RESPOND if fixation is not None and has_gt else PERFORMANCE
    validate.choice(declared, "strict_criterion", (FIXATE_THEN_RESPOND, PERFORMANCE))
    if declared == PERFORMANCE:
        return declared, None
    if fixation is None:
        raise ValueError(
            f"{type(task).__name__} declares strict_criterion={declared!r} but its action "
            f"space names no single 'fixation' action: {env.action_space}"
        )
    return declared, fixation


@dataclasses.dataclass(frozen=True, repr=False)
class ClosedLoop:
    """The trials of a closed-loop run, in the order they ended.

    Attributes:
        performance: The env's ``info["performance"]`` of each trial.
        broke_fixation: Whether the policy left the fixation action on a step before the
            response (while the ground truth was the fixation action); all False when no
            fixation action was given.
        trials: The trial dicts.
        fixation_action: The fixation action checked (None: not checked).
        streams: Which env each trial came from (an index into ``seeds``).
        seeds: The seed each env was reset with, once: env ``i``'s trials are the first
            ones an env of the task serves after ``reset(seed=seeds[i])``.
    """

    performance: np.ndarray
    broke_fixation: np.ndarray
    trials: list[dict[str, Any]]
    fixation_action: int | None = None
    streams: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, np.int64))
    seeds: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, np.uint32))

    def __repr__(self) -> str:
        """One line: the number of trials and the means (not every trial)."""
        return (
            f"ClosedLoop(trials={len(self.trials)}, strict={_mean(self.strict)}, "
            f"performance={_mean(self.performance)}, fixation_action={self.fixation_action})"
        )

    @property
    def strict(self) -> np.ndarray:
        """Per-trial strict scores: held fixation and performance 1, or the performance."""
        if self.fixation_action is None:
            scores: np.ndarray = self.performance.astype(float)
            return scores
        held_and_correct = (self.performance >= 1.0 - 1e-9) & ~self.broke_fixation
        strict: np.ndarray = held_and_correct.astype(float)
        return strict


def _mean(values: np.ndarray) -> str:
    return f"{float(np.mean(values)):.3f}" if len(values) else "nan"


def run_closed_loop(
    make_env: Callable[[], gym.Env[Any, Any]],
    act: BatchPolicy | Guess,
    trials: int,
    *,
    seed: int = 0,
    carry_state: bool = False,
    reset_state: Callable[[Any, np.ndarray], Any] | None = None,
    fixation_action: int | None = None,
) -> ClosedLoop:
    """Steps up to 64 envs together with ``act`` until ``trials`` trials have ended.

    For a task whose trials depend on earlier ones (``cross_trial_state``), each env runs a
    stream of at least :data:`STREAM_TRIALS` trials (fewer envs: ``trials // 250``, at
    least one), so the score is that of a running stream and not of episode starts.

    Args:
        make_env: Makes one env (called once per parallel env).
        act: The batch policy, or a :class:`Guess` (bound to the envs made here).
        trials: Trials to collect.
        seed: Env ``i`` is reset with a seed spawned from ``seed`` (repeatable).
        carry_state: Keep the policy state across trials (default: it restarts per trial).
        reset_state: ``reset_state(state, rows) -> state`` restarting rows (needed unless
            ``carry_state`` or the policy is stateless).
        fixation_action: Check that the policy holds this action on every step before the
            response (the steps whose ``info["gt"]`` is this action, until the first that is
            not); None: no check.

    Returns:
        The :class:`ClosedLoop` run.
    """
    trials = validate.positive_int(trials, "trials")
    first = make_env()
    n = _parallel_envs(first, trials)
    seeds = np.random.SeedSequence(seed).generate_state(n)
    envs = [first, *(make_env() for _ in range(n - 1))]
    obs = np.stack([env.reset(seed=int(s))[0] for env, s in zip(envs, seeds, strict=True)])
    if isinstance(act, Guess):
        act = act.bind(envs)
    rng = np.random.default_rng(seed)
    state: Any = None
    perf: list[float] = []
    broken: list[bool] = []
    dicts: list[dict[str, Any]] = []
    streams: list[int] = []
    responding = np.zeros(n, dtype=bool)
    broke = np.zeros(n, dtype=bool)
    while len(perf) < trials:
        actions, state = act(obs.astype(np.float32), state, rng)
        ended = np.zeros(n, dtype=bool)
        for i, env in enumerate(envs):
            ob, _, terminated, truncated, info = env.step(actions[i])
            if fixation_action is not None and not responding[i]:
                gt = info.get("gt")
                if gt is not None and np.ndim(gt) == 0 and int(gt) != fixation_action:
                    responding[i] = True  # the response starts at this step
                elif int(actions[i]) != fixation_action:
                    broke[i] = True
            if info.get("new_trial"):
                ended[i] = True
                perf.append(float(info.get("performance", 0.0)))
                streams.append(i)
                broken.append(bool(broke[i]))
                dicts.append(info.get("trial") or {})
            if terminated or truncated:
                ob, _ = env.reset()
                ended[i] = True
            if ended[i]:
                responding[i] = broke[i] = False
            obs[i] = ob
        if ended.any() and not carry_state and state is not None and reset_state is not None:
            state = reset_state(state, ended)
    return ClosedLoop(
        np.array(perf[:trials]), np.array(broken[:trials], dtype=bool), dicts[:trials],
        fixation_action, np.array(streams[:trials], dtype=np.int64), seeds,
    )  # fmt: skip


def _parallel_envs(env: gym.Env[Any, Any], trials: int) -> int:
    """How many envs a closed loop of ``trials`` steps together (see :func:`run_closed_loop`)."""
    if getattr(env.unwrapped, "cross_trial_state", False):
        return max(1, min(_PARALLEL, trials // STREAM_TRIALS))
    return min(_PARALLEL, trials)


@dataclasses.dataclass(frozen=True)
class Guess:
    """Chance as an animal would guess: fixate, then answer at random.

    The policy holds the fixation action until the task's ``response_period`` starts, then
    gives one response drawn uniformly from ``responses`` (once per trial) until the period
    ends. It times its answer by the trial's periods, never by the ground truth, so a trial
    whose correct answer is to keep fixating (a no-go) is not given away.

    Attributes:
        fixation: The fixation action.
        period: The period in which the answer is given (``TrialEnv.response_period``).
        responses: The actions a guess picks from (``TrialEnv.guess_responses``; by default
            every action but fixation, and fixation too where the task's rule is a
            :class:`~neurogym.rules.GoNoGoDecision`: there withholding is an answer).
        earlier: ``(period, actions)`` pairs: answers the trial asks for before ``period``
            (``TrialEnv.guess_earlier``; HierarchicalReasoning's rule), one drawn uniformly
            in each such period, fixation between them.
    """

    fixation: int
    period: str
    responses: tuple[int, ...]
    earlier: tuple[tuple[str, tuple[int, ...]], ...] = ()

    @classmethod
    def of(cls, env: gym.Env[Any, Any]) -> Guess | None:
        """The guess of ``env``'s task.

        None if it is not a fixate-then-respond task with Discrete actions and its
        ``response_period`` among its periods (then chance is the other two policies).
        """
        criterion, fixation = strict_criterion(env)
        space, task = env.action_space, env.unwrapped
        period = getattr(task, "response_period", "decision")
        if criterion != FIXATE_THEN_RESPOND or fixation is None:
            return None
        if not isinstance(space, gym.spaces.Discrete) or period not in getattr(task, "timing", {}):
            return None
        declared = getattr(task, "guess_responses", None)
        actions = range(int(space.start), int(space.start) + int(space.n))
        responses = declared or tuple(a for a in actions if a != fixation)
        if declared is None and isinstance(getattr(task, "rule", None), GoNoGoDecision):
            responses = (fixation, *responses)  # withholding is an answer of a go/no-go task
        earlier = tuple(
            (str(name), tuple(int(a) for a in answers))
            for name, answers in (getattr(task, "guess_earlier", None) or {}).items()
        )
        return cls(fixation, period, tuple(int(a) for a in responses), earlier)

    def bind(self, envs: list[gym.Env[Any, Any]]) -> BatchPolicy:
        """The batch policy for ``envs`` (it reads where each env's trial is)."""
        chosen: list[tuple[str, int] | None] = [None] * len(envs)  # (period, its answer)

        def act(obs: np.ndarray, state: Any, rng: np.random.Generator) -> tuple[np.ndarray, Any]:
            del obs
            actions = np.full(len(envs), self.fixation)
            for i, env in enumerate(envs):
                answering = self._answering(env.unwrapped)
                if answering is None:
                    chosen[i] = None
                    continue
                period, responses = answering
                pick = chosen[i]
                if pick is None or pick[0] != period:
                    pick = chosen[i] = (period, responses[int(rng.integers(len(responses)))])
                actions[i] = pick[1]
            return actions, state

        return act

    def _answering(self, task: Any) -> tuple[str, tuple[int, ...]] | None:
        """The period the trial is in, if an answer is due there, and its answers."""
        for period, responses in ((self.period, self.responses), *self.earlier):
            start, end = task.start_ind.get(period), task.end_ind.get(period)
            if start is not None and start <= task.t_ind < end:
                return period, responses
        return None


def baseline_policies(env: gym.Env[Any, Any]) -> dict[str, BatchPolicy | Guess]:
    """The chance baselines: random actions, always-fixate (0 / zeros) and :class:`Guess`.

    ``"guess"`` is there for the fixate-then-respond tasks :meth:`Guess.of` covers.
    """
    space = env.action_space

    def random(obs: np.ndarray, state: Any, rng: np.random.Generator) -> tuple[np.ndarray, Any]:
        if isinstance(space, gym.spaces.Discrete):
            return space.start + rng.integers(0, int(space.n), size=len(obs)), state
        assert isinstance(space, gym.spaces.Box)
        low = np.where(np.isfinite(space.low), space.low, -1.0)
        high = np.where(np.isfinite(space.high), space.high, 1.0)
        shape = (len(obs), *space.shape)
        return rng.uniform(low, high, size=shape).astype(space.dtype), state

    def fixation(obs: np.ndarray, state: Any, rng: np.random.Generator) -> tuple[np.ndarray, Any]:
        del rng
        if isinstance(space, gym.spaces.Discrete):
            return np.full(len(obs), space.start), state
        assert isinstance(space, gym.spaces.Box)
        zeros = np.clip(np.zeros(space.shape, space.dtype), space.low, space.high)
        return np.broadcast_to(zeros, (len(obs), *space.shape)).copy(), state

    policies: dict[str, BatchPolicy | Guess] = {"random": random, "fixation": fixation}
    guess = Guess.of(env)
    if guess is not None:
        policies["guess"] = guess
    return policies


#: ``observer(batch) -> (B,)`` correct or None: an ideal observer (``TrialEnv.ideal_observer``).
Observer = Callable[[Any], "np.ndarray | None"]


def observer_on_run(
    run: ClosedLoop, make_env: Callable[[], gym.Env[Any, Any]], observer: Observer | None = None
) -> np.ndarray | None:
    """Per trial of ``run``, whether the ideal observer answers that very trial correctly.

    A paired ceiling: the observer scored on the trials the policy was scored on, so the two
    scores share the trials' luck (how many weak coherences a sample holds). Each env's
    trials are drawn again as a stream (``neurogym.batch(env, n, seed=run.seeds[i])``: the
    trials an env serves after that reset; one env, reset with each seed in turn) and
    checked against the run's trial dicts.

    Args:
        run: A closed loop of ``make_env``'s envs.
        make_env: Makes one env of the task, as the run did.
        observer: The observer (default: the task's ``ideal_observer``); a task set's
            callers pass the observer of the task the run was on.

    Returns:
        ``(len(run.trials),)`` 1.0 / 0.0 in the run's order; None where the observer is None
        (the inputs decide every answer: the ceiling is 1).

    Raises:
        ValueError: The run's trials are not those the envs serve from their seeds (trials
            that depend on the policy's actions), so they cannot be drawn again.
    """
    out = np.zeros(len(run.trials))
    env = make_env()  # reset with each stream's seed in turn
    task: Any = env.unwrapped
    score = observer or task.ideal_observer
    for stream, seed in enumerate(run.seeds):
        rows = np.flatnonzero(run.streams == stream)
        if rows.size == 0:
            continue
        batch = neurogym.batch(env, int(rows.size), seed=int(seed))
        _check_same_trials(batch.trial, [run.trials[row] for row in rows], stream)
        correct = score(batch)
        if correct is None:
            return None
        out[rows] = correct
    return out


def _check_same_trials(drawn: dict[str, Any], seen: list[dict[str, Any]], stream: int) -> None:
    """Raises ValueError unless every scalar variable of ``seen`` equals its ``drawn`` row."""
    for row, trial in enumerate(seen):
        for key, value in trial.items():
            if key not in drawn or np.ndim(value) != 0:
                continue
            again = np.asarray(drawn[key])[row]
            same = (
                np.isclose(again, value)
                if np.issubdtype(again.dtype, np.number)
                else again == value
            )
            if not same:
                raise ValueError(
                    f"trial {row} of stream {stream} is not the one its seed draws again "
                    f"({key}={value!r} in the run, {again!r} drawn): the task's trials depend "
                    "on the policy's actions, so no observer can be scored on the same trials"
                )
