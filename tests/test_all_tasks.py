"""Every task of every installed plugin honours the task contract (conventions A8)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import gymnasium
import pytest

import neurogym
from neurogym.testing import check_task

ROOT = Path(__file__).resolve().parents[1]
ALL_SPECS = neurogym.tasks()
ALL_IDS = [spec.id for spec in ALL_SPECS]


def _plugin_entry_points() -> dict[str, str]:
    """Entry-point name -> distribution, for every package under plugins/."""
    found = {}
    for pyproject in sorted(ROOT.glob("plugins/*/pyproject.toml")):
        project = tomllib.loads(pyproject.read_text())["project"]
        for name in project.get("entry-points", {}).get("neurogym.plugins", {}):
            found[name] = project["name"]
    return found


def test_every_plugin_in_the_repo_contributes_tasks():
    plugins = _plugin_entry_points()
    assert plugins, "no plugin under plugins/ declares a neurogym.plugins entry point"
    listed = {spec.plugin for spec in ALL_SPECS}
    missing = sorted(set(plugins) - listed)
    assert not missing, f"plugins installed but contributing no task (failed to load?): {missing}"


@pytest.mark.parametrize("task_id", ALL_IDS)
def test_task_passes_check_task(task_id):
    check_task(task_id)


@pytest.mark.parametrize("task_id", ALL_IDS)
def test_gymnasium_make_builds_the_same_task(task_id):
    env = gymnasium.make(task_id)
    ours = neurogym.make(task_id)
    assert type(env.unwrapped) is type(ours.unwrapped)
    first, _ = env.reset(seed=4)
    again, _ = ours.reset(seed=4)
    assert (first == again).all()


@pytest.mark.parametrize("spec", ALL_SPECS, ids=ALL_IDS)
def test_spec_metadata_is_complete(spec):
    assert spec.tags, f"{spec.id} has no tags"
    assert spec.paper_name, f"{spec.id} has no paper name"
    assert spec.paper_link.startswith("http"), f"{spec.id} has no paper link"
    assert spec.description, f"{spec.id} has no description"
    assert len(set(spec.tags)) == len(spec.tags), f"{spec.id} repeats a tag: {spec.tags}"
    assert all(tag == tag.strip() and tag for tag in spec.tags), spec.tags
    for tag in spec.tags:  # the tag filter finds the task under each of its tags
        assert spec in neurogym.tasks(tag=tag), (spec.id, tag)
    made = neurogym.make(spec.id).unwrapped  # and the made env carries the spec's facts
    assert made.metadata["tags"] == list(spec.tags)
    assert made.metadata["paper_link"] == spec.paper_link
