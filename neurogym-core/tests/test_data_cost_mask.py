"""TrainingBatch.cost_mask: Yang et al. (2019)'s loss weights."""

from __future__ import annotations

import numpy as np
import pytest
from data_tasks import VarTask

import neurogym


def _by_hand(length: int, start: int, steps: int, dt: float) -> np.ndarray:
    """The weights of ``Trial.add_c_mask`` (gyyang/multitask), written as that code's loops."""
    row = np.zeros(steps, dtype=np.float32)
    row[start + int(100 / dt) : length] = 5.0  # post_ons = fixation offset + 100 ms
    row[int(100 / dt) : start] = 1.0  # never check the first 100 ms
    return row


@pytest.mark.parametrize("dt", [100, 50])
def test_weights_per_step_follow_the_published_rule(dt):
    batch = neurogym.batch(VarTask(dt=dt), 64, seed=0)  # ragged decision starts and lengths
    start = batch.periods["decision"][0]
    assert len(set(start.tolist())) > 1
    steps = batch.inputs.shape[1]
    expected = np.stack(
        [_by_hand(int(n), int(s), steps, dt) for n, s in zip(batch.lengths, start, strict=True)]
    )
    np.testing.assert_array_equal(batch.cost_mask(), expected)
    assert not batch.cost_mask()[~batch.valid].any()  # padding never counts


def test_per_output_mask_doubles_the_fixation_output_and_time_major_transposes():
    batch = neurogym.batch(VarTask(), 16, seed=1)
    plain = batch.cost_mask()
    per_output = batch.cost_mask(outputs=3)
    assert per_output.shape == (*plain.shape, 3)
    np.testing.assert_array_equal(per_output[..., 0], 2 * plain)
    np.testing.assert_array_equal(per_output[..., 2], plain)
    major = neurogym.batch(VarTask(), 16, seed=1, time_major=True)
    np.testing.assert_array_equal(major.cost_mask(), plain.T)
    custom = batch.cost_mask(pre=2.0, post=10.0, fixation=1.0, outputs=2)
    np.testing.assert_array_equal(custom[..., 0], 2 * plain)


def test_an_unknown_response_period_is_refused():
    batch = neurogym.batch(VarTask(), 4, seed=2)
    with pytest.raises(ValueError, match="no 'response' period to anchor the cost mask"):
        batch.cost_mask("response")


def test_period_sum_adds_a_periods_inputs_per_trial_and_ignores_padding():
    import neurogym
    from neurogym.data import TrainingBatch

    inputs = np.arange(2 * 4 * 2, dtype=float).reshape(2, 4, 2)  # (B, T, dims)
    periods = {
        "a": (np.array([0, 1]), np.array([2, 2])),
        "b": (np.array([2, 2]), np.array([4, 3])),
    }
    data = TrainingBatch(inputs, None, None, None, np.array([4, 3]), {}, periods)
    a_all = [inputs[0, 0] + inputs[0, 1], inputs[1, 1]]
    np.testing.assert_array_equal(data.period_sum("a"), a_all)
    b_dim1 = [inputs[0, 2, 1] + inputs[0, 3, 1], inputs[1, 2, 1]]  # trial 1 ends at step 3
    np.testing.assert_array_equal(data.period_sum("b", 1), b_dim1)
    both = data.period_sum(["a", "b"], [0])
    np.testing.assert_array_equal(both[:, 0], [inputs[0, :, 0].sum(), inputs[1, 1:3, 0].sum()])
    flipped = TrainingBatch(
        np.swapaxes(inputs, 0, 1), None, None, None, np.array([4, 3]), {}, periods, True
    )
    np.testing.assert_array_equal(flipped.period_sum("b"), data.period_sum("b"))
    with pytest.raises(ValueError, match=r"unknown period 'c'; periods: \['a', 'b'\]"):
        data.period_sum("c")
    assert neurogym.TrialEnv.ideal_observer(None, data) is None  # the default: no observer
