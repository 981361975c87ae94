"""neurogym-multitask's hook module: declares its tasks without importing any task code.

Each TaskSpec is the one place a task's paper, tags and description are written.
"""

from __future__ import annotations

from collections.abc import Mapping

from neurogym import TaskSpec, hookimpl

__all__ = ["TASK_SPECS", "neurogym_tasks"]

_TASKS = "neurogym_multitask.tasks"

YANG19_PAPER = "Task representations in neural networks trained to perform many cognitive tasks"
YANG19_LINK = "https://www.nature.com/articles/s41593-018-0310-2"

# Upstream's _Reach and _DelayMatch1DResponse metadata (kept); _DMFamily had none.
_REACH: dict[str, object] = {
    "tags": ("perceptual", "steps action space"),
    "paper_name": "Look away: the anti-saccade task and the voluntary control of eye movement",
    "paper_link": "https://www.nature.com/articles/nrn1345",
}
_MATCH: dict[str, object] = {
    "tags": ("perceptual", "working memory", "two-alternative", "supervised"),
    "paper_name": "Experience-dependent representation of visual categories in parietal cortex",
    "paper_link": "https://www.nature.com/articles/nature05078",
}
_DM: dict[str, object] = {"paper_name": YANG19_PAPER, "paper_link": YANG19_LINK}
_DM_TAGS = ("perceptual", "n-alternative", "supervised")
_DLY_TAGS = ("perceptual", "working memory", "delayed response", "n-alternative", "supervised")

# (name, module, class, extra fields, description), in upstream's order.
_ROWS: tuple[tuple[str, str, str, Mapping[str, object], str], ...] = (
    ("go", "reach", "Go", _REACH, "Saccade to where a stimulus was shown."),
    ("anti", "reach", "Anti", _REACH, "Saccade opposite to where a stimulus was shown."),
    ("rtgo", "reach", "RtGo", _REACH, "Saccade to a stimulus as soon as it appears."),
    ("rtanti", "reach", "RtAnti", _REACH, "Saccade opposite a stimulus as soon as it appears."),
    ("dlygo", "reach", "DlyGo", _REACH, "Saccade to a remembered stimulus after a delay."),
    ("dlyanti", "reach", "DlyAnti", _REACH, "Saccade opposite a remembered stimulus."),
    ("dm1", "decision", "DM1", {**_DM, "tags": _DM_TAGS}, "Pick the stronger of two stimuli "
     "in modality 1."),
    ("dm2", "decision", "DM2", {**_DM, "tags": _DM_TAGS}, "Pick the stronger of two stimuli "
     "in modality 2."),
    ("ctxdm1", "decision", "CtxDM1", {**_DM, "tags": (*_DM_TAGS, "context dependent")},
     "Pick the stronger stimulus in modality 1, ignoring modality 2."),
    ("ctxdm2", "decision", "CtxDM2", {**_DM, "tags": (*_DM_TAGS, "context dependent")},
     "Pick the stronger stimulus in modality 2, ignoring modality 1."),
    ("multidm", "decision", "MultiDM", {**_DM, "tags": _DM_TAGS},
     "Pick the stimulus stronger over both modalities together."),
    ("dlydm1", "decision", "DlyDM1", {**_DM, "tags": _DLY_TAGS},
     "Compare two stimuli separated by a delay, in modality 1."),
    ("dlydm2", "decision", "DlyDM2", {**_DM, "tags": _DLY_TAGS},
     "Compare two stimuli separated by a delay, in modality 2."),
    ("ctxdlydm1", "decision", "CtxDlyDM1", {**_DM, "tags": (*_DLY_TAGS, "context dependent")},
     "Compare two delayed stimuli in modality 1, ignoring modality 2."),
    ("ctxdlydm2", "decision", "CtxDlyDM2", {**_DM, "tags": (*_DLY_TAGS, "context dependent")},
     "Compare two delayed stimuli in modality 2, ignoring modality 1."),
    ("multidlydm", "decision", "MultiDlyDM", {**_DM, "tags": _DLY_TAGS},
     "Compare two delayed stimuli over both modalities together."),
    ("dms", "match", "DMS", _MATCH, "Saccade to a test that matches the sample; else fixate."),
    ("dnms", "match", "DNMS", _MATCH, "Saccade to a test that differs from the sample."),
    ("dmc", "match", "DMC", _MATCH, "Saccade to a test in the sample's category."),
    ("dnmc", "match", "DNMC", _MATCH, "Saccade to a test outside the sample's category."),
)  # fmt: skip

#: The 20 task ids of Yang et al. 2019, in upstream's order.
YANG19_IDS: tuple[str, ...] = tuple(f"neurogym/yang19.{row[0]}-v0" for row in _ROWS)


def _spec(name: str, module: str, cls: str, fields: Mapping[str, object], text: str) -> TaskSpec:
    entry = f"{_TASKS}.{module}:{cls}"
    return TaskSpec(f"neurogym/yang19.{name}-v0", entry, description=text, **fields)  # type: ignore[arg-type]


TASK_SPECS: tuple[TaskSpec, ...] = (
    *(_spec(*row) for row in _ROWS),
    TaskSpec(
        "neurogym/yang19.all-v0",
        "neurogym_multitask.collection:yang19_all",
        tags=("perceptual", "working memory", "supervised", "multitask"),
        paper_name=YANG19_PAPER,
        paper_link=YANG19_LINK,
        description="All 20 tasks, one per trial, with a one-hot rule input naming the task.",
    ),
)


@hookimpl
def neurogym_tasks() -> list[TaskSpec]:
    """Declare the multitask tasks."""
    return list(TASK_SPECS)
