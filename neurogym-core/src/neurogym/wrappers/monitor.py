"""``Monitor``: per-trial behaviour logs, optional ``.npz`` files, and policy evaluation.

Nothing happens at construction: no directory is created and the env is not reset. Files are
written only when ``save_dir`` is given (or :meth:`Monitor.save` is called). Plotting is not
part of this module, so importing it needs neither matplotlib nor torch. NeuroGym 2.3.1's
arguments (``config``, ``plot_create``, ``plot_steps``, ``ext``) are handled, with a warning, by
:mod:`neurogym._legacy.monitor`.
"""

from __future__ import annotations

import importlib
import json
import logging
import re
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, SupportsFloat

import gymnasium as gym
import numpy as np

from neurogym import validate
from neurogym._deprecation import WrapperHints, deprecated

if TYPE_CHECKING:
    from neurogym._legacy.monitor import PlotRecorder

__all__ = ["Monitor"]

logger = logging.getLogger("neurogym.wrappers")

Step = tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]
_TRIGGERS = ("trial", "step")
# numpy's stub types **kwds of savez loosely enough that mypy matches them to allow_pickle.
_savez: Callable[..., None] = np.savez


#: The array of a log file naming the keys stored as JSON text (one string per trial).
JSON_KEYS = "__json__"
_LOG_FILE = re.compile(r"trial_\d+\.npz")


def _legacy() -> Any:
    """:mod:`neurogym._legacy.monitor` (2.3.1's arguments), imported on first use, from above."""
    return importlib.import_module("neurogym._legacy.monitor")


def _trim(log: dict[str, list[Any]], keep: int) -> None:
    """Drops the oldest entries once a list holds a tenth more than ``keep``."""
    slack = max(1, keep // 10)
    for values in log.values():
        if len(values) > keep + slack - 1:
            del values[: len(values) - keep]


def _empty_log() -> dict[str, list[Any]]:
    return {"action": [], "reward": [], "cum_reward": [], "performance": []}


class Monitor(WrapperHints, gym.Wrapper[Any, Any, Any, Any]):
    """Logs every trial's last action, reward, summed reward and ``info`` entries.

    At each trial end it appends to :attr:`data` the action and reward of the step that ended
    the trial, the summed reward of the trial (``cum_reward``) and every key of that step's
    ``info`` (``performance``, ``trial`` with the finished trial's dict, ``gt``...). With a
    ``save_dir``, the log is written to ``save_dir/trial_<n>.npz`` and cleared every
    ``interval`` trials (``trigger="trial"``) or at the first trial end after ``interval``
    steps since the last write (``trigger="step"``); the directory is created at the first
    write. Files hold no pickled objects: a key whose values are not one numeric (or text)
    array, such as ``trial`` (the trials' dicts), is stored as JSON text, one string per trial;
    read a file with :meth:`Monitor.load` (or ``np.load(path)``, without ``allow_pickle``,
    and ``json.loads`` on the keys its ``__json__`` array names).

    A Monitor refuses a ``save_dir`` that already holds ``trial_<n>.npz`` files (an earlier
    run's logs, which would be overwritten or mixed with this run's): it checks at
    construction and again at its first write. With ``overwrite=True`` it deletes those files
    at its first write instead (only ``trial_<n>.npz``; other files are kept).

    Memory stays bounded: :attr:`data` keeps the ``max_trials`` most recent trials (default
    100,000, about 2 MB), dropping the oldest, so a monitor without ``save_dir`` can run for
    ever. (It is trimmed in chunks of a tenth of ``max_trials``, so it briefly holds up to 10%
    more.) Pass ``max_trials=None`` to keep everything.

    NeuroGym 2.3.1's arguments still work, in 2.3.1's positional order, each warned once:
    ``config`` (a ``neurogym.config.Config``, a dict of its sections or a TOML path) fills the
    arguments left at their defaults from its ``monitor`` section and is kept as
    :attr:`config` (filled back with the settings used, as 2.3.1 did); ``plot_create`` keeps
    the last ``plot_steps`` steps and draws them at each write to ``save_dir/task_<n>.<ext>``
    (``<n>`` on 6 digits, as 2.3.1; needs ``neurogym[plot]``). Given any of them, the Monitor
    behaves as 2.3.1's did where code relies on it: ``save_dir`` defaults to
    ``<config.local_dir>/<env name>/<UTC timestamp>`` (created at the first write) and an env
    never reset is reset before the first step (2.3.1 reset it in the constructor).

    Args:
        env: The env to monitor.
        config: NeuroGym 2.3.1's configuration (deprecated; see above).
        name: Label used in log messages; default the task's class name.
        trigger: ``"trial"`` or ``"step"``: what ``interval`` counts.
        interval: Trials (or steps) between writes.
        verbose: Log the mean reward of each write at INFO level (logger
            ``"neurogym.wrappers"``).
        plot_create: 2.3.1's figures of the last steps at each write (deprecated).
        plot_steps: Steps per figure (deprecated).
        ext: Figure file extension (deprecated).
        step_fn: Called instead of ``env.step`` to step the env (upstream's hook).
        save_dir: Directory of the ``.npz`` files; None writes nothing automatically.
        max_trials: Most recent trials kept in :attr:`data` (None: all).
        overwrite: Delete an earlier run's ``trial_<n>.npz`` files in ``save_dir`` at the
            first write, instead of refusing the folder.

    Attributes:
        data: The log since the last write, one list entry per trial.
        config: 2.3.1's configuration of this Monitor (deprecated).
        data_eval: The log of the last :meth:`evaluate_policy` run: one numpy array per key
            (``trial``: a list of the trials' dicts).
        activations: 2.3.1's activation probes by name (see :meth:`record_activations`).
        num_tr: Trials ended since construction.

    Raises:
        ValueError: If ``trigger`` is unknown, ``interval < 1`` or ``max_trials < 1``; or
            ``save_dir`` already holds ``trial_<n>.npz`` files and ``overwrite`` is False.
        ImportError: With ``plot_create`` (or a config's ``monitor.plot.create``) when
            neurogym-apps or matplotlib is missing.
    """

    def __init__(
        self,
        env: gym.Env[Any, Any],
        config: Any = None,
        name: str | None = None,
        trigger: Literal["trial", "step"] = "trial",
        interval: int = 1000,
        verbose: bool = True,
        plot_create: bool = False,
        plot_steps: int = 1000,
        ext: str = "png",
        step_fn: Callable[[Any], Step] | None = None,
        save_dir: str | Path | None = None,
        *,
        max_trials: int | None = 100_000,
        overwrite: bool = False,
    ) -> None:
        super().__init__(env)
        if max_trials is not None:
            max_trials = validate.positive_int(max_trials, "max_trials")
        self.max_trials = max_trials
        self._config: Any = None
        self._plot: PlotRecorder | None = None
        self._reset_first = False
        if config is not None or plot_create or plot_steps != 1000 or ext != "png":
            args: dict[str, Any] = {
                "name": name, "trigger": trigger, "interval": interval, "verbose": verbose,
                "save_dir": save_dir, "plot_create": plot_create, "plot_steps": plot_steps,
                "ext": ext,
            }  # fmt: skip
            legacy = _legacy().legacy_settings(env, config, args)
            if legacy is not None:  # 2.3.1's settings, and a reset before the first step
                self._config, self._plot, self._reset_first = legacy.config, legacy.plot, True
                name, trigger, interval = legacy.name, legacy.trigger, legacy.interval
                verbose, save_dir = legacy.verbose, legacy.save_dir
        if trigger not in _TRIGGERS:
            raise ValueError(f"trigger must be 'trial' or 'step', got {trigger!r}")
        interval = validate.positive_int(interval, "interval")
        self.name = name or type(env.unwrapped).__name__
        self.trigger = trigger
        self.interval = int(interval)
        self.verbose = verbose
        self.save_dir = None if save_dir is None else Path(save_dir)
        self.step_fn = step_fn
        self.data = _empty_log()
        self.data_eval: dict[str, Any] = _empty_log()
        self.num_tr = 0
        self.cum_reward = 0.0
        self._steps_since_save = 0
        self.activations: dict[str, Any] = {}
        self.overwrite = bool(overwrite)
        self._written = False  # whether this Monitor wrote into save_dir yet
        if self.save_dir is not None and not self.overwrite:
            self._check_save_dir()

    @property
    def config(self) -> Any:
        """NeuroGym 2.3.1's configuration (``neurogym.config.Config``) of this Monitor.

        The ``config`` given to the constructor (filled with the settings used), or, for a
        Monitor built without one, a Config of its settings, built on first use (warned: read
        the Monitor's own attributes instead).
        """
        if self._config is None:
            self._config = _legacy().config_of(self)
        return self._config

    # ------------------------------------------------------------------ gymnasium API
    def step(self, action: Any) -> Step:
        """Steps the env and logs the trial if it ended."""
        if self._reset_first:  # 2.3.1's Monitor reset the env in its constructor
            self._reset_first = False
            if not getattr(self.env.unwrapped, "_reset_done", True):
                self.reset()
        result = self.step_fn(action) if self.step_fn is not None else self.env.step(action)
        ob, reward, _, _, info = result
        self.cum_reward += float(reward)
        if self._plot is not None:
            self._plot.record(ob, action, reward, info)
        self._steps_since_save += 1
        if info.get("new_trial"):
            self._end_probe_trials()
            self.num_tr += 1
            _log_trial(self.data, action, reward, self.cum_reward, info)
            if self.max_trials is not None:
                _trim(self.data, self.max_trials)
            self.cum_reward = 0.0
            if self.save_dir is not None and self._due():
                self.save()
                if self._plot is not None:
                    self._plot.write(self.save_dir, self.num_tr, self.env)
        return result

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Resets the env and the running summed reward (the log is kept)."""
        self.cum_reward = 0.0
        self._reset_first = False
        self._end_probe_trials()
        ob, info = self.env.reset(seed=seed, options=options)
        if self._plot is not None:
            self._plot.last_ob = ob
        return ob, info

    # ------------------------------------------------------------------ files
    def _due(self) -> bool:
        if self.trigger == "trial":
            return self.num_tr % self.interval == 0
        return self._steps_since_save >= self.interval

    def _check_save_dir(self) -> None:
        """Refuses (or, with ``overwrite``, empties) a save_dir holding earlier logs."""
        assert self.save_dir is not None
        if not self.save_dir.is_dir():
            return
        earlier = sorted(p for p in self.save_dir.iterdir() if _LOG_FILE.fullmatch(p.name))
        if not earlier:
            return
        if not self.overwrite:
            names = ", ".join(p.name for p in earlier[:3]) + (", ..." if len(earlier) > 3 else "")
            raise ValueError(
                f"Monitor's save_dir {str(self.save_dir)!r} already holds {len(earlier)} "
                f"log file(s) of an earlier run ({names}), which this run would overwrite or "
                "mix with its own: give a new save_dir, or overwrite=True to delete them"
            )
        for file in earlier:
            file.unlink()

    def save(self, path: str | Path | None = None) -> Path:
        """Writes the log to an ``.npz`` file now and clears it.

        Args:
            path: The file to write; default ``save_dir/trial_<num_tr>.npz``.

        Returns:
            The path written.

        Raises:
            ValueError: If neither ``path`` nor ``save_dir`` is given, or (at the first write
                into ``save_dir``) it holds an earlier run's logs and ``overwrite`` is False.
        """
        if path is None:
            if self.save_dir is None:
                raise ValueError("Monitor.save() needs a path when the Monitor has no save_dir")
            if not self._written:  # files may have appeared since construction
                self._check_save_dir()
            self._written = True
            path = self.save_dir / f"trial_{self.num_tr}.npz"
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        _savez(target, **encode_log(self.data))
        if self.verbose:
            logger.info(
                "%s: %d trials, mean reward %.4f, written to %s",
                self.name,
                self.num_tr,
                float(np.mean(self.data["reward"])) if self.data["reward"] else float("nan"),
                target,
            )
        self.data = _empty_log()
        self._steps_since_save = 0
        return target

    def plot_training_history(
        self,
        figsize: tuple[float, float] = (12, 6),
        save_fig: bool = True,
        plot_performance: bool = True,
    ) -> Any:
        """NeuroGym 2.3.1's figure of the mean reward (and performance) of each saved file.

        Deprecated: use ``neurogym_apps.plot.plot_training(monitor.save_dir)``. Draws with
        ``neurogym_apps.plot._legacy.plot_training_history`` (the ``plot`` extra).

        Raises:
            ValueError: If the Monitor has no ``save_dir``.
            ImportError: If neurogym-apps or matplotlib is not installed.
        """
        deprecated(
            "neurogym.wrappers.Monitor.plot_training_history",
            "neurogym_apps.plot.plot_training(monitor.save_dir)",
        )
        if self.save_dir is None:
            raise ValueError("plot_training_history reads the files of save_dir: give a save_dir")
        name = self._config.env.name if self._config is not None else type(self.unwrapped).__name__
        return (
            _legacy()
            .plot_module()
            .plot_training_history(
                self.save_dir,
                figsize=figsize,
                save_fig=save_fig,
                plot_performance=plot_performance,
                name=name,
            )
        )

    @staticmethod
    def load(path: str | Path, keys: Sequence[str] | None = None) -> dict[str, Any]:
        """A log file written by :meth:`save`, read without pickle.

        Args:
            path: A ``trial_<n>.npz`` file (or any file :meth:`save` wrote).
            keys: Read only these keys (None: all). Only the keys read are checked, so the
                numeric keys of an older file (whose ``trial`` needs pickle) can still be read.

        Returns:
            Each key's values: a numpy array, or a list for the keys stored as JSON (``trial``:
            the trials' dicts, with numpy values turned into numbers and lists).

        Raises:
            ValueError: The file is not a NumPy ``.npz`` archive, lacks a key asked for, or
                holds a key read as a pickled object array (written by NeuroGym 2.3.1 or an
                earlier Monitor, before logs were pickle-free): unpickling can run any code,
                so such a file is refused; load it with ``np.load(path, allow_pickle=True)``
                only if you trust where it came from.
        """
        return load_log(path, keys)

    # ------------------------------------------------------------------ activation probes
    def record_activations(
        self, layer: Any, name: str | None = None, steps: int | None = None
    ) -> Any:
        """NeuroGym 2.3.1's probe of a torch layer's activations, trial by trial (deprecated).

        Returns a ``neurogym_apps.train._probes.ActivationProbe`` on ``layer`` (its
        ``history``: population -> trials -> steps of arrays), kept in :attr:`activations`
        under ``name`` (default the layer's class name); each trial end this Monitor sees (in
        :meth:`step` and :meth:`evaluate_policy`) starts a new trial. ``steps`` caps the steps
        kept per trial.

        Raises:
            ImportError: If neurogym-apps or torch is not installed (``neurogym[train]``).
        """
        return _legacy().record_activations(self, layer, name, steps)

    def plot_activations(
        self,
        name: str,
        population: str,
        figsize: tuple[float, float] | None = None,
        neurons: int | list[int] | None = None,
        mean: bool = False,
        batch_dim: int | None = None,
    ) -> Any:
        """NeuroGym 2.3.1's figure of a probe's activations, one panel per neuron (deprecated).

        Returns ``(fig, axes)``: a pyplot-free ``matplotlib.figure.Figure`` and its axes, one
        per neuron. See ``neurogym_apps.train._probes.plot_activations``.
        """
        options = {"figsize": figsize, "neurons": neurons, "mean": mean, "batch_dim": batch_dim}
        return _legacy().plot_activations(self, name, population, **options)

    def _end_probe_trials(self) -> None:
        for probe in self.activations.values():
            probe.new_trial()

    # ------------------------------------------------------------------ evaluation
    def evaluate_policy(
        self,
        num_trials: int = 100,
        model: Any = None,
        verbose: bool = True,
        seed: int | None = None,
    ) -> dict[str, Any]:
        """Runs a policy for ``num_trials`` trials and summarises its behaviour.

        The env is reset first (with ``seed`` if given) and stepped directly, so the run is
        not added to :attr:`data`; it is logged in :attr:`data_eval` instead.

        Args:
            num_trials: Number of trials to run.
            model: An object with a stable-baselines3 style ``predict(obs, state=...,
                episode_start=..., deterministic=True) -> (action, state)``; None samples
                random actions from the action space.
            verbose: Log the summary at INFO level.
            seed: Seed of the reset and of the random policy.

        Returns:
            ``rewards`` (reward at each trial end), ``mean_reward`` (fraction of trials ending
            with a positive reward), ``cum_rewards`` (summed reward per trial),
            ``mean_cum_reward``, ``performances`` and ``mean_performance``.
        """
        num_trials = validate.positive_int(num_trials, "num_trials")
        self.data_eval = _empty_log()
        if seed is not None:
            self.action_space.seed(seed)
        ob, _ = self.env.reset(seed=seed)
        self._end_probe_trials()
        policy = _Policy(model, self.action_space)
        cum, trials = 0.0, 0
        while trials < num_trials:
            action = policy(ob)
            ob, reward, _, _, info = self.env.step(action)
            cum += float(reward)
            if info.get("new_trial"):
                self._end_probe_trials()
                trials += 1
                _log_trial(self.data_eval, action, reward, cum, info)
                cum = 0.0
        # Arrays, as 2.3.1 gave (its examples index them with masks); trial dicts stay a list.
        self.data_eval = {
            key: values if key == "trial" else _as_array(values)
            for key, values in self.data_eval.items()
        }
        return self._summary(verbose)

    def _summary(self, verbose: bool) -> dict[str, Any]:
        rewards = [float(r) for r in self.data_eval["reward"]]
        cum_rewards = [float(c) for c in self.data_eval["cum_reward"]]
        performances = [float(p) for p in self.data_eval["performance"]]
        result = {
            "rewards": rewards,
            "mean_reward": float(np.mean(np.asarray(rewards) > 0)),
            "cum_rewards": cum_rewards,
            "mean_cum_reward": float(np.mean(cum_rewards)),
            "performances": performances,
            "mean_performance": float(np.mean(performances)) if performances else float("nan"),
        }
        if verbose:
            logger.info(
                "%s: %d trials, mean reward %.4f, mean performance %.4f",
                self.name,
                len(rewards),
                result["mean_reward"],
                result["mean_performance"],
            )
        return result


class _Policy:
    """A model's ``predict`` (keeping a recurrent state) or random actions."""

    def __init__(self, model: Any, action_space: gym.Space[Any]) -> None:
        self.model = model
        self.action_space = action_space
        self.state: Any = None
        self.first = True

    def __call__(self, ob: Any) -> Any:
        if self.model is None:
            return self.action_space.sample()
        action, self.state = self.model.predict(
            ob, state=self.state, episode_start=np.array([self.first]), deterministic=True
        )
        self.first = False
        if isinstance(action, np.ndarray) and action.shape == (1,):
            return action[0]
        return action


def _log_trial(
    log: dict[str, list[Any]], action: Any, reward: Any, cum: float, info: dict[str, Any]
) -> None:
    log["action"].append(action)
    log["reward"].append(reward)
    log["cum_reward"].append(cum)
    if "performance" not in info:
        log["performance"].append(np.nan)
    for key, value in info.items():
        log.setdefault(key, []).append(value)


def _plain(value: Any) -> Any:
    """``value`` as JSON can store it: numpy values become numbers and lists, others repr."""
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()] if value.ndim else _plain(value.item())
    if isinstance(value, np.generic):
        return _plain(value.item())
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value  # NaN and inf are written as Python's json reads them back
    return repr(value)


def encode_log(data: dict[str, list[Any]]) -> dict[str, np.ndarray]:
    """The arrays :meth:`Monitor.save` writes: none needs pickle.

    A key whose values make a numeric, boolean or text array is stored as that array; any
    other (dicts, ragged or mixed values) as JSON text, one string per trial, named in the
    ``__json__`` array.
    """
    arrays: dict[str, np.ndarray] = {}
    as_json = []
    for key, values in data.items():
        arr = _as_array(values)
        if arr.dtype.hasobject:
            arr = np.array([json.dumps(_plain(v)) for v in values], dtype=str)
            as_json.append(key)
        arrays[key] = arr
    arrays[JSON_KEYS] = np.array(as_json, dtype=str)
    return arrays


def load_log(path: str | Path, keys: Sequence[str] | None = None) -> dict[str, Any]:
    """See :meth:`Monitor.load`."""
    file = Path(path)
    try:
        archive = np.load(file, allow_pickle=False)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{str(file)!r} is not a Monitor log (a NumPy .npz file): {exc}") from exc
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ValueError(f"{str(file)!r} is not a Monitor log: a single array, not an .npz file")
    out: dict[str, Any] = {}
    with archive:
        names = [k for k in archive.files if k != JSON_KEYS] if keys is None else list(keys)
        missing = [k for k in names if k not in archive.files]
        if missing:
            raise ValueError(
                f"{str(file)!r} has no {missing} (it holds {sorted(archive.files)}): "
                "not a Monitor log"
            )
        for key in [*names, *([JSON_KEYS] if JSON_KEYS in archive.files else [])]:
            try:
                out[key] = archive[key]
            except ValueError as exc:
                if "allow_pickle" not in str(exc):
                    raise ValueError(f"{str(file)!r}: cannot read {key!r}: {exc}") from exc
                raise ValueError(
                    f"{str(file)!r}: {key!r} is a pickled object array (a log written by "
                    "NeuroGym 2.3.1 or by a Monitor before pickle-free logs); unpickling can "
                    "run any code, so it is not loaded. Load it with np.load(path, "
                    "allow_pickle=True) only if you trust where the file came from"
                ) from None
            except (OSError, EOFError, zipfile.BadZipFile) as exc:
                raise ValueError(f"{str(file)!r}: cannot read {key!r}: {exc}") from exc
    for key in [str(k) for k in out.pop(JSON_KEYS, ())]:
        if key in out:
            try:
                out[key] = [json.loads(str(text)) for text in out[key]]
            except json.JSONDecodeError as exc:
                raise ValueError(f"{str(file)!r}: {key!r} is not JSON text: {exc}") from exc
    return out


def _as_array(values: list[Any]) -> np.ndarray:
    try:
        arr = np.asarray(values)
        if arr.dtype != object:
            return arr
    except ValueError:
        pass
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out
