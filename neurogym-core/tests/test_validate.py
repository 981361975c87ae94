"""neurogym.validate: conversions, and messages naming the argument, value and what is valid."""

from __future__ import annotations

import numpy as np
import pytest

from neurogym import validate


@pytest.mark.parametrize("value", [3, np.int64(3), np.uint8(3)])
def test_integer_accepts_python_and_numpy_ints(value):
    result = validate.integer(value, "n", minimum=1, maximum=5)
    assert result == 3
    assert type(result) is int


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (2.0, TypeError, "n must be an int in [1, 5], got 2.0"),
        (True, TypeError, "n must be an int in [1, 5], got True"),
        ("2", TypeError, "n must be an int in [1, 5], got '2'"),
        (0, ValueError, "n must be an int in [1, 5], got 0"),
        (6, ValueError, "n must be an int in [1, 5], got 6"),
    ],
)
def test_integer_rejects(value, error, message):
    with pytest.raises(error) as caught:
        validate.integer(value, "n", minimum=1, maximum=5)
    assert str(caught.value) == message


def test_positive_int_message():
    with pytest.raises(ValueError, match=r"^dim_ring must be an int >= 1, got -2$"):
        validate.positive_int(-2, "dim_ring")
    assert validate.positive_int(np.int32(7), "dim_ring") == 7


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (float("nan"), ValueError, "sigma must be a finite number >= 0, got nan"),
        (float("inf"), ValueError, "sigma must be a finite number >= 0, got inf"),
        (-0.5, ValueError, "sigma must be a finite number >= 0, got -0.5"),
        (False, TypeError, "sigma must be a finite number >= 0, got False"),
        ("1", TypeError, "sigma must be a finite number >= 0, got '1'"),
        ([1.0], TypeError, "sigma must be a finite number >= 0, got [1.0]"),
    ],
)
def test_number_rejects(value, error, message):
    with pytest.raises(error) as caught:
        validate.number(value, "sigma", minimum=0)
    assert str(caught.value) == message


def test_number_bounds_and_conversion():
    assert validate.number(np.float32(0.5), "x", minimum=0, maximum=1) == 0.5
    assert type(validate.number(2, "x")) is float
    with pytest.raises(ValueError, match=r"^dt must be a finite number > 0, got 0$"):
        validate.number(0, "dt", minimum=0, exclusive_minimum=True)
    with pytest.raises(ValueError, match=r"^p must be a finite number in \(0, 1\], got 0.0$"):
        validate.number(0.0, "p", minimum=0, maximum=1, exclusive_minimum=True)
    with pytest.raises(ValueError, match=r"^x must be a finite number <= 2, got 3$"):
        validate.number(3, "x", maximum=2)


def test_probability():
    assert validate.probability(1, "catch_prob") == 1.0
    with pytest.raises(
        ValueError, match=r"^catch_prob must be a finite number in \[0, 1\], got 1.5$"
    ):
        validate.probability(1.5, "catch_prob")


@pytest.mark.parametrize(
    "values", [[0.5, 0.6], [1.5, -0.5], [[0.5, 0.5]], [], [0.5, float("nan")], ["a", "b"]]
)
def test_probabilities_rejects(values):
    with pytest.raises(ValueError, match="must") as caught:
        validate.probabilities(values, "p")
    assert (
        str(caught.value) == f"p must be non-negative probabilities summing to 1, got {values!r}"
    )


def test_probabilities_size():
    np.testing.assert_array_equal(validate.probabilities((0.25, 0.75), "p", size=2), [0.25, 0.75])
    with pytest.raises(ValueError, match=r"^p must be 3 non-negative probabilities summing to 1"):
        validate.probabilities([0.5, 0.5], "p", size=3)


def test_choice_names_the_options_and_the_closest():
    assert validate.choice("MIT", "license", ("MIT", "Apache-2.0")) == "MIT"
    with pytest.raises(ValueError, match="must") as caught:
        validate.choice("Apache", "license", ("MIT", "Apache-2.0"))
    assert str(caught.value) == (
        "license must be one of 'MIT', 'Apache-2.0', got 'Apache'; did you mean 'Apache-2.0'?"
    )
    with pytest.raises(ValueError, match=r"^k must be one of 1, 2, got \[1\]$"):
        validate.choice([1], "k", {1, 2})


def test_integers_in_range():
    out = validate.integers_in_range([0, 1.0, np.int8(2)], "ground_truth", 0, 2)
    np.testing.assert_array_equal(out, [0, 1, 2])
    assert out.dtype == np.int64
    with pytest.raises(ValueError, match="must") as caught:
        validate.integers_in_range([0, 3, 1.5, -1], "ground_truth", 0, 2)
    assert str(caught.value) == "ground_truth must hold ints in [0, 2], got [3.0, 1.5, -1.0]"
    with pytest.raises(ValueError, match="must hold ints in"):
        validate.integers_in_range(["a"], "ground_truth", 0, 2)
