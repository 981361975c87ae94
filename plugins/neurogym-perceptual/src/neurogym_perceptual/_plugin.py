"""neurogym-perceptual's hook module: declares its tasks without importing any task code."""

from __future__ import annotations

from neurogym import TaskSpec, hookimpl

__all__ = ["neurogym_tasks"]

_TASKS = "neurogym_perceptual.tasks"


def _spec(name: str, module: str, **fields: object) -> TaskSpec:
    return TaskSpec(f"neurogym/{name}-v0", f"{_TASKS}.{module}:{name}", **fields)  # type: ignore[arg-type]


TASK_SPECS: tuple[TaskSpec, ...] = (
    _spec(
        "PerceptualDecisionMaking",
        "perceptualdecisionmaking",
        tags=("perceptual", "two-alternative", "supervised"),
        paper_name=(
            "The analysis of visual motion: a comparison of neuronal and psychophysical "
            "performance"
        ),
        paper_link="https://www.jneurosci.org/content/12/12/4745",
        description="Two-alternative forced choice on a noisy ring stimulus (random-dot motion).",
        vectorized=True,
    ),
)


@hookimpl
def neurogym_tasks() -> list[TaskSpec]:
    """Declare the perceptual tasks."""
    return list(TASK_SPECS)
