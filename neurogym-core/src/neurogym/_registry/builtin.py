"""neurogym-core's own hook module, registered as plugin ``"core"`` by every plugin manager."""

from __future__ import annotations

from neurogym._registry.specs import TaskSpec, WrapperSpec
from neurogym.hookspecs import hookimpl

__all__ = ["neurogym_tasks", "neurogym_wrappers"]

_WRAPPERS = "neurogym.wrappers"

# name -> (module under neurogym.wrappers, attribute, description)
_CORE_WRAPPERS: tuple[tuple[str, str, str, str], ...] = (
    ("Monitor", "monitor", "Monitor", "Per-trial behaviour logs, .npz files, evaluate_policy."),
    (
        "MultiEnvs",
        "multi",
        "multi_envs",
        "The made env plus others= envs; set_i(i) picks the env of the next trial.",
    ),
    ("Noise", "step", "Noise", "Gaussian observation noise, fixed or adapted to a target."),
    ("PassAction", "step", "PassAction", "Appends the last action to the observation."),
    ("PassReward", "step", "PassReward", "Appends the last reward to the observation."),
    (
        "RandomGroundTruth",
        "trial",
        "RandomGroundTruth",
        "Draws each trial's ground truth with probabilities p.",
    ),
    ("ReactionTime", "step", "ReactionTime", "Respond at any time after stimulus onset."),
    ("ScheduleAttr", "trial", "ScheduleAttr", "Trial kwargs from attribute sets, by schedule."),
    (
        "ScheduleEnvs",
        "multi",
        "schedule_envs",
        "The made env plus others= envs; a schedule picks the env of each trial.",
    ),
    ("SideBias", "trial", "SideBias", "Block-wise biased ground-truth probabilities."),
    (
        "TrialHistoryV2",
        "trial",
        "TrialHistoryV2",
        "Ground truths follow a Markov chain over the choices.",
    ),
)


@hookimpl
def neurogym_tasks() -> list[TaskSpec]:
    """Declare core's only task, ``neurogym/Null-v0``."""
    return [
        TaskSpec(
            "neurogym/Null-v0",
            "neurogym._env.null:Null",
            tags=("placeholder",),
            paper_name="None (placeholder task)",
            paper_link="https://github.com/neurogym/neurogym",
            description="A placeholder task: zero observations, zero rewards.",
        ),
    ]


@hookimpl
def neurogym_wrappers() -> list[WrapperSpec]:
    """Declare core's wrappers (``neurogym.wrappers``), applied by name in ``make``."""
    return [
        WrapperSpec(name, f"{_WRAPPERS}.{module}:{attr}", description=description)
        for name, module, attr, description in _CORE_WRAPPERS
    ]
