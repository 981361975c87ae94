"""NeuroGym 2.3.1's ``Monitor`` arguments and torch activation probes.

:func:`legacy_settings` turns 2.3.1's arguments (``config``, ``plot_create``, ``plot_steps``,
``ext``) (each warned once) into the settings today's
:class:`~neurogym.wrappers.Monitor` uses, and :class:`PlotRecorder` keeps the last steps for
2.3.1's ``task_<n>.<ext>`` figures, drawn by ``neurogym_apps.plot._legacy.visualize_run``.
:func:`record_activations` and :func:`plot_activations` serve 2.3.1's methods of those names
with ``neurogym_apps.train._probes`` (torch). Nothing here is imported unless one of these
is used.
"""

from __future__ import annotations

import importlib
import logging
import os
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import numpy as np

from neurogym._legacy import deprecated
from neurogym._legacy.config import Config
from neurogym._legacy.utils import iso_timestamp

__all__ = [
    "LegacySettings",
    "PlotRecorder",
    "as_config",
    "legacy_settings",
    "plot_activations",
    "plot_module",
    "probes_module",
    "record_activations",
]

#: 2.3.1's defaults of the arguments a config may fill.
DEFAULTS: dict[str, Any] = {
    "name": None, "trigger": "trial", "interval": 1000, "verbose": True, "save_dir": None,
    "plot_create": False, "plot_steps": 1000, "ext": "png",
}  # fmt: skip
_OWN = "Monitor(env, name=..., trigger=..., interval=..., verbose=..., save_dir=...)"
NEW = {
    "config": _OWN,
    "plot_create": "neurogym_apps.plot.plot_env(env) for a figure of a run",
    "plot_steps": "neurogym_apps.plot.plot_env(env, num_steps=...)",
    "ext": "fig.savefig(path) on a neurogym_apps.plot figure",
}


def _apps_module(name: str, purpose: str, extra: str) -> ModuleType:
    """The neurogym-apps module ``name``, or an ImportError naming what installs it."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        raise ImportError(
            f'{purpose}, which are not installed ({error}): pip install "neurogym[{extra}]"'
        ) from error


def plot_module() -> ModuleType:
    """``neurogym_apps.plot._legacy``, or an ImportError saying how to install it."""
    return _apps_module(
        "neurogym_apps.plot._legacy",
        "Monitor's figures (plot_create, plot_training_history) are drawn by neurogym-apps "
        "with matplotlib",
        "plot",
    )


def as_config(config: Any) -> Config:
    """A :class:`Config` from a Config, a dict of sections or a TOML path."""
    if isinstance(config, Config):
        return config
    if isinstance(config, Mapping):
        return Config(**config)
    if isinstance(config, str | os.PathLike):
        return Config(config_file=config)
    raise TypeError(f"Monitor's config must be a Config, a dict or a TOML path, got {config!r}")


class PlotRecorder:
    """The last ``steps`` steps (obs, actions, gt, rewards, performance) for one figure."""

    def __init__(self, steps: int, ext: str, title: str) -> None:
        self.steps: deque[tuple[Any, ...]] = deque(maxlen=steps)
        self.ext = ext
        self.title = title
        self.last_ob: Any = None
        plot_module()  # fail now, not at the first figure

    def record(self, ob: Any, action: Any, reward: Any, info: Mapping[str, Any]) -> None:
        """Keeps one step (and the ob it was taken from)."""
        gt, performance = info.get("gt", -1), info.get("performance", -1)
        self.steps.append((self.last_ob, np.array(ob), action, reward, gt, performance))
        self.last_ob = np.array(ob)

    def write(self, save_dir: Path, num_tr: int, env: Any) -> Path | None:
        """Draws the kept steps to ``save_dir/task_<num_tr, 6 digits>.<ext>`` and forgets them."""
        if not self.steps:
            return None
        before, obs, actions, rewards, gts, performances = zip(*self.steps, strict=True)
        target = save_dir / f"task_{num_tr:06d}.{self.ext}"
        save_dir.mkdir(parents=True, exist_ok=True)
        plot_module().visualize_run(  # a pyplot-free Figure: nothing to close
            ob=np.asarray(obs),
            actions=np.asarray(actions),
            gt=list(gts),
            rewards=list(rewards),
            performance=list(performances),
            name=self.title,
            fname=target,
            env=env,
            initial_ob=before[0],
        )
        self.steps.clear()
        return target


@dataclass
class LegacySettings:
    """What a 2.3.1-style Monitor runs with."""

    config: Config
    name: str
    trigger: Literal["trial", "step"]
    interval: int
    verbose: bool
    save_dir: Path
    plot: PlotRecorder | None


def legacy_settings(env: Any, config: Any, args: dict[str, Any]) -> LegacySettings | None:
    """The settings of a Monitor given 2.3.1's ``config`` or plot arguments, else None.

    Arguments left at their defaults are filled from ``config.monitor`` (``plot.create``,
    ``plot.step``, ``plot.ext``...); the config is filled back with what the Monitor uses, as
    2.3.1 did (``env.name``, ``monitor.name``, ``monitor.save_dir``...). Without ``save_dir``
    anywhere the files go to 2.3.1's ``<local_dir>/<env name>/<UTC timestamp>``, created at
    the first write.
    """
    given = [key for key in ("plot_create", "plot_steps", "ext") if args[key] != DEFAULTS[key]]
    if config is None and not given:
        return None
    for key in (["config"] if config is not None else []) + given:
        deprecated(f"neurogym.wrappers.Monitor({key}=...)", NEW[key], stacklevel=4)
    task = type(env.unwrapped).__name__
    if config is None:
        plot = {"create": args["plot_create"], "step": args["plot_steps"], "ext": args["ext"]}
        monitor = {key: args[key] for key in ("trigger", "interval", "verbose")}
        config = Config(env={"name": task}, monitor=monitor | {"plot": plot})
    cfg = as_config(config)
    mon = cfg.monitor
    values = {
        key: args[key] if args[key] != DEFAULTS[key] else default
        for key, default in [
            ("trigger", mon.trigger), ("interval", mon.interval), ("verbose", mon.verbose),
            ("plot_create", mon.plot.create), ("plot_steps", mon.plot.step),
            ("ext", mon.plot.ext),
        ]
    }  # fmt: skip
    cfg.env.name = cfg.env.name or task
    stamp = iso_timestamp()
    save_dir = args["save_dir"] or mon.save_dir or Path(cfg.local_dir) / cfg.env.name / stamp
    mon.name = args["name"] or mon.name or task
    mon.trigger, mon.interval, mon.verbose = (
        values["trigger"],
        values["interval"],
        values["verbose"],
    )
    mon.save_dir, mon.plot.create = save_dir, values["plot_create"]
    mon.plot.step, mon.plot.ext = values["plot_steps"], values["ext"]
    title = mon.plot.title or cfg.env.name
    recorder = PlotRecorder(mon.plot.step, mon.plot.ext, title) if mon.plot.create else None
    return LegacySettings(
        cfg, mon.name, mon.trigger, mon.interval, mon.verbose, Path(save_dir), recorder
    )


def config_of(monitor: Any) -> Config:
    """The Config 2.3.1's ``monitor.config`` held, for a Monitor built without one."""
    own_spelling = f"the Monitor's own attributes ({_OWN})"
    deprecated("neurogym.wrappers.Monitor.config", own_spelling, stacklevel=4)
    own = {key: getattr(monitor, key) for key in ("name", "trigger", "interval", "verbose")}
    own |= {"save_dir": monitor.save_dir, "plot": {"create": False}}
    return Config(env={"name": type(monitor.unwrapped).__name__}, monitor=own)


_PROBES = "neurogym_apps.train._probes"


def probes_module() -> ModuleType:
    """``neurogym_apps.train._probes`` (torch), or an ImportError saying how to install it."""
    return _apps_module(
        _PROBES, "Monitor's activation probes need neurogym-apps and torch", "train"
    )


def record_activations(monitor: Any, layer: Any, name: str | None, steps: int | None) -> Any:
    """2.3.1's ``monitor.record_activations``: a probe kept in ``monitor.activations``."""
    deprecated(
        "neurogym.wrappers.Monitor.record_activations",
        f"a forward hook of your own (layer.register_forward_hook), or {_PROBES}.ActivationProbe"
        "(layer, name, steps) and probe.new_trial() at each trial end",
        stacklevel=4,
    )
    probe = probes_module().ActivationProbe(layer, name, steps)
    old = monitor.activations.pop(probe.name, None)
    if old is not None:
        old.remove()
        logging.getLogger("neurogym.wrappers").warning(
            "%s: replacing the activation probe %r", monitor.name, probe.name
        )
    monitor.activations[probe.name] = probe
    return probe


def plot_activations(monitor: Any, name: str, population: str, **kwargs: Any) -> Any:
    """2.3.1's ``monitor.plot_activations``: ``(fig, axes)`` of a probe's population."""
    deprecated(
        "neurogym.wrappers.Monitor.plot_activations",
        f"{_PROBES}.plot_activations(probe.history[population], neurons, mean=..., batch_dim=...)",
        stacklevel=4,
    )
    probe = monitor.activations.get(name)
    if probe is None:
        raise ValueError(f"no activation probe named {name!r} (have {list(monitor.activations)})")
    if population not in probe.history:
        raise KeyError(f"{name!r} has no population {population!r} (has {list(probe.history)})")
    title = f"{population.capitalize()} neuron activations"
    return probes_module().plot_activations(probe.history[population], title=title, **kwargs)
