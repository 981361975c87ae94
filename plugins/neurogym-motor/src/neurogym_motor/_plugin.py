"""neurogym-motor's hook module: declares its tasks without importing any task code.

Each TaskSpec is the one place a task's paper, tags and description are written.
"""

from __future__ import annotations

from neurogym import TaskSpec, hookimpl

__all__ = ["TASK_SPECS", "neurogym_tasks"]

_TASKS = "neurogym_motor.tasks"
_TIMING_TAGS = ("timing", "go-no-go", "supervised")


def _spec(name: str, module: str, **fields: object) -> TaskSpec:
    return TaskSpec(f"neurogym/{name}-v0", f"{_TASKS}.{module}:{name}", **fields)  # type: ignore[arg-type]


# One _spec(...) per task, sorted by name.
TASK_SPECS: tuple[TaskSpec, ...] = (
    _spec(
        "GoNogo",
        "gonogo",
        tags=("delayed response", "go-no-go", "supervised"),
        paper_name="Active information maintenance in working memory by a sensory cortex",
        paper_link="https://elifesciences.org/articles/43191",
        description="A go or no-go cue, a delay, then respond on go trials and withhold on no-go.",
    ),
    _spec(
        "MotorTiming",
        "motortiming",
        tags=_TIMING_TAGS,
        paper_name="Flexible timing by temporal scaling of cortical responses",
        paper_link="https://www.nature.com/articles/s41593-017-0028-6",
        description="A cue names one of two intervals; after the set cue, produce that interval.",
    ),
    _spec(
        "OneTwoThreeGo",
        "onetwothreego",
        tags=_TIMING_TAGS,
        paper_name="Internal models of sensorimotor integration regulate cortical dynamics",
        paper_link="https://www.nature.com/articles/s41593-019-0500-6",
        description="Three pulses mark an interval twice; respond one interval after the third.",
    ),
    _spec(
        "Reaching1D",
        "reaching",
        tags=("motor", "steps action space"),
        paper_name="Neuronal population coding of movement direction",
        paper_link="https://science.sciencemag.org/content/233/4771/1416",
        description="Steer a pointer on a ring towards a target direction (steps action space).",
    ),
    _spec(
        "Reaching1DWithSelfDistraction",
        "reaching",
        tags=("motor", "steps action space"),
        paper_name=(
            "Reaching with self distraction (NeuroGym task, after active sensing in weakly "
            "electric fish)"
        ),
        paper_link="https://github.com/neurogym/neurogym",
        description=(
            "Reach to a weak target input that the pointer's own strong input overshadows."
        ),
    ),
    _spec(
        "ReadySetGo",
        "readysetgo",
        tags=_TIMING_TAGS,
        paper_name=(
            "Flexible Sensorimotor Computations through Rapid Reconfiguration of Cortical Dynamics"
        ),
        paper_link="https://www.sciencedirect.com/science/article/pii/S0896627318304185",
        description="Measure the interval between ready and set; produce it, scaled by a gain.",
    ),
)


@hookimpl
def neurogym_tasks() -> list[TaskSpec]:
    """Declare the motor and timing tasks."""
    return list(TASK_SPECS)
