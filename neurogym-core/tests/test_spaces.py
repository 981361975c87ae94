"""neurogym.spaces: gymnasium Box/Discrete with validated, preserved dim names."""

from __future__ import annotations

import copy
import inspect
import pickle

import gymnasium
import numpy as np
import pytest

from neurogym import spaces

INF = np.inf


# --------------------------------------------------------------------------- name validation
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, 0),
        (4, 4),
        (np.int64(3), 3),
        ([1, 2], (1, 2)),
        ((3, 1), (3, 1)),
        ([], ()),
        (range(1, 4), (1, 2, 3)),
        (range(0, 5, 2), (0, 2, 4)),
        (slice(1, 3), (1, 2)),
        (slice(None, None, 2), (0, 2, 4)),
        (slice(3, None), (3, 4)),
        (slice(-2, None), (3, 4)),
        (np.array([0, 4]), (0, 4)),
        (np.arange(2, 5, dtype=np.int32), (2, 3, 4)),
    ],
)
def test_box_name_forms_are_normalised(value, expected):
    box = spaces.Box(-INF, INF, shape=(5,), name={"dim": value})
    assert box.name == {"dim": expected}
    assert type(box.name["dim"]) is type(expected)


def test_box_names_index_the_last_axis():
    box = spaces.Box(0.0, 1.0, shape=(2, 3), name={"a": 2, "b": [0, 1]})
    assert box.name == {"a": 2, "b": (0, 1)}
    with pytest.raises(ValueError, match=r"name 'a': indices \[3\] are outside .*\[0, 2\]"):
        spaces.Box(0.0, 1.0, shape=(2, 3), name={"a": 3})


def test_scalar_box_has_one_nameable_dim():
    assert spaces.Box(0.0, 1.0, shape=(), name={"only": 0}).name == {"only": 0}
    with pytest.raises(ValueError, match=r"\[0, 0\]"):
        spaces.Box(0.0, 1.0, shape=(), name={"only": 1})


def test_no_name_means_none():
    assert spaces.Box(0.0, 1.0, shape=(2,)).name is None
    assert spaces.Discrete(2).name is None


@pytest.mark.parametrize(
    ("value", "bad"),
    [
        (3, "[3]"),
        (-1, "[-1]"),
        ([0, 3, 7], "[3, 7]"),
        (range(2, 5), "[3, 4]"),
        (np.array([5]), "[5]"),
    ],
)
def test_box_name_out_of_range_raises_value_error_naming_indices(value, bad):
    with pytest.raises(ValueError, match=r"name 'stim': indices ") as info:
        spaces.Box(-INF, INF, shape=(3,), name={"stim": value})
    assert f"indices {bad} are outside the valid range [0, 2]" in str(info.value)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("abc", "name 'x': unsupported value 'abc' of type str"),
        (1.5, "name 'x': unsupported value 1.5 of type float"),
        (True, "name 'x': unsupported value True of type bool"),
        (None, "name 'x': unsupported value None of type NoneType"),
        ({"a": 1}, "of type dict"),
        ([0.0, 1.0], "name 'x': indices must be integers"),
        ([True, False], "name 'x': indices must be integers"),
        (np.array([[0, 1]]), "name 'x': indices must be integers"),
        (np.array([0.5]), "name 'x': indices must be integers"),
    ],
)
def test_box_name_bad_types_raise_type_error(value, message):
    with pytest.raises(TypeError) as info:
        spaces.Box(-INF, INF, shape=(3,), name={"x": value})
    assert message in str(info.value)
    assert "valid: an int, a list/tuple/array of ints, a range or a slice" in str(info.value)


def test_name_must_be_a_mapping_with_str_keys():
    with pytest.raises(TypeError, match="name must be a mapping of dim name to indices or None"):
        spaces.Box(0.0, 1.0, shape=(2,), name=[0, 1])
    with pytest.raises(TypeError, match="got list"):
        spaces.Discrete(2, name=[0, 1])
    with pytest.raises(TypeError, match="dim names must be str, got 0"):
        spaces.Box(0.0, 1.0, shape=(2,), name={0: 1})


def test_discrete_names_are_action_values_checked_against_start():
    space = spaces.Discrete(3, start=1, name={"fixation": 1, "choice": [2, 3]})
    assert space.name == {"fixation": 1, "choice": (2, 3)}
    assert spaces.Discrete(3, start=1, name={"c": slice(2, None)}).name == {"c": (2, 3)}
    with pytest.raises(ValueError, match=r"name 'fixation': indices \[0\] .*\[1, 3\]"):
        spaces.Discrete(3, start=1, name={"fixation": 0})
    with pytest.raises(ValueError, match=r"indices \[4\]"):
        spaces.Discrete(3, start=1, name={"choice": range(2, 5)})
    with pytest.raises(TypeError, match="name 'choice': unsupported value 'left'"):
        spaces.Discrete(3, name={"choice": "left"})


def test_negative_discrete_start_accepts_negative_values():
    space = spaces.Discrete(3, start=-1, name={"left": -1, "rest": [0, 1]})
    assert space.name == {"left": -1, "rest": (0, 1)}


# --------------------------------------------------------------------------- equality, repr
def test_equality_includes_names():
    a = spaces.Box(-INF, INF, shape=(3,), name={"fixation": 0, "stimulus": [1, 2]})
    b = spaces.Box(-INF, INF, shape=(3,), name={"fixation": 0, "stimulus": range(1, 3)})
    c = spaces.Box(-INF, INF, shape=(3,), name={"fixation": 0, "stimulus": [1]})
    unnamed = spaces.Box(-INF, INF, shape=(3,))
    assert a == b
    assert a != c
    assert a != unnamed
    assert unnamed == spaces.Box(-INF, INF, shape=(3,))
    assert a != spaces.Box(-1.0, INF, shape=(3,), name=a.name)  # bounds still count
    d1 = spaces.Discrete(3, name={"choice": [1, 2]})
    assert d1 == spaces.Discrete(3, name={"choice": (1, 2)})
    assert d1 != spaces.Discrete(3, name={"choice": [2, 1]})
    assert d1 != spaces.Discrete(3)
    assert d1 != spaces.Discrete(3, start=1, name={"choice": [1, 2]})


def test_equality_is_symmetric_with_plain_gymnasium_spaces():
    named = spaces.Discrete(3, name={"a": 0})
    plain = gymnasium.spaces.Discrete(3)
    assert (named == plain) == (plain == named)
    named_box = spaces.Box(0.0, 1.0, shape=(2,), name={"a": 0})
    plain_box = gymnasium.spaces.Box(0.0, 1.0, shape=(2,))
    assert (named_box == plain_box) == (plain_box == named_box)


def test_hashing():
    assert hash(spaces.Discrete(3, name={"a": 0})) == hash(spaces.Discrete(3))
    with pytest.raises(TypeError):
        hash(spaces.Box(0.0, 1.0, shape=(2,)))


def test_repr_shows_names():
    box = spaces.Box(0.0, 1.0, shape=(3,), name={"fixation": 0, "stimulus": [1, 2]})
    assert repr(box) == "Box(0.0, 1.0, (3,), float32, name={'fixation': 0, 'stimulus': (1, 2)})"
    assert repr(spaces.Box(0.0, 1.0, shape=(3,))) == "Box(0.0, 1.0, (3,), float32)"
    act = spaces.Discrete(3, name={"fixation": 0, "choice": [1, 2]})
    assert repr(act) == "Discrete(3, name={'fixation': 0, 'choice': (1, 2)})"
    assert (
        repr(spaces.Discrete(3, start=1, name={"a": 1})) == "Discrete(3, start=1, name={'a': 1})"
    )
    assert repr(spaces.Discrete(4)) == "Discrete(4)"


# --------------------------------------------------------------------------- copies
COPIERS = [
    pytest.param(lambda s: pickle.loads(pickle.dumps(s)), id="pickle"),
    pytest.param(copy.copy, id="copy"),
    pytest.param(copy.deepcopy, id="deepcopy"),
]


@pytest.mark.parametrize("clone", COPIERS)
def test_copies_keep_names(clone):
    box = spaces.Box(-INF, INF, shape=(3,), dtype=np.float64, name={"f": 0, "s": [1, 2]})
    act = spaces.Discrete(4, start=1, name={"f": 1, "choice": range(2, 5)})
    for space in (box, act):
        other = clone(space)
        assert type(other) is type(space)
        assert other.name == space.name
        assert other == space
        assert repr(other) == repr(space)
    assert clone(box).dtype == np.float64
    assert clone(act).start == 1


def test_deepcopy_does_not_share_the_name_dict():
    box = spaces.Box(0.0, 1.0, shape=(2,), name={"a": 0})
    other = copy.deepcopy(box)
    other.name["b"] = 1
    assert box.name == {"a": 0}


def test_unpickling_a_state_without_name_gives_none():
    """Pickles made before names existed (or by plain gymnasium code) still load."""
    for space in (
        spaces.Box(0.0, 1.0, shape=(2,), name={"a": 0}),
        spaces.Discrete(2, name={"a": 0}),
    ):
        state = dict(space.__dict__)
        del state["name"]
        fresh = type(space).__new__(type(space))
        fresh.__setstate__(state)
        assert fresh.name is None
        assert fresh == type(space)(*((0.0, 1.0, (2,)) if isinstance(space, spaces.Box) else (2,)))


# --------------------------------------------------------------------------- gymnasium kwargs
def test_discrete_forwards_start_and_seed():
    space = spaces.Discrete(3, start=5, seed=0, name={"c": [6, 7]})
    reference = gymnasium.spaces.Discrete(3, start=5, seed=0)
    assert space.start == 5
    draws = [int(space.sample()) for _ in range(50)]
    assert draws == [int(reference.sample()) for _ in range(50)]
    assert set(draws) == {5, 6, 7}
    assert space.contains(np.int64(7))
    assert not space.contains(np.int64(4))
    assert not space.contains(np.int64(8))


def test_discrete_positional_arguments_follow_gymnasium():
    space = spaces.Discrete(3, 1, 2)  # n, seed, start
    assert space.start == 2
    assert int(space.sample()) == int(gymnasium.spaces.Discrete(3, 1, 2).sample())


def test_discrete_seed_accepts_a_generator():
    space = spaces.Discrete(10, seed=np.random.default_rng(3))
    reference = gymnasium.spaces.Discrete(10, seed=np.random.default_rng(3))
    assert [int(space.sample()) for _ in range(20)] == [int(reference.sample()) for _ in range(20)]


DISCRETE_HAS_DTYPE = "dtype" in inspect.signature(gymnasium.spaces.Discrete.__init__).parameters


@pytest.mark.skipif(not DISCRETE_HAS_DTYPE, reason="this gymnasium's Discrete has no dtype")
def test_discrete_forwards_dtype():
    space = spaces.Discrete(3, dtype=np.int32, name={"a": 0})
    assert space.dtype == np.int32
    assert space.sample().dtype == np.int32


def test_box_forwards_dtype_shape_and_seed():
    box = spaces.Box(-1.0, 1.0, shape=(2, 3), dtype=np.float64, seed=4, name={"a": [0, 2]})
    reference = gymnasium.spaces.Box(-1.0, 1.0, shape=(2, 3), dtype=np.float64, seed=4)
    assert box.shape == (2, 3)
    assert box.dtype == np.float64
    sample = box.sample()
    assert sample.dtype == np.float64
    np.testing.assert_array_equal(sample, reference.sample())
    assert box.contains(sample)


def test_box_array_bounds_and_integer_dtype():
    box = spaces.Box(np.array([0, -5]), np.array([3, 5]), dtype=np.int64, name={"x": 0, "y": 1})
    assert box.shape == (2,)
    assert box.dtype == np.int64
    np.testing.assert_array_equal(box.low, [0, -5])
    box.seed(0)
    samples = np.array([box.sample() for _ in range(200)])
    assert samples.dtype == np.int64
    assert samples[:, 0].min() >= 0
    assert samples[:, 0].max() <= 3
    assert samples[:, 1].min() >= -5
    assert samples[:, 1].max() <= 5


def test_box_contains_uses_gymnasium_rules():
    box = spaces.Box(0.0, 1.0, shape=(2,), name={"a": 0})
    assert box.contains(np.array([0.5, 1.0], dtype=np.float32))
    assert not box.contains(np.array([0.5, 1.5], dtype=np.float32))
    assert not box.contains(np.array([0.5], dtype=np.float32))  # wrong shape
    assert not box.contains(np.array([0.5, 0.5], dtype=np.float64))  # cannot cast to float32
    assert np.array([0.2, 0.3], dtype=np.float32) in box


def test_gymnasium_utilities_accept_named_spaces():
    box = spaces.Box(-INF, INF, shape=(2, 3), name={"a": 0})
    assert spaces.flatdim(box) == 6
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(spaces.unflatten(box, spaces.flatten(box, x)), x)
    act = spaces.Discrete(3, name={"a": 0})
    np.testing.assert_array_equal(spaces.flatten(act, 2), [0, 0, 1])
    assert spaces.flatdim(spaces.Dict({"ob": box, "act": act})) == 9


def test_aliases_and_reexports():
    assert spaces.NamedBox is spaces.Box
    assert spaces.NamedDiscrete is spaces.Discrete
    assert issubclass(spaces.Box, gymnasium.spaces.Box)
    assert issubclass(spaces.Discrete, gymnasium.spaces.Discrete)
    for name in ("Dict", "MultiBinary", "MultiDiscrete", "Space", "Tuple"):
        assert getattr(spaces, name) is getattr(gymnasium.spaces, name)
    for name in ("flatdim", "flatten", "unflatten"):
        assert getattr(spaces, name) is getattr(gymnasium.spaces, name)
