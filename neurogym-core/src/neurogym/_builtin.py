"""neurogym-core's own hook module, registered as plugin ``"core"`` by every plugin manager."""

from __future__ import annotations

from neurogym._specs import TaskSpec
from neurogym.hookspecs import hookimpl

__all__ = ["neurogym_tasks"]


@hookimpl
def neurogym_tasks() -> list[TaskSpec]:
    """Declare core's only task, ``neurogym/Null-v0``."""
    return [
        TaskSpec(
            "neurogym/Null-v0",
            "neurogym._null:Null",
            tags=("placeholder",),
            paper_name="None (placeholder task)",
            paper_link="https://github.com/neurogym/neurogym",
            description="A placeholder task: zero observations, zero rewards.",
        ),
    ]
