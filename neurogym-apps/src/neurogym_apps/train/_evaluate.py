"""Closed-loop evaluation: the network (or a baseline policy) steps the env itself."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

import neurogym
from neurogym import validate
from neurogym.rules import GoNoGoDecision
from neurogym.wrappers import iter_chain
from neurogym_apps.train._sb3 import is_predict_model, predict_policy, predict_task

__all__ = [
    "FIXATE_THEN_RESPOND",
    "PERFORMANCE",
    "STREAM_TRIALS",
    "ClosedLoop",
    "Evaluation",
    "Guess",
    "baseline_policies",
    "chance_scores",
    "evaluate",
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
_MAX_CONDITION_VALUES = 12  # trial-dict keys with more distinct values are not conditions


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
    """

    performance: np.ndarray
    broke_fixation: np.ndarray
    trials: list[dict[str, Any]]
    fixation_action: int | None = None

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


@dataclasses.dataclass(frozen=True, repr=False)
class Evaluation:
    """Closed-loop scores of a policy on a task, trial by trial.

    Attributes:
        accuracy: The headline: mean strict score (see :func:`strict_criterion`): for
            fixate-then-respond tasks the fraction of trials with fixation held on every step
            before the response and then a correct response (a trial that breaks fixation
            once scores 0, even if the env, without ``abort``, went on and paid the answer).
        performance: Mean of the env's own ``info["performance"]`` (what upstream reports).
        fixation_breaks: Fraction of trials in which fixation broke before the response
            (NaN for tasks scored by performance).
        criterion: ``"fixate-then-respond"`` or ``"performance"``.
        trials: Number of trials.
        per_trial: The strict score of each trial, in the order they ended.
        per_trial_performance: The env's performance of each trial.
        conditions: Trial-dict key to {value: {"accuracy", "performance", "fixation_breaks",
            "trials"}} for keys with a few scalar values (coherence, delay, ground truth, ...).
        chance: Strict accuracy of baseline policies measured the same way (``random``:
            uniformly random actions; ``fixation``: always action 0, or zeros for Box
            actions); empty when not measured.
        chance_performance: The baselines' mean env performance.
    """

    accuracy: float
    performance: float
    fixation_breaks: float
    criterion: str
    trials: int
    per_trial: np.ndarray
    per_trial_performance: np.ndarray
    conditions: dict[str, dict[Any, dict[str, float]]]
    chance: dict[str, float] = dataclasses.field(default_factory=dict)
    chance_performance: dict[str, float] = dataclasses.field(default_factory=dict)

    def __repr__(self) -> str:
        """One line of headline numbers (``to_dict()`` adds the conditions)."""
        chance = ", ".join(f"{name}={value:.3f}" for name, value in self.chance.items())
        return (
            f"Evaluation(accuracy={self.accuracy:.3f}, "
            f"fixation_breaks={self.fixation_breaks:.3f}, performance={self.performance:.3f}, "
            f"chance=({chance}), "
            f"criterion={self.criterion!r}, trials={self.trials})"
        )

    @property
    def chance_level(self) -> float:
        """The best baseline's strict accuracy (NaN if none was measured)."""
        return max(self.chance.values()) if self.chance else float("nan")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (per-trial values omitted)."""
        return {
            "accuracy": self.accuracy,
            "performance": self.performance,
            "fixation_breaks": self.fixation_breaks,
            "criterion": self.criterion,
            "trials": self.trials,
            "chance": self.chance,
            "chance_performance": self.chance_performance,
            "conditions": {
                key: {str(value): scores for value, scores in table.items()}
                for key, table in self.conditions.items()
            },
        }

    @classmethod
    def of(
        cls,
        run: ClosedLoop,
        criterion: str,
        chance: dict[str, ClosedLoop] | None = None,
    ) -> Evaluation:
        """The evaluation of a run (and of baseline runs measured the same way)."""
        strict = run.strict
        breaks = float(run.broke_fixation.mean()) if run.fixation_action is not None else math.nan
        chance = chance or {}
        return cls(
            accuracy=float(strict.mean()),
            performance=float(run.performance.mean()),
            fixation_breaks=breaks,
            criterion=criterion,
            trials=int(strict.size),
            per_trial=strict,
            per_trial_performance=run.performance,
            conditions=_conditions(run),
            chance={name: float(base.strict.mean()) for name, base in chance.items()},
            chance_performance={name: float(b.performance.mean()) for name, b in chance.items()},
        )


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
        fixation_action,
    )  # fmt: skip


def _parallel_envs(env: gym.Env[Any, Any], trials: int) -> int:
    """How many envs a closed loop of ``trials`` steps together (see :func:`run_closed_loop`)."""
    if getattr(env.unwrapped, "cross_trial_state", False):
        return max(1, min(_PARALLEL, trials // STREAM_TRIALS))
    return min(_PARALLEL, trials)


def _conditions(run: ClosedLoop) -> dict[str, dict[Any, dict[str, float]]]:
    """Scores per value of every trial-dict key with a few scalar values."""
    out: dict[str, dict[Any, dict[str, float]]] = {}
    dicts = run.trials
    strict, perf = run.strict, run.performance
    checked = run.fixation_action is not None
    keys = {key for trial in dicts for key in trial}
    for key in sorted(keys):
        values = [trial.get(key) for trial in dicts]
        if not all(
            np.ndim(v) == 0 and isinstance(np.asarray(v).item(), int | float | str)
            for v in values
            if v is not None
        ):
            continue
        scalars = [np.asarray(v).item() if v is not None else None for v in values]
        distinct = {v for v in scalars if v is not None}
        if not 1 < len(distinct) <= _MAX_CONDITION_VALUES:
            continue
        table = {}
        for value in sorted(distinct, key=lambda v: (isinstance(v, str), v)):
            rows = np.array([s == value for s in scalars])
            table[value] = {
                "accuracy": float(strict[rows].mean()),
                "performance": float(perf[rows].mean()),
                "fixation_breaks": float(run.broke_fixation[rows].mean()) if checked else math.nan,
                "trials": int(rows.sum()),
            }
        out[key] = table
    return out


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


def evaluate(
    model: Any,
    trials: int = 500,
    *,
    seed: int = 1,
    carry_state: bool | None = None,
    chance: bool = True,
    env_kwargs: dict[str, Any] | None = None,
    task: str | None = None,
    threads: int | None = 1,
) -> Evaluation:
    """Closed-loop scores of a trained model on its task, with chance baselines.

    The network steps ``min(trials, 64)`` envs of its task together, each seeded from
    ``seed``; its recurrent state restarts at every trial unless ``carry_state``. A model
    trained across trials (``config.across_trials``) steps envs with the feedback inputs it
    was trained with (:meth:`~neurogym_apps.train.TrainedModel.make_env`) and, by default,
    carries its state, as it was trained. Each trial
    is scored strictly (:func:`strict_criterion`: for most tasks, fixation held on every step
    before the response and then the correct response) and by the env's own
    ``info["performance"]``, overall and per condition, with the fixation-break rate. With
    ``chance``, the baselines of :func:`baseline_policies` (random actions, always fixating
    and :class:`Guess`) are measured the same way.

    Args:
        model: A :class:`~neurogym_apps.train.TrainedModel`, or a stable-baselines3 model (PPO,
            A2C, RecurrentPPO, ...: its ``predict`` is called deterministically for all envs
            at once; a recurrent state restarts per trial through ``episode_start``).
        trials: Trials to run.
        seed: Seed of the evaluation envs (different from training's by default).
        carry_state: Carry the network state across trials (default: only for a model
            trained across trials).
        chance: Also measure the baselines.
        env_kwargs: Task arguments (default: the ones it was trained with).
        task: The task id, for a stable-baselines3 model whose env was not made by
            :func:`neurogym_apps.rl.as_sb3_vec_env` (default: the model's task).
        threads: torch CPU threads while evaluating, restored afterwards (the policy of
            :class:`~neurogym_apps.train.TrainConfig`: 1, the fastest for these small
            networks and several times faster than torch's default on a shared machine);
            None leaves torch's setting alone.

    Returns:
        The :class:`Evaluation`.
    """
    from neurogym_apps.train._progress import torch_threads  # imports torch

    with torch_threads(threads):
        return _evaluate(model, trials, seed, carry_state, chance, env_kwargs, task)


def _evaluate(
    model: Any,
    trials: int,
    seed: int,
    carry_state: bool | None,
    chance: bool,
    env_kwargs: dict[str, Any] | None,
    task: str | None,
) -> Evaluation:
    make, act, reset_state = closed_loop_agent(model, task, env_kwargs)
    if carry_state is None:
        carry_state = not is_predict_model(model) and model.config.across_trials

    criterion, fixation = strict_criterion(make())
    run = run_closed_loop(
        make,
        act,
        trials,
        seed=seed,
        carry_state=carry_state,
        reset_state=reset_state,
        fixation_action=fixation,
    )
    baselines = _baseline_runs(make, trials, seed, fixation) if chance else {}
    return Evaluation.of(run, criterion, baselines)


def closed_loop_agent(
    model: Any, task: str | None, env_kwargs: dict[str, Any] | None
) -> tuple[Callable[[], gym.Env[Any, Any]], BatchPolicy, Callable[[Any, np.ndarray], Any]]:
    """How a closed loop runs ``model``: ``(make_env, act, reset_state)``.

    For :func:`evaluate` and :func:`neurogym_apps.analysis.record_trials`: the task and
    arguments ``model`` was trained on unless given (with the feedback inputs of a model
    trained across trials), its state restarted as its trainer restarts it.
    """
    if is_predict_model(model):
        task, kwargs = predict_task(model, task, env_kwargs)
        act, reset_state = predict_policy(model)
        return _maker(task, kwargs), act, reset_state
    task = model.task if task is None else task
    kwargs = model.env_kwargs if env_kwargs is None else env_kwargs
    return _maker(task, kwargs, feedback=model.config.across_trials), _act_of(model), _zero_rows


def _maker(
    task: str, kwargs: dict[str, Any], *, feedback: bool = False
) -> Callable[[], gym.Env[Any, Any]]:
    """Makes envs of ``task`` with ``kwargs``, with the feedback inputs if ``feedback``.

    ``feedback``: the inputs of a model trained across trials (``PassAction``, ``PassReward``).
    """
    from neurogym_apps.train._across import with_feedback  # it imports this module

    def make() -> gym.Env[Any, Any]:
        env = neurogym.make(task, **kwargs)
        return with_feedback(env) if feedback else env

    return make


def _baseline_runs(
    make: Callable[[], gym.Env[Any, Any]], trials: int, seed: int, fixation: int | None
) -> dict[str, ClosedLoop]:
    return {
        name: run_closed_loop(make, policy, trials, seed=seed, fixation_action=fixation)
        for name, policy in baseline_policies(make()).items()
    }


def chance_scores(
    task: str, trials: int = 500, *, seed: int = 1, env_kwargs: dict[str, Any] | None = None
) -> dict[str, float]:
    """The strict accuracy of each chance baseline on ``task``, as :func:`evaluate` measures it.

    Returns:
        ``{"random": ..., "fixation": ..., "guess": ...}`` (``guess`` where :class:`Guess`
        applies); the chance level is the largest.
    """

    def make() -> gym.Env[Any, Any]:
        return neurogym.make(task, **(env_kwargs or {}))

    _, fixation = strict_criterion(make())
    runs = _baseline_runs(make, validate.positive_int(trials, "trials"), seed, fixation)
    return {name: float(run.strict.mean()) for name, run in runs.items()}


def _act_of(model: Any) -> BatchPolicy:
    """A :class:`TrainedModel`'s ``act`` as a batch policy."""

    def act(obs: np.ndarray, state: Any, rng: np.random.Generator) -> tuple[np.ndarray, Any]:
        del rng
        actions, state = model.act(obs, state)
        return actions, state

    return act


def _zero_rows(state: Any, rows: np.ndarray) -> Any:
    """Restarts the recurrent state (a tensor, or an LSTM's pair) of envs ``rows``."""
    import torch

    index = torch.as_tensor(rows)
    if isinstance(state, tuple):
        return tuple(_zero_rows(part, rows) for part in state)
    state = state.clone()
    state[:, index] = 0.0
    return state
