"""The task ids and module paths NeuroGym 2.3.1 had, as facts.

``import neurogym`` reads :func:`registered_ids` to register 2.3.1's un-namespaced ids
(``"GoNogo-v0"``) with gymnasium beside today's (``"neurogym/GoNogo-v0"``), so
``gymnasium.make("GoNogo-v0")`` keeps working after ``import neurogym``, with a warning.
"""

from __future__ import annotations

__all__ = [
    "CONTRIB_MODULES",
    "NATIVE_MODULES",
    "NOT_REGISTERED",
    "PDM_COLLECTION",
    "YANG19",
    "registered_ids",
]

# 2.3.1's native task modules (neurogym/envs/native/<file>.py) and their classes.
NATIVE_MODULES: dict[str, tuple[str, ...]] = {
    "annubes": ("AnnubesEnv",),
    "antireach": ("AntiReach",),
    "bandit": ("Bandit",),
    "contextdecisionmaking": ("ContextDecisionMaking",),
    "dawtwostep": ("DawTwoStep",),
    "delaycomparison": ("DelayComparison",),
    "delaymatchcategory": ("DelayMatchCategory",),
    "delaymatchsample": ("DelayMatchSample", "DelayMatchSampleDistractor1D"),
    "delaypairedassociation": ("DelayPairedAssociation",),
    "detection": ("Detection",),
    "dualdelaymatchsample": ("DualDelayMatchSample",),
    "economicdecisionmaking": ("EconomicDecisionMaking",),
    "gonogo": ("GoNogo",),
    "hierarchicalreasoning": ("HierarchicalReasoning",),
    "intervaldiscrimination": ("IntervalDiscrimination",),
    "multisensory": ("MultiSensoryIntegration",),
    "null": ("Null",),
    "perceptualdecisionmaking": (
        "PerceptualDecisionMaking",
        "PerceptualDecisionMakingDelayResponse",
        "PulseDecisionMaking",
    ),
    "postdecisionwager": ("PostDecisionWager",),
    "probabilisticreasoning": ("ProbabilisticReasoning",),
    "reaching": ("Reaching1D", "Reaching1DWithSelfDistraction"),
    "reachingdelayresponse": ("ReachingDelayResponse",),
    "readysetgo": ("ReadySetGo", "MotorTiming", "OneTwoThreeGo"),
    "spatialsuppressmotion": ("SpatialSuppressMotion",),
    "tonedetection": ("ToneDetection",),
}

# 2.3.1's contrib modules that run here (upstream never registered them; most were broken).
# IBL_Block is IBLBlock now. leverpress and pneumostomeopening are gone (see REMOVED_MODULES).
CONTRIB_MODULES: dict[str, dict[str, str]] = {
    "anglereproduction": {"AngleReproduction": "AngleReproduction"},
    "changingenvironment": {"ChangingEnvironment": "ChangingEnvironment"},
    "cv_learning": {"CVLearning": "CVLearning"},
    "ibl": {"IBL": "IBL", "IBL_Block": "IBLBlock"},
    "matchingpenny": {"MatchingPenny": "MatchingPenny"},
    "memoryrecall": {"MemoryRecall": "MemoryRecall"},
}

#: The 20 tasks of Yang et al. 2019, in 2.3.1's order (``get_collection("yang19")``).
YANG19 = (
    "go", "rtgo", "dlygo", "anti", "rtanti", "dlyanti", "dm1", "dm2", "ctxdm1", "ctxdm2",
    "multidm", "dlydm1", "dlydm2", "ctxdlydm1", "ctxdlydm2", "multidlydm", "dms", "dnms", "dmc",
    "dnmc",
)  # fmt: skip

PDM_COLLECTION = ("ibl20", "roitman02")

#: Native classes 2.3.1 did not register (Detection had no ground truth on no-go trials).
NOT_REGISTERED = ("Detection",)


def registered_ids() -> dict[str, str]:
    """2.3.1's registered ids (``"GoNogo-v0"``) mapped to today's (``"neurogym/GoNogo-v0"``)."""
    natives = [
        name
        for classes in NATIVE_MODULES.values()
        for name in classes
        if name not in NOT_REGISTERED
    ]
    collections = [f"yang19.{name}" for name in YANG19]
    collections += [f"perceptualdecisionmaking.{name}" for name in PDM_COLLECTION]
    return {f"{name}-v0": f"neurogym/{name}-v0" for name in [*natives, *collections]}
