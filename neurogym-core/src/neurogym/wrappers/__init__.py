"""neurogym's wrappers (documented with examples in ``docs/wrappers.md``).

Step-level wrappers (plain ``gymnasium.Wrapper``):

* :class:`PassAction`, :class:`PassReward`: append the last action / reward to the
  observation (named dims ``action`` / ``reward``).
* :class:`Noise`: Gaussian observation noise, fixed or adapted to a target performance.
* :class:`ReactionTime`: respond at any time after stimulus onset.
* :class:`Monitor`: per-trial logs, optional ``.npz`` files, ``evaluate_policy``.

Trial wrappers (:class:`TrialWrapper`): :class:`SideBias`, :class:`RandomGroundTruth`,
:class:`ScheduleAttr`, :class:`TrialHistoryV2`, :class:`ScheduleEnvs`, :class:`MultiEnvs`,
:class:`TaskSet` (several tasks with a rule input; mixed batches). A
trial wrapper passes a value down only to have it recorded in the trial dict by wrapping it in
:class:`RecordOnly`; any other forced kwarg a batch-native task neither reads nor records
raises.

Schedules: :class:`RandomSchedule`, :class:`SequentialSchedule`, :class:`RandomBlockSchedule`,
:class:`SequentialBlockSchedule` (and :class:`TruncExp` / :func:`trunc_exp`, re-exported from
:mod:`neurogym.timing`).

:func:`iter_chain` walks a wrapper chain from the outermost link to the innermost env.

``neurogym.wrapper_specs()`` lists the registered wrapper specs (every name
``neurogym.make(id, wrappers=[...])`` accepts, core's and the plugins').
"""

from __future__ import annotations

from typing import Any

from neurogym._env.chain import iter_chain
from neurogym._trials.variables import RecordOnly
from neurogym.wrappers._base import TrialWrapper
from neurogym.wrappers.monitor import Monitor
from neurogym.wrappers.multi import MultiEnvs, ScheduleEnvs
from neurogym.wrappers.schedule import (
    BaseSchedule,
    RandomBlockSchedule,
    RandomSchedule,
    SequentialBlockSchedule,
    SequentialSchedule,
    TruncExp,
    trunc_exp,
)
from neurogym.wrappers.step import Noise, PassAction, PassReward, ReactionTime
from neurogym.wrappers.taskset import TaskSet
from neurogym.wrappers.trial import RandomGroundTruth, ScheduleAttr, SideBias, TrialHistoryV2

__all__ = [
    "BaseSchedule",
    "Monitor",
    "MultiEnvs",
    "Noise",
    "PassAction",
    "PassReward",
    "RandomBlockSchedule",
    "RandomGroundTruth",
    "RandomSchedule",
    "ReactionTime",
    "RecordOnly",
    "ScheduleAttr",
    "ScheduleEnvs",
    "SequentialBlockSchedule",
    "SequentialSchedule",
    "SideBias",
    "TaskSet",
    "TrialHistoryV2",
    "TrialWrapper",
    "TruncExp",
    "iter_chain",
    "trunc_exp",
]


def __getattr__(name: str) -> Any:
    """NeuroGym 2.3.1's ``ALL_WRAPPERS``, ``all_wrappers`` and module paths, warned."""
    import importlib

    legacy = importlib.import_module("neurogym._legacy")
    return legacy.legacy_module(__name__, depth=1)[0](name)
