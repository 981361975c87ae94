"""Every NeuroGym 2.3.1 public name, where it lives now and what to write instead.

:data:`LEGACY` maps each 2.3.1 module (``"neurogym.utils.scheduler"``) to its public names;
an entry says how to load today's object and how to spell it. The old module files are
one-line shells (:func:`neurogym._legacy.legacy_module`), so this table is the only place the
mapping is written. ``tests/test_legacy_api.py`` checks it against the inventory of 2.3.1's
names (../shared/spec/upstream-neurogym.md).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from neurogym._registry.upstream import CONTRIB_MODULES, NATIVE_MODULES, PDM_COLLECTION, YANG19

__all__ = ["LEGACY", "Collection", "Entry", "Submodule", "Task"]


def resolve(target: str) -> Any:
    """Imports ``"package.module:attr"`` (or ``"package.module"``) and returns the object.

    An application target (``neurogym_apps...``) that is not installed raises an
    :class:`ImportError` naming the extra that installs it.
    """
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if module_name.startswith("neurogym_apps") and error.name == "neurogym_apps":
            raise ImportError(
                f"{target.replace(':', '.')} is part of neurogym-apps, which is not installed: "
                'pip install "neurogym[train,plot]"'
            ) from error
        raise
    return getattr(module, attr) if attr else module


@dataclass(frozen=True)
class Entry:
    """One 2.3.1 name: how to load today's object and how to spell it.

    Attributes:
        target: ``"module:attr"`` (or ``"module"``) of today's object.
        new: Today's spelling, shown in the warning; empty for a submodule (no warning).
    """

    target: str
    new: str = ""

    def load(self) -> Any:
        """Today's object."""
        return resolve(self.target)

    def spelling(self, value: Any) -> str:
        """What to write instead (``value`` is the loaded object)."""
        return self.new


@dataclass(frozen=True)
class Submodule(Entry):
    """A 2.3.1 subpackage or module reached as an attribute: never warns by itself."""


@dataclass(frozen=True)
class Task(Entry):
    """A 2.3.1 task class, now in a family plugin: loaded through its ``TaskSpec``."""

    def load(self) -> Any:
        """The task class (an install hint if its family is not installed)."""
        from neurogym._registry.api import spec

        return spec(self.target).load()

    def spelling(self, value: Any) -> str:
        """``neurogym.make(id)``, or the class at its new module path."""
        return f"neurogym.make({self.target!r}) or {value.__module__}.{value.__qualname__}"


@dataclass(frozen=True)
class Collection(Entry):
    """A 2.3.1 collection factory (``yang19.go``): now a registered task id."""

    def load(self) -> Callable[..., Any]:
        """A factory taking 2.3.1's keyword arguments and returning the made env."""
        from neurogym._legacy.registration import collection_factory

        return collection_factory(self.target)

    def spelling(self, value: Any) -> str:
        """``neurogym.make(id, **kwargs)``."""
        return f"neurogym.make({self.target!r}, **kwargs)"


def _moved(names: Iterable[str], new_module: str) -> dict[str, Entry]:
    """Entries for names that kept their name and moved to ``new_module``."""
    return {name: Entry(f"{new_module}:{name}", f"{new_module}.{name}") for name in names}


_REGISTRATION = "neurogym._legacy.registration"
_LISTING = "neurogym.tasks(tag=..., plugin=...) (TaskSpecs; [s.id for s in ...] for ids)"
_SCHEDULES = (
    "BaseSchedule",
    "SequentialSchedule",
    "RandomSchedule",
    "SequentialBlockSchedule",
    "RandomBlockSchedule",
)
_PLOT = "neurogym_apps.plot._legacy"  # 2.3.1's plotting signatures, on neurogym_apps.plot
_GYM_SPACES = ("Dict", "MultiBinary", "MultiDiscrete", "Space", "Tuple")
_GYM_SPACE_FUNCTIONS = ("flatdim", "flatten", "unflatten")


def _registration_names() -> dict[str, Entry]:
    listing = {
        "all_envs": Entry(f"{_REGISTRATION}:all_envs", _LISTING),
        "all_tags": Entry(f"{_REGISTRATION}:all_tags", "neurogym.tags()"),
        "get_collection": Entry(
            f"{_REGISTRATION}:get_collection", "neurogym.tasks(...) filtered on the id's prefix"
        ),
        "make": Entry("neurogym:make", "neurogym.make (ids are 'neurogym/<Name>-v0')"),
        "register": Entry(f"{_REGISTRATION}:register", "gymnasium.register"),
    }
    dicts = {
        name: Entry(f"{_REGISTRATION}:{name}", _LISTING)
        for name in (
            "ALL_NATIVE_ENVS",
            "ALL_COLLECTIONS_ENVS",
            "ALL_CONTRIB_ENVS",
            "ALL_PSYCHOPY_ENVS",
            "ALL_ENVS",
            "ALL_EXTENDED_ENVS",
        )
    }
    return listing | dicts


def _top_level() -> dict[str, Entry]:
    registration = _registration_names()
    return {
        "core": Submodule("neurogym.core"),
        "envs": Submodule("neurogym.envs"),
        "utils": Submodule("neurogym.utils"),
        "config": Submodule("neurogym.config"),
        "info": Submodule("neurogym.utils.info"),
        "all_envs": registration["all_envs"],
        "all_tags": registration["all_tags"],
        "get_collection": registration["get_collection"],
        "register": registration["register"],
        "all_wrappers": Entry(f"{_REGISTRATION}:all_wrappers", "neurogym.wrapper_specs()"),
        "BaseEnv": Entry("neurogym:TrialEnv", "neurogym.TrialEnv"),
        "ngym_random": Entry("neurogym._legacy.utils", "neurogym.TruncExp / neurogym.timing"),
        "random": Entry("neurogym._legacy.utils", "neurogym.TruncExp / neurogym.timing"),
        "_SB3_INSTALLED": Entry(
            "neurogym._legacy.utils:SB3_INSTALLED",
            "importlib.util.find_spec('stable_baselines3') is not None",
        ),
        "_PSYCHOPY_INSTALLED": Entry(
            "neurogym._legacy.utils:PSYCHOPY_INSTALLED", "nothing (no psychopy tasks in 3.0)"
        ),
    }


def _core() -> dict[str, Entry]:
    return {
        "TrialEnv": Entry("neurogym:TrialEnv", "neurogym.TrialEnv"),
        "BaseEnv": Entry("neurogym:TrialEnv", "neurogym.TrialEnv"),
        "EnvMeta": Entry(f"{_REGISTRATION}:EnvMeta", "type(neurogym.TrialEnv)"),
        "TrialWrapper": Entry("neurogym.wrappers:TrialWrapper", "neurogym.wrappers.TrialWrapper"),
        "InvalidOperationError": Entry(
            "neurogym:InvalidOperationError", "neurogym.InvalidOperationError"
        ),
        "OBNOW": Entry("neurogym:OBNOW", "neurogym.OBNOW (or self.ob_now)"),
        "METADATA_DEF_KEYS": Entry(
            f"{_REGISTRATION}:METADATA_DEF_KEYS", "the fields of neurogym.TaskSpec"
        ),
        "env_string": Entry(f"{_REGISTRATION}:env_string", "neurogym info ID (the command)"),
    }


def _envs() -> dict[str, Entry]:
    registration = _registration_names()
    envs: dict[str, Entry] = {
        name: registration[name] for name in ("get_collection", "all_envs", "all_tags")
    }
    for sub in ("native", "contrib", "collections", "registration", "psychopy"):
        envs[sub] = Submodule(f"neurogym.envs.{sub}")
    return envs


def _collections() -> dict[str, dict[str, Entry]]:
    base = "neurogym.envs.collections"
    yang: dict[str, Entry] = {name: Collection(f"neurogym/yang19.{name}-v0") for name in YANG19}
    pdm: dict[str, Entry] = {
        name: Collection(f"neurogym/perceptualdecisionmaking.{name}-v0") for name in PDM_COLLECTION
    }
    return {
        base: {
            "get_collection": _registration_names()["get_collection"],
            "yang19": Submodule(f"{base}.yang19"),
            "perceptualdecisionmaking": Submodule(f"{base}.perceptualdecisionmaking"),
        },
        f"{base}.yang19": yang,
        f"{base}.perceptualdecisionmaking": pdm,
    }


def _task_modules() -> dict[str, dict[str, Entry]]:
    modules: dict[str, dict[str, Entry]] = {}
    native: dict[str, Entry] = {}
    for file, classes in NATIVE_MODULES.items():
        modules[f"neurogym.envs.native.{file}"] = {
            name: Task(f"neurogym/{name}-v0") for name in classes
        }
        native[file] = Submodule(f"neurogym.envs.native.{file}")
    contrib: dict[str, Entry] = {}
    for file, names in CONTRIB_MODULES.items():
        modules[f"neurogym.envs.contrib.{file}"] = {
            old: Task(f"neurogym/{new}-v0") for old, new in names.items()
        }
        contrib[file] = Submodule(f"neurogym.envs.contrib.{file}")
    modules["neurogym.envs.native"] = native
    modules["neurogym.envs.contrib"] = contrib
    return modules


def _utils() -> dict[str, dict[str, Entry]]:
    legacy = "neurogym._legacy.utils"
    subs = (
        "data", "decorators", "functions", "info", "logging", "ngym_random", "plotting",
        "psychometric", "scheduler", "spaces", "tasktools",
    )  # fmt: skip
    utils: dict[str, Entry] = {sub: Submodule(f"neurogym.utils.{sub}") for sub in subs}
    utils |= {
        "TruncExp": Entry(f"{legacy}:TruncExp", "neurogym.TruncExp"),
        "plot_env": Entry(f"{_PLOT}:plot_env", "neurogym_apps.plot.plot_env"),
        "plot_psychometric": Entry(
            f"{_PLOT}:plot_psychometric", "neurogym_apps.plot.plot_psychometric"
        ),
    }
    utils |= _moved(_SCHEDULES[1:], "neurogym.wrappers")
    spaces = _moved(("Box", "Discrete"), "neurogym.spaces")
    spaces |= _moved(_GYM_SPACES, "gymnasium.spaces")
    spaces |= _moved(_GYM_SPACE_FUNCTIONS, "gymnasium.spaces")
    functions = ("ensure_dir", "iso_timestamp")
    tasktools = (
        "to_map", "get_idx", "get_periods_idx", "minmax_number", "circular_dist", "divide",
        "correct_2AFC", "compute_perf",
    )  # fmt: skip
    return {
        "neurogym.utils": utils,
        "neurogym.utils.data": {"Dataset": Entry("neurogym:Dataset", "neurogym.Dataset")},
        "neurogym.utils.spaces": spaces,
        "neurogym.utils.scheduler": _moved(_SCHEDULES, "neurogym.wrappers"),
        "neurogym.utils.ngym_random": {
            "trunc_exp": Entry(f"{legacy}:trunc_exp", "neurogym.timing.trunc_exp"),
            "TruncExp": Entry(f"{legacy}:TruncExp", "neurogym.TruncExp"),
            "random_number_fn": Entry(
                f"{legacy}:random_number_fn", "a timing spec such as ('uniform', (a, b))"
            ),
            "random_number_name": Entry(f"{legacy}:random_number_name", "str() of the spec"),
        },
        "neurogym.utils.plotting": {
            name: Entry(f"{_PLOT}:{name}", f"neurogym_apps.plot.{new}")
            for name, new in {
                "plot_env": "plot_env",
                "run_env": "run_env",
                "visualize_run": "plot_env (on a run_env result)",
                "plot_env_1dbox": "plot_env",
                "plot_env_3dbox": "plot_env",
                "plot_rew_across_training": "plot_training",
                "put_together_files": "plot_training",
                "order_by_suffix": "plot_training",
            }.items()
        },
        "neurogym.utils.psychometric": {
            "probit": Entry(f"{_PLOT}:probit", "neurogym_apps.plot.fit_psychometric"),
            "plot_psychometric": Entry(
                f"{_PLOT}:plot_psychometric", "neurogym_apps.plot.plot_psychometric"
            ),
        },
        "neurogym.utils.info": {
            name: Entry(f"neurogym._legacy.info:{name}", new)
            for name, new in {
                "show_all_tasks": "neurogym list (or neurogym.tasks())",
                "show_all_wrappers": "neurogym.wrapper_specs()",
                "show_all_tags": "neurogym.tags()",
                "show_info": "neurogym info ID (or neurogym.spec(id))",
            }.items()
        },
        "neurogym.utils.functions": {
            name: Entry(f"{legacy}:{name}", "pathlib / datetime") for name in functions
        },
        "neurogym.utils.tasktools": {
            name: Entry(f"{legacy}:{name}", "numpy (these were 1.x helpers)") for name in tasktools
        },
        "neurogym.utils.decorators": {
            "suppress_during_pytest": Entry(
                f"{legacy}:suppress_during_pytest", "nothing: errors are never swallowed now"
            )
        },
        "neurogym.utils.logging": {
            "logger": Entry(f"{legacy}:logger", "logging.getLogger('neurogym')")
        },
    }


def _wrappers() -> dict[str, dict[str, Entry]]:
    new = "neurogym.wrappers"
    block = ("RandomGroundTruth", "ScheduleAttr", "MultiEnvs", "ScheduleEnvs", "TrialHistoryV2")
    modules = {
        f"{new}.block": block,
        f"{new}.noise": ("Noise",),
        f"{new}.pass_action": ("PassAction",),
        f"{new}.pass_reward": ("PassReward",),
        f"{new}.reaction_time": ("ReactionTime",),
        f"{new}.side_bias": ("SideBias",),
    }
    tables = {module: _moved(names, new) for module, names in modules.items()}
    tables[new] = {
        "ALL_WRAPPERS": Entry(f"{_REGISTRATION}:ALL_WRAPPERS", "neurogym.wrapper_specs()"),
        "all_wrappers": Entry(f"{_REGISTRATION}:all_wrappers", "neurogym.wrapper_specs()"),
    } | {module.rpartition(".")[2]: Submodule(module) for module in modules}
    return tables


def _config() -> dict[str, dict[str, Entry]]:
    config = "neurogym._legacy.config"
    names = ("Config", "config")
    spelling = "Monitor's own arguments (Monitor(env, trigger=..., interval=...))"
    # 2.3.1's neurogym/config/components/<file>.py and the classes each defines.
    files = {
        "agent": ("AgentConfig", "AgentInferenceConfig", "AgentTrainingConfig"),
        "env": ("EnvConfig",),
        "monitor": ("MonitorConfig", "MonitorPlotConfig"),
        "plot": ("PlotConfig", "PlotFontConfig", "PlotLegendConfig"),
    }
    files_tables = {
        f"neurogym.config.components.{file}": {
            name: Entry(f"{config}:{name}", spelling) for name in classes
        }
        for file, classes in files.items()
    }
    return files_tables | {
        "neurogym.config": {name: Entry(f"{config}:{name}", spelling) for name in names}
        | {sub: Submodule(f"neurogym.config.{sub}") for sub in ("base", "components")},
        "neurogym.config.config": {name: Entry(f"{config}:{name}", spelling) for name in names},
        "neurogym.config.components": {
            name: Entry(f"{config}:{name}", spelling)
            for classes in files.values()
            for name in classes
        }
        | {file: Submodule(f"neurogym.config.components.{file}") for file in files},
        "neurogym.config.base": {
            name: Entry(f"{config}:{name}", spelling)
            for name in ("ROOT_DIR", "PKG_DIR", "CONFIG_DIR", "LOCAL_DIR", "ConfigBase")
        },
    }


def _build() -> dict[str, dict[str, Entry]]:
    tables: dict[str, dict[str, Entry]] = {
        "neurogym": _top_level(),
        "neurogym.core": _core(),
        "neurogym.envs": _envs(),
        "neurogym.envs.registration": _registration_names(),
    }
    for part in (_collections(), _task_modules(), _utils(), _wrappers(), _config()):
        tables |= part
    return tables


#: 2.3.1 module name -> public name -> :class:`Entry`.
LEGACY: dict[str, dict[str, Entry]] = _build()
