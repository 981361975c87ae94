"""NeuroGym 2.3.1's ``Config`` (``neurogym.config``), without pydantic.

2.3.1 built its configuration on pydantic-settings; core depends only on gymnasium, numpy,
pluggy and importlib-metadata, so this is a small re-implementation driven by one table,
:data:`FIELDS`: section path -> field -> (default, check). It keeps 2.3.1's sections, field
names, defaults and checks, with attribute access (``cfg.monitor.plot.title``):

* ``Config(config_file=None, **kwargs)`` merges its sources in 2.3.1's priority: keyword
  arguments (nested dicts or section objects, merged key by key) > the TOML file (read only
  if given and present; a missing file warns and is skipped, as 2.3.1 silently skipped it) >
  environment variables ``NGYM_<SECTION>__<FIELD>`` (case-insensitive; a section may also be
  given as a JSON object, ``NGYM_MONITOR='{"interval": 5}'``).
* ``os.path.expandvars`` runs on every string (also inside lists and dicts) given for a field.
* Assignments are checked (pydantic's ``validate_assignment``): a bad value raises a
  :class:`ValueError` naming the field and what it accepts. ``root_dir``, ``pkg_dir`` and
  ``config_dir`` are read-only.
* Unknown keys are kept as given (``extra="allow"``), as attributes; unknown ``NGYM_``
  variables are ignored.
* An empty ``monitor.plot.title`` becomes ``env.name`` after construction.

Differences from 2.3.1: the ``plot.font.*`` fields hold dicts of matplotlib ``FontProperties``
keyword arguments (``FontProperties(**cfg.plot.font.title)``; a ``FontProperties`` object may
still be assigned), since core never imports matplotlib; section classes built on their own
(``MonitorConfig()``) do not read environment variables; no ``.env`` or secrets sources;
``model_dump``/``model_validate`` are the only pydantic methods offered.
"""

from __future__ import annotations

import copy
import json
import os
import tomllib
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar

__all__ = [
    "CONFIG_DIR", "LOCAL_DIR", "PKG_DIR", "ROOT_DIR", "AgentConfig", "AgentInferenceConfig",
    "AgentTrainingConfig", "Config", "ConfigBase", "EnvConfig", "MonitorConfig",
    "MonitorPlotConfig", "PlotConfig", "PlotFontConfig", "PlotLegendConfig", "config",
]  # fmt: skip

PKG_DIR = Path(__file__).resolve().parent.parent  # the neurogym package
ROOT_DIR = PKG_DIR.parent
CONFIG_DIR = PKG_DIR / "config"
LOCAL_DIR = Path.cwd() / "runs"  # as in 2.3.1: the working directory at import time

Check = Callable[[str, Any], Any]
_TRUE = {"1", "true", "t", "yes", "y", "on"}
_FALSE = {"0", "false", "f", "no", "n", "off"}


def _fail(path: str, what: str, value: Any) -> ValueError:
    return ValueError(f"config field {path} must be {what}, got {value!r}")


def _string(path: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _fail(path, "a string", value)
    return value


def _integer(path: str, value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        return int(value)
    raise _fail(path, "an integer", value)


def _positive(path: str, value: Any) -> int:
    try:
        number = _integer(path, value)
    except ValueError:
        number = 0
    if number <= 0:
        raise _fail(path, "a positive integer (> 0)", value)
    return number


def _boolean(path: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise _fail(path, "a boolean (true or false)", value)


def _one_of(*choices: str) -> Check:
    def check(path: str, value: Any) -> str:
        if value not in choices:
            raise _fail(path, "one of " + ", ".join(map(repr, choices)), value)
        return str(value)

    return check


def _path(path: str, value: Any) -> Path:
    if not isinstance(value, str | os.PathLike):
        raise _fail(path, "a path (str or pathlib.Path)", value)
    return Path(value)


def _optional(check: Check) -> Check:
    return lambda path, value: None if value is None else check(path, value)


def _save_dir(path: str, value: Any) -> str | Path | None:  # str | Path | None: a str stays a str
    return value if value is None or isinstance(value, str) else _path(path, value)


def _floats(path: str, value: Any) -> tuple[float, ...]:
    if isinstance(value, str):
        value = _json(value)
    if not isinstance(value, list | tuple) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in value
    ):
        raise _fail(path, "a sequence of numbers, e.g. [1.01, 1.0, 0.15, 0]", value)
    return tuple(float(v) for v in value)


def _font(path: str, value: Any) -> Any:
    if isinstance(value, str):
        value = _json(value)
    if isinstance(value, Mapping):
        return dict(value)
    if hasattr(value, "get_size") and hasattr(value, "get_family"):  # a FontProperties
        return value
    raise _fail(path, "a dict of matplotlib FontProperties arguments (size, family, ...)", value)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


_FONT_SIZES = {"xtick": 7.5, "ytick": 7.5, "title": 12, "subtitle": 10, "label": 9, "legend": 7.5}


def _fonts(size: float) -> dict[str, Any]:
    return {"size": size, "family": ["DejaVu Sans", "Noto Sans", "sans-serif"], "weight": "book"}


#: Section path -> field -> (default, check): every field of 2.3.1's configuration. A section
#: ("agent") holds the sections whose path extends it ("agent.training").
FIELDS: dict[str, dict[str, tuple[Any, Check]]] = {
    "": {
        "config_file": (None, _optional(_path)),
        "root_dir": (ROOT_DIR, _path),
        "pkg_dir": (PKG_DIR, _path),
        "config_dir": (CONFIG_DIR, _path),
        "local_dir": (LOCAL_DIR, _path),
    },
    "agent": {},
    "agent.training": {"unit": ("trial", _one_of("trial", "step")), "value": (100, _positive)},
    "agent.inference": {"unit": ("step", _one_of("trial", "step")), "value": (10000, _positive)},
    "env": {"name": ("", _string), "dt": (10, _integer)},
    "monitor": {
        "name": ("", _string),
        "trigger": ("trial", _one_of("trial", "step")),
        "interval": (1000, _positive),
        "verbose": (True, _boolean),
        "save_dir": (None, _save_dir),
    },
    "monitor.plot": {
        "create": (True, _boolean),
        "step": (10, _positive),
        "title": ("", _string),
        "ext": ("png", _string),
    },
    "plot": {},
    "plot.font": {name: (_fonts(size), _font) for name, size in _FONT_SIZES.items()},
    "plot.legend": {
        "location": ("upper right", _string),
        "bbox_to_anchor": ((1.01, 1.0, 0.15, 0.0), _floats),
        "mode": ("expand", _optional(_string)),
    },
}
FROZEN = frozenset({"root_dir", "pkg_dir", "config_dir"})


def _expand(value: Any) -> Any:
    """``os.path.expandvars`` on a string, or on the strings of a list or dict."""
    if isinstance(value, str):
        return os.path.expandvars(value)
    if isinstance(value, list):
        return [_expand(v) if isinstance(v, str) else v for v in value]
    if isinstance(value, dict):
        return {k: _expand(v) if isinstance(v, str) else v for k, v in value.items()}
    return value


def _merge(low: dict[str, Any], high: Mapping[str, Any]) -> dict[str, Any]:
    """``low`` updated with ``high``, dicts merged key by key."""
    out = dict(low)
    for key, value in high.items():
        if isinstance(value, ConfigBase):
            value = value.model_dump()
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


class ConfigBase:
    """One section of the configuration: its fields (from :data:`FIELDS`) as attributes."""

    section: ClassVar[str] = ""
    _classes: ClassVar[dict[str, type[ConfigBase]]] = {}

    def __init_subclass__(cls, section: str = "", **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.section = section
        ConfigBase._classes[section] = cls

    def __init__(self, **values: Any) -> None:
        for name, (default, _) in FIELDS[self.section].items():
            object.__setattr__(self, name, copy.deepcopy(default))
        for name, child in self._children().items():
            object.__setattr__(self, name, child())
        self._update(values)

    @classmethod
    def _children(cls) -> dict[str, type[ConfigBase]]:
        prefix = f"{cls.section}." if cls.section else ""
        return {
            path[len(prefix) :]: section_cls
            for path, section_cls in ConfigBase._classes.items()
            if path.startswith(prefix) and path != cls.section and "." not in path[len(prefix) :]
        }

    def _path(self, name: str) -> str:
        return f"{self.section}.{name}" if self.section else name

    def _update(self, values: Mapping[str, Any]) -> None:
        for name, value in values.items():
            child = self._children().get(name)
            if child is not None and isinstance(value, Mapping):
                getattr(self, name)._update(value)
            else:
                setattr(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        fields, child = FIELDS[self.section], self._children().get(name)
        if name in fields:
            if name in FROZEN and self.section == "":
                raise ValueError(f"config field {name} is read-only")
            value = fields[name][1](self._path(name), _expand(value))
        elif child is not None:
            if isinstance(value, Mapping):
                value = child(**value)
            elif not isinstance(value, child):
                raise _fail(self._path(name), f"a {child.__name__} or a dict", value)
        object.__setattr__(self, name, value)  # unknown names are kept (extra="allow")

    def __getattr__(self, name: str) -> Any:  # only reached for names never set
        raise AttributeError(
            f"{type(self).__name__} has no field {name!r}; fields: {', '.join(self.model_dump())}"
        )

    def model_dump(self) -> dict[str, Any]:
        """The section as nested dicts (2.3.1's pydantic ``model_dump``)."""
        return {
            name: value.model_dump() if isinstance(value, ConfigBase) else copy.deepcopy(value)
            for name, value in vars(self).items()
        }

    @classmethod
    def model_validate(cls, obj: Mapping[str, Any]) -> ConfigBase:
        """A section built from a (nested) dict (2.3.1's pydantic ``model_validate``)."""
        return cls(**obj)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ConfigBase) or type(other) is not type(self):
            return NotImplemented
        return self.model_dump() == other.model_dump()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        items = ", ".join(f"{name}={value!r}" for name, value in vars(self).items())
        return f"{type(self).__name__}({items})"


class AgentTrainingConfig(ConfigBase, section="agent.training"):
    """``unit`` ("trial" or "step", default "trial") and ``value`` (positive, default 100)."""


class AgentInferenceConfig(ConfigBase, section="agent.inference"):
    """``unit`` ("trial" or "step", default "step") and ``value`` (positive, default 10000)."""


class AgentConfig(ConfigBase, section="agent"):
    """``training`` and ``inference`` (unused by neurogym itself, as in 2.3.1)."""


class EnvConfig(ConfigBase, section="env"):
    """``name`` (default "") and ``dt`` (ms, default 10)."""


class MonitorPlotConfig(ConfigBase, section="monitor.plot"):
    """``create`` (True), ``step`` (steps per figure, 10), ``title`` ("") and ``ext`` ("png")."""


class MonitorConfig(ConfigBase, section="monitor"):
    """``name``, ``trigger`` ("trial"/"step"), ``interval`` (1000), ``verbose``, ``save_dir``."""


class PlotFontConfig(ConfigBase, section="plot.font"):
    """Fonts (``xtick``, ``ytick``, ``title``, ``subtitle``, ``label``, ``legend``) as dicts."""


class PlotLegendConfig(ConfigBase, section="plot.legend"):
    """``location`` ("upper right"), ``bbox_to_anchor`` and ``mode`` ("expand" or None)."""


class PlotConfig(ConfigBase, section="plot"):
    """``font`` and ``legend``."""


def _environment() -> dict[str, Any]:
    """The ``NGYM_`` environment variables that name a known field or section, nested."""
    found: dict[str, Any] = {}
    for key, value in os.environ.items():
        if not key.upper().startswith("NGYM_"):
            continue
        *sections, name = key[5:].lower().split("__")
        section = ".".join(sections)
        if section not in FIELDS:
            continue
        full = f"{section}.{name}" if section else name
        if full in FIELDS:
            value = _json(value)
            if not isinstance(value, dict):
                continue
        elif name not in FIELDS[section]:
            continue
        target = found
        for part in sections:
            target = target.setdefault(part, {})
        target[name] = value
    return found


class Config(ConfigBase, section=""):
    """NeuroGym 2.3.1's configuration: ``agent``, ``env``, ``monitor``, ``plot``, ``local_dir``.

    Args:
        config_file: A TOML file (``[monitor]``, ``[monitor.plot]``, ``local_dir = ...``).
        **kwargs: Fields and sections (nested dicts), above the file and the environment.
    """

    def __init__(self, config_file: str | os.PathLike[str] | None = None, **kwargs: Any) -> None:
        values = _environment()
        path = None if config_file is None else Path(config_file)
        if path is not None and not path.is_file():
            warnings.warn(
                f"config file {str(path)!r} does not exist; it is ignored, as NeuroGym 2.3.1 "
                "ignored it",
                UserWarning,
                stacklevel=2,
            )
            path = None
        if path is not None:
            with path.open("rb") as file:
                values = _merge(values, tomllib.load(file))
        values = _merge(values, kwargs)
        frozen = {name: values.pop(name) for name in FROZEN & values.keys()}  # settable here only
        super().__init__(**values)
        for name, value in frozen.items():
            object.__setattr__(self, name, _path(name, _expand(value)))
        object.__setattr__(self, "config_file", path)
        if not self.monitor.plot.title:
            self.monitor.plot.title = self.env.name


#: The module-level configuration of 2.3.1 (``neurogym.config.config``).
config = Config()
