"""neurogym-perceptual's hook module: declares its tasks without importing any task code."""

from __future__ import annotations

from neurogym import TaskSpec, hookimpl

__all__ = ["neurogym_tasks"]

_TASKS = "neurogym_perceptual.tasks"


def _collection(name: str, factory: str, **fields: object) -> TaskSpec:
    module = "neurogym_perceptual.collections.perceptualdecisionmaking"
    task_id = f"neurogym/perceptualdecisionmaking.{name}-v0"
    return TaskSpec(task_id, f"{module}:{factory}", **fields)  # type: ignore[arg-type]


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
    ),
    _spec(
        "PerceptualDecisionMakingDelayResponse",
        "perceptualdecisionmaking",
        tags=("perceptual", "delayed response", "two-alternative", "supervised"),
        paper_name=(
            "Discrete attractor dynamics underlies persistent activity in the frontal cortex"
        ),
        paper_link="https://www.nature.com/articles/s41586-019-0919-7",
        description="Two noisy channels, then a variable delay; report the stronger channel.",
    ),
    _spec(
        "PulseDecisionMaking",
        "perceptualdecisionmaking",
        tags=("perceptual", "two-alternative", "supervised"),
        paper_name=(
            "Sources of noise during accumulation of evidence in unrestrained and voluntarily "
            "head-restrained rats"
        ),
        paper_link="https://elifesciences.org/articles/11308",
        description="Count brief pulses on two channels; report the one that pulsed more often.",
    ),
    _spec(
        "ContextDecisionMaking",
        "contextdecisionmaking",
        tags=("perceptual", "context dependent", "two-alternative", "supervised"),
        paper_name="Context-dependent computation by recurrent dynamics in prefrontal cortex",
        paper_link="https://www.nature.com/articles/nature12742",
        description="Two ring stimuli in two modalities; report the one the context selects.",
    ),
    _spec(
        "MultiSensoryIntegration",
        "multisensory",
        tags=("perceptual", "two-alternative", "supervised"),
        paper_name="Multisensory decision-making in rats and humans",
        paper_link="https://www.jneurosci.org/content/32/11/3726",
        description="One direction in two modalities that share the coherence; integrate both.",
    ),
    _spec(
        "AntiReach",
        "antireach",
        tags=("perceptual", "steps action space"),
        paper_name="Look away: the anti-saccade task and the voluntary control of eye movement",
        paper_link="https://www.nature.com/articles/nrn1345",
        description="Respond opposite to (anti) or at (pro) a stimulus on a ring.",
    ),
    _spec(
        "SpatialSuppressMotion",
        "spatialsuppressmotion",
        tags=("perceptual", "plaid", "motion", "center-surround"),
        paper_name=(
            "Perceptual consequences of centre-surround antagonism in visual motion processing"
        ),
        paper_link="https://www.nature.com/articles/nature01800",
        description=(
            "Report motion direction; the gt follows human centre-surround suppression data."
        ),
    ),
    _spec(
        "ToneDetection",
        "tonedetection",
        tags=("auditory", "perceptual", "supervised", "decision"),
        paper_name=(
            "Representation of Tones in Noise in the Responses of Auditory Nerve Fibers in Cats"
        ),
        paper_link="https://www.jneurosci.org/content/jneuro/5/12/3261.full.pdf",
        description="Report whether, and at which of three times, a brief tone occurred in noise.",
    ),
    _spec(
        "AnnubesEnv",
        "annubes",
        tags=("n-alternative", "perceptual", "supervised"),
        paper_name=(
            "Training Artificial Neural Networks to Uncover Behavioral Strategies in neuroscience"
        ),
        paper_link="https://research-software-directory.org/projects/annubes",
        description="Respond during a (multi)modal stimulus, withhold on catch trials (ANNUBeS).",
    ),
    _spec(
        "PostDecisionWager",
        "postdecisionwager",
        tags=("perceptual", "delayed response", "confidence"),
        paper_name=(
            "Representation of Confidence Associated with a Decision by Neurons in the "
            "Parietal Cortex"
        ),
        paper_link="https://science.sciencemag.org/content/324/5928/759.long",
        description="Perceptual choice, or on wager trials a sure target that pays less.",
    ),
    _spec(
        "ProbabilisticReasoning",
        "probabilisticreasoning",
        tags=("perceptual", "two-alternative", "supervised"),
        paper_name="Probabilistic reasoning by neurons",
        paper_link="https://www.nature.com/articles/nature05852",
        description="Shapes shown one by one carry log-odds evidence; report the favoured side.",
    ),
    _spec(
        "HierarchicalReasoning",
        "hierarchicalreasoning",
        tags=("perceptual", "two-alternative", "supervised"),
        paper_name="Hierarchical reasoning by neural circuits in the frontal cortex",
        paper_link="https://science.sciencemag.org/content/364/6441/eaav8911",
        description=(
            "Judge a delay short or long under a rule that switches in unannounced blocks."
        ),
    ),
    _spec(
        "Detection",
        "detection",
        tags=("perceptual", "reaction time", "go-no-go", "supervised"),
        paper_name="NeuroGym: An open resource for developing and sharing neuroscience tasks",
        paper_link="https://doi.org/10.31234/osf.io/aqc9n",
        description="Go as soon as a brief pulse appears in a noisy input; withhold on no-go.",
    ),
    _collection(
        "roitman02",
        "roitman02",
        tags=("perceptual", "reaction time", "two-alternative", "supervised"),
        paper_name=(
            "Response of neurons in the lateral intraparietal area during a combined visual "
            "discrimination reaction time task"
        ),
        paper_link="https://www.jneurosci.org/content/22/21/9475",
        description="PerceptualDecisionMaking as a reaction-time task (ReactionTime wrapper).",
    ),
    _collection(
        "ibl20",
        "ibl20",
        tags=("perceptual", "two-alternative", "supervised"),
        paper_name="Standardized and reproducible measurement of decision-making in mice",
        paper_link="https://elifesciences.org/articles/63711",
        description="PerceptualDecisionMaking with block-wise biased priors (0.8/0.2, 90 trials).",
    ),
)


@hookimpl
def neurogym_tasks() -> list[TaskSpec]:
    """Declare the perceptual tasks."""
    return list(TASK_SPECS)
