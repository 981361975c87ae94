"""Subcommands that plugins add to the ``neurogym`` command line (the ``neurogym_commands`` hook).

Core's command line has the verbs that need nothing but core (``list``, ``info``, ``check``,
``new``). Anything else, such as ``train``, ``plot`` and ``sweep`` of neurogym-apps, is a
:class:`CommandSpec` a plugin returns from ``neurogym_commands``: core reads the specs when the
command line starts and imports a command's module only when that command runs, so core never
imports an application.

The names of first-party commands (the first-party table's ``commands``) are reserved: only
their first-party distribution may declare them, so a plugin cannot put its own ``neurogym
train`` in their place. A name declared by two other plugins is registered for neither.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from neurogym._registry.checked import hook_specs
from neurogym._registry.firstparty import FIRST_PARTY
from neurogym._registry.specs import (
    _check_entry_point,
    _check_str_fields,
    _describe_origin,
    _load_entry_point,
)
from neurogym.errors import NeurogymPluginWarning

if TYPE_CHECKING:  # argparse is imported when the command line runs, not by ``import neurogym``
    import argparse

__all__ = [
    "BUILTIN_COMMANDS",
    "FIRST_PARTY_COMMANDS",
    "CommandSpec",
    "Configure",
    "Run",
    "first_party_command",
    "plugin_commands",
]

#: The verbs of core's own command line; no plugin may declare them.
BUILTIN_COMMANDS = ("list", "info", "check", "new")

_NAME_RE = re.compile(r"[a-z][a-z0-9-]*", re.ASCII)
_NAME_FORM = "lowercase letters, digits or '-', starting with a letter (e.g. 'train')"

#: What a command runs: the parsed arguments in, the exit status out (0, 1 failure, 2 usage).
Run = Callable[["argparse.Namespace"], int]
#: What a command's entry point is: it adds the arguments to the command's parser and
#: returns the function that runs the command.
Configure = Callable[["argparse.ArgumentParser"], Run]


@dataclass(frozen=True)
class CommandSpec:
    """Declaration of one subcommand a plugin adds to the ``neurogym`` command line.

    Args:
        name: The subcommand, e.g. ``"train"`` for ``neurogym train``: lowercase letters, digits
            or ``-``, starting with a letter.
        entry_point: ``"module.path:function"``. The function receives the subcommand's
            ``argparse.ArgumentParser``, adds its arguments and returns the function that runs
            the command (``args -> exit status``). Its module is imported only when the
            command runs, so it may import anything; keep heavy imports inside the runner if
            its ``--help`` should be fast.
        summary: One line for ``neurogym --help``.
        plugin: Entry-point name of the declaring plugin; filled in by discovery.
        distribution: Name of the declaring distribution; filled in by discovery.

    Raises:
        ValueError: If ``name`` or ``entry_point`` is malformed.
        TypeError: If a field has the wrong type.
    """

    name: str
    entry_point: str
    summary: str = ""
    plugin: str = ""
    distribution: str = ""

    def __post_init__(self) -> None:
        name: object = self.name  # a plugin may pass anything
        if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
            raise ValueError(f"invalid command name {self.name!r}: expected {_NAME_FORM}")
        owner = f"command {self.name!r}"
        _check_entry_point(self.entry_point, owner)
        _check_str_fields(self, ("summary", "plugin", "distribution"), owner)

    def load(self) -> Configure:
        """Import the entry point and return the function that configures the command.

        Raises:
            ImportError: If the module cannot be imported or has no such attribute.
            TypeError: If the attribute is not callable.
        """
        origin = _describe_origin(self.plugin, self.distribution)
        configure: Configure = _load_entry_point(
            self.entry_point, f"command {self.name!r}{origin}"
        )
        return configure


#: Command name -> (first-party distribution that adds it, extra of ``neurogym`` installing it).
FIRST_PARTY_COMMANDS: dict[str, tuple[str, str]] = {
    name: (row.distribution, extra) for row in FIRST_PARTY for name, extra in row.commands
}


def first_party_command(name: str) -> tuple[str, str] | None:
    """``(distribution, extra of the neurogym distribution)`` providing command ``name``."""
    return FIRST_PARTY_COMMANDS.get(name)


def _warn(message: str) -> None:
    warnings.warn(message, NeurogymPluginWarning, stacklevel=3)


def _declared(pm: Any, plugin: str) -> list[CommandSpec]:
    """One plugin's command specs, checked; a plugin whose hook raises declares none."""
    found = hook_specs(
        pm, plugin, "neurogym_commands", CommandSpec, "its commands are unavailable"
    )
    return found or []


def _refused(spec: CommandSpec) -> str | None:
    """Why ``spec`` may not be registered, or None."""
    if spec.name in BUILTIN_COMMANDS:
        return f"is one of core's own commands ({', '.join(BUILTIN_COMMANDS)})"
    owner = first_party_command(spec.name)
    if owner is not None and spec.distribution != owner[0]:
        return f"is reserved for first-party {owner[0]!r}"
    return None


def plugin_commands(pm: Any) -> dict[str, CommandSpec]:
    """Every command the plugins of ``pm`` declare, by name.

    Refused, with a ``NeurogymPluginWarning`` naming the plugin: core's own verbs, first-party
    command names declared by another distribution, and a name two plugins declare (neither
    is registered).
    """
    groups: dict[str, list[CommandSpec]] = {}
    for plugin, _ in pm.list_name_plugin():
        for spec in _declared(pm, plugin):
            problem = _refused(spec)
            if problem is not None:
                _warn(
                    f"neurogym plugin {spec.plugin!r} from distribution {spec.distribution!r} "
                    f"declares command {spec.name!r}, which {problem}; it is ignored"
                )
                continue
            groups.setdefault(spec.name, []).append(spec)
    commands: dict[str, CommandSpec] = {}
    for name, group in sorted(groups.items()):
        if len(group) == 1:
            commands[name] = group[0]
            continue
        owners = " and ".join(f"{spec.distribution!r} (plugin {spec.plugin!r})" for spec in group)
        _warn(f"command {name!r} is declared by {owners}; neither is registered")
    return commands
