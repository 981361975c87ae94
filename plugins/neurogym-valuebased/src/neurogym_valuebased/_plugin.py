"""neurogym-valuebased's hook module: declares its tasks without importing any task code.

Each TaskSpec is the one place a task's paper, tags and description are written.
"""

from __future__ import annotations

from neurogym import TaskSpec, hookimpl

__all__ = ["TASK_SPECS", "neurogym_tasks"]

_TASKS = "neurogym_valuebased.tasks"
_IBL_PAPER = "An International Laboratory for Systems and Computational Neuroscience"
_IBL_LINK = "https://www.sciencedirect.com/science/article/pii/S0896627317311364"


def _spec(name: str, module: str, **fields: object) -> TaskSpec:
    return TaskSpec(f"neurogym/{name}-v0", f"{_TASKS}.{module}:{name}", **fields)  # type: ignore[arg-type]


# One _spec(...) per task, sorted by name.
TASK_SPECS: tuple[TaskSpec, ...] = (
    _spec(
        "Bandit",
        "bandit",
        tags=("n-alternative",),
        paper_name="Prefrontal cortex as a meta-reinforcement learning system",
        paper_link="https://www.nature.com/articles/s41593-018-0147-8",
        description="Each step, pull one of n arms; arm k pays with probability p[k].",
    ),
    _spec(
        "ChangingEnvironment",
        "changingenvironment",
        tags=("perceptual", "two-alternative", "supervised", "context dependent"),
        paper_name=(
            "Hierarchical decision processes that operate over distinct timescales underlie "
            "choice and changes in strategy"
        ),
        paper_link="https://www.pnas.org/content/113/31/E4531",
        description="Random dots whose response mapping follows a hidden, switching context.",
    ),
    _spec(
        "DawTwoStep",
        "dawtwostep",
        tags=("two-alternative",),
        paper_name="Model-Based Influences on Humans' Choices and Striatal Prediction Errors",
        paper_link="https://www.sciencedirect.com/science/article/pii/S0896627311001255",
        description="A first choice leads, by a common or rare transition, to a rewarded state.",
    ),
    _spec(
        "EconomicDecisionMaking",
        "economicdecisionmaking",
        tags=("perceptual", "value-based"),
        paper_name="Neurons in the orbitofrontal cortex encode economic value",
        paper_link="https://www.nature.com/articles/nature04676",
        description="Choose between two offers of different juices and amounts.",
    ),
    _spec(
        "IBL",
        "ibl",
        tags=("perceptual", "two-alternative", "supervised"),
        paper_name=_IBL_PAPER,
        paper_link=_IBL_LINK,
        description="One-step contrast discrimination with unbiased sides (from contrib).",
    ),
    _spec(
        "IBLBlock",
        "ibl",
        tags=("perceptual", "two-alternative", "supervised"),
        paper_name=_IBL_PAPER,
        paper_link=_IBL_LINK,
        description="One-step contrast discrimination in blocks with biased side priors.",
    ),
    _spec(
        "MatchingPenny",
        "matchingpenny",
        tags=("two-alternative",),
        paper_name="Prefrontal cortex and decision making in a mixed-strategy game",
        paper_link="https://www.nature.com/articles/nn1209",
        description="Match an opponent that plays against the agent's recent choices.",
    ),
)


@hookimpl
def neurogym_tasks() -> list[TaskSpec]:
    """Declare the value-based tasks."""
    return list(TASK_SPECS)
