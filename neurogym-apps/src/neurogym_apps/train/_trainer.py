"""Supervised training of a recurrent network on whole batches of trials."""

from __future__ import annotations

import dataclasses
import json
import math
import time
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from torch import nn

import neurogym
from neurogym import validate
from neurogym_apps.train._network import CELLS, RecurrentNetwork

__all__ = ["LOSSES", "TrainConfig", "TrainedModel", "loss_weights", "train"]

_DEFAULT_STEPS = 1000
_CONFIG_FILE = "config.json"
_WEIGHTS_FILE = "model.pt"

#: The losses :class:`TrainConfig` offers (see its ``loss`` attribute).
LOSSES = ("valid", "cost", "mask")
_LEGACY_LOSS = "mask"  # what a config.json written before the loss field was trained with


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """How to train: the network, the optimiser and the budget.

    Attributes:
        model: The recurrent core: ``"gru"``, ``"lstm"`` or ``"rnn"``.
        hidden_size: Recurrent units.
        lr: Adam learning rate.
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
    """

    model: str = "gru"
    hidden_size: int = 64
    lr: float = 3e-3
    batch_size: int = 32
    steps: int | None = None
    seconds: float | None = None
    seed: int = 0
    grad_clip: float | None = 1.0
    loss: str = "valid"
    response_weight: float = 1.0

    def __post_init__(self) -> None:
        validate.choice(self.model, "model", tuple(CELLS))
        validate.choice(self.loss, "loss", LOSSES)
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
        history: Per logged step: ``step``, ``loss``, ``accuracy`` (NaN for Box actions) and
            ``seconds`` since the start.
    """

    network: RecurrentNetwork
    task: str
    env_kwargs: dict[str, Any]
    config: TrainConfig
    continuous: bool
    history: dict[str, list[float]] = dataclasses.field(default_factory=dict)

    def make_env(self) -> gym.Env[Any, Any]:
        """A new env of the task the model was trained on."""
        return neurogym.make(self.task, **self.env_kwargs)

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
            text = json.dumps(record, indent=2)
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
        _check_task(record, path / _CONFIG_FILE)
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
            record.get("history", {}),
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


def _check_task(record: dict[str, Any], path: Path) -> None:
    """``n_in``, ``n_out`` and ``continuous`` are those of ``task`` with ``env_kwargs``."""
    task, kwargs = record["task"], record["env_kwargs"]
    try:
        env = neurogym.make(task, **kwargs)
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


def loss_weights(data: Any, loss: str, response_weight: float = 1.0) -> torch.Tensor:
    """Per-step loss weights ``(B, T)`` of a batch (torch, batch first) for ``loss``.

    See :class:`TrainConfig` (``loss`` and ``response_weight``, which only the ``"valid"``
    loss uses) for what each choice covers.
    """
    mask: torch.Tensor = data.mask.bool()
    if loss == "mask":
        return mask.float()
    if loss == "cost":
        return torch.as_tensor(data.cost_mask("decision"), dtype=torch.float32)
    valid: torch.Tensor = data.valid.bool()
    steps = torch.arange(mask.shape[1])
    first_target = torch.where(mask.any(1), mask.float().argmax(1), mask.shape[1])
    if "decision" in data.periods:
        decision = torch.as_tensor(np.asarray(data.periods["decision"][0]))
        first_target = torch.minimum(first_target, decision)
    before = steps[None, :] < first_target[:, None]
    weights = (valid & (before | mask)).float()
    if response_weight != 1.0:
        weights = torch.where(before, weights, weights * response_weight)
    return weights


def _loss(
    out: torch.Tensor, targets: torch.Tensor, weights: torch.Tensor, continuous: bool
) -> tuple[torch.Tensor, float]:
    """Weighted cross-entropy (Discrete) or squared error (Box); and the step accuracy.

    The accuracy is the fraction of the weighted steps whose arg-max output is the target.
    """
    total = weights.sum().clamp_min(1e-12)
    if continuous:
        err = ((out - targets.float()) ** 2).mean(-1)
        return (err * weights).sum() / total, math.nan
    labels = targets.long()
    per_step = nn.functional.cross_entropy(out.transpose(1, 2), labels, reduction="none")
    loss = (per_step * weights).sum() / total
    checked = weights > 0
    hits = (out.argmax(-1) == labels)[checked]
    accuracy = float(hits.float().mean()) if hits.numel() else math.nan
    return loss, accuracy


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
    ``config.seed``, so a run with the same config (and a step budget) is repeatable on CPU.

    Args:
        task: A registered task id (``"neurogym/PerceptualDecisionMaking-v0"`` or a bare name).
        config: The :class:`TrainConfig`; ``overrides`` replace its fields
            (``train("PerceptualDecisionMaking", steps=500, hidden_size=32)``).
        env_kwargs: Keyword arguments of the task.
        progress: Show a progress bar with the loss and accuracy (tqdm, on stderr).
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
    n_in, n_out, continuous = _sizes(env)
    torch.manual_seed(config.seed)
    network = RecurrentNetwork(n_in, n_out, config.hidden_size, config.model)
    optimizer = torch.optim.Adam(network.parameters(), lr=config.lr)
    env.reset(seed=config.seed)
    model = TrainedModel(network, task_id, kwargs, config, continuous)
    model.history = {"step": [], "loss": [], "accuracy": [], "seconds": []}
    _fit(model, env, optimizer, progress, callback)
    network.eval()
    return model


def _fit(
    model: TrainedModel,
    env: gym.Env[Any, Any],
    optimizer: torch.optim.Optimizer,
    progress: bool,
    callback: Callable[[TrainedModel, int], bool | None] | None = None,
) -> None:
    config, network, history = model.config, model.network, model.history
    bar = _progress_bar(config, model.task, progress)
    start = time.perf_counter()
    step = 0
    network.train()
    while True:
        elapsed = time.perf_counter() - start
        if config.max_steps is not None and step >= config.max_steps:
            break
        if config.seconds is not None and elapsed >= config.seconds and step > 0:
            break
        data = neurogym.batch(env, config.batch_size, as_torch=True)
        out, _ = network(data.inputs.float())
        weights = loss_weights(data, config.loss, config.response_weight)
        loss, accuracy = _loss(out, data.targets, weights, model.continuous)
        optimizer.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        if config.grad_clip is not None:
            nn.utils.clip_grad_norm_(network.parameters(), config.grad_clip)
        optimizer.step()
        step += 1
        loss_value = float(loss.detach())
        for key, value in (
            ("step", step),
            ("loss", loss_value),
            ("accuracy", accuracy),
            ("seconds", time.perf_counter() - start),
        ):
            history[key].append(value)
        if callback is not None:
            paused = time.perf_counter()
            stop = callback(model, step)
            network.train()
            start += time.perf_counter() - paused  # the callback's time is not training time
            if stop is True:
                break
        if bar is not None:
            if config.max_steps is not None:
                bar.update(1)
            else:  # a seconds budget: the bar counts seconds
                bar.update(min(time.perf_counter() - start, bar.total) - bar.n)
            bar.set_postfix(loss=f"{loss_value:.3f}", acc=f"{accuracy:.2f}", refresh=False)
    if bar is not None:
        bar.close()


def _progress_bar(config: TrainConfig, task: str, show: bool) -> Any:
    if not show:
        return None
    from tqdm.auto import tqdm  # type: ignore[import-untyped]  # the torch extra

    label = task.removeprefix("neurogym/").removesuffix("-v0")
    if config.max_steps is not None:
        return tqdm(total=config.max_steps, desc=label, unit="step", leave=False)
    assert config.seconds is not None
    form = "{l_bar}{bar}| {n:.0f}/{total:.0f} s{postfix}"
    return tqdm(total=float(config.seconds), desc=label, bar_format=form, leave=False)
