"""neurogym-workingmemory's hook module: declares its tasks without importing any task code.

Each TaskSpec is the one place a task's paper, tags and description are written.
"""

from __future__ import annotations

from neurogym import TaskSpec, hookimpl

__all__ = ["TASK_SPECS", "neurogym_tasks"]

_TASKS = "neurogym_workingmemory.tasks"


def _spec(name: str, module: str, **fields: object) -> TaskSpec:
    return TaskSpec(f"neurogym/{name}-v0", f"{_TASKS}.{module}:{name}", **fields)  # type: ignore[arg-type]


# One _spec(...) per task, sorted by name.
TASK_SPECS: tuple[TaskSpec, ...] = (
    _spec(
        "AngleReproduction",
        "anglereproduction",
        tags=("perceptual", "working memory", "delayed response", "steps action space"),
        paper_name=(
            "Visual perception as retrospective Bayesian decoding from high- to low-level features"
        ),
        paper_link="https://www.pnas.org/content/114/43/E9115.short",
        description="Remember two angles; steer a pointer to each in turn (from contrib).",
    ),
    _spec(
        "CVLearning",
        "cvlearning",
        tags=("perceptual", "delayed response", "two-alternative", "curriculum", "supervised"),
        paper_name=(
            "Discrete attractor dynamics underlies persistent activity in the frontal cortex"
        ),
        paper_link="https://www.nature.com/articles/s41586-019-0919-7",
        description=(
            "Delayed two-alternative response taught by a curriculum that follows the agent "
            "(from contrib)."
        ),
    ),
    _spec(
        "DelayComparison",
        "delaycomparison",
        tags=("perceptual", "working memory", "two-alternative", "supervised"),
        paper_name="Neuronal correlates of parametric working memory in the prefrontal cortex",
        paper_link="https://www.nature.com/articles/20939",
        description="Two frequencies separated by a delay; report whether the first was higher.",
    ),
    _spec(
        "DelayMatchCategory",
        "delaymatchcategory",
        tags=("perceptual", "working memory", "two-alternative", "supervised"),
        paper_name=("Experience-dependent representation of visual categories in parietal cortex"),
        paper_link="https://www.nature.com/articles/nature05078",
        description="Report whether a test direction is in the same category as the sample.",
    ),
    _spec(
        "DelayMatchSample",
        "delaymatchsample",
        tags=("perceptual", "working memory", "two-alternative", "supervised"),
        paper_name=(
            "Neural Mechanisms of Visual Working Memory in Prefrontal Cortex of the Macaque"
        ),
        paper_link="https://www.jneurosci.org/content/jneuro/16/16/5154.full.pdf",
        description="Report whether a test stimulus, shown after a delay, matches the sample.",
    ),
    _spec(
        "DelayMatchSampleDistractor1D",
        "delaymatchsample",
        tags=("perceptual", "working memory", "go-no-go", "supervised"),
        paper_name=(
            "Neural Mechanisms of Visual Working Memory in Prefrontal Cortex of the Macaque"
        ),
        paper_link="https://www.jneurosci.org/content/jneuro/16/16/5154.full.pdf",
        description="A sample, then three tests; respond only to the test that matches it.",
    ),
    _spec(
        "DelayPairedAssociation",
        "delaypairedassociation",
        tags=("perceptual", "working memory", "go-no-go", "supervised"),
        paper_name="Neural organization for the long-term memory of paired associates",
        paper_link="https://www.nature.com/articles/354152a0",
        description="Two stimuli in sequence; go if they form an associated pair.",
    ),
    _spec(
        "DualDelayMatchSample",
        "dualdelaymatchsample",
        tags=("perceptual", "working memory", "two-alternative", "supervised"),
        paper_name=(
            "Neural evidence for a distinction between short-term memory and the focus of "
            "attention"
        ),
        paper_link="https://direct.mit.edu/jocn/article/24/1/61/5322",
        description="Two samples held at once; a cue picks which one each test is compared to.",
    ),
    _spec(
        "IntervalDiscrimination",
        "intervaldiscrimination",
        tags=("timing", "working memory", "delayed response", "two-alternative", "supervised"),
        paper_name=("Feature- and Order-Based Timing Representations in the Frontal Cortex"),
        paper_link="https://www.sciencedirect.com/science/article/pii/S0896627309004887",
        description="Two stimuli of random duration; report which one lasted longer.",
    ),
    _spec(
        "MemoryRecall",
        "memoryrecall",
        tags=("working memory", "continuous action space", "supervised"),
        paper_name="Generic memory recall (NeuroGym contrib task)",
        paper_link="https://github.com/neurogym/neurogym",
        description="Store flagged binary patterns; complete them from degraded cues.",
    ),
    _spec(
        "ReachingDelayResponse",
        "reachingdelayresponse",
        tags=(
            "perceptual",
            "delayed response",
            "continuous action space",
            "multidimensional action space",
            "supervised",
        ),
        paper_name=(
            "Mnemonic coding of visual space in the monkey's dorsolateral prefrontal cortex"
        ),
        paper_link="https://journals.physiology.org/doi/abs/10.1152/jn.1989.61.2.331",
        description="Remember a target position over a delay; reach to it (continuous action).",
    ),
)


@hookimpl
def neurogym_tasks() -> list[TaskSpec]:
    """Declare the working-memory tasks."""
    return list(TASK_SPECS)
