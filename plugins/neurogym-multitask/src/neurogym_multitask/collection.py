"""``neurogym/yang19.all-v0``: the 20 tasks of Yang et al. 2019 in one env, with rule inputs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neurogym.wrappers import TaskSet
from neurogym_multitask._plugin import YANG19_IDS

__all__ = ["YANG19_NAMES", "yang19_all"]

#: The task names of the rule input, in order (``go`` is rule dim 0).
YANG19_NAMES: tuple[str, ...] = tuple(
    i.split("yang19.")[1].removesuffix("-v0") for i in YANG19_IDS
)


def yang19_all(p: Sequence[float] | None = None, **kwargs: Any) -> TaskSet:
    """All 20 Yang et al. 2019 tasks, one per trial, with a one-hot rule input.

    The observation is the tasks' 33 dims followed by 20 ``rule`` dims (in
    :data:`YANG19_NAMES` order); every trial dict's ``"task"`` names its task.

    Args:
        p: Probability of each task per trial, in :data:`YANG19_NAMES` order (None: uniform).
        **kwargs: Constructor arguments given to every task (e.g. ``dt``, ``dim_ring``).

    Returns:
        A :class:`neurogym.wrappers.TaskSet`.
    """
    return TaskSet.from_ids(YANG19_IDS, names=YANG19_NAMES, p=p, **kwargs)
