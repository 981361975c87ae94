"""Shared fixtures for the registry and plugin tests: a tiny task module and fake plugins."""

from __future__ import annotations

import sys
import textwrap

import pytest

# Plain gymnasium envs, so these tests do not depend on TrialEnv.
TASKS_SOURCE = """
import gymnasium
import numpy as np
from gymnasium import spaces


class TinyEnv(gymnasium.Env):
    metadata = {"render_modes": []}

    def __init__(self, size=3, items=None):
        self.size = size
        self.items = items
        self.observation_space = spaces.Box(0.0, 1.0, (1,), np.float32)
        self.action_space = spaces.Discrete(2)
        self.max_episode_steps = None
        self.trials_per_episode = None

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return np.zeros(1, np.float32), {}

    def step(self, action):
        return np.zeros(1, np.float32), 0.0, False, False, {}


class PlainEnv(TinyEnv):
    def __init__(self):
        super().__init__()
        del self.max_episode_steps, self.trials_per_episode


class TinyWrapper(gymnasium.Wrapper):
    def __init__(self, env, scale=1):
        super().__init__(env)
        self.scale = scale


def not_an_env():
    return object()


NOT_CALLABLE = 3
"""

# A good plugin: one task (in module fake_tasks, which listing must not import) and a wrapper.
GOOD_PLUGIN = """
from neurogym._registry.specs import TaskSpec, WrapperSpec
from neurogym.hookspecs import hookimpl


@hookimpl
def neurogym_tasks():
    return [TaskSpec("fake/Tiny-v0", "fake_tasks:TinyEnv", tags=("toy",))]


@hookimpl
def neurogym_wrappers():
    return [WrapperSpec("Tiny", "fake_tasks:TinyWrapper")]
"""


def _declaring(*task_ids: str) -> str:
    """Source of a plugin module declaring ``task_ids``, all built by ``fake_tasks:TinyEnv``."""
    specs = ", ".join(f'TaskSpec("{task_id}", "fake_tasks:TinyEnv")' for task_id in task_ids)
    return textwrap.dedent(f"""
        from neurogym._registry.specs import TaskSpec
        from neurogym.hookspecs import hookimpl


        @hookimpl
        def neurogym_tasks():
            return [{specs}]
        """)


@pytest.fixture
def task_module(tmp_path, monkeypatch):
    """Write ``ngtest_tasks`` (the envs above) on sys.path; yields its name."""
    directory = tmp_path / "mods"
    directory.mkdir()
    (directory / "ngtest_tasks.py").write_text(TASKS_SOURCE)
    monkeypatch.syspath_prepend(str(directory))
    yield "ngtest_tasks"
    sys.modules.pop("ngtest_tasks", None)


@pytest.fixture
def good_plugin():
    """Source of a good plugin: task ``fake/Tiny-v0`` (tag ``toy``) and wrapper ``Tiny``."""
    return GOOD_PLUGIN


@pytest.fixture
def declaring():
    """``declaring(*ids)`` returns the source of a plugin declaring those task ids."""
    return _declaring


@pytest.fixture
def fake_tasks_file():
    """The ``files=`` argument that installs module ``fake_tasks`` next to a fake plugin."""
    return {"fake_tasks.py": TASKS_SOURCE}


@pytest.fixture(autouse=True)
def _hermetic_discovery(ngym_hide_installed_plugins):
    """Discovery here sees core and the fake plugins only, never what else is installed."""
