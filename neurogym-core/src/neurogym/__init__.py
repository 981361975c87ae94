"""neurogym: cognitive-neuroscience tasks for training neural networks, on gymnasium.

Tasks come from plugins (``pip install neurogym-perceptual``, ...). ``import neurogym`` loads
each installed plugin's small hook module (no task code) and registers every task id with
gymnasium, so both ``neurogym.make("neurogym/PerceptualDecisionMaking-v0")`` and
``gymnasium.make(...)`` work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from neurogym import spaces, timing
from neurogym._env.env import OBNOW, EmptyPeriodWarning, TrialEnv
from neurogym._registry.api import (
    build_registry,
    get_registry,
    make,
    spec,
    tags,
    tasks,
    wrapper_specs,
)
from neurogym._registry.commands import CommandSpec
from neurogym._registry.registry import Registry
from neurogym._registry.specs import TaskSpec, WrapperSpec
from neurogym._trials.builder import BatchBuilder, InvalidOperationError, TrialBatch
from neurogym.errors import (
    AmbiguousTaskError,
    DuplicateTaskError,
    NeurogymPluginWarning,
    UnknownTaskError,
    UnknownWrapperError,
)
from neurogym.hookspecs import hookimpl
from neurogym.rules import GoNoGoDecision, LastStepReport, StandardDecision
from neurogym.timing import TruncExp

__all__ = [
    "OBNOW",
    "AmbiguousTaskError",
    "BatchBuilder",
    "CommandSpec",
    "Dataset",
    "DuplicateTaskError",
    "EmptyPeriodWarning",
    "GoNoGoDecision",
    "InvalidOperationError",
    "LastStepReport",
    "NeurogymPluginWarning",
    "Registry",
    "StandardDecision",
    "StreamBatch",
    "TaskSpec",
    "TrainingBatch",
    "TrialBatch",
    "TrialEnv",
    "TrialWrapper",
    "TruncExp",
    "UnknownTaskError",
    "UnknownWrapperError",
    "UnsupportedWrapperError",
    "WrapperSpec",
    "__version__",
    "batch",
    "build_registry",
    "data",
    "get_registry",
    "hookimpl",
    "make",
    "spaces",
    "spec",
    "tags",
    "tasks",
    "timing",
    "validate",
    "vector",
    "wrapper_specs",
    "wrappers",
]


# Imported on first use, so `import neurogym` stays cheap (docs/architecture.md §9).
if TYPE_CHECKING:
    from neurogym import validate, wrappers
    from neurogym.wrappers import TrialWrapper

# Imported on first use, so `import neurogym` stays light (wrappers pull in more modules).
_LAZY = {
    "TrialWrapper": "neurogym.wrappers",
    "wrappers": "neurogym.wrappers",
    "Dataset": "neurogym._data.stream",
    "StreamBatch": "neurogym._data.stream",
    "TrainingBatch": "neurogym.data",
    "UnsupportedWrapperError": "neurogym.data",
    "batch": "neurogym.data",
    "data": "neurogym.data",
    "validate": "neurogym.validate",
    "vector": "neurogym.vector",
}


def __dir__() -> list[str]:
    # The curated API (and the public submodules already imported), not the helpers this
    # module imports for itself (Any, TYPE_CHECKING, annotations).
    loaded = {name for name in globals() if not name.startswith("_") and name in _SUBMODULES}
    return sorted({*__all__, *loaded})


_SUBMODULES = frozenset({"errors", "hookspecs", "rules", "spaces", "testing", "timing"})


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import version

        return version("neurogym-core")
    if name in _LAZY:
        import importlib

        module = importlib.import_module(_LAZY[name])
        return module if module.__name__ == f"neurogym.{name}" else getattr(module, name)
    # NeuroGym 2.3.1's names (neurogym.utils, all_envs, ...): warned, on first use only.
    import importlib

    legacy = importlib.import_module("neurogym._legacy")
    return legacy.legacy_module(__name__, depth=1)[0](name)


def _register() -> None:
    # Last, so plugin hook modules can `from neurogym import TaskSpec, hookimpl`.
    from neurogym._registry.gym import register_with_gymnasium

    register_with_gymnasium()


_register()
