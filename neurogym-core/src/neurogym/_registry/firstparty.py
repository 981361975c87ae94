"""The first-party table: which distributions belong to the neurogym project, and what they ship.

This is the one place that says what "first-party" means (see docs/architecture.md, "Trust
model"). A distribution name prefix is not enough: anyone can publish ``neurogym-foo``. Each row
names a family's distribution, its entry-point name in the ``neurogym.plugins`` group and the
task names it provides (ids ``neurogym/<name>-v0``), including families that are planned but
not built yet, so that ``neurogym.make`` can say which distribution to install; the
applications' row names the ``neurogym`` subcommands it adds, for the same reason.

Every family issue keeps its row current. The plugin template's ``RESERVED_PLUGIN_NAMES`` (in
``template/hooks/pre_gen_project.py``, which must run without neurogym installed) repeats the
entry-point names; a test asserts the two agree.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata

__all__ = [
    "FIRST_PARTY",
    "FIRST_PARTY_NAMESPACE",
    "FamilyRow",
    "distribution_key",
    "first_party_distribution_of_plugin",
    "first_party_distributions",
    "first_party_plugin_names",
    "first_party_plugin_of",
    "is_first_party",
    "is_reserved_namespace",
    "providing_family",
]

#: The gymnasium namespace only first-party distributions may declare ids in.
FIRST_PARTY_NAMESPACE = "neurogym"


@dataclasses.dataclass(frozen=True)
class FamilyRow:
    """One first-party distribution.

    Attributes:
        distribution: The distribution (PyPI) name, e.g. ``"neurogym-perceptual"``.
        plugin: Its entry-point name in the ``neurogym.plugins`` group (``"core"`` for core,
            which registers itself without an entry point).
        tasks: Task names (ids ``neurogym/<name>-v0``) its current release provides.
        planned: Task names the family will provide but does not yet (named in hints).
        commands: ``(command, extra)`` pairs: the ``neurogym`` subcommands it adds, each with
            the extra of the ``neurogym`` distribution that installs it (named in hints).
    """

    distribution: str
    plugin: str
    tasks: tuple[str, ...]
    planned: tuple[str, ...] = ()
    commands: tuple[tuple[str, str], ...] = ()


_YANG19 = (
    "go",
    "anti",
    "rtgo",
    "rtanti",
    "dlygo",
    "dlyanti",
    "dm1",
    "dm2",
    "ctxdm1",
    "ctxdm2",
    "multidm",
    "dlydm1",
    "dlydm2",
    "ctxdlydm1",
    "ctxdlydm2",
    "multidlydm",
    "dms",
    "dnms",
    "dmc",
    "dnmc",
    "all",
)

FIRST_PARTY: tuple[FamilyRow, ...] = (
    FamilyRow("neurogym-core", "core", ("Null",)),
    FamilyRow(
        "neurogym-perceptual",
        "perceptual",
        (
            "PerceptualDecisionMaking",
            "PerceptualDecisionMakingDelayResponse",
            "PulseDecisionMaking",
            "ContextDecisionMaking",
            "MultiSensoryIntegration",
            "PostDecisionWager",
            "ProbabilisticReasoning",
            "HierarchicalReasoning",
            "SpatialSuppressMotion",
            "ToneDetection",
            "Detection",
            "AnnubesEnv",
            "AntiReach",
            "perceptualdecisionmaking.roitman02",
            "perceptualdecisionmaking.ibl20",
        ),
    ),
    FamilyRow(
        "neurogym-workingmemory",
        "workingmemory",
        (
            "AngleReproduction",
            "CVLearning",
            "DelayComparison",
            "DelayMatchCategory",
            "DelayMatchSample",
            "DelayMatchSampleDistractor1D",
            "DelayPairedAssociation",
            "DualDelayMatchSample",
            "IntervalDiscrimination",
            "MemoryRecall",
            "ReachingDelayResponse",
        ),
    ),
    FamilyRow(
        "neurogym-valuebased",
        "valuebased",
        (
            "EconomicDecisionMaking",
            "Bandit",
            "DawTwoStep",
            "MatchingPenny",
            "ChangingEnvironment",
            "IBL",
            "IBLBlock",
        ),
    ),
    FamilyRow(
        "neurogym-motor",
        "motor",
        (
            "Reaching1D",
            "Reaching1DWithSelfDistraction",
            "ReadySetGo",
            "MotorTiming",
            "OneTwoThreeGo",
            "GoNogo",
        ),
    ),
    FamilyRow("neurogym-multitask", "multitask", tuple(f"yang19.{name}" for name in _YANG19)),
    # The applications: no tasks, the commands that need torch, matplotlib or Ray.
    FamilyRow(
        "neurogym-apps",
        "apps",
        (),
        commands=(("train", "train"), ("plot", "plot"), ("sweep", "train")),
    ),
)


def is_reserved_namespace(namespace: str) -> bool:
    """Whether ``namespace`` spells the first-party one, ``neurogym``, in any variant.

    Case-folded after Unicode NFKC normalisation (full-width and other compatibility forms
    become ASCII letters), with ``-``, ``_`` and ``.`` removed: ``Neurogym``, ``NEURO-GYM``,
    ``neuro_gym`` and its full-width form are all reserved; ``neurogym2`` and ``myneurogym`` are
    not. The plugin template's ``pre_gen_project.py`` applies the same rule (a test keeps the
    two equal).
    """
    folded = unicodedata.normalize("NFKC", namespace).casefold()
    return re.sub(r"[-_.]", "", folded) == FIRST_PARTY_NAMESPACE


def distribution_key(name: str) -> str:
    """Normalize a distribution name as PEP 503 does (``Neurogym_Core`` -> ``neurogym-core``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


_BY_DISTRIBUTION = {row.distribution: row for row in FIRST_PARTY}
_BY_PLUGIN = {row.plugin: row for row in FIRST_PARTY}
_BY_TASK = {task.lower(): row for row in FIRST_PARTY for task in (*row.tasks, *row.planned)}


def first_party_distributions() -> tuple[str, ...]:
    """The first-party distribution names, core first."""
    return tuple(row.distribution for row in FIRST_PARTY)


def first_party_plugin_names() -> tuple[str, ...]:
    """The first-party entry-point (plugin) names, ``"core"`` first."""
    return tuple(row.plugin for row in FIRST_PARTY)


def is_first_party(distribution: str) -> bool:
    """Whether ``distribution`` (any spelling PEP 503 normalizes alike) is first-party."""
    return distribution_key(distribution) in _BY_DISTRIBUTION


def first_party_plugin_of(distribution: str) -> str | None:
    """The entry-point name a first-party distribution uses, or None if it is not first-party."""
    row = _BY_DISTRIBUTION.get(distribution_key(distribution))
    return row.plugin if row is not None else None


def first_party_distribution_of_plugin(plugin: str) -> str | None:
    """The first-party distribution that owns the plugin (entry-point) name, if any."""
    row = _BY_PLUGIN.get(plugin)
    return row.distribution if row is not None else None


def providing_family(name: str) -> FamilyRow | None:
    """The first-party row whose tasks include ``name`` (case-insensitive), if any."""
    return _BY_TASK.get(name.lower())
