"""Registry: registration, resolution, listing, conflicts and make()."""

from __future__ import annotations

import pickle
import sys

import pytest

from neurogym._registry.registry import Registry
from neurogym._registry.specs import TaskSpec, WrapperSpec
from neurogym.errors import (
    AmbiguousTaskError,
    DuplicateTaskError,
    DuplicateWrapperError,
    UnknownTaskError,
    UnknownWrapperError,
)

IDS = [
    "neurogym/DelayMatchSample-v0",
    "neurogym/PerceptualDecisionMaking-v0",
    "neurogym/PerceptualDecisionMaking-v1",
    "neurogym/Shared-v0",
    "lab/Shared-v0",
    "lab/Shared-v2",
    "lab/Solo-v3",
]


@pytest.fixture
def registry():
    registry = Registry()
    for index, task_id in enumerate(reversed(IDS)):
        tags = ("even",) if index % 2 == 0 else ("odd", "zz")
        plugin = task_id.split("/")[0]
        registry.register(TaskSpec(task_id, "pkg.mod:Cls", tags=tags, plugin=plugin))
    return registry


def test_register_rejects_existing_id_unless_override(registry):
    spec = TaskSpec("lab/Solo-v3", "other.mod:Cls", distribution="lab-tasks")
    with pytest.raises(
        DuplicateTaskError, match="task 'lab/Solo-v3' is already registered"
    ) as info:
        registry.register(spec)
    assert isinstance(info.value, ValueError)
    assert "entry point 'pkg.mod:Cls'" in str(info.value)
    assert "override=True" in str(info.value)
    registry.register(spec, override=True)
    assert registry.resolve("lab/Solo-v3").entry_point == "other.mod:Cls"


def test_register_rejects_other_types(registry):
    with pytest.raises(
        TypeError, match="register\\(\\) takes a TaskSpec or a WrapperSpec, got str"
    ):
        registry.register("lab/Solo-v3")  # type: ignore[arg-type]


def test_len_contains_repr(registry):
    assert len(registry) == len(IDS)
    assert "lab/Solo-v3" in registry
    assert "Solo" not in registry
    assert repr(registry) == f"<Registry: {len(IDS)} tasks, 0 wrappers>"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("lab/Solo-v3", "lab/Solo-v3"),  # exact
        ("Solo", "lab/Solo-v3"),  # bare name
        ("Solo-v3", "lab/Solo-v3"),  # versioned name
        ("PerceptualDecisionMaking", "neurogym/PerceptualDecisionMaking-v1"),  # latest
        ("PerceptualDecisionMaking-v0", "neurogym/PerceptualDecisionMaking-v0"),
        ("neurogym/PerceptualDecisionMaking", "neurogym/PerceptualDecisionMaking-v1"),
        ("lab/Shared", "lab/Shared-v2"),
        ("Shared-v2", "lab/Shared-v2"),  # only lab has v2
        ("neurogym/Shared", "neurogym/Shared-v0"),
    ],
)
def test_resolve(registry, query, expected):
    assert registry.resolve(query).id == expected


@pytest.mark.parametrize(
    ("query", "candidates"),
    [
        ("Shared", "'lab/Shared-v2' and 'neurogym/Shared-v0'"),
        ("Shared-v0", "'lab/Shared-v0' and 'neurogym/Shared-v0'"),
    ],
)
def test_resolve_ambiguous_lists_candidates(registry, query, candidates):
    with pytest.raises(AmbiguousTaskError) as info:
        registry.resolve(query)
    assert isinstance(info.value, ValueError)
    assert str(info.value) == (
        f"task {query!r} is ambiguous: it matches {candidates}; pass one of these ids in full"
    )


@pytest.mark.parametrize(
    ("query", "close"),
    [
        ("PerceptualDecisionMakin", "neurogym/PerceptualDecisionMaking-v1"),
        ("perceptualdecisionmaking", "neurogym/PerceptualDecisionMaking-v0"),
        ("neurogym/PerceptualDecisionMaking-v7", "neurogym/PerceptualDecisionMaking-v1"),
        ("neurogym/DelayMatchSampel-v0", "neurogym/DelayMatchSample-v0"),
        ("Soloo", "lab/Solo-v3"),
        ("lab/Solo-v0", "lab/Solo-v3"),
    ],
)
def test_resolve_unknown_suggests_close_ids(registry, query, close):
    with pytest.raises(UnknownTaskError) as info:
        registry.resolve(query)
    message = str(info.value)
    assert isinstance(info.value, LookupError)
    assert not isinstance(info.value, KeyError)  # KeyError would quote the message
    assert message.startswith(f"unknown task {query!r}; did you mean ")
    assert repr(close) in message
    assert message.count("'neurogym/") + message.count("'lab/") <= 5
    assert f"tasks() lists the {len(IDS)} registered tasks" in message


def test_resolve_unknown_without_close_ids(registry):
    with pytest.raises(UnknownTaskError) as info:
        registry.resolve("Zebra!")
    assert (
        str(info.value)
        == f"unknown task 'Zebra!' (neurogym.tasks() lists the {len(IDS)} registered tasks)"
    )


def test_resolve_in_empty_registry():
    with pytest.raises(
        UnknownTaskError, match=r"\(neurogym\.tasks\(\) lists the 0 registered tasks\)"
    ):
        Registry().resolve("neurogym/Null-v0")


def test_resolve_non_str_is_type_error(registry):
    with pytest.raises(TypeError, match="a task id must be a str, got int: 3"):
        registry.resolve(3)  # type: ignore[arg-type]


def test_tasks_sorted_and_filtered(registry):
    assert [spec.id for spec in registry.tasks()] == sorted(IDS)
    assert [spec.id for spec in registry.tasks(plugin="lab")] == [
        "lab/Shared-v0",
        "lab/Shared-v2",
        "lab/Solo-v3",
    ]
    odd = registry.tasks(tag="odd")
    assert odd
    assert all("odd" in spec.tags for spec in odd)
    assert [spec.id for spec in odd] == sorted(spec.id for spec in odd)
    assert {spec.id for spec in odd} | {spec.id for spec in registry.tasks(tag="even")} == set(IDS)
    assert [spec.id for spec in registry.tasks(tag="odd", plugin="lab")] == [
        spec.id for spec in odd if spec.plugin == "lab"
    ]
    assert registry.tasks(tag="nope") == []
    assert registry.tasks(plugin="nope") == []


@pytest.mark.parametrize("kwargs", [{"tag": ["odd"]}, {"plugin": 1}])
def test_tasks_rejects_non_str_filters(registry, kwargs):
    (name,) = kwargs
    with pytest.raises(TypeError, match=f"{name} must be a str or None, got"):
        registry.tasks(**kwargs)


def test_tags(registry):
    assert registry.tags() == ["even", "odd", "zz"]
    assert Registry().tags() == []


def _conflicted_registry():
    registry = Registry()
    registry.add_conflict(
        [
            TaskSpec("lab/Dup-v0", "a.mod:Cls", plugin="a", distribution="lab-a"),
            TaskSpec("lab/Dup-v0", "b.mod:Cls", plugin="b", distribution="lab-b"),
        ]
    )
    return registry


@pytest.mark.parametrize("query", ["lab/Dup-v0", "Dup", "Dup-v0", "lab/Dup"])
def test_conflicting_id_names_both_distributions(query):
    registry = _conflicted_registry()
    assert registry.conflicts == {"lab/Dup-v0": ("lab-a", "lab-b")}
    assert registry.tasks() == []
    with pytest.raises(DuplicateTaskError) as info:
        registry.resolve(query)
    message = str(info.value)
    assert "task 'lab/Dup-v0' is declared by more than one installed distribution" in message
    assert "('lab-a' and 'lab-b')" in message
    assert "NEUROGYM_DISABLE_PLUGINS" in message
    with pytest.raises(DuplicateTaskError, match="'lab-a' and 'lab-b'"):
        registry.make(query)


def test_register_contested_id_needs_override():
    registry = _conflicted_registry()
    spec = TaskSpec("lab/Dup-v0", "c.mod:Cls")
    with pytest.raises(DuplicateTaskError, match="'lab-a' and 'lab-b'"):
        registry.register(spec)
    registry.register(spec, override=True)
    assert registry.conflicts == {}
    assert registry.resolve("Dup") is spec


def test_add_conflict_needs_two_specs_with_one_key():
    registry = Registry()
    with pytest.raises(ValueError, match="two or more specs sharing one key"):
        registry.add_conflict([TaskSpec("a/B-v0", "m:C")])
    with pytest.raises(ValueError, match="two or more specs sharing one key"):
        registry.add_conflict([TaskSpec("a/B-v0", "m:C"), TaskSpec("a/C-v0", "m:C")])


def test_wrappers_lookup_and_errors():
    registry = Registry()
    registry.register(WrapperSpec("Noise", "m:Noise"))
    registry.register(WrapperSpec("Monitor", "m:Monitor"))
    assert [spec.name for spec in registry.wrappers()] == ["Monitor", "Noise"]
    assert registry.wrapper("Noise").entry_point == "m:Noise"
    with pytest.raises(UnknownWrapperError) as info:
        registry.wrapper("Noize")
    assert str(info.value) == (
        "unknown wrapper 'Noize'; did you mean 'Noise'? "
        "(neurogym.wrapper_specs() lists the 2 registered wrappers)"
    )
    with pytest.raises(DuplicateWrapperError, match="wrapper 'Noise' is already registered"):
        registry.register(WrapperSpec("Noise", "m:Other"))
    with pytest.raises(TypeError, match="a wrapper name must be a str, got NoneType"):
        registry.wrapper(None)  # type: ignore[arg-type]
    registry.add_conflict(
        [
            WrapperSpec("Noise", "a:N", distribution="x"),
            WrapperSpec("Noise", "b:N", distribution="y"),
        ]
    )
    assert registry.wrapper_conflicts == {"Noise": ("x", "y")}
    with pytest.raises(
        DuplicateWrapperError, match=r"wrapper 'Noise' is declared .* \('x' and 'y'\)"
    ):
        registry.wrapper("Noise")


def test_errors_pickle():
    error = UnknownTaskError("unknown task 'x'")
    assert str(pickle.loads(pickle.dumps(error))) == "unknown task 'x'"


# -- make ------------------------------------------------------------------------------------


@pytest.fixture
def tiny(task_module):
    registry = Registry()
    registry.register(TaskSpec("ns/Tiny-v0", f"{task_module}:TinyEnv", kwargs={"size": 5}))
    registry.register(TaskSpec("ns/Plain-v0", f"{task_module}:PlainEnv"))
    registry.register(WrapperSpec("Tiny", f"{task_module}:TinyWrapper"))
    return registry


def test_make_returns_the_env_itself(tiny):
    env = tiny.make("Tiny", size=7)
    assert type(env).__name__ == "TinyEnv"
    assert env.size == 7
    assert env.spec.id == "ns/Tiny-v0"
    assert env.spec.kwargs == {"size": 7}
    assert env.max_episode_steps is None
    assert env.trials_per_episode is None


def test_make_sets_episode_limits(tiny):
    env = tiny.make("ns/Tiny-v0", max_episode_steps=10, trials_per_episode=2)
    assert (env.max_episode_steps, env.trials_per_episode) == (10, 2)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"max_episode_steps": 0},
            ValueError,
            "max_episode_steps must be an int >= 1, got 0",
        ),
        ({"trials_per_episode": -1}, ValueError, "trials_per_episode must be an int >= 1"),
        ({"trials_per_episode": True}, TypeError, "got True"),
        (
            {"max_episode_steps": 2.5},
            TypeError,
            "max_episode_steps must be an int >= 1, got 2.5",
        ),
    ],
)
def test_make_rejects_bad_limits(tiny, kwargs, error, match):
    with pytest.raises(error, match=match):
        tiny.make("ns/Tiny-v0", **kwargs)


def test_make_limits_need_a_trial_env(tiny):
    with pytest.raises(TypeError) as info:
        tiny.make("ns/Plain-v0", trials_per_episode=3)
    assert str(info.value) == (
        "trials_per_episode= needs a neurogym TrialEnv, but task 'ns/Plain-v0' builds a "
        "PlainEnv, which has no 'trials_per_episode' attribute"
    )
    assert type(tiny.make("ns/Plain-v0")).__name__ == "PlainEnv"


def test_make_applies_wrappers_in_order(tiny):
    env = tiny.make("ns/Tiny-v0", wrappers=["Tiny", ("Tiny", {"scale": 3})], max_episode_steps=4)
    assert type(env).__name__ == "TinyWrapper"
    assert env.scale == 3
    assert env.env.scale == 1
    assert env.unwrapped.max_episode_steps == 4


@pytest.mark.parametrize(
    ("wrappers", "match"),
    [
        (
            "Tiny",
            "wrappers= takes a list of wrapper names or \\(name, kwargs\\) pairs, got str: 'Tiny'",
        ),
        (3, "got int: 3"),
        (
            [("Tiny",)],
            "each item of wrappers= must be a wrapper name or a \\(name, kwargs dict\\) pair",
        ),
        ([("Tiny", 3)], "got \\('Tiny', 3\\)"),
    ],
)
def test_make_rejects_bad_wrapper_requests(tiny, wrappers, match):
    with pytest.raises(TypeError, match=match):
        tiny.make("ns/Tiny-v0", wrappers=wrappers)


def test_make_checks_wrappers_before_building(tiny, task_module):
    sys.modules.pop(task_module, None)
    with pytest.raises(
        UnknownWrapperError, match="unknown wrapper 'TinyWrap'; did you mean 'Tiny'"
    ):
        tiny.make("ns/Tiny-v0", wrappers=["TinyWrap"])
    assert task_module not in sys.modules
