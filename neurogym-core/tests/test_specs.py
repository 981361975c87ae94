"""TaskSpec and WrapperSpec: validation, parsed id parts, loading and making."""

from __future__ import annotations

import dataclasses
import pickle

import gymnasium
import pytest

from neurogym._registry.specs import TaskSpec, WrapperSpec, parse_task_id


@pytest.mark.parametrize(
    ("task_id", "parts"),
    [
        ("neurogym/PerceptualDecisionMaking-v0", ("neurogym", "PerceptualDecisionMaking", 0)),
        ("neurogym/yang19.go-v0", ("neurogym", "yang19.go", 0)),
        ("my-lab/Task_2-v12", ("my-lab", "Task_2", 12)),
        ("ns/Name-v1-v3", ("ns", "Name-v1", 3)),
    ],
)
def test_id_parts(task_id, parts):
    spec = TaskSpec(task_id, "pkg.mod:Cls")
    assert (spec.namespace, spec.name, spec.version) == parts
    assert tuple(parse_task_id(task_id)) == parts


@pytest.mark.parametrize(
    "task_id",
    [
        "Null-v0",  # no namespace
        "neurogym/Null",  # no version
        "neurogym/Null-v",
        "neurogym/Null-v01",  # leading zero
        "a.b/Null-v0",  # gymnasium namespaces have no dots
        "ns:x/Null-v0",  # ':' means "import module" to gymnasium.make
        "ns/Nu ll-v0",
        "ns/-v0",
        "",
    ],
)
def test_invalid_id_names_value_and_form(task_id):
    with pytest.raises(ValueError, match="invalid task id") as info:
        TaskSpec(task_id, "pkg.mod:Cls")
    assert repr(task_id) in str(info.value)
    assert "'<namespace>/<Name>-v<N>'" in str(info.value)


def test_non_str_id_is_type_error():
    with pytest.raises(TypeError, match=r"a task id must be a str, got list: \['x'\]"):
        TaskSpec(["x"], "pkg.mod:Cls")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "entry_point", ["pkg.mod", "pkg.mod:", ":Cls", "pkg.mod:Cls.attr", "pkg..mod:Cls", "1pkg:C", 3]
)
def test_invalid_entry_point(entry_point):
    with pytest.raises(ValueError, match="invalid entry_point") as info:
        TaskSpec("ns/Task-v0", entry_point)
    message = str(info.value)
    assert repr(entry_point) in message
    assert "task 'ns/Task-v0'" in message
    assert "'module.path:Attribute'" in message


def test_tags_list_becomes_tuple_and_kwargs_are_copied():
    kwargs = {"dt": 10}
    spec = TaskSpec("ns/Task-v0", "pkg:Cls", kwargs=kwargs, tags=["a", "b"])
    assert spec.tags == ("a", "b")
    kwargs["dt"] = 20
    assert spec.kwargs == {"dt": 10}


@pytest.mark.parametrize(
    ("tags", "error", "match"),
    [
        ("perceptual", TypeError, "tags of task 'ns/Task-v0' must be a tuple"),
        ({"a"}, TypeError, "got set"),
        (("a", " "), ValueError, "tags of task 'ns/Task-v0' must be non-empty, got ' '"),
        (("a", 1), TypeError, r"tags of task 'ns/Task-v0' must be strs, got 1 in \('a', 1\)"),
    ],
)
def test_bad_tags(tags, error, match):
    with pytest.raises(error, match=match):
        TaskSpec("ns/Task-v0", "pkg:Cls", tags=tags)


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("kwargs", [("dt", 1)], "kwargs of task 'ns/Task-v0' must be a mapping"),
        ("kwargs", {1: 2}, r"must have str keys, got \[1\]"),
        (
            "description",
            None,
            "description of task 'ns/Task-v0' must be a str, got NoneType: None",
        ),
    ],
)
def test_bad_field_types(field, value, match):
    with pytest.raises(TypeError, match=match):
        TaskSpec("ns/Task-v0", "pkg:Cls", **{field: value})


def test_spec_is_frozen_hashable_picklable_and_replaceable():
    spec = TaskSpec("ns/Task-v0", "pkg:Cls", kwargs={"a": [1]}, tags=("t",))
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.id = "ns/Other-v0"  # type: ignore[misc]
    assert hash(spec) == hash(TaskSpec("ns/Task-v0", "pkg:Cls", kwargs={"a": [2]}, tags=("t",)))
    assert pickle.loads(pickle.dumps(spec)) == spec
    moved = dataclasses.replace(spec, plugin="p", distribution="d")
    assert (moved.plugin, moved.distribution, moved.kwargs) == ("p", "d", {"a": [1]})


def test_load_and_make(task_module):
    spec = TaskSpec("ns/Tiny-v0", f"{task_module}:TinyEnv", kwargs={"size": 5, "items": [1]})
    cls = spec.load()
    assert cls.__name__ == "TinyEnv"
    env = spec.make(items=[2])
    assert isinstance(env, cls)
    assert (env.size, env.items) == (5, [2])
    assert env.spec.id == "ns/Tiny-v0"
    assert env.spec.entry_point == f"{task_module}:TinyEnv"
    assert env.spec.kwargs == {"size": 5, "items": [2]}


def test_make_deep_copies_default_kwargs(task_module):
    spec = TaskSpec("ns/Tiny-v0", f"{task_module}:TinyEnv", kwargs={"items": [1]})
    first, second = spec.make(), spec.make()
    first.items.append(99)
    assert second.items == [1]
    assert spec.kwargs == {"items": [1]}


def test_env_spec_lets_gymnasium_rebuild_the_env(task_module):
    env = TaskSpec("ns/Tiny-v0", f"{task_module}:TinyEnv").make(size=4)
    again = gymnasium.make(env.spec)
    assert type(again) is type(env)  # order_enforce=False, disable_env_checker=True
    assert again.size == 4


def test_load_missing_module_adds_a_note():
    spec = TaskSpec("ns/Task-v0", "no_such_module_xyz:Cls", plugin="p", distribution="d")
    with pytest.raises(ModuleNotFoundError) as info:
        spec.load()
    assert any("'no_such_module_xyz:Cls'" in note for note in info.value.__notes__)
    assert any("plugin 'p', distribution 'd'" in note for note in info.value.__notes__)


def test_load_missing_attribute(task_module):
    spec = TaskSpec("ns/Task-v0", f"{task_module}:Missing")
    with pytest.raises(ImportError, match=f"module '{task_module}' has no attribute 'Missing'"):
        spec.load()


def test_load_non_callable(task_module):
    spec = TaskSpec("ns/Task-v0", f"{task_module}:NOT_CALLABLE")
    with pytest.raises(TypeError, match="is a int, not a class or callable"):
        spec.load()


def test_make_requires_a_gymnasium_env(task_module):
    spec = TaskSpec("ns/Task-v0", f"{task_module}:not_an_env")
    with pytest.raises(TypeError, match=r"returned a object, not a gymnasium\.Env"):
        spec.make()


def test_wrapper_spec(task_module):
    spec = WrapperSpec("Tiny", f"{task_module}:TinyWrapper", description="d")
    assert spec.load().__name__ == "TinyWrapper"
    assert WrapperSpec("lab/Noise.v2", "pkg:Cls").name == "lab/Noise.v2"


@pytest.mark.parametrize("name", ["", "1abc", "a b", "a/b/c", None])
def test_wrapper_spec_bad_name(name):
    with pytest.raises(ValueError, match=f"invalid wrapper name {name!r}"):
        WrapperSpec(name, "pkg:Cls")  # type: ignore[arg-type]


def test_wrapper_spec_bad_entry_point():
    with pytest.raises(ValueError, match="invalid entry_point 'pkg' for wrapper 'W'"):
        WrapperSpec("W", "pkg")
