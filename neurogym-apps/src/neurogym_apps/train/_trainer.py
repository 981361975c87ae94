"""Supervised training of a recurrent network on whole batches of trials, or across trials."""

from __future__ import annotations

import dataclasses
import json
import math
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch

import neurogym
from neurogym import validate
from neurogym_apps import _json
from neurogym_apps.train._across import Streams, with_feedback
from neurogym_apps.train._curriculum import (
    check_curriculum_budget,
    curriculum_stages,
    staged_stepper,
)
from neurogym_apps.train._network import CELLS, RecurrentNetwork
from neurogym_apps.train._progress import torch_threads
from neurogym_apps.train._steps import HISTORY, fit, loss_weights, progress_for

__all__ = ["LOSSES", "LR_SCHEDULES", "TrainConfig", "TrainedModel", "loss_weights", "train"]

_DEFAULT_STEPS = 1000
_CONFIG_FILE = "config.json"
_WEIGHTS_FILE = "model.pt"

#: The losses :class:`TrainConfig` offers (see its ``loss`` attribute).
LOSSES = ("valid", "cost", "mask")
#: The learning-rate schedules :class:`TrainConfig` offers (see its ``lr_schedule``).
LR_SCHEDULES = ("constant", "cosine")
_LEGACY_LOSS = "mask"  # what a config.json written before the loss field was trained with


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """How to train: the network, the optimiser and the budget.

    Attributes:
        model: The recurrent core: ``"gru"``, ``"lstm"`` or ``"rnn"``.
        hidden_size: Recurrent units.
        lr: Adam learning rate (the initial one with ``lr_schedule="cosine"``).
        lr_schedule: ``"constant"`` (default) or ``"cosine"``: the learning rate falls from
            ``lr`` to 0 along half a cosine over the ``steps`` budget
            (``torch.optim.lr_scheduler.CosineAnnealingLR``), which lets a network settle
            close to a noise-limited task's ceiling at the end of a fixed budget. Needs a
            ``steps`` budget and no ``seconds`` budget.
        batch_size: Trials per training step (one ``neurogym.batch`` each).
        steps: Budget in training steps; with ``seconds`` too, whichever ends first.
        seconds: Budget in wall-clock seconds, at least one step (not reproducible across
            machines: the number of steps it allowed is recorded, and ``steps=`` that number
            reproduces the run).
        seed: Seeds the network's initial weights and the task's trials.
        grad_clip: Gradient norm clip (None: no clipping).
        loss: Which steps the loss covers (cross-entropy for Discrete actions, squared error
            for Box actions):

            * ``"valid"`` (default): every step of every trial up to its response, with the
              targets the task defines there (fixation before the response), and the steps
              of the response that have a target. A network must learn to hold fixation and
              then answer, which is what the field calls doing the task: upstream's examples
              train on every step, and Yang et al. (2019) train the fixation output too.
              The response starts at the trial's first target step or at its ``decision``
              period, whichever comes first; response steps without a target (a tie that
              either choice answers) are not trained. ``response_weight`` weighs the
              response steps against the steps before it.
            * ``"cost"``: Yang et al.'s cost mask (:meth:`neurogym.data.TrainingBatch.cost_mask`
              anchored at the ``decision`` period: 100 ms unchecked, weight 1 before the
              response, a 100 ms grace period, weight 5 after), normalised by its sum.
            * ``"mask"``: only the steps where the task set a ground truth (the response).
              The fixation output is never trained, so such a network answers from the
              first steps on; kept to reproduce earlier runs (a ``config.json`` without a
              ``loss`` field loads as ``"mask"``).
        response_weight: The ``"valid"`` loss's weight on response steps (1: every trained
            step counts the same). Tasks whose trials are mostly fixation (a 1-step response
            after 2 s at dt = 100) can learn to fixate and never answer; Yang et al.'s cost
            mask weighs the response 5 times for the same reason.
        threads: torch CPU threads while training (``torch.set_num_threads``; the earlier
            count is restored afterwards). Default 1: the fastest for these small networks,
            and on a machine shared with other jobs several times faster than torch's
            default of one per core (docs/training.md). None leaves torch's setting alone.
        across_trials: Train across trials (docs/training.md, "Training across trials"):
            ``batch_size`` seeded streams of consecutive trials, each an env of the task
            stepped by the network itself, the recurrent state carried across trial
            boundaries, and the previous action and reward as extra inputs
            (``PassAction``, ``PassReward``). For tasks whose trials depend on earlier ones
            (``cross_trial_state``: a block, rule or context to infer). The loss covers
            every step, with the env's ground truth of that step (``loss`` must be
            ``"valid"``; ``response_weight`` weighs the steps whose target is not
            fixation). A model trained so is evaluated the same way (:func:`evaluate`
            carries its state by default, and :meth:`TrainedModel.make_env` adds the
            feedback inputs). False (default): batches of independent trials.
        chunk_steps: Across trials, the env steps of every stream per training step: the
            truncation of backpropagation through time (the state is carried on, detached,
            to the next chunk). Ignored otherwise.
        random_actions: Across trials, the fraction of the streams' steps whose action is
            drawn uniformly at random (from a generator seeded by ``seed``) instead of
            being the network's arg-max: 0 (default) steps the envs with the network's
            own choices; 1 makes the trials and feedback inputs independent of the
            network. The loss still asks for the ground truth on every step. The feedback
            inputs echo the actions, and no gradient flows through them: with its own
            actions a network can learn from its own perseveration (docs/training.md,
            section 5). Needs ``across_trials``.
        curriculum: Stages trained before the task itself, in order, each
            ``(steps, env_kwargs)``: ``steps`` training steps on the task made with
            ``env_kwargs`` over the run's own (``((1500, {"rule_cue": 1.0}),
            (500, {"rule_cue": 0.5}))`` shows HierarchicalReasoning's rule, then half the
            time). The stages count in the ``steps`` budget; the task as given trains for
            the rest (at least one step), and the model is the task's (its ``env_kwargs``,
            its evaluation). The network and the optimiser carry on from stage to stage;
            each stage's trials restart from ``seed`` (new envs; across trials, new streams
            and states). Needs a ``steps`` budget and no ``seconds`` budget, like a
            schedule. Empty (default): the task from the first step.
    """

    model: str = "gru"
    hidden_size: int = 64
    lr: float = 3e-3
    lr_schedule: str = "constant"
    batch_size: int = 32
    steps: int | None = None
    seconds: float | None = None
    seed: int = 0
    grad_clip: float | None = 1.0
    loss: str = "valid"
    response_weight: float = 1.0
    threads: int | None = 1
    across_trials: bool = False
    chunk_steps: int = 50
    random_actions: float = 0.0
    curriculum: tuple[tuple[int, Mapping[str, Any]], ...] = ()

    def __post_init__(self) -> None:
        validate.choice(self.model, "model", tuple(CELLS))
        validate.choice(self.loss, "loss", LOSSES)
        validate.choice(self.lr_schedule, "lr_schedule", LR_SCHEDULES)
        if self.lr_schedule != "constant" and (self.steps is None or self.seconds is not None):
            raise ValueError(
                f"lr_schedule={self.lr_schedule!r} anneals over the steps budget: it needs "
                f"steps= and no seconds= (got steps={self.steps!r}, seconds={self.seconds!r})"
            )
        validate.positive_int(self.hidden_size, "hidden_size")
        validate.number(self.response_weight, "response_weight", minimum=0, exclusive_minimum=True)
        validate.number(self.lr, "lr", minimum=0, exclusive_minimum=True)
        validate.positive_int(self.batch_size, "batch_size")
        if self.steps is not None:
            validate.positive_int(self.steps, "steps")
        if self.seconds is not None:
            validate.number(self.seconds, "seconds", minimum=0, exclusive_minimum=True)
        validate.integer(self.seed, "seed", minimum=0)
        if self.grad_clip is not None:
            validate.number(self.grad_clip, "grad_clip", minimum=0, exclusive_minimum=True)
        if self.threads is not None:
            validate.positive_int(self.threads, "threads")
        validate.boolean(self.across_trials, "across_trials")
        validate.positive_int(self.chunk_steps, "chunk_steps")
        validate.number(self.random_actions, "random_actions", minimum=0, maximum=1)
        if self.random_actions and not self.across_trials:
            raise ValueError(
                f"random_actions={self.random_actions!r} chooses the actions that step the "
                "streams of across_trials=True: set across_trials=True, or random_actions=0"
            )
        if self.across_trials and self.loss != "valid":
            raise ValueError(
                f"across_trials=True trains on every step with the env's ground truth: loss "
                f"must be 'valid', got {self.loss!r}"
            )
        object.__setattr__(self, "curriculum", curriculum_stages(self.curriculum))
        if self.curriculum:
            check_curriculum_budget(self.curriculum, self.steps, self.seconds)

    @property
    def max_steps(self) -> int | None:
        """The step budget: ``steps``, or 1000 when neither budget is given."""
        if self.steps is None and self.seconds is None:
            return _DEFAULT_STEPS
        return self.steps


@dataclasses.dataclass
class TrainedModel:
    """A trained network with what is needed to run, evaluate, save and reload it.

    Attributes:
        network: The torch module (``inputs (B, T, n_in) -> outputs (B, T, n_out)``).
        task: The task id it was trained on.
        env_kwargs: The task's keyword arguments.
        config: The :class:`TrainConfig`.
        continuous: Whether the task's actions are a Box (outputs are actions, not logits).
        history: Per training step: ``step``, ``loss``, ``accuracy`` (the step accuracy:
            the fraction of the loss's steps, fixation included, whose arg-max output is the
            target), ``response_accuracy`` (the same over the response steps alone, where the
            task sets a ground truth; both NaN for Box actions) and ``seconds`` since the start.
            Neither accuracy is the strict closed-loop score of :func:`evaluate`.
    """

    network: RecurrentNetwork
    task: str
    env_kwargs: dict[str, Any]
    config: TrainConfig
    continuous: bool
    history: dict[str, list[float]] = dataclasses.field(default_factory=dict)

    def __repr__(self) -> str:
        """One line: task, network, steps trained and the final loss (not the history)."""
        losses = self.history.get("loss") or []
        final = f"{losses[-1]:.4g}" if losses else "-"
        return (
            f"TrainedModel(task={self.task!r}, model={self.config.model!r}, "
            f"hidden_size={self.config.hidden_size}, steps={len(losses)}, final_loss={final})"
        )

    def make_env(self, env_kwargs: Mapping[str, Any] | None = None) -> gym.Env[Any, Any]:
        """A new env of the task the model was trained on, with the inputs it was trained with.

        Args:
            env_kwargs: The task's arguments (default: those it was trained with).

        Returns:
            The env; for a model trained across trials, wrapped in ``PassAction`` and
            ``PassReward`` (its previous action and reward are inputs).
        """
        kwargs = self.env_kwargs if env_kwargs is None else env_kwargs
        return _task_env(self.task, kwargs, self.config)

    def act(self, obs: np.ndarray, state: Any = None) -> tuple[np.ndarray, Any]:
        """Actions for a batch of single-step observations ``(N, n_in)``; returns the new state."""
        with torch.inference_mode():
            x = torch.as_tensor(np.asarray(obs, dtype=np.float32)).unsqueeze(1)
            out, state = self.network(x, state)
            out = out[:, 0]
            actions = out.numpy() if self.continuous else out.argmax(-1).numpy()
        return actions, state

    def policy(self) -> Any:
        """``policy(ob, state) -> (action, state)`` for one env, as neurogym_apps.plot takes."""

        def step(ob: Any, state: Any) -> tuple[Any, Any]:
            actions, state = self.act(np.asarray(ob)[None], state)
            action = actions[0] if self.continuous else int(actions[0])
            return action, state

        return step

    def save(self, folder: str | Path, *, overwrite: bool = False) -> Path:
        """Writes ``config.json`` and ``model.pt`` (weights only) into ``folder``.

        A folder that already holds either file (another model) is refused unless
        ``overwrite``, which replaces both (other files, such as an earlier run's
        ``metrics.json`` or figures, are left as they are; ``train_and_report`` deletes them).

        Raises:
            TypeError: If ``env_kwargs`` hold values JSON cannot store.
            ValueError: If ``folder`` holds ``config.json`` or ``model.pt`` and ``overwrite``
                is False.
        """
        path = Path(folder)
        earlier = [name for name in (_CONFIG_FILE, _WEIGHTS_FILE) if (path / name).exists()]
        if earlier and not overwrite:
            raise ValueError(
                f"{str(path)!r} already holds a saved model ({', '.join(earlier)}): choose "
                "another folder, or save(folder, overwrite=True) to replace it"
            )
        path.mkdir(parents=True, exist_ok=True)
        record = {
            "task": self.task,
            "env_kwargs": self.env_kwargs,
            "config": dataclasses.asdict(self.config),
            "continuous": self.continuous,
            "n_in": self.network.recurrent.input_size,
            "n_out": self.network.readout.out_features,
            "history": self.history,
        }
        try:
            text = _json.dumps(record)
        except TypeError as exc:
            raise TypeError(f"cannot save env_kwargs {self.env_kwargs!r} as JSON: {exc}") from exc
        (path / _CONFIG_FILE).write_text(text + "\n", encoding="utf-8")
        torch.save(self.network.state_dict(), path / _WEIGHTS_FILE)
        return path

    @classmethod
    def load(cls, folder: str | Path) -> TrainedModel:
        """Reads a model written by :meth:`save` (weights are loaded with ``weights_only``).

        ``config.json`` is checked (its keys, their types, its ``config`` as a
        :class:`TrainConfig`, its ``n_in``/``n_out``/``continuous`` against the spaces of its
        ``task`` made with its ``env_kwargs``, and the weights' shapes against it) before a
        network is built, so a hand-edited or foreign file cannot make it allocate what the
        weights do not hold nor fail later, on the first step.

        Raises:
            FileNotFoundError: If ``folder`` lacks ``config.json`` or ``model.pt``.
            ValueError: Naming the file and the problem: a malformed ``config.json`` (an
                unknown or badly typed ``config`` entry, a task that is not registered or
                whose sizes differ), a ``model.pt`` that is not a torch archive of a state
                dict, or weights that do not match ``config.json``.
        """
        path = Path(folder)
        for name in (_CONFIG_FILE, _WEIGHTS_FILE):
            if not (path / name).is_file():
                raise FileNotFoundError(f"no {name} in {str(path)!r}: not a saved model folder")
        record = _read_record(path / _CONFIG_FILE)
        config = _read_config(record["config"], path / _CONFIG_FILE)
        _check_task(record, config, path / _CONFIG_FILE)
        state = _read_weights(path / _WEIGHTS_FILE)
        _check_weights(state, record, config, path)
        network = RecurrentNetwork(
            record["n_in"], record["n_out"], config.hidden_size, config.model
        )
        try:
            network.load_state_dict(state)
        except RuntimeError as exc:  # missing or extra entries, other shapes
            raise ValueError(
                f"{str(path / _WEIGHTS_FILE)!r} does not hold the weights of a {config.model} "
                f"network as config.json describes it: {exc}"
            ) from None
        network.eval()
        return cls(
            network,
            record["task"],
            record["env_kwargs"],
            config,
            record["continuous"],
            _read_history(record.get("history", {})),
        )


_RECORD_TYPES = {
    "task": str, "n_in": int, "n_out": int, "config": dict, "env_kwargs": dict, "continuous": bool,
}  # fmt: skip
_GATES = {"gru": 3, "lstm": 4, "rnn": 1}


def _read_record(path: Path) -> dict[str, Any]:
    """``config.json`` of a saved model, its keys and their types checked."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{str(path)!r} is not valid JSON: {exc}") from exc
    if not isinstance(record, dict):
        raise ValueError(f"{str(path)!r} must hold a JSON object, got {type(record).__name__}")
    missing = sorted(set(_RECORD_TYPES) - set(record))
    if missing:
        raise ValueError(
            f"{str(path)!r} lacks {missing}: it was not written by TrainedModel.save "
            f"(keys: {sorted(_RECORD_TYPES)})"
        )
    for key, kind in _RECORD_TYPES.items():
        value = record[key]
        wrong = not isinstance(value, kind) or (kind is int and isinstance(value, bool))
        if wrong or (kind is int and value < 1):
            what = "a positive int" if kind is int else kind.__name__
            raise ValueError(f"{str(path)!r}: {key} must be {what}, got {value!r}")
    return dict(record)


def _read_history(history: Any) -> dict[str, list[float]]:
    """The saved history with its nulls (a non-finite value, written as JSON null) as NaN."""
    if not isinstance(history, dict):
        return {}
    return {
        str(key): [math.nan if value is None else value for value in values]
        for key, values in history.items()
        if isinstance(values, list)
    }


def _read_config(entries: dict[str, Any], path: Path) -> TrainConfig:
    """``config.json``'s ``config`` as a :class:`TrainConfig`: known fields, valid values."""
    known = {field.name for field in dataclasses.fields(TrainConfig)}
    unknown = sorted(set(entries) - known)
    if unknown:
        raise ValueError(
            f"{str(path)!r}: config has unknown entries {unknown} (TrainConfig's fields: "
            f"{sorted(known)})"
        )
    try:
        return TrainConfig(**{"loss": _LEGACY_LOSS, **entries})
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{str(path)!r}: config is not a valid TrainConfig: {exc}") from None


def _task_env(task: str, kwargs: Mapping[str, Any], config: TrainConfig) -> gym.Env[Any, Any]:
    """An env of ``task`` as ``config`` trains on it (feedback inputs across trials)."""
    env = neurogym.make(task, **kwargs)
    return with_feedback(env) if config.across_trials else env


def _check_task(record: dict[str, Any], config: TrainConfig, path: Path) -> None:
    """``n_in``, ``n_out`` and ``continuous`` are those of ``task`` with ``env_kwargs``."""
    task, kwargs = record["task"], record["env_kwargs"]
    try:
        env = _task_env(task, kwargs, config)
        n_in, n_out, continuous = _sizes(env)
    except Exception as exc:  # an unknown task, bad env_kwargs, unsupported spaces
        raise ValueError(
            f"{str(path)!r}: cannot make its task {task!r} with env_kwargs {kwargs!r}: {exc}"
        ) from None
    found = (record["n_in"], record["n_out"], record["continuous"])
    if found != (n_in, n_out, continuous):
        raise ValueError(
            f"{str(path)!r}: n_in {found[0]}, n_out {found[1]}, continuous {found[2]} do not "
            f"match its task {task!r} (n_in {n_in}, n_out {n_out}, continuous {continuous})"
        )


def _read_weights(path: Path) -> dict[str, torch.Tensor]:
    """``model.pt``: a torch archive of tensors, loaded with ``weights_only`` (no code)."""
    if not zipfile.is_zipfile(path):
        raise ValueError(
            f"{str(path)!r} is not a zip archive, the format torch.save writes: not the "
            "weights of a saved model"
        )
    try:
        state = torch.load(path, weights_only=True)  # no pickled code
    except Exception as exc:  # torch raises many kinds for a damaged or foreign archive
        raise ValueError(f"{str(path)!r} cannot be read as torch weights: {exc}") from None
    if not isinstance(state, dict) or not all(
        isinstance(key, str) and isinstance(value, torch.Tensor) for key, value in state.items()
    ):
        raise ValueError(f"{str(path)!r} does not hold a state dict (names to tensors)")
    return state


def _check_weights(state: Any, record: dict[str, Any], config: TrainConfig, folder: Path) -> None:
    """The weights' shapes match what ``config.json`` says, before a network is built."""
    expected = {
        "recurrent.weight_ih_l0": (_GATES[config.model] * config.hidden_size, record["n_in"]),
        "readout.weight": (record["n_out"], config.hidden_size),
    }
    if not isinstance(state, dict):
        raise ValueError(f"model.pt in {str(folder)!r} does not hold a state dict")
    for key, shape in expected.items():
        found = tuple(state[key].shape) if key in state else None
        if found != shape:
            raise ValueError(
                f"model.pt in {str(folder)!r} does not match its config.json: {key} has shape "
                f"{found}, but config.json (model {config.model!r}, hidden_size "
                f"{config.hidden_size}, n_in {record['n_in']}, n_out {record['n_out']}) needs "
                f"{shape}"
            )


def _require_batches(env: gym.Env[Any, Any], task: str) -> None:
    """Raises ValueError (with the way out) if the task cannot give supervised batches."""
    from neurogym.data import UnsupportedWrapperError, batch_source

    try:
        batch_source(env)
    except UnsupportedWrapperError as exc:
        raise ValueError(
            f"{task} cannot be trained on supervised batches: {exc}. Train it with "
            "reinforcement learning instead (neurogym_apps.rl.as_sb3_vec_env, docs/rl.md)"
        ) from exc


def _scheduled(
    step_once: Callable[[], dict[str, float]],
    optimizer: torch.optim.Optimizer,
    config: TrainConfig,
) -> Callable[[], dict[str, float]]:
    """``step_once`` followed by a step of ``config.lr_schedule`` (nothing when constant)."""
    if config.lr_schedule == "constant":
        return step_once
    assert config.steps is not None  # TrainConfig checks it
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=config.steps)

    def step_and_anneal() -> dict[str, float]:
        values = step_once()
        schedule.step()
        return values

    return step_and_anneal


def _sizes(env: gym.Env[Any, Any]) -> tuple[int, int, bool]:
    """(inputs, outputs, continuous) for a task's spaces."""
    obs = env.observation_space
    act = env.action_space
    if not isinstance(obs, gym.spaces.Box) or len(obs.shape) != 1:
        raise ValueError(
            f"the trainer needs a flat Box observation space, got {obs}; flatten it with a "
            "wrapper first"
        )
    if isinstance(act, gym.spaces.Discrete):
        return int(obs.shape[0]), int(act.n), False
    if isinstance(act, gym.spaces.Box) and len(act.shape) == 1:
        return int(obs.shape[0]), int(act.shape[0]), True
    raise ValueError(f"the trainer needs a Discrete or flat Box action space, got {act}")


def train(
    task: str,
    config: TrainConfig | None = None,
    *,
    env_kwargs: Mapping[str, Any] | None = None,
    progress: bool = True,
    callback: Callable[[TrainedModel, int], bool | None] | None = None,
    **overrides: Any,
) -> TrainedModel:
    """Trains a recurrent network on ``task`` (loss over ``config.loss``'s steps: every step).

    Each step draws one batch with :func:`neurogym.batch` from an env seeded with
    ``config.seed`` (with ``config.across_trials``: the next ``chunk_steps`` steps of
    ``batch_size`` streams seeded from it), so a run with the same config (and a step budget)
    is repeatable on CPU.
    Torch uses ``config.threads`` CPU threads (default 1) while it trains; the earlier count
    is restored before it returns.

    Args:
        task: A registered task id (``"neurogym/PerceptualDecisionMaking-v0"`` or a bare name).
        config: The :class:`TrainConfig`; ``overrides`` replace its fields
            (``train("PerceptualDecisionMaking", steps=500, hidden_size=32)``).
        env_kwargs: Keyword arguments of the task.
        progress: Report progress on stderr: a bar on a terminal or in a notebook, plain
            lines otherwise (one per tenth of the budget but at least 5 s apart, at least one
            every 30 s, and one at the end), with the step, ``loss``, ``step_acc`` and
            ``resp_acc`` (means over the last 25 steps; see :attr:`TrainedModel.history`;
            none is the strict score of :func:`evaluate`) and the elapsed time.
        callback: ``callback(model, step)`` after every training step (e.g. to evaluate
            every few minutes); the time it takes is not counted in a ``seconds`` budget nor
            in ``history["seconds"]``. Training stops early when it returns True.
        **overrides: :class:`TrainConfig` fields that replace those of ``config``.

    Returns:
        The :class:`TrainedModel`.

    Raises:
        ValueError: The task has no ground truth (train it with RL), unsupported spaces, or a
            bad config value.
    """
    config = dataclasses.replace(config or TrainConfig(), **overrides)
    kwargs = dict(env_kwargs or {})
    env = neurogym.make(task, **kwargs)
    task_id = env.unwrapped.spec.id if env.unwrapped.spec is not None else task
    _require_batches(env, task)
    sizes = _sizes(_task_env(task, kwargs, config))
    stages = [({**kwargs, **extra}, steps) for steps, extra in config.curriculum]
    for stage_kwargs, _ in stages:  # a bad stage fails now, not after the stages before it
        _check_stage(task, stage_kwargs, config, sizes)
    with torch_threads(config.threads):
        torch.manual_seed(config.seed)
        network = RecurrentNetwork(*sizes[:2], config.hidden_size, config.model)
        optimizer = torch.optim.Adam(network.parameters(), lr=config.lr)
        model = TrainedModel(network, task_id, kwargs, config, sizes[2])
        model.history = {key: [] for key in HISTORY}
        step_once = staged_stepper(
            model, optimizer, [*stages, (kwargs, None)], lambda k: _data(task, k, config)
        )
        shown = progress_for(config, task_id) if progress else None
        fit(model, _scheduled(step_once, optimizer, config), shown, callback)
        network.eval()
    return model


def _data(task: str, kwargs: Mapping[str, Any], config: TrainConfig) -> Any:
    """What a run of ``config`` draws its training data from: a seeded env, or its streams."""
    if config.across_trials:
        return Streams(
            lambda: _task_env(task, kwargs, config),
            config.batch_size,
            config.seed,
            random_actions=config.random_actions,
        )
    env = neurogym.make(task, **kwargs)
    env.reset(seed=config.seed)
    return env


def _check_stage(
    task: str, kwargs: Mapping[str, Any], config: TrainConfig, sizes: tuple[int, int, bool]
) -> None:
    """A curriculum stage's task can be made and has the task's inputs and outputs."""
    try:
        found = _sizes(_task_env(task, kwargs, config))
    except Exception as exc:  # bad arguments, whatever the task raises for them
        raise ValueError(f"curriculum stage {kwargs!r} of {task}: {exc}") from exc
    if found != sizes:
        raise ValueError(
            f"curriculum stage {kwargs!r} of {task} changes the network's inputs or outputs "
            f"({found[:2]} against the task's {sizes[:2]}): a stage must keep the spaces"
        )
