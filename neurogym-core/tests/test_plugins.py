"""Plugin discovery against fake installed distributions (hermetic: written to tmp_path)."""

from __future__ import annotations

import os
import subprocess
import sys
import types

import pytest

from neurogym._registry import builtin
from neurogym._registry.api import build_registry, get_registry
from neurogym._registry.plugins import (
    CORE_DISTRIBUTION,
    CORE_PLUGIN,
    build_plugin_manager,
    registry_from_plugins,
)
from neurogym._registry.specs import TaskSpec
from neurogym.errors import DuplicateTaskError, NeurogymPluginWarning, UnknownTaskError
from neurogym.hookspecs import hookimpl


def fake_ids(registry):
    return [spec.id for spec in registry.tasks() if spec.namespace != "neurogym"]


def test_core_only(ngym_registry, ngym_pm):
    assert [spec.id for spec in ngym_registry.tasks()] == ["neurogym/Null-v0"]
    null = ngym_registry.resolve("Null")
    assert (null.plugin, null.distribution) == (CORE_PLUGIN, CORE_DISTRIBUTION)
    assert ngym_pm.get_plugin(CORE_PLUGIN) is builtin
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
        from neurogym._registry.specs import WrapperSpec
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
        from neurogym._registry.specs import TaskSpec
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
            "plugin 'core' from distribution 'fake-core' was skipped: the plugin name "
            "'core' is reserved for the first-party distribution 'neurogym-core'"
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


# -- trust: first-party names, the neurogym/ namespace, process-ending plugins ---------------


def _show_only(monkeypatch, *names):
    """Hide every installed plugin but ``names`` (fake first-party plugins must not be hidden)."""
    hidden = [n for n in os.environ["NEUROGYM_DISABLE_PLUGINS"].split(",") if n not in names]
    monkeypatch.setenv("NEUROGYM_DISABLE_PLUGINS", ",".join(hidden))


@pytest.mark.parametrize("first_party_first", [True, False])
def test_first_party_plugin_name_wins_a_clash(
    installed_fake_plugin, declaring, monkeypatch, first_party_first
):
    _show_only(monkeypatch, "perceptual")
    installs = [
        ("neurogym-perceptual", declaring("neurogym/Fake-v0"), "fake_first"),
        ("evil-lab", declaring("evil/Hijack-v0"), "evil_lab"),
    ]
    for distribution, source, module in installs if first_party_first else installs[::-1]:
        installed_fake_plugin(distribution, source, module=module, entry_point="perceptual")
    with pytest.warns(NeurogymPluginWarning) as record:
        registry = build_registry()
    assert [str(w.message) for w in record] == [
        "neurogym plugin 'perceptual' from distribution 'evil-lab' was skipped: the plugin "
        "name 'perceptual' is reserved for the first-party distribution 'neurogym-perceptual' "
        "(installed too; it is the one loaded). Its author must pick another entry-point name"
    ]
    assert [s.id for s in registry.tasks(plugin="perceptual")] == ["neurogym/Fake-v0"]
    assert registry.resolve("Fake").distribution == "neurogym-perceptual"
    assert "evil_lab" not in sys.modules  # the skipped plugin is never imported


def test_first_party_plugin_name_is_reserved_even_without_its_owner(
    installed_fake_plugin, declaring
):
    installed_fake_plugin("evil-lab", declaring("evil/X-v0"), entry_point="workingmemory")
    with pytest.warns(NeurogymPluginWarning) as record:
        registry = build_registry()
    assert [str(w.message) for w in record] == [
        "neurogym plugin 'workingmemory' from distribution 'evil-lab' was skipped: the plugin "
        "name 'workingmemory' is reserved for the first-party distribution "
        "'neurogym-workingmemory'. Its author must pick another entry-point name"
    ]
    assert fake_ids(registry) == []


@pytest.mark.parametrize("order", [("lab-a", "lab-b"), ("lab-b", "lab-a")])
def test_third_party_plugin_name_clash_loads_neither_and_names_both(
    installed_fake_plugin, declaring, order
):
    for distribution in order:
        source = declaring(f"{distribution}/T-v0")
        installed_fake_plugin(distribution, source, entry_point="shared")
    with pytest.warns(NeurogymPluginWarning) as record:
        registry = build_registry()
    assert [str(w.message) for w in record] == [
        "neurogym plugin name 'shared' is declared by distributions 'lab-a' and 'lab-b'; none "
        "of them is loaded. Uninstall all but one of them"
    ]
    assert fake_ids(registry) == []
    assert "lab_a" not in sys.modules
    assert "lab_b" not in sys.modules


def _first_party_pdm(installed_fake_plugin, declaring, monkeypatch) -> None:
    """Only a fake neurogym-perceptual declaring neurogym/PerceptualDecisionMaking-v0."""
    _show_only(monkeypatch, "perceptual")
    installed_fake_plugin(
        "neurogym-perceptual",
        declaring("neurogym/PerceptualDecisionMaking-v0"),
        module="fake_first",
        entry_point="perceptual",
    )


def test_third_party_ids_in_the_neurogym_namespace_are_rejected(
    installed_fake_plugin, declaring, monkeypatch
):
    _first_party_pdm(installed_fake_plugin, declaring, monkeypatch)
    installed_fake_plugin(
        "evil-lab",
        declaring("neurogym/PerceptualDecisionMaking-v1", "neurogym/Extra-v0", "evil/Ok-v0"),
        entry_point="evil",
    )
    with pytest.warns(NeurogymPluginWarning) as record:
        registry = build_registry()
    (message,) = [str(w.message) for w in record]
    assert message.startswith(
        "neurogym plugin 'evil' from distribution 'evil-lab' declares task ids in the reserved "
        "'neurogym/' namespace: 'neurogym/PerceptualDecisionMaking-v1', 'neurogym/Extra-v0'; "
        "they are ignored. Only the first-party distributions (neurogym-core, "
        "neurogym-perceptual, "
    )
    assert [s.id for s in registry.tasks(plugin="evil")] == ["evil/Ok-v0"]
    spec = registry.resolve("PerceptualDecisionMaking")
    assert (spec.id, spec.distribution) == (
        "neurogym/PerceptualDecisionMaking-v0",
        "neurogym-perceptual",
    )
    assert "neurogym/Extra-v0" not in registry


def test_case_and_separator_variants_of_the_neurogym_namespace_are_reserved_too(
    installed_fake_plugin, declaring, monkeypatch
):
    _first_party_pdm(installed_fake_plugin, declaring, monkeypatch)
    variants = ("Neurogym/PerceptualDecisionMaking-v0", "NEURO-GYM/Extra-v0", "neuro_gym/X-v0")
    installed_fake_plugin("evil-lab", declaring(*variants, "evil/Ok-v0"), entry_point="evil")
    with pytest.warns(NeurogymPluginWarning) as record:
        registry = build_registry()
    (message,) = [str(w.message) for w in record]
    assert "declares task ids in the reserved 'neurogym/' namespace: " in message
    assert all(repr(variant) in message for variant in variants)
    assert [s.id for s in registry.tasks(plugin="evil")] == ["evil/Ok-v0"]
    spec = registry.resolve("PerceptualDecisionMaking")  # not ambiguous
    assert spec.distribution == "neurogym-perceptual"


def test_first_party_wrapper_name_wins_a_clash(installed_fake_plugin):
    source = """
        from neurogym._registry.specs import WrapperSpec
        from neurogym.hookspecs import hookimpl

        @hookimpl
        def neurogym_wrappers():
            return [WrapperSpec("Monitor", "evil_lab:Evil")]
        """
    installed_fake_plugin("evil-lab", source, entry_point="evil")
    with pytest.warns(NeurogymPluginWarning) as record:
        registry = build_registry()
    assert [str(w.message) for w in record] == [
        "wrapper name 'Monitor' is declared by first-party distribution 'neurogym-core' (plugin "
        "'core') and by distribution 'evil-lab' (plugin 'evil'); the first-party one is "
        "registered and the other is ignored (a plugin cannot replace another distribution's "
        "tasks or wrappers)"
    ]
    assert registry.wrapper("Monitor").distribution == CORE_DISTRIBUTION
    assert registry.wrapper_conflicts == {}


@pytest.mark.parametrize("where", ["import", "hook"])
def test_plugin_raising_system_exit_is_isolated(
    installed_fake_plugin, good_plugin, fake_tasks_file, where
):
    installed_fake_plugin("fake-good", good_plugin, files=fake_tasks_file)
    source = (
        "raise SystemExit(3)"
        if where == "import"
        else "from neurogym.hookspecs import hookimpl\n\n@hookimpl\ndef neurogym_tasks():\n"
        "    raise SystemExit(3)\n"
    )
    installed_fake_plugin("fake-exit", source, entry_point="exiting")
    with pytest.warns(NeurogymPluginWarning) as record:
        registry = build_registry()
    problem = (
        "failed to load: SystemExit: 3; its tasks are unavailable"
        if where == "import"
        else "raised in neurogym_tasks(): SystemExit: 3; its tasks and wrappers are unavailable"
    )
    assert [str(w.message) for w in record] == [
        f"neurogym plugin 'exiting' from distribution 'fake-exit' {problem}"
    ]
    assert fake_ids(registry) == ["fake/Tiny-v0"]


def test_import_neurogym_survives_a_plugin_that_exits(installed_fake_plugin, good_plugin):
    site = installed_fake_plugin("fake-good", good_plugin)
    installed_fake_plugin("fake-exit", "raise SystemExit(3)", entry_point="exiting")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path])}
    code = "import neurogym; print(neurogym.spec('fake/Tiny-v0').id)"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "fake/Tiny-v0"
    assert "plugin 'exiting' from distribution 'fake-exit' failed to load: SystemExit: 3" in (
        done.stderr
    )


def test_keyboard_interrupt_in_a_plugin_is_not_swallowed(installed_fake_plugin):
    installed_fake_plugin("fake-ctrlc", "raise KeyboardInterrupt", entry_point="ctrlc")
    with pytest.raises(KeyboardInterrupt):
        build_registry()


# -- "not installed" hints for first-party tasks -------------------------------------------


@pytest.mark.parametrize(
    "query", ["DelayMatchSample", "neurogym/DelayMatchSample-v0", "delaymatchsample-v0"]
)
def test_unknown_first_party_task_names_its_distribution(query):
    registry = build_registry()
    with pytest.raises(UnknownTaskError) as caught:
        registry.resolve(query)
    assert str(caught.value) == (
        f"unknown task {query!r}: it is provided by the first-party distribution "
        "'neurogym-workingmemory', which is not installed; install it with: pip install "
        "neurogym-workingmemory (neurogym.tasks() lists the 1 registered task)"
    )


def test_unknown_task_in_another_namespace_gets_no_first_party_hint():
    with pytest.raises(UnknownTaskError) as caught:
        build_registry().resolve("mylab/DelayMatchSample-v0")
    assert "neurogym-workingmemory" not in str(caught.value)


def test_installed_but_disabled_first_party_plugin_is_named(
    installed_fake_plugin, declaring, monkeypatch
):
    installed_fake_plugin(
        "neurogym-workingmemory",
        declaring("neurogym/DelayComparison-v0"),
        module="fake_wm",
        entry_point="workingmemory",
    )
    monkeypatch.setenv(
        "NEUROGYM_DISABLE_PLUGINS", os.environ["NEUROGYM_DISABLE_PLUGINS"] + ",workingmemory"
    )
    with pytest.raises(UnknownTaskError) as caught:
        build_registry().resolve("DelayMatchSample")
    assert str(caught.value).startswith(
        "unknown task 'DelayMatchSample': it is provided by the first-party distribution "
        "'neurogym-workingmemory', which is installed but its plugin 'workingmemory' is not "
        "loaded (disabled by NEUROGYM_NO_PLUGINS or NEUROGYM_DISABLE_PLUGINS, or it failed to "
        "load: see the NeurogymPluginWarning issued at import)"
    )


HOSTILE_SPECS = """
from neurogym._registry.specs import TaskSpec, WrapperSpec
from neurogym.hookspecs import hookimpl


class ThirdPartyLooking(TaskSpec):
    @property
    def namespace(self):  # claims a namespace of its own for a neurogym/ id
        return "evil"


class ClaimsFirstParty(TaskSpec):
    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "distribution", "neurogym-perceptual")


class FakeNoise(WrapperSpec):
    def __post_init__(self):
        object.__setattr__(self, "distribution", "neurogym-core")


@hookimpl
def neurogym_tasks():
    return [
        ThirdPartyLooking("neurogym/PerceptualDecisionMaking-v1", "fake_tasks:TinyEnv"),
        ClaimsFirstParty("evil/Claimed-v0", "fake_tasks:TinyEnv"),
        TaskSpec("evil/Ok-v0", "fake_tasks:TinyEnv"),
    ]


@hookimpl
def neurogym_wrappers():
    return [FakeNoise("Noise", "evil_lab:Evil")]
"""


def test_a_hooks_spec_subclass_decides_nothing_the_registry_decides(
    installed_fake_plugin, declaring, monkeypatch
):
    _first_party_pdm(installed_fake_plugin, declaring, monkeypatch)
    installed_fake_plugin("evil-lab", HOSTILE_SPECS, entry_point="evil")
    with pytest.warns(NeurogymPluginWarning) as record:
        registry = build_registry()
    messages = " | ".join(str(w.message) for w in record)
    # the neurogym/ id is dropped whatever its class says its namespace is
    assert "declares task ids in the reserved 'neurogym/' namespace: " in messages
    assert "'neurogym/PerceptualDecisionMaking-v1'" in messages
    ids = sorted(s.id for s in registry.tasks(plugin="evil"))
    assert ids == ["evil/Claimed-v0", "evil/Ok-v0"]
    for spec in registry.tasks(plugin="evil"):
        assert type(spec) is TaskSpec  # rebuilt: no subclass code is kept
        assert spec.distribution == "evil-lab"  # derived, not claimed
    resolved = registry.resolve("PerceptualDecisionMaking")  # neither hidden nor ambiguous
    assert resolved.distribution == "neurogym-perceptual"
    noise = registry.wrapper("Noise")
    assert noise.distribution == "neurogym-core"  # core's Noise still wins
    assert noise.entry_point != "evil_lab:Evil"
