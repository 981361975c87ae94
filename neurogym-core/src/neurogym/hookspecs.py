"""The hooks a neurogym plugin can implement: the extension contract of neurogym-core.

A plugin is a small module named by an entry point in the ``neurogym.plugins`` group. It holds
only hook implementations, marked with :data:`hookimpl` (re-exported as ``neurogym.hookimpl``),
and imports no task code::

    # neurogym_perceptual/_plugin.py
    from neurogym import TaskSpec, hookimpl

    @hookimpl
    def neurogym_tasks() -> list[TaskSpec]:
        return [
            TaskSpec(
                "neurogym/PerceptualDecisionMaking-v0",
                "neurogym_perceptual.tasks.pdm:PerceptualDecisionMaking",
                tags=("perceptual", "two-alternative", "supervised"),
            ),
        ]

Compatibility rule (pluggy's): adding an argument to a hook is not a breaking change, because
an implementation may accept any subset of a hook's arguments; removing or renaming one is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

from neurogym._registry.commands import CommandSpec
from neurogym._registry.specs import TaskSpec, WrapperSpec

if TYPE_CHECKING:
    import gymnasium

__all__ = [
    "hookimpl",
    "hookspec",
    "neurogym_commands",
    "neurogym_env_created",
    "neurogym_tasks",
    "neurogym_wrappers",
]

#: Marks the hook specifications below (project name ``"neurogym"``).
hookspec = pluggy.HookspecMarker("neurogym")
#: Marks a plugin's hook implementations; re-exported as ``neurogym.hookimpl``.
hookimpl = pluggy.HookimplMarker("neurogym")


@hookspec
def neurogym_tasks() -> list[TaskSpec]:  # type: ignore[empty-body]
    """Declare the tasks this plugin provides.

    Return specs only: each names its class by an ``"module:Class"`` string, so that listing
    tasks imports no task code. Leave ``TaskSpec.plugin`` and ``TaskSpec.distribution`` empty;
    discovery fills them in from the entry point.

    Returns:
        The plugin's task specs.

    Implemented by: task plugins, once per plugin module (neurogym-core implements it for
    ``neurogym/Null-v0``).

    Call semantics: called once per registry build, for each plugin separately and without
    arguments; results are not chained (no ``firstresult``). A plugin whose call raises, or
    that returns something other than a list of ``TaskSpec``, is skipped with a
    ``NeurogymPluginWarning``. An id declared by two plugins is registered for neither.
    """


@hookspec
def neurogym_wrappers() -> list[WrapperSpec]:  # type: ignore[empty-body]
    """Declare the wrappers this plugin provides for ``neurogym.make(..., wrappers=[...])``.

    Returns:
        The plugin's wrapper specs; each entry point is called as ``cls(env, **kwargs)``.

    Implemented by: plugins that ship wrappers (neurogym-core declares its own: Monitor,
    MultiEnvs, Noise, PassAction, PassReward, RandomGroundTruth, ReactionTime, ScheduleAttr,
    ScheduleEnvs, SideBias, TrialHistoryV2).

    Call semantics: as :func:`neurogym_tasks`: once per registry build, per plugin, without
    arguments, errors isolated; a name declared by two plugins is registered for neither.
    """


@hookspec
def neurogym_commands() -> list[CommandSpec]:  # type: ignore[empty-body]
    """Declare the subcommands this plugin adds to the ``neurogym`` command line.

    Returns:
        The plugin's command specs. Each names a function by ``"module:function"``; the
        command line imports it only when that command runs, calls it with the command's
        ``argparse.ArgumentParser`` to add its arguments, and runs what it returns.

    Implemented by: neurogym-apps (``train``, ``plot``, ``sweep``) and any plugin that brings
    a command; neurogym-core implements none (its ``list``, ``info``, ``check`` and ``new`` are
    built in and cannot be declared).

    Call semantics: as :func:`neurogym_tasks`: once when the command line starts, per plugin,
    without arguments, errors isolated. A first-party command name (``train``, ``plot``,
    ``sweep``) is reserved for its first-party distribution; a name declared by two plugins
    is registered for neither.
    """


@hookspec
def neurogym_env_created(env: gymnasium.Env[Any, Any], spec: TaskSpec) -> None:
    """Observe an env that ``neurogym.make`` (or ``gymnasium.make`` of a neurogym id) built.

    Called once per made env, after its episode limits and the requested wrappers were
    applied, and never again for that env: nothing on the per-step path goes through pluggy.
    Use it for bookkeeping (logging which tasks are made, attaching external state). To
    change how an env behaves, declare a wrapper with :func:`neurogym_wrappers` instead and
    let users ask for it by name.

    Args:
        env: The env about to be returned (the outermost wrapper).
        spec: The spec of the task it was built from.

    Implemented by: any plugin; neurogym-core implements none.

    Call semantics: called through ``Registry.plugin_manager`` (registries built by
    ``neurogym.build_registry`` have one; a bare ``Registry()`` calls no hook), for every
    implementing plugin, without ``firstresult``: return values are ignored, so a plugin
    cannot replace the env. An exception raised by an implementation propagates out of
    ``make``, with a note naming the hook.
    """
