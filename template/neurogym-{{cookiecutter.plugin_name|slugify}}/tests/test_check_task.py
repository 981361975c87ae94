"""Every task of this plugin is discovered, passes neurogym's conformance kit and is makeable."""

from __future__ import annotations

import gymnasium
import neurogym
import pytest
from neurogym.testing import check_task

PLUGIN = "{{ cookiecutter.plugin_name }}"  # the entry-point name in pyproject.toml
TASK_IDS = [spec.id for spec in neurogym.tasks(plugin=PLUGIN)]


def test_the_plugin_is_discovered():
    assert TASK_IDS, (
        f"neurogym lists no task of plugin {PLUGIN!r}: install the plugin (pip install -e .) "
        "and check that importing {{ cookiecutter.__package }}._plugin works"
    )


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_task_passes_check_task(task_id):
    check_task(task_id)


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_gymnasium_make_builds_the_task(task_id):
    env = gymnasium.make(task_id)
    observation, _ = env.reset(seed=0)
    assert env.observation_space.contains(observation)
