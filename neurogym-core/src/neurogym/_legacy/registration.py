"""NeuroGym 2.3.1's registry functions (``all_envs``, ``get_collection``, ...) over today's.

2.3.1 listed its tasks by un-namespaced id (``"GoNogo-v0"``); these functions keep those ids
and answer from today's registry, so an id they return works with ``neurogym.make`` and
``gymnasium.make`` alike. Only the tasks of installed families are listed.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

import gymnasium

from neurogym._env.env import TrialEnv
from neurogym._registry.api import get_registry, make
from neurogym._registry.upstream import (
    CONTRIB_MODULES,
    PDM_COLLECTION,
    YANG19,
    registered_ids,
)

__all__ = [
    "ALL_COLLECTIONS_ENVS",
    "ALL_CONTRIB_ENVS",
    "ALL_ENVS",
    "ALL_EXTENDED_ENVS",
    "ALL_NATIVE_ENVS",
    "ALL_PSYCHOPY_ENVS",
    "ALL_WRAPPERS",
    "METADATA_DEF_KEYS",
    "EnvMeta",
    "all_envs",
    "all_tags",
    "all_wrappers",
    "collection_factory",
    "env_string",
    "get_collection",
    "register",
]

logger = logging.getLogger("neurogym")

#: 2.3.1's metadata keys (today they are the fields of ``neurogym.TaskSpec``).
METADATA_DEF_KEYS = ["description", "paper_name", "paper_link", "timing", "tags"]

#: 2.3.1's metaclass of TrialEnv; today there is none of neurogym's own.
EnvMeta = type(TrialEnv)

#: The wrapper names 2.3.1's ``ALL_WRAPPERS`` listed.
_WRAPPERS_231 = (
    "Monitor", "Noise", "PassAction", "PassReward", "RandomGroundTruth", "ReactionTime",
    "ScheduleAttr", "ScheduleEnvs", "SideBias", "TrialHistoryV2",
)  # fmt: skip


def _installed(legacy_to_new: dict[str, str]) -> dict[str, str]:
    """``legacy id -> entry point`` for the ids whose task is installed."""
    registry = get_registry()
    known = {spec.id: spec.entry_point for spec in registry.tasks()}
    return {old: known[new] for old, new in legacy_to_new.items() if new in known}


def _ids(names: list[str]) -> dict[str, str]:
    return {f"{name}-v0": f"neurogym/{name}-v0" for name in names}


_registered = registered_ids()
ALL_NATIVE_ENVS = _installed({k: v for k, v in _registered.items() if "." not in k})
ALL_COLLECTIONS_ENVS = _installed({k: v for k, v in _registered.items() if "." in k})
ALL_CONTRIB_ENVS = _installed(
    _ids([new for names in CONTRIB_MODULES.values() for new in names.values()])
)
ALL_PSYCHOPY_ENVS: dict[str, str] = {}  # neurogym 3.0 has no psychopy tasks
ALL_ENVS = {**ALL_NATIVE_ENVS, **ALL_PSYCHOPY_ENVS, **ALL_CONTRIB_ENVS}
ALL_EXTENDED_ENVS = {**ALL_ENVS, **ALL_COLLECTIONS_ENVS}
ALL_WRAPPERS = {
    f"{spec.name}-v0": spec.entry_point
    for spec in get_registry().wrappers()
    if spec.name in _WRAPPERS_231
}


def all_envs(
    tag: str | None = None,
    psychopy: bool = False,
    contrib: bool = False,
    collections: bool = False,
) -> list[str]:
    """2.3.1's task listing: sorted un-namespaced ids of the installed tasks.

    Args:
        tag: Keep the tasks with this tag (2.3.1 raised with ``collections=True``; not here).
        psychopy: Include psychopy tasks (there are none in neurogym 3.0).
        contrib: Include 2.3.1's contrib tasks (all of them run here).
        collections: Include the collection tasks (``yang19.*``, ``perceptualdecisionmaking.*``).

    Returns:
        The ids, sorted; ``neurogym.make`` and ``gymnasium.make`` accept each.

    Raises:
        TypeError: If ``tag`` is not a str, as in 2.3.1.
    """
    envs = dict(ALL_NATIVE_ENVS)
    if psychopy:
        envs |= ALL_PSYCHOPY_ENVS
    if contrib:
        envs |= ALL_CONTRIB_ENVS
    if collections:
        envs |= ALL_COLLECTIONS_ENVS
    if tag is None:
        return sorted(envs)
    if not isinstance(tag, str):
        raise TypeError(f"tag must be a str, got {type(tag).__name__} {tag!r}")
    registry = get_registry()
    tagged = sorted(env for env in envs if tag in registry.resolve(f"neurogym/{env}").tags)
    if not tagged:
        logger.warning("no task has the tag %r; all_tags() lists the tags", tag)
    return tagged


def all_tags() -> list[str]:
    """2.3.1's tag listing: the tags of the installed native tasks, sorted."""
    registry = get_registry()
    return sorted(
        {tag for env in ALL_NATIVE_ENVS for tag in registry.resolve(f"neurogym/{env}").tags}
    )


def get_collection(name: str) -> list[str]:
    """The ids of a 2.3.1 collection: ``"yang19"`` or ``"perceptualdecisionmaking"``.

    Raises:
        ValueError: For any other name (``"priors"`` never worked in 2.3.1).
    """
    if name == "":
        return []
    if name == "yang19":
        return [f"yang19.{task}-v0" for task in YANG19]
    if name == "perceptualdecisionmaking":
        return [f"perceptualdecisionmaking.{task}-v0" for task in sorted(PDM_COLLECTION)]
    raise ValueError(
        f"unknown collection {name!r}: the collections are 'yang19' and "
        "'perceptualdecisionmaking' (2.3.1's 'priors' referred to tasks and wrappers that "
        "did not exist, and is gone)"
    )


def register(id_: str, **kwargs: Any) -> None:
    """Registers ``id_`` with gymnasium unless it is already registered (2.3.1's rule)."""
    if id_ not in gymnasium.envs.registration.registry:
        gymnasium.register(id=id_, **kwargs)


def all_wrappers() -> list[str]:
    """2.3.1's wrapper ids (``"Monitor-v0"``, ...), sorted."""
    return sorted(ALL_WRAPPERS)


@functools.cache  # one function per id, so yang19.go is yang19.go
def collection_factory(task_id: str) -> Callable[..., gymnasium.Env[Any, Any]]:
    """2.3.1's collection function for ``task_id``: builds it with ``neurogym.make``."""

    def factory(**kwargs: Any) -> gymnasium.Env[Any, Any]:
        return make(task_id, **kwargs)

    factory.__name__ = factory.__qualname__ = task_id.partition("/")[2].split(".")[1][:-3]
    factory.__doc__ = (
        f"Builds {task_id} (2.3.1's collection function): neurogym.make({task_id!r}, **kwargs)."
    )
    return factory


def env_string(env: gymnasium.Env[Any, Any], short: bool = False) -> str:
    """2.3.1's description of an env: class, docstring, paper and rewards (as ``show_info``)."""
    task = env.unwrapped
    name = type(task).__name__
    if short:
        return f"<{name}>"
    metadata = getattr(task, "metadata", {}) or {}
    summary = (type(task).__doc__ or "").strip().split("\n\n")[0]
    doc = " ".join(summary.split())
    lines = [f"### {name}", f"Doc: {doc}", "Reference paper"]
    paper = metadata.get("paper_name") or "Missing paper name"
    link = metadata.get("paper_link")
    lines.append(f"[{paper}]({link})" if link else f"{paper}\nMissing paper link")
    rewards = getattr(task, "rewards", None)
    if isinstance(rewards, dict) and rewards:
        lines += ["", "Reward structure", *(f"{key} : {value}" for key, value in rewards.items())]
    timing = getattr(task, "timing", None)
    if isinstance(timing, dict) and timing:
        lines += ["", "Input parameters", *(f"{key} : {value}" for key, value in timing.items())]
    tags = metadata.get("tags") or []
    if tags:
        lines += ["", "Tags: " + ", ".join(str(tag) for tag in tags) + "."]
    return "\n".join(lines) + "\n"
