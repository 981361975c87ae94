"""neurogym-apps' hook module: the ``neurogym`` subcommands it adds (imports nothing heavy)."""

from __future__ import annotations

from neurogym import CommandSpec, hookimpl

__all__ = ["neurogym_commands"]


@hookimpl
def neurogym_commands() -> list[CommandSpec]:
    """``neurogym train``, ``neurogym plot``, ``neurogym sweep`` and ``neurogym analyze``."""
    return [
        CommandSpec(
            "train",
            "neurogym_apps._cli:configure_train",
            summary='train a recurrent network on a task, evaluate it (needs "neurogym[train]")',
        ),
        CommandSpec(
            "plot",
            "neurogym_apps._cli:configure_plot",
            summary='draw a run of a task into an image file (needs "neurogym[plot]")',
        ),
        CommandSpec(
            "sweep",
            "neurogym_apps._cli:configure_sweep",
            summary='train TASK... x --seeds, here or on Ray (needs "neurogym[train]", [ray])',
        ),
        CommandSpec(
            "analyze",
            "neurogym_apps.analysis._cli:configure_analyze",
            summary='task variance, fixed points, PCA of a run (needs "neurogym[analysis]")',
        ),
    ]
