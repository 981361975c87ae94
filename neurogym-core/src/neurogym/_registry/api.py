"""The functions ``neurogym`` exports for the default registry (``make``, ``tasks``, ...).

The default registry is built by plugin discovery on first use and cached;
:func:`build_registry` makes a fresh one for tests and tools.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from neurogym._env.metadata import use_metadata_source
from neurogym._registry.plugins import build_plugin_manager, registry_from_plugins
from neurogym._registry.registry import Registry, WrapperRequest
from neurogym._registry.specs import TaskSpec, WrapperSpec

if TYPE_CHECKING:
    import gymnasium

__all__ = [
    "build_registry",
    "class_metadata",
    "get_registry",
    "make",
    "spec",
    "tags",
    "tasks",
    "wrapper_specs",
]


def build_registry(*, discover: bool = True, include_core: bool = True) -> Registry:
    """Build a fresh registry from plugin discovery.

    Args:
        discover: Load the installed ``neurogym.plugins`` entry points (subject to
            ``NEUROGYM_NO_PLUGINS`` and ``NEUROGYM_DISABLE_PLUGINS``).
        include_core: Include neurogym-core's own tasks (``neurogym/Null-v0``).

    Returns:
        A new registry; nothing else holds it.
    """
    pm = build_plugin_manager(discover=discover, include_core=include_core)
    return registry_from_plugins(pm)


@functools.cache
def get_registry() -> Registry:
    """Return the default registry, building it by discovery on the first call.

    ``get_registry.cache_clear()`` drops it, so that the next call discovers again.
    """
    return build_registry()


def class_metadata(cls: type) -> dict[str, Any]:
    """``cls.metadata`` plus the paper, tags and description of the task spec naming ``cls``.

    The spec is looked up in the default registry by entry point (``"module:Class"``); a class
    no installed spec names gets its own ``metadata`` only.
    """
    own: dict[str, Any] = dict(getattr(cls, "metadata", {}))
    spec = get_registry().spec_for_entry_point(f"{cls.__module__}:{cls.__qualname__}")
    return own if spec is None else {**own, **spec.metadata}


use_metadata_source(class_metadata)  # the env layer gets the lookup without importing this


def make(
    task_id: str,
    /,
    *,
    wrappers: Iterable[WrapperRequest] = (),
    max_episode_steps: int | None = None,
    trials_per_episode: int | None = None,
    hold_fixation: bool = False,
    **kwargs: object,
) -> gymnasium.Env[Any, Any]:
    """Build a task env from the default registry (see :meth:`Registry.make`).

    Args:
        task_id: A task id such as ``"neurogym/Null-v0"``, or ``"Null-v0"`` / ``"Null"``
            when only one namespace has that name.
        wrappers: Wrapper names, or ``(name, kwargs)`` pairs, applied in order.
        max_episode_steps: Truncate episodes after this many steps.
        trials_per_episode: Terminate episodes at the end of this many trials.
        hold_fixation: Hold fixation until the response, a break ending the trial, as labs
            train it (``TrialEnv.hold_fixation``; False keeps the task's own rule, as upstream).
        **kwargs: Constructor arguments overriding the task's defaults.

    Returns:
        The task env itself, wrapped only by the wrappers asked for.
    """
    return get_registry().make(
        task_id,
        wrappers=wrappers,
        max_episode_steps=max_episode_steps,
        trials_per_episode=trials_per_episode,
        hold_fixation=hold_fixation,
        **kwargs,
    )


def tasks(tag: str | None = None, plugin: str | None = None) -> list[TaskSpec]:
    """List the default registry's task specs, sorted by id (see :meth:`Registry.tasks`).

    Args:
        tag: Keep only tasks carrying this tag.
        plugin: Keep only tasks of the plugin with this entry-point name.

    Returns:
        The matching specs.
    """
    return get_registry().tasks(tag=tag, plugin=plugin)


def spec(task_id: str) -> TaskSpec:
    """Return the spec of a task id or unambiguous name (see :meth:`Registry.resolve`)."""
    return get_registry().resolve(task_id)


def tags() -> list[str]:
    """Every tag used by a task of the default registry, sorted."""
    return get_registry().tags()


def wrapper_specs() -> list[WrapperSpec]:
    """The default registry's wrapper specs, sorted by name."""
    return get_registry().wrappers()
