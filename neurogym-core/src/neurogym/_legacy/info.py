"""NeuroGym 2.3.1's ``neurogym.info`` (``neurogym.utils.info``): print tasks, tags, wrappers.

2.3.1 logged these through loguru to stderr; here they are printed to stdout, one item a line,
under the same headings, so a notebook shows them in its output. Text that comes from a plugin
(descriptions, tags) is printed as data: control characters are shown escaped, never sent to
the terminal.
"""

from __future__ import annotations

import inspect
from typing import Any

import gymnasium

from neurogym._legacy.registration import (
    ALL_ENVS,
    ALL_EXTENDED_ENVS,
    ALL_WRAPPERS,
    all_envs,
    all_tags,
    all_wrappers,
    env_string,
)
from neurogym._registry.api import get_registry, make

__all__ = ["show_all_tags", "show_all_tasks", "show_all_wrappers", "show_info"]


def _safe(text: str) -> str:
    """``text`` with control characters (ANSI escapes, carriage returns) escaped."""
    return "".join(
        char if char == "\n" or char.isprintable() else char.encode("unicode_escape").decode()
        for char in text
    )


def _print(*lines: str) -> None:
    for line in lines:
        print(_safe(line))


def show_all_tasks(tag: str | None = None) -> None:
    """Prints the ids of the installed native tasks (with ``tag``, only those)."""
    heading = "Available tasks:" if not tag else f"Available tasks with tag {tag!r}:"
    _print(heading, *all_envs(tag=tag))


def show_all_wrappers() -> None:
    """Prints 2.3.1's wrapper ids."""
    _print("Available wrappers:", *all_wrappers())


def show_all_tags() -> None:
    """Prints the tags of the installed native tasks."""
    _print("Available tags:", *all_tags())


def show_info(obj_: str | gymnasium.Env[Any, Any]) -> None:
    """Prints what is known of a task (an id or an env) or of a wrapper (``"Monitor-v0"``).

    Raises:
        ValueError: If a str names neither a task nor a wrapper.
        TypeError: If ``obj_`` is neither a str nor an env.
    """
    if isinstance(obj_, gymnasium.Env):
        _print("Info for environment:" + env_string(obj_)[3:])
    elif not isinstance(obj_, str):
        raise TypeError(f"Expected a task id, a wrapper id or an env, got {type(obj_).__name__}")
    elif obj_ in ALL_EXTENDED_ENVS or obj_ in {spec.id for spec in get_registry().tasks()}:
        _print("Info for environment:" + env_string(make(obj_))[3:])
    elif obj_ in ALL_WRAPPERS:
        _wrapper_info(obj_)
    else:
        raise ValueError(
            f"Unknown environment or wrapper: {obj_!r}; show_all_tasks() and "
            f"show_all_wrappers() list them ({len(ALL_ENVS)} tasks)"
        )


def _wrapper_info(wrapper_id: str) -> None:
    target = get_registry().wrapper(wrapper_id.removesuffix("-v0")).load()
    doc = inspect.getdoc(target) or ""
    _print(f"Info for wrapper: {wrapper_id}", doc.split("\n\n")[0])
    try:
        parameters = inspect.signature(target).parameters
    except (TypeError, ValueError):  # a builtin without a signature
        return
    _print(
        "Input parameters:",
        *(f"{p.name} : {p.default}" for p in parameters.values() if p.name != "env"),
    )
