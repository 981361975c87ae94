"""Plugin discovery against fake installed distributions (hermetic: written to tmp_path)."""

from __future__ import annotations

import os
import sys
import types

import pytest

from neurogym import _builtin
from neurogym._api import build_registry, get_registry
from neurogym._plugins import (
    CORE_DISTRIBUTION,
    CORE_PLUGIN,
    build_plugin_manager,
    registry_from_plugins,
)
from neurogym._specs import TaskSpec
from neurogym.errors import DuplicateTaskError, NeurogymPluginWarning
from neurogym.hookspecs import hookimpl


def fake_ids(registry):
    return [spec.id for spec in registry.tasks() if spec.namespace != "neurogym"]


def test_core_only(ngym_registry, ngym_pm):
    assert [spec.id for spec in ngym_registry.tasks()] == ["neurogym/Null-v0"]
    null = ngym_registry.resolve("Null")
    assert (null.plugin, null.distribution) == (CORE_PLUGIN, CORE_DISTRIBUTION)
    assert ngym_pm.get_plugin(CORE_PLUGIN) is _builtin
    assert ngym_registry.plugin_manager is not ngym_pm  # each fixture builds its own


def test_without_core():
    assert build_registry(discover=False, include_core=False).tasks() == []


def test_good_plugin_is_discovered_and_attributed(
    installed_fake_plugin, good_plugin, fake_tasks_file
):
    installed_fake_plugin("fake-good", good_plugin, files=fake_tasks_file, entry_point="good")
    registry = build_registry()
    spec = registry.resolve("Tiny")
    assert spec.id == "fake/Tiny-v0"
    assert (spec.plugin, spec.distribution) == ("good", "fake-good")
    assert [s.id for s in registry.tasks(plugin="good")] == ["fake/Tiny-v0"]
    assert registry.tasks(tag="toy") == [spec]
    wrapper = registry.wrapper("Tiny")
    assert (wrapper.plugin, wrapper.distribution) == ("good", "fake-good")
    env = registry.make("Tiny", wrappers=["Tiny"], trials_per_episode=2)
    assert type(env).__name__ == "TinyWrapper"
    assert env.unwrapped.trials_per_episode == 2


def test_listing_imports_no_task_module(installed_fake_plugin, good_plugin, fake_tasks_file):
    installed_fake_plugin("fake-good", good_plugin, files=fake_tasks_file)
    registry = build_registry()
    assert registry.tasks(tag="toy")
    assert registry.tags()
    assert registry.resolve("fake/Tiny-v0")
    assert "fake_good" in sys.modules  # the hook module is loaded ...
    assert "fake_tasks" not in sys.modules  # ... the task module is not
    registry.make("fake/Tiny-v0")
    assert "fake_tasks" in sys.modules


def test_broken_plugin_warns_and_others_keep_working(
    installed_fake_plugin, good_plugin, fake_tasks_file
):
    installed_fake_plugin("fake-good", good_plugin, files=fake_tasks_file)
    installed_fake_plugin("fake-broken", "raise ImportError('needs libfoo')", entry_point="broken")
    with pytest.warns(NeurogymPluginWarning) as record:
        registry = build_registry()
    assert [str(w.message) for w in record] == [
        "neurogym plugin 'broken' from distribution 'fake-broken' failed to load: "
        "ImportError: needs libfoo; its tasks are unavailable"
    ]
    assert fake_ids(registry) == ["fake/Tiny-v0"]
    assert registry.resolve("Null").plugin == CORE_PLUGIN


def test_malformed_entry_points_txt_is_skipped(installed_fake_plugin, good_plugin):
    site = installed_fake_plugin("fake-good", good_plugin)
    for name, text in [
        ("fake_mangled", "[neurogym.plugins]\nno equals sign here\n"),
        ("unrelated_mangled", "[console_scripts]\nno equals sign here\n"),
    ]:
        dist_info = site / f"{name}-1.0.dist-info"
        dist_info.mkdir()
        (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1\n")
        (dist_info / "entry_points.txt").write_text(text)
    installed_fake_plugin.forget_modules()
    with pytest.warns(NeurogymPluginWarning) as record:
        registry = build_registry()
    (message,) = [str(w.message) for w in record]  # none for the unrelated distribution
    assert message.startswith(
        "neurogym plugins of distribution 'fake_mangled' cannot be read, its entry_points.txt "
        "is malformed: "
    )
    assert fake_ids(registry) == ["fake/Tiny-v0"]


def test_plugin_raising_in_hook_is_dropped(installed_fake_plugin, good_plugin, fake_tasks_file):
    installed_fake_plugin("fake-good", good_plugin, files=fake_tasks_file)
    source = """
        from neurogym._specs import WrapperSpec
        from neurogym.hookspecs import hookimpl

        @hookimpl
        def neurogym_wrappers():
            return [WrapperSpec("Other", "x:Y")]

        @hookimpl
        def neurogym_tasks():
            raise RuntimeError("oops")
        """
    installed_fake_plugin("fake-raising", source, entry_point="raising")
    with pytest.warns(NeurogymPluginWarning) as record:
        registry = build_registry()
    assert [str(w.message) for w in record] == [
        "neurogym plugin 'raising' from distribution 'fake-raising' raised in neurogym_tasks(): "
        "RuntimeError: oops; its tasks and wrappers are unavailable"
    ]
    assert fake_ids(registry) == ["fake/Tiny-v0"]
    plugin_wrappers = [w.name for w in registry.wrappers() if w.plugin != CORE_PLUGIN]
    assert plugin_wrappers == ["Tiny"]  # not 'Other'
    assert registry.plugin_manager.get_plugin("raising") is None


@pytest.mark.parametrize(
    ("returned", "problem"),
    [
        (
            "None",
            "returned a NoneType from neurogym_tasks(), not a list of TaskSpec; it is ignored",
        ),
        (
            '[TaskSpec("fake/Ok-v0", "fake_tasks:TinyEnv"), "fake/Bad-v0"]',
            "returned items that are not TaskSpec from neurogym_tasks(): ['fake/Bad-v0']; "
            "they are ignored",
        ),
    ],
)
def test_plugin_returning_non_specs_warns(installed_fake_plugin, returned, problem):
    source = f"""
        from neurogym._specs import TaskSpec
        from neurogym.hookspecs import hookimpl

        @hookimpl
        def neurogym_tasks():
            return {returned}
        """
    installed_fake_plugin("fake-sloppy", source, entry_point="sloppy")
    with pytest.warns(NeurogymPluginWarning) as record:
        registry = build_registry()
    assert [str(w.message) for w in record] == [
        f"neurogym plugin 'sloppy' from distribution 'fake-sloppy' {problem}"
    ]
    assert fake_ids(registry) == (["fake/Ok-v0"] if "Ok" in returned else [])


def test_duplicate_id_warns_naming_both_and_registers_neither(installed_fake_plugin, declaring):
    installed_fake_plugin("lab-one", declaring("lab/Dup-v0", "lab/One-v0"), entry_point="one")
    installed_fake_plugin("lab-two", declaring("lab/Dup-v0", "lab/Two-v0"), entry_point="two")
    with pytest.warns(NeurogymPluginWarning) as record:
        registry = build_registry()
    assert [str(w.message) for w in record] == [
        "task id 'lab/Dup-v0' is declared by distribution 'lab-one' (plugin 'one') and "
        "distribution 'lab-two' (plugin 'two'); neither is registered. Uninstall one, or "
        "disable one plugin with NEUROGYM_DISABLE_PLUGINS=<plugin>"
    ]
    assert fake_ids(registry) == ["lab/One-v0", "lab/Two-v0"]
    assert registry.conflicts == {"lab/Dup-v0": ("lab-one", "lab-two")}
    with pytest.raises(DuplicateTaskError, match="'lab-one' and 'lab-two'"):
        registry.make("lab/Dup-v0")


def test_disable_one_plugin_resolves_the_conflict(installed_fake_plugin, declaring, monkeypatch):
    installed_fake_plugin("lab-one", declaring("lab/Dup-v0"), entry_point="one")
    installed_fake_plugin("lab-two", declaring("lab/Dup-v0"), entry_point="two")
    hidden = os.environ["NEUROGYM_DISABLE_PLUGINS"]
    monkeypatch.setenv("NEUROGYM_DISABLE_PLUGINS", f"{hidden}, two , unknown-name,")
    registry = build_registry()
    assert registry.resolve("Dup").distribution == "lab-one"
    assert registry.conflicts == {}
    assert "lab_two" not in sys.modules  # a disabled plugin is not even imported


@pytest.mark.parametrize("value", ["1", "true", "yes"])
def test_no_plugins_keeps_core_only(installed_fake_plugin, good_plugin, monkeypatch, value):
    installed_fake_plugin("fake-good", good_plugin)
    monkeypatch.setenv("NEUROGYM_NO_PLUGINS", value)
    registry = build_registry()
    assert [spec.id for spec in registry.tasks()] == ["neurogym/Null-v0"]
    assert "fake_good" not in sys.modules


@pytest.mark.parametrize("value", ["", "0", "false"])
def test_no_plugins_false_values(installed_fake_plugin, good_plugin, monkeypatch, value):
    installed_fake_plugin("fake-good", good_plugin)
    monkeypatch.setenv("NEUROGYM_NO_PLUGINS", value)
    assert fake_ids(build_registry()) == ["fake/Tiny-v0"]


def test_core_cannot_be_disabled(monkeypatch):
    monkeypatch.setenv(
        "NEUROGYM_DISABLE_PLUGINS", os.environ["NEUROGYM_DISABLE_PLUGINS"] + ",core"
    )
    assert build_registry().resolve("Null").plugin == CORE_PLUGIN


def test_plugin_named_core_is_skipped(installed_fake_plugin, declaring):
    installed_fake_plugin("fake-core", declaring("fake/Core-v0"), entry_point="core")
    with pytest.warns(
        NeurogymPluginWarning,
        match=(
            "plugin 'core' from distribution 'fake-core' was skipped: "
            "ValueError: Plugin name already registered"
        ),
    ):
        registry = build_registry()
    assert fake_ids(registry) == []


def test_invalid_hookimpl_is_skipped(installed_fake_plugin):
    source = """
        from neurogym.hookspecs import hookimpl

        @hookimpl
        def neurogym_tasks(registry):
            return []
        """
    installed_fake_plugin("fake-args", source, entry_point="args")
    with pytest.warns(
        NeurogymPluginWarning,
        match="plugin 'args' from distribution 'fake-args' was skipped: PluginValidationError",
    ):
        build_registry()


def test_unknown_hook_warns(installed_fake_plugin, declaring):
    source = declaring("fake/Typo-v0") + "\n\n@hookimpl\ndef neurogym_task():\n    return []\n"
    installed_fake_plugin("fake-typo", source, entry_point="typo")
    with pytest.warns(
        NeurogymPluginWarning, match="implements 'neurogym_task', which is not a neurogym hook"
    ):
        registry = build_registry()
    assert fake_ids(registry) == ["fake/Typo-v0"]  # the plugin still works


def test_registry_from_a_hand_built_manager():
    plugin = types.SimpleNamespace()

    @hookimpl
    def neurogym_tasks():
        return [TaskSpec("mine/Hand-v0", "m:C", plugin="ignored", distribution="ignored")]

    plugin.neurogym_tasks = neurogym_tasks
    pm = build_plugin_manager(discover=False, include_core=False)
    assert pm.add_plugin(plugin, "hand")
    registry = registry_from_plugins(pm)
    spec = registry.resolve("Hand")
    assert (spec.plugin, spec.distribution) == ("hand", "")  # attribution comes from discovery
    assert registry.plugin_manager is pm


def test_get_registry_is_cached_and_can_be_cleared():
    first = get_registry()
    assert get_registry() is first
    get_registry.cache_clear()
    try:
        assert get_registry() is not first
    finally:
        get_registry.cache_clear()


def test_fake_plugin_modules_are_forgotten(installed_fake_plugin, good_plugin):
    site = installed_fake_plugin("fake-good", good_plugin)
    build_registry()
    assert sys.modules["fake_good"].__file__ == str(site / "fake_good.py")
    installed_fake_plugin.forget_modules()
    assert "fake_good" not in sys.modules


def test_fake_plugin_rejects_dotted_module(installed_fake_plugin, good_plugin):
    with pytest.raises(ValueError, match=r"module must be a top-level module name, got 'a\.b'"):
        installed_fake_plugin("fake-good", good_plugin, module="a.b")
