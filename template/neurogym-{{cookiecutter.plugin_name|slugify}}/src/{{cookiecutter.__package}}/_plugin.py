"""The plugin's hook module: declares its tasks without importing any task code.

``[project.entry-points."neurogym.plugins"]`` in ``pyproject.toml`` points here; ``import
neurogym`` imports this module and calls its hooks. Each task is a :class:`neurogym.TaskSpec`
naming its class by a ``"module:Class"`` string, so listing tasks stays cheap. The spec is
the one place a task's paper, tags and description are written: the class does not restate
them (``neurogym.testing.check_task`` checks it), and made envs get them in ``env.metadata``.
"""

from __future__ import annotations

from neurogym import TaskSpec, hookimpl

__all__ = ["TASK_SPECS", "neurogym_tasks"]

_TASKS = "{{ cookiecutter.__package }}.tasks"

TASK_SPECS: tuple[TaskSpec, ...] = (
    TaskSpec(
        "{{ cookiecutter.namespace }}/{{ cookiecutter.task_class }}-v0",
        f"{_TASKS}.{{ cookiecutter.__task_module }}:{{ cookiecutter.task_class }}",
        tags=(
{% for tag in cookiecutter.tags.split(",") %}
            "{{ tag | trim }}",
{% endfor %}
        ),
        paper_name=(
            "The analysis of visual motion: a comparison of neuronal and psychophysical "
            "performance"
        ),
        paper_link="https://www.jneurosci.org/content/12/12/4745",
        description="Report which of two noisy stimuli is stronger (a two-alternative choice).",
    ),
)


@hookimpl
def neurogym_tasks() -> list[TaskSpec]:
    """Declare this plugin's tasks (add a TaskSpec to ``TASK_SPECS`` for each new task)."""
    return list(TASK_SPECS)
