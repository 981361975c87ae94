"""Registration of neurogym's task ids with gymnasium.

Every id gets the same gymnasium entry point, :func:`make_from_registry`, with
``kwargs={"task_id": id}`` (and ``vector_entry_point`` :func:`neurogym.vector.make_vector_env`
for ``gymnasium.make_vec``), so ``gymnasium.make(id)`` builds through ``neurogym.make`` and
gymnasium imports no task module until an env is made. ``gymnasium.make("neurogym:<id>")``
works in a fresh process (for example a spawned vector-env worker), because importing neurogym
registers the ids.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import gymnasium
from gymnasium.envs.registration import register
from gymnasium.envs.registration import registry as gymnasium_registry

from neurogym._deprecation import deprecated
from neurogym._registry.api import get_registry
from neurogym._registry.firstparty import FIRST_PARTY, FIRST_PARTY_NAMESPACE
from neurogym.errors import NeurogymPluginWarning

if TYPE_CHECKING:
    from neurogym._registry.registry import Registry

__all__ = [
    "GYMNASIUM_ENTRY_POINT",
    "make_from_registry",
    "make_legacy_id",
    "register_with_gymnasium",
]

GYMNASIUM_ENTRY_POINT = "neurogym._gym:make_from_registry"  # frozen (architecture §10)
# gymnasium.make_vec(id, num_envs=N): native TrialVectorEnv or a SyncVectorEnv loop (vector.py).
VECTOR_ENTRY_POINT = "neurogym.vector:make_vector_env"
# 2.3.1's un-namespaced ids ("GoNogo-v0"): a warned alias of the namespaced id.
LEGACY_ENTRY_POINT = "neurogym._registry.gym:make_legacy_id"


def _is_ours(task_id: str) -> bool:
    existing = gymnasium_registry[task_id]
    return existing.entry_point == GYMNASIUM_ENTRY_POINT and existing.kwargs == {
        "task_id": task_id
    }


def register_with_gymnasium(registry: Registry | None = None) -> None:
    """Register every task id of ``registry`` with gymnasium; safe to call again.

    Ids gymnasium already maps to :func:`make_from_registry` are skipped. An id gymnasium maps
    to something else is left alone, with a warning. Contested ids (declared by two
    distributions) are registered too, so ``gymnasium.make`` reports the conflict, and so are
    the ids of first-party tasks whose family is not installed, so ``gymnasium.make`` and
    ``gymnasium.make_vec`` say which package to install (``neurogym.tasks()`` and ``neurogym
    list`` do not list them).

    ``gymnasium.make`` always builds through the default registry, so pass a registry other
    than :func:`~neurogym.get_registry` only if it has the same ids.

    Args:
        registry: The registry whose ids to register; the default registry if None.
    """
    registry = get_registry() if registry is None else registry
    known = {spec.id for spec in registry.tasks()} | registry.conflicts.keys()
    missing = {
        f"{FIRST_PARTY_NAMESPACE}/{name}-v0" for row in FIRST_PARTY for name in row.tasks
    } - set(known)  # building them raises neurogym's "not installed: pip install ..." error
    task_ids = sorted(known | missing)
    for task_id in task_ids:
        if task_id in gymnasium_registry:
            if not _is_ours(task_id):
                warnings.warn(
                    f"gymnasium already registers {task_id!r} with entry point "
                    f"{gymnasium_registry[task_id].entry_point!r}; neurogym leaves it, so "
                    f"build the neurogym task with neurogym.make({task_id!r})",
                    NeurogymPluginWarning,
                    stacklevel=2,
                )
            continue
        register(
            id=task_id,
            entry_point=GYMNASIUM_ENTRY_POINT,
            vector_entry_point=VECTOR_ENTRY_POINT,
            kwargs={"task_id": task_id},
            order_enforce=True,
        )
    _register_legacy_ids(set(task_ids))


def _register_legacy_ids(task_ids: set[str]) -> None:
    """Registers NeuroGym 2.3.1's un-namespaced ids (``"GoNogo-v0"``) as warned aliases.

    2.3.1 code calls ``gymnasium.make("GoNogo-v0")`` after ``import neurogym``; the alias
    builds ``neurogym/GoNogo-v0`` with a DeprecationWarning naming it. An id gymnasium already
    has is left alone (2.3.1's ``register`` skipped existing ids too).
    """
    from neurogym._registry.upstream import registered_ids

    for legacy_id, task_id in registered_ids().items():
        if task_id in task_ids and legacy_id not in gymnasium_registry:
            register(
                id=legacy_id,
                entry_point=LEGACY_ENTRY_POINT,
                kwargs={"task_id": task_id, "legacy_id": legacy_id},
                order_enforce=True,
            )


def make_from_registry(
    task_id: str,
    **kwargs: Any,
) -> gymnasium.Env[Any, Any]:
    """Build a task for ``gymnasium.make``; the gymnasium entry point of every neurogym id.

    Args:
        task_id: The neurogym task id (from the registered gymnasium kwargs).
        **kwargs: Arguments of ``gymnasium.make``, passed on to ``neurogym.make``
            (``trials_per_episode=``, ``wrappers=`` and the task's constructor arguments);
            ``render_mode=None`` is dropped, since neurogym tasks do not render.

    Returns:
        The env built by the default registry.
    """
    if "render_mode" in kwargs and kwargs["render_mode"] is None:
        del kwargs["render_mode"]
    return get_registry().make(task_id, **kwargs)


def make_legacy_id(task_id: str, legacy_id: str, **kwargs: Any) -> gymnasium.Env[Any, Any]:
    """Gymnasium's entry point of 2.3.1's un-namespaced ids: warns, then builds ``task_id``."""
    deprecated(f"the id {legacy_id!r}", f"{task_id!r}", stacklevel=4)
    return make_from_registry(task_id, **kwargs)
