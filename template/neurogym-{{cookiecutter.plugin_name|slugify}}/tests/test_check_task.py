"""Every task of this plugin is discovered, passes neurogym's conformance kit and is makeable.

Its documentation is written too: no TODO is left in its spec, and the README's task table is
generated from the specs.
"""

from __future__ import annotations

from pathlib import Path

import gymnasium
import neurogym
import pytest
from neurogym.testing import check_task
from neurogym.testing.readme import check_readme_table

PLUGIN = "{{ cookiecutter.plugin_name }}"  # the entry-point name in pyproject.toml
TASK_IDS = [spec.id for spec in neurogym.tasks(plugin=PLUGIN)]
README = Path(__file__).resolve().parents[1] / "README.md"
SPECS = "src/{{ cookiecutter.__package }}/_plugin.py"  # where TASK_SPECS is written


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


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_task_documentation_is_written(task_id):
    spec = neurogym.spec(task_id)
    todo = [key for key, value in spec.metadata.items() if "TODO" in str(value)]
    assert not todo, (
        f"the TaskSpec of {task_id} in {SPECS} still says TODO in {', '.join(todo)}: write "
        "the task's paper (title and link) and a one-line description there, then update the "
        f"README: python -m neurogym.testing.readme {PLUGIN} README.md"
    )


def test_readme_task_table_is_current():
    check_readme_table(PLUGIN, README)
