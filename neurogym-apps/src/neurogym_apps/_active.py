"""The task whose trial is current, behind wrappers and task sets (plots and scripted agents)."""

from __future__ import annotations

from typing import Any

from neurogym.wrappers import MultiEnvs, iter_chain

__all__ = ["active_task"]


def active_task(env: Any) -> Any:
    """The task serving the current trial: through wrappers, and a task set's active env.

    ``env.unwrapped`` is not it for a task set (``TaskSet``, ``ScheduleEnvs``, ``MultiEnvs``):
    there it is the set's first task, whose ``gt_now`` says nothing about the current trial.
    """
    for link in iter_chain(env):
        if isinstance(link, MultiEnvs):  # ScheduleEnvs and TaskSet too
            return active_task(link.active_env)
    return env.unwrapped
