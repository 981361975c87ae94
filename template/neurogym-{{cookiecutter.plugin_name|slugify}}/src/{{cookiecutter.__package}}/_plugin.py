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
{% if "TODO" in cookiecutter.task_description ~ cookiecutter.paper_name ~ cookiecutter.paper_link %}
        # TODO: write your task's paper and description (the tests fail until no TODO is
        # left).
{% endif %}
{#
    Each string on one line if it fits in 99 columns (or is one word, such as a link), else
    wrapped at spaces over the lines of one implicitly concatenated string.
#}
{% for key, text in [
    ("paper_name", cookiecutter.paper_name),
    ("paper_link", cookiecutter.paper_link),
    ("description", cookiecutter.task_description),
] %}
{% if key | length + text | length <= 87 or " " not in text %}
        {{ key }}="{{ text }}",
{% else %}
        {{ key }}=(
{% for line in (text | wordwrap(78, break_long_words=false, wrapstring="\n", break_on_hyphens=false)).split("\n") %}
            "{{ line }}{{ "" if loop.last else " " }}"
{% endfor %}
        ),
{% endif %}
{% endfor %}
    ),
)


@hookimpl
def neurogym_tasks() -> list[TaskSpec]:
    """Declare this plugin's tasks (add a TaskSpec to ``TASK_SPECS`` for each new task)."""
    return list(TASK_SPECS)
