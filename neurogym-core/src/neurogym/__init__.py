"""neurogym: cognitive-neuroscience tasks for training neural networks, on gymnasium.

Tasks come from plugins (``pip install neurogym-perceptual``, ...). ``import neurogym`` loads
each installed plugin's small hook module (no task code) and registers every task id with
gymnasium, so both ``neurogym.make("neurogym/PerceptualDecisionMaking-v0")`` and
``gymnasium.make(...)`` work.
"""

from __future__ import annotations

from typing import Any

from neurogym import spaces, timing
from neurogym._api import build_registry, get_registry, make, spec, tags, tasks, wrappers
from neurogym._builder import BatchBuilder, InvalidOperationError, TrialBatch
from neurogym._env import OBNOW, EmptyPeriodWarning, TrialEnv
from neurogym._registry import Registry
from neurogym._specs import TaskSpec, WrapperSpec
from neurogym.errors import (
    AmbiguousTaskError,
    DuplicateTaskError,
    NeurogymPluginWarning,
    UnknownTaskError,
    UnknownWrapperError,
)
from neurogym.hookspecs import hookimpl
from neurogym.rules import StandardDecision
from neurogym.timing import TruncExp

__all__ = [
    "OBNOW",
    "AmbiguousTaskError",
    "BatchBuilder",
    "DuplicateTaskError",
    "EmptyPeriodWarning",
    "InvalidOperationError",
    "NeurogymPluginWarning",
    "Registry",
    "StandardDecision",
    "TaskSpec",
    "TrialBatch",
    "TrialEnv",
    "TruncExp",
    "UnknownTaskError",
    "UnknownWrapperError",
    "WrapperSpec",
    "__version__",
    "build_registry",
    "get_registry",
    "hookimpl",
    "make",
    "spaces",
    "spec",
    "tags",
    "tasks",
    "timing",
    "wrappers",
]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import version

        return version("neurogym-core")
    raise AttributeError(f"module 'neurogym' has no attribute {name!r}")


def _register() -> None:
    # Last, so plugin hook modules can `from neurogym import TaskSpec, hookimpl`.
    from neurogym._gym import register_with_gymnasium

    register_with_gymnasium()


_register()
