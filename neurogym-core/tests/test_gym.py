"""Registration with gymnasium, in this process and in fresh (spawned) processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import gymnasium
import pytest
from gymnasium.envs.registration import registry as gymnasium_registry

from neurogym._registry.api import build_registry, get_registry
from neurogym._registry.gym import (
    GYMNASIUM_ENTRY_POINT,
    make_from_registry,
    register_with_gymnasium,
)
from neurogym.errors import DuplicateTaskError, NeurogymPluginWarning

# Imported by spawned workers, so it must live in a real module (not in `python -c`).
SPAWN_HELPER = """
import gymnasium


def build(task_id):
    return type(gymnasium.make(task_id).unwrapped).__name__
"""


@pytest.fixture
def gym_ids():
    """Restore gymnasium's global registry after the test."""
    saved = dict(gymnasium_registry)
    yield
    gymnasium_registry.clear()
    gymnasium_registry.update(saved)


@pytest.fixture
def fake_default(installed_fake_plugin, good_plugin, fake_tasks_file, gym_ids):
    """Install the good fake plugin and rebuild the default registry around the test."""
    site = installed_fake_plugin(
        "fake-good", good_plugin, files={**fake_tasks_file, "spawn_helper.py": SPAWN_HELPER}
    )
    get_registry.cache_clear()
    yield site
    get_registry.cache_clear()


def run_python(code, site):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path])}
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_register_with_gymnasium_is_idempotent(fake_default):
    register_with_gymnasium()
    spec = gymnasium_registry["fake/Tiny-v0"]
    assert spec.entry_point == GYMNASIUM_ENTRY_POINT
    assert spec.kwargs == {"task_id": "fake/Tiny-v0"}
    assert spec.max_episode_steps is None
    assert spec.order_enforce
    assert "neurogym/Null-v0" in gymnasium_registry
    register_with_gymnasium()  # no warning, no error (warnings are errors here)
    assert gymnasium_registry["fake/Tiny-v0"] is spec


def test_gymnasium_make_builds_through_the_registry(fake_default):
    register_with_gymnasium()
    env = gymnasium.make("fake/Tiny-v0", size=4, trials_per_episode=3, wrappers=["Tiny"])
    assert type(env.unwrapped).__name__ == "TinyEnv"
    assert (env.unwrapped.size, env.unwrapped.trials_per_episode) == (4, 3)
    assert env.spec.id == "fake/Tiny-v0"
    limited = gymnasium.make("fake/Tiny-v0", max_episode_steps=5)
    assert isinstance(limited, gymnasium.wrappers.TimeLimit)


def test_foreign_registration_is_left_alone(fake_default):
    gymnasium.register("fake/Tiny-v0", entry_point="elsewhere:Env")
    with pytest.warns(NeurogymPluginWarning) as record:
        register_with_gymnasium()
    assert [str(w.message) for w in record] == [
        "gymnasium already registers 'fake/Tiny-v0' with entry point 'elsewhere:Env'; neurogym "
        "leaves it, so build the neurogym task with neurogym.make('fake/Tiny-v0')"
    ]
    assert gymnasium_registry["fake/Tiny-v0"].entry_point == "elsewhere:Env"


def test_contested_ids_are_registered_so_gymnasium_reports_the_conflict(
    installed_fake_plugin, declaring, gym_ids
):
    installed_fake_plugin("lab-one", declaring("lab/Dup-v0"), entry_point="one")
    installed_fake_plugin("lab-two", declaring("lab/Dup-v0"), entry_point="two")
    get_registry.cache_clear()
    try:
        with pytest.warns(NeurogymPluginWarning, match="'lab/Dup-v0' is declared by"):
            register_with_gymnasium()
        with pytest.raises(DuplicateTaskError, match="'lab-one' and 'lab-two'"):
            gymnasium.make("lab/Dup-v0")
    finally:
        get_registry.cache_clear()


def test_make_from_registry_drops_render_mode_none(fake_default):
    env = make_from_registry("fake/Tiny-v0", render_mode=None, size=2)
    assert env.size == 2
    with pytest.raises(TypeError, match="render_mode"):
        make_from_registry("fake/Tiny-v0", render_mode="human")


def test_listing_in_a_fresh_process_imports_no_task_module(fake_default):
    imported = run_python(
        """
        import json, sys
        import neurogym
        from neurogym._registry.api import get_registry
        registry = get_registry()
        listed = [spec.id for spec in registry.tasks()] + registry.tags()
        print(json.dumps([m for m in ("fake_tasks", "neurogym._env.null") if m in sys.modules]))
        """,
        fake_default,
    )
    assert imported == []


def test_spawned_vector_env_workers_build_through_the_registry(fake_default):
    result = run_python(
        """
        import json
        import gymnasium
        from neurogym._registry.gym import register_with_gymnasium
        register_with_gymnasium()
        envs = gymnasium.make_vec(
            "fake/Tiny-v0", num_envs=2, vectorization_mode="async",
            vector_kwargs={"context": "spawn"}, size=3,
        )
        obs, _ = envs.reset(seed=0)
        print(json.dumps([list(obs.shape), envs.get_attr("size")]))
        envs.close()
        """,
        fake_default,
    )
    assert result == [[2, 1], [3, 3]]


def test_gymnasium_make_in_a_spawned_process(fake_default):
    result = run_python(
        """
        import json
        import multiprocessing
        import spawn_helper

        ids = ["neurogym:fake/Tiny-v0", "neurogym:neurogym/Null-v0"]
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            print(json.dumps(pool.map(spawn_helper.build, ids)))
        """,
        fake_default,
    )
    assert result == ["TinyEnv", "Null"]


def test_fresh_registry_is_not_the_default(fake_default):
    assert build_registry() is not get_registry()


def test_dir_shows_the_curated_api_only():
    import neurogym

    names = dir(neurogym)
    assert not {"Any", "TYPE_CHECKING", "annotations"} & set(names)
    assert set(neurogym.__all__) <= set(names)


def test_new_trial_on_a_batch_native_task_explains_the_api():
    from data_tasks import VarTask

    with pytest.raises(NotImplementedError, match=r"VarTask is batch-native: it implements "):
        VarTask()._new_trial()


def test_gymnasium_names_the_package_of_a_first_party_task_that_is_not_loaded():
    # whether the family is missing or disabled, gymnasium.make and make_vec name it
    code = (
        "import gymnasium, neurogym, warnings\n"
        "warnings.simplefilter('ignore')\n"
        "for make in (gymnasium.make, lambda i: gymnasium.make_vec(i, num_envs=2)):\n"
        "    try:\n"
        "        make('neurogym/DelayMatchSample-v0')\n"
        "    except neurogym.UnknownTaskError as exc:\n"
        "        print(exc)\n"
        "print('DelayMatchSample' in {s.name for s in neurogym.tasks()})\n"
    )
    env = {**os.environ, "NEUROGYM_DISABLE_PLUGINS": "workingmemory"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout.splitlines()
    assert len(out) == 3
    for line in out[:2]:
        assert line.startswith("unknown task 'neurogym/DelayMatchSample-v0': it is provided by")
        assert "'neurogym-workingmemory'" in line
    assert out[2] == "False"  # not listed as a task
