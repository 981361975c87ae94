"""Plugin discovery: a pluggy manager filled from ``neurogym.plugins`` entry points.

Discovery never raises because of a plugin: a plugin that fails to import, is rejected by
pluggy, raises in a hook or returns something other than specs is skipped with a
:class:`~neurogym.errors.NeurogymPluginWarning` naming it and its distribution, and the others
carry on. Only the plugins' small hook modules are imported; task modules are not.

Environment variables, read each time a manager is built:

* ``NEUROGYM_NO_PLUGINS=1`` loads no entry points (core's own tasks stay).
* ``NEUROGYM_DISABLE_PLUGINS=a,b`` skips the entry points named ``a`` and ``b``.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import importlib_metadata
import pluggy

from neurogym import hookspecs
from neurogym._registry import builtin
from neurogym._registry.checked import hook_specs, warn_plugin
from neurogym._registry.firstparty import (
    FIRST_PARTY_NAMESPACE,
    distribution_key,
    first_party_distribution_of_plugin,
    first_party_distributions,
    is_first_party,
    is_reserved_namespace,
)
from neurogym._registry.registry import Registry
from neurogym._registry.specs import PLUGIN_NAME_FORM, PLUGIN_NAME_RE, TaskSpec, WrapperSpec
from neurogym.errors import NeurogymPluginWarning

__all__ = [
    "CORE_DISTRIBUTION",
    "CORE_PLUGIN",
    "DISABLE_PLUGINS_ENV",
    "ENTRY_POINT_GROUP",
    "NO_PLUGINS_ENV",
    "PluginManager",
    "build_plugin_manager",
    "registry_from_plugins",
]

ENTRY_POINT_GROUP = "neurogym.plugins"
CORE_PLUGIN = "core"
CORE_DISTRIBUTION = "neurogym-core"
NO_PLUGINS_ENV = "NEUROGYM_NO_PLUGINS"
DISABLE_PLUGINS_ENV = "NEUROGYM_DISABLE_PLUGINS"

_SpecT = TypeVar("_SpecT", TaskSpec, WrapperSpec)
_HOOKS: tuple[tuple[str, type[TaskSpec] | type[WrapperSpec]], ...] = (
    ("neurogym_tasks", TaskSpec),
    ("neurogym_wrappers", WrapperSpec),
)
_FALSE_VALUES = frozenset({"", "0", "false", "no", "off"})


_warn = warn_plugin  # "neurogym plugin 'x' from distribution 'y' <problem>"


class PluginManager(pluggy.PluginManager):
    """pluggy's manager for project ``"neurogym"``, remembering each plugin's distribution."""

    def __init__(self) -> None:
        super().__init__("neurogym")
        self.add_hookspecs(hookspecs)
        #: Plugin name (entry-point name) -> name of the distribution that installed it.
        self.distributions: dict[str, str] = {}

    def add_plugin(self, plugin: object, name: str, distribution: str = "") -> bool:
        """Register a plugin, warning instead of raising if pluggy rejects it.

        Args:
            plugin: The plugin object (normally the hook module).
            name: The plugin name: its entry-point name, or ``"core"``.
            distribution: The distribution that installed it, for messages and spec attribution.

        Returns:
            True if the plugin was registered.
        """
        try:
            self.register(plugin, name=name)
        except BaseException as exc:  # pluggy: name taken, registered twice, invalid hookimpl
            if isinstance(exc, KeyboardInterrupt):
                raise
            _warn(name, distribution, f"was skipped: {type(exc).__name__}: {exc}")
            return False
        self.distributions[name] = distribution
        self._warn_unknown_hooks(plugin, name)
        return True

    def _warn_unknown_hooks(self, plugin: object, name: str) -> None:
        for caller in self.get_hookcallers(plugin) or ():
            required = [
                impl
                for impl in caller.get_hookimpls()
                if impl.plugin is plugin and not impl.optionalhook
            ]
            if required and not caller.has_spec():
                _warn(
                    name,
                    self.distributions[name],
                    f"implements {caller.name!r}, which is not a neurogym hook (a typo, or a "
                    "hook of a newer neurogym-core?); it is never called",
                )


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in _FALSE_VALUES


def _disabled_plugins() -> set[str]:
    return {item.strip() for item in os.environ.get(DISABLE_PLUGINS_ENV, "").split(",")} - {""}


def _plugin_entry_points() -> list[importlib_metadata.EntryPoint]:
    """The group's entry points, one distribution per name (the first on ``sys.path`` wins).

    What ``importlib_metadata.entry_points(group=...)`` returns, read faster: it parses every
    installed distribution's ``entry_points.txt`` (console scripts and all), here only those
    that mention the group are parsed (a third of ``import neurogym`` in a venv of 100
    distributions). A malformed ``entry_points.txt`` that declares the group is skipped with a
    warning; the others are never parsed.
    """
    found: list[importlib_metadata.EntryPoint] = []
    seen: set[str] = set()
    for dist in importlib_metadata.distributions():
        try:
            key = _normalized_name(dist)
        except Exception:  # no readable name in METADATA: not a usable distribution
            continue
        if key in seen:
            continue
        seen.add(key)
        try:
            text = dist.read_text("entry_points.txt")
        except OSError:
            continue
        if not text or ENTRY_POINT_GROUP not in text:
            continue
        try:
            found.extend(dist.entry_points.select(group=ENTRY_POINT_GROUP))
        except Exception as exc:
            warnings.warn(
                f"neurogym plugins of distribution {dist.name!r} cannot be read, its "
                f"entry_points.txt is malformed: {type(exc).__name__}: {exc}",
                NeurogymPluginWarning,
                stacklevel=4,
            )
    return found


def _normalized_name(dist: Any) -> str:
    """The distribution's PEP 503 name, from its ``.dist-info`` directory name if it can.

    ``importlib_metadata`` deduplicates distributions by this private property (no METADATA
    parse); a distribution without it is named by its METADATA.
    """
    name = getattr(dist, "_normalized_name", None)
    return distribution_key(name if isinstance(name, str) else dist.name)


def _distribution_of(ep: importlib_metadata.EntryPoint) -> str:
    """The name of the distribution declaring ``ep`` ("" if unknown).

    Read from the ``Name:`` header of its METADATA directly: ``Distribution.name`` parses the
    whole file with the email parser on every call (about 2 ms each, a quarter of
    ``import neurogym``), and discovery asks up to three times per entry point.
    """
    dist = ep.dist
    if dist is None:
        return ""
    try:
        text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
    except OSError:
        text = ""
    for line in text.splitlines():
        if not line:  # the end of the headers
            break
        if line.startswith("Name:"):
            return line[5:].strip()
    return dist.name  # a layout this scan does not know: the parser's answer


def _by_name(
    entry_points: Sequence[importlib_metadata.EntryPoint],
) -> dict[str, list[importlib_metadata.EntryPoint]]:
    """Group entry points by name, one per distribution, in a fixed order (not sys.path's)."""
    groups: dict[str, dict[str, importlib_metadata.EntryPoint]] = {}
    for ep in entry_points:
        key = distribution_key(_distribution_of(ep))
        groups.setdefault(ep.name, {}).setdefault(key, ep)
    return {name: [group[key] for key in sorted(group)] for name, group in sorted(groups.items())}


def _admitted(
    name: str, candidates: Sequence[importlib_metadata.EntryPoint]
) -> importlib_metadata.EntryPoint | None:
    """The one entry point of this name that may load, warning about every one that may not.

    A first-party plugin name belongs to its first-party distribution: any other distribution
    using it is skipped, whether or not the owner is installed. Two third-party distributions
    using one name are both skipped: neither can hide the other, and the outcome does not
    depend on the order of ``sys.path``.
    """
    owner = first_party_distribution_of_plugin(name)
    if owner is not None:
        admitted = None
        for ep in candidates:
            distribution = _distribution_of(ep)
            if distribution_key(distribution) == owner:
                admitted = ep
                continue
            installed = " (installed too; it is the one loaded)" if _has(candidates, owner) else ""
            _warn(
                name,
                distribution,
                f"was skipped: the plugin name {name!r} is reserved for the first-party "
                f"distribution {owner!r}{installed}. Its author must pick another "
                "entry-point name",
            )
        return admitted
    if len(candidates) == 1:
        return candidates[0]
    owners = [repr(_distribution_of(ep) or "<unknown>") for ep in candidates]
    warnings.warn(
        f"neurogym plugin name {name!r} is declared by distributions "
        f"{', '.join(owners[:-1])} and {owners[-1]}; none of them is loaded. Uninstall all but "
        "one of them",
        NeurogymPluginWarning,
        stacklevel=4,
    )
    return None


def _has(candidates: Sequence[importlib_metadata.EntryPoint], distribution: str) -> bool:
    return any(distribution_key(_distribution_of(ep)) == distribution for ep in candidates)


def _valid_name(name: str, candidates: Sequence[importlib_metadata.EntryPoint]) -> bool:
    """Whether ``name`` may be a plugin name; if not, warn naming every declarer (none loads).

    A plugin name becomes a path part (the docs catalogue's ``tasks/<plugin>/``) and is shown
    in listings, so it must match :data:`~neurogym._registry.specs.PLUGIN_NAME_RE` (``..``,
    ``/``, spaces and control characters are refused before anything is imported).
    """
    if PLUGIN_NAME_RE.fullmatch(name):
        return True
    for ep in candidates:
        _warn(
            name,
            _distribution_of(ep),
            f"was skipped: its entry-point name is not a valid plugin name (expected "
            f"{PLUGIN_NAME_FORM}); it is never imported. Its author must pick another "
            "entry-point name",
        )
    return False


def _load_entry_points(pm: PluginManager) -> None:
    disabled = _disabled_plugins()
    for name, candidates in _by_name(_plugin_entry_points()).items():
        if name in disabled or not _valid_name(name, candidates):
            continue
        ep = _admitted(name, candidates)
        if ep is None:
            continue
        distribution = _distribution_of(ep)
        try:
            plugin = ep.load()
        except BaseException as exc:  # SystemExit too: a plugin must not end the process
            if isinstance(exc, KeyboardInterrupt):
                raise
            _warn(
                ep.name,
                distribution,
                f"failed to load: {type(exc).__name__}: {exc}; its tasks are unavailable",
            )
            continue
        pm.add_plugin(plugin, ep.name, distribution)


def build_plugin_manager(*, discover: bool = True, include_core: bool = True) -> PluginManager:
    """Build a fresh plugin manager.

    Args:
        discover: Load the plugins installed under the ``neurogym.plugins`` entry-point group
            (subject to ``NEUROGYM_NO_PLUGINS`` and ``NEUROGYM_DISABLE_PLUGINS``).
        include_core: Register neurogym-core's own hook module as plugin ``"core"``; the
            environment variables never disable it.

    Returns:
        The manager, with every plugin that loaded registered.
    """
    pm = PluginManager()
    if include_core:
        pm.add_plugin(builtin, CORE_PLUGIN, CORE_DISTRIBUTION)
    if discover and not _env_flag(NO_PLUGINS_ENV):
        _load_entry_points(pm)
    return pm


def _outside_reserved_namespace(
    specs: list[TaskSpec | WrapperSpec], plugin: str, distribution: str
) -> list[TaskSpec | WrapperSpec]:
    """Drop task ids in the ``neurogym/`` namespace unless the distribution is first-party.

    Any spelling of the namespace counts (:func:`is_reserved_namespace`), and it is read from
    the id itself, not from a ``namespace`` attribute a spec subclass could redefine.
    """
    if is_first_party(distribution):
        return specs
    reserved = [
        spec.id
        for spec in specs
        if isinstance(spec, TaskSpec) and is_reserved_namespace(str(spec.id).partition("/")[0])
    ]
    if not reserved:
        return specs
    _warn(
        plugin,
        distribution,
        f"declares task ids in the reserved {FIRST_PARTY_NAMESPACE + '/'!r} namespace: "
        f"{', '.join(map(repr, reserved))}; they are ignored. Only the first-party "
        f"distributions ({', '.join(first_party_distributions())}) declare ids there; a "
        "plugin uses a namespace of its own",
    )
    return [spec for spec in specs if not isinstance(spec, TaskSpec) or spec.id not in reserved]


def _plugin_specs(pm: PluginManager, plugin: str) -> list[TaskSpec | WrapperSpec]:
    """Call every hook of one plugin and attribute the specs; drop the plugin if one raises."""
    distribution = pm.distributions.get(plugin, "")
    specs: list[TaskSpec | WrapperSpec] = []
    for hook, spec_type in _HOOKS:
        found = hook_specs(pm, plugin, hook, spec_type, "its tasks and wrappers are unavailable")
        if found is None:
            pm.unregister(name=plugin)
            return []
        specs.extend(_outside_reserved_namespace(found, plugin, distribution))
    return specs


def _describe(spec: TaskSpec | WrapperSpec) -> str:
    return f"distribution {spec.distribution or '<unknown>'!r} (plugin {spec.plugin!r})"


def _keep_first_party(
    registry: Registry, keep: _SpecT, group: Sequence[_SpecT], name: str, kind: str
) -> None:
    """Register the first-party spec of a contested name; warn naming every other declarer."""
    others = [_describe(spec) for spec in group if spec is not keep]
    warnings.warn(
        f"{kind} {name!r} is declared by first-party {_describe(keep)} and by "
        f"{' and '.join(others)}; the first-party one is registered and the other is ignored "
        "(a plugin cannot replace another distribution's tasks or wrappers)",
        NeurogymPluginWarning,
        stacklevel=4,
    )
    registry.register(keep)


def _register_unique(
    registry: Registry, specs: Sequence[_SpecT], key: Callable[[_SpecT], str], kind: str
) -> None:
    groups: dict[str, list[_SpecT]] = {}
    for spec in specs:
        groups.setdefault(key(spec), []).append(spec)
    for name, group in sorted(groups.items()):
        if len(group) == 1:
            registry.register(group[0])
            continue
        first_party = [spec for spec in group if is_first_party(spec.distribution)]
        if len(first_party) == 1:
            _keep_first_party(registry, first_party[0], group, name, kind)
            continue
        owners = [_describe(spec) for spec in group]
        warnings.warn(
            f"{kind} {name!r} is declared by {', '.join(owners[:-1])} and {owners[-1]}; "
            "neither is registered. Uninstall one, or disable one plugin with "
            f"{DISABLE_PLUGINS_ENV}=<plugin>",
            NeurogymPluginWarning,
            stacklevel=3,
        )
        registry.add_conflict(group)


def registry_from_plugins(pm: PluginManager) -> Registry:
    """Collect every plugin's specs into a new registry.

    Each plugin's hooks are called separately, so every spec is attributed to its plugin and
    distribution, and one failing plugin cannot hide the others.

    Args:
        pm: The plugin manager to collect from.

    Returns:
        A registry holding every task id and wrapper name declared exactly once; ids declared
        by several plugins are recorded in :attr:`Registry.conflicts` instead.
    """
    specs: list[TaskSpec | WrapperSpec] = []
    for plugin, _ in pm.list_name_plugin():
        specs.extend(_plugin_specs(pm, plugin))
    registry = Registry(plugin_manager=pm)
    tasks = [spec for spec in specs if isinstance(spec, TaskSpec)]
    wrappers = [spec for spec in specs if isinstance(spec, WrapperSpec)]
    _register_unique(registry, tasks, lambda spec: spec.id, "task id")
    _register_unique(registry, wrappers, lambda spec: spec.name, "wrapper name")
    return registry
