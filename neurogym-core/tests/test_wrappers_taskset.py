"""TaskSet: tasks sharing spaces, one per trial, with a rule input; mixed batches."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from data_tasks import VarTask
from wrapper_tasks import Counter, Toy

import neurogym
from neurogym import spaces
from neurogym import wrappers as ngw
from neurogym.testing import check_task


def _set(**kwargs: Any) -> ngw.TaskSet:
    return ngw.TaskSet([Toy(), VarTask(), Toy(stimulus=600)], names=["a", "b", "c"], **kwargs)


def test_rule_input_names_the_task_at_every_step_and_the_shape_never_changes():
    env = _set()
    assert env.observation_space.shape == (6,)
    assert env.observation_space.name["rule"] == (3, 4, 5)
    ob, _ = env.reset(seed=0)
    seen = set()
    for _ in range(400):
        task = env.names.index(env.active_env.unwrapped.trial["task"])
        assert ob.shape == (6,)
        np.testing.assert_array_equal(ob[3:], np.eye(3)[task])
        ob, _, _, _, info = env.step(0)
        if info["new_trial"]:
            seen.add(info["trial"]["task"])  # the trial that just ended names its task
    assert seen == {"a", "b", "c"}


def test_the_task_sequence_is_fixed_by_the_seed_and_follows_p():
    def tasks(env: ngw.TaskSet, seed: int, n: int = 600) -> list[str]:
        env.reset(seed=seed)
        out = []
        for _ in range(n):
            out.append(env.new_trial()["task"])
        return out

    assert tasks(_set(), 3) == tasks(_set(), 3)
    assert tasks(_set(), 3) != tasks(_set(), 4)
    assert set(tasks(_set(p=[1.0, 0.0, 0.0]), 5, 50)) == {"a"}
    drawn = np.array(tasks(_set(p=[0.6, 0.3, 0.1]), 6, 3000))
    for name, p in (("a", 0.6), ("b", 0.3), ("c", 0.1)):
        assert abs(np.mean(drawn == name) - p) < 5 * np.sqrt(p * (1 - p) / 3000)
    repeats = np.mean(drawn[1:] == drawn[:-1])  # independent draws, not a no-repeat rule
    assert repeats == pytest.approx(0.6**2 + 0.3**2 + 0.1**2, abs=0.05)


def test_task_can_be_forced_by_name_or_index():
    env = _set()
    env.reset(seed=0)
    assert env.new_trial(task="c")["task"] == "c"
    assert env.new_trial(task=1)["task"] == "b"
    with pytest.raises(ValueError, match=r"task must be one of 'a', 'b', 'c', got 'd'"):
        env.new_trial(task="d")
    with pytest.raises(ValueError, match=r"task must be an int in \[0, 2\], got 3"):
        env.new_trial(task=3)


class _FourChoices(Toy):
    def __init__(self) -> None:
        super().__init__()
        self.action_space = spaces.Discrete(4)


def test_tasks_that_do_not_share_spaces_are_refused_naming_the_space():
    with pytest.raises(
        ValueError, match=r"the observation_space of 'Counter' is .*\(2,\).*, but 'Toy' has"
    ):
        ngw.TaskSet([Toy(), Counter()], names=["Toy", "Counter"])
    with pytest.raises(ValueError, match=r"the action_space of 'four' is Discrete\(4\)"):
        ngw.TaskSet([Toy(), _FourChoices()], names=["toy", "four"])
    with pytest.raises(ValueError, match="one dt: 'slow' has dt=50"):
        ngw.TaskSet([Toy(), Toy(dt=50)], names=["toy", "slow"])
    with pytest.raises(ValueError, match="one distinct name per task"):
        ngw.TaskSet([Toy(), Toy(value=2.0)])  # both default to the class name
    with pytest.raises(ValueError, match="p must be 2 non-negative probabilities"):
        ngw.TaskSet([Toy(), VarTask()], p=[0.5, 0.6])


def test_mixed_batch_rows_are_each_tasks_own_batch_with_the_rule_input():
    env = _set()
    for i, task in enumerate(env.envs):
        mixed = neurogym.batch(env, 5, seed=11, task=env.names[i])
        # the same generator in one pass, no schedule draw (an int seed would draw the
        # task's blocks of 128, as its single env does)
        alone = neurogym.batch(task, 5, seed=np.random.default_rng(11))
        t = alone.inputs.shape[1]
        np.testing.assert_array_equal(mixed.inputs[:, :t, :3], alone.inputs)
        np.testing.assert_array_equal(mixed.inputs[..., 3 + i], mixed.valid)
        assert mixed.inputs[..., 3:].sum() == mixed.valid.sum()
        np.testing.assert_array_equal(mixed.targets[:, :t], alone.targets)
        np.testing.assert_array_equal(mixed.mask[:, :t], alone.mask)


def test_mixed_batch_layout_pads_and_fills_what_a_task_lacks():
    trials = _set().new_trials(400)
    task = trials.trial["task"]
    assert set(task.tolist()) == {"a", "b", "c"}
    a, b, c = (task == name for name in "abc")
    assert set(trials.lengths[a].tolist()) == {5}
    assert set(trials.lengths[c].tolist()) == {8}
    assert np.all(trials.ob[~trials.valid] == 0)  # padding, rule dims included
    start, end = trials.periods["delay"]  # VarTask's period only
    assert np.all(start[a | c] == 0)
    assert np.all(end[a | c] == 0)
    assert np.all(end[b] >= start[b])
    assert np.all(np.isnan(trials.trial["coh"][a | c]))
    assert not np.any(np.isnan(trials.trial["coh"][b]))
    assert np.all(trials.trial["n_steps"][a | c] == -1)
    np.testing.assert_array_equal(trials.trial["n_steps"][b], trials.lengths[b])
    # ground truth in every task's decision period
    rows = np.arange(400)
    np.testing.assert_array_equal(
        trials.gt[rows, trials.periods["decision"][0]], trials.trial["ground_truth"] + 1
    )


def test_mixed_batches_are_seeded_and_forced_values_split_by_task():
    first = neurogym.batch(_set(), 64, seed=3)
    again = neurogym.batch(_set(), 64, seed=3)
    np.testing.assert_array_equal(first.inputs, again.inputs)
    np.testing.assert_array_equal(first.trial["task"], again.trial["task"])
    gt = np.arange(64) % 2
    forced = neurogym.batch(_set(), 64, seed=3, ground_truth=gt)
    np.testing.assert_array_equal(forced.trial["ground_truth"], gt)
    with pytest.raises(ValueError, match="forced task must be one name/index or 64"):
        neurogym.batch(_set(), 64, seed=3, task=["a", "b"])


def test_streams_and_the_conformance_kit_accept_a_task_set():
    ds = neurogym.Dataset(_set(), batch_size=4, seq_len=30, seed=0)
    batch = ds.next_batch()
    assert batch.inputs.shape == (30, 4, 6)
    assert set(batch.trial["task"].tolist()) <= {"a", "b", "c"}
    check_task(_set(), steps=200)


def test_from_ids_makes_each_task():
    env = ngw.TaskSet.from_ids(["neurogym/Null-v0"])
    assert env.names == ("neurogym/Null-v0",)
    assert env.observation_space.shape == (2,)


def test_random_schedule_probabilities():
    with pytest.raises(ValueError, match="p= needs repeat=True"):
        ngw.RandomSchedule(2, repeat=False, p=[0.5, 0.5])
    schedule = ngw.RandomSchedule(3, p=[0.0, 1.0, 0.0])
    assert {schedule(np.random.default_rng(0)) for _ in range(20)} == {1}
    assert "p=[0.0, 1.0, 0.0]" in repr(schedule)
