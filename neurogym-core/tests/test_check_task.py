"""neurogym.testing.check_task: passes on a good task, names every failed check otherwise."""

from __future__ import annotations

import re

import numpy as np
import pytest

from neurogym import StandardDecision, TrialEnv, spaces
from neurogym.testing import INFORMATIONAL_WARNINGS, TaskCheckError, check_task

CHECKS = (
    "gymnasium_checker",
    "determinism",
    "pickling",
    "spaces_and_arrays",
    "named_dims",
    "metadata",
    "batch",
    "supervised_data",
)


class Good(TrialEnv):
    """A small, well-behaved fixate-then-respond task."""

    metadata = {  # noqa: RUF012
        "paper_name": "A test task",
        "paper_link": "https://example.org",
        "tags": ["test"],
    }
    rule = StandardDecision()

    def __init__(self, dt=100):
        super().__init__(dt=dt)
        self.timing = {"fixation": 200, "stimulus": ("uniform", (100, 400)), "decision": 200}
        self.rewards = {"abort": -0.1, "correct": 1.0, "fail": 0.0}
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(3,), name={"fixation": 0, "stimulus": [1, 2]}
        )
        self.action_space = spaces.Discrete(3, name={"fixation": 0, "choice": [1, 2]})

    def _new_trials(self, b, **kwargs):
        b.add_period(["fixation", "stimulus", "decision"])
        gt = b.choice("ground_truth", [0, 1])
        b.add_input(1, ["fixation", "stimulus"], "fixation")
        b.add_input(np.stack([gt, 1 - gt], axis=-1) * 0.5, "stimulus", "stimulus")
        b.add_noise(0, 0.1, "stimulus", "stimulus")
        b.set_target(gt, "decision", "choice")
        return {}


class GoodUpstream(Good):
    """The same task written upstream-style (``_new_trial`` + ``_step``)."""

    _new_trials = TrialEnv._new_trials
    rule = None

    def _new_trial(self, **kwargs):
        trial = {"ground_truth": int(self.rng.integers(2))}
        trial.update(kwargs)
        self.add_period(["fixation", "stimulus", "decision"])
        self.add_ob(1, ["fixation", "stimulus"], "fixation")
        self.add_randn(0, 0.1, "stimulus", "stimulus")
        self.set_groundtruth(trial["ground_truth"], "decision", "choice")
        return trial

    def _step(self, action):
        new_trial = self.in_period("decision") and action != 0
        reward = float(new_trial and action == self.gt_now)
        return self.ob_now, reward, False, False, {"new_trial": new_trial}


def failures_of(env, **kwargs):
    with pytest.raises(TaskCheckError) as info:
        check_task(env, **kwargs)
    error = info.value
    names = [failure.split(":", 1)[0] for failure in error.failures]
    assert set(names) <= set(CHECKS)
    assert str(error).startswith(
        f"{error.task} failed {len(error.failures)} conformance check(s):"
    )
    for failure in error.failures:
        assert f"  - {failure}" in str(error)
    return names, error


@pytest.mark.parametrize("task", [Good, GoodUpstream])
def test_a_good_task_passes(task):
    assert check_task(task(), steps=300) is None


def test_the_instance_is_copied_not_stepped():
    env = Good()
    check_task(env, steps=100)
    assert env._current.empty
    assert env.t_ind == 0
    assert env.num_tr == 0


def test_infinite_bounds_are_informational():
    assert any("infinity" in pattern for pattern in INFORMATIONAL_WARNINGS)


def test_task_check_error_is_an_assertion_error():
    error = TaskCheckError("<X>", ["determinism: boom", "metadata: bad"])
    assert isinstance(error, AssertionError)
    assert error.task == "<X>"
    assert error.failures == ["determinism: boom", "metadata: bad"]
    assert (
        str(error)
        == "<X> failed 2 conformance check(s):\n  - determinism: boom\n  - metadata: bad"
    )


# --------------------------------------------------------------------------- broken tasks
class OutOfSpace(Good):
    """Observations reach 2 in a Box(0, 1)."""

    def __init__(self):
        super().__init__()
        self.observation_space = spaces.Box(
            0.0, 1.0, shape=(3,), name={"fixation": 0, "stimulus": [1, 2]}
        )

    def _new_trials(self, b, **kwargs):
        super()._new_trials(b, **kwargs)
        b.set_input(2.0, "decision", "fixation")
        return {}


def test_observations_outside_the_space_fail():
    names, error = failures_of(OutOfSpace(), steps=200)
    assert "spaces_and_arrays" in names
    assert "outside" in str(error)


class GlobalRandom(Good):
    """Draws its ground truth from numpy's global generator: not reproducible."""

    def _new_trials(self, b, **kwargs):
        b.add_period(["fixation", "stimulus", "decision"])
        gt = np.random.randint(0, 2, size=b.n)
        b.add_input(np.random.uniform(size=(b.n, 2)), "stimulus", "stimulus")
        b.set_target(gt, "decision", "choice")
        return {}


def test_a_task_using_the_global_rng_fails_determinism():
    names, error = failures_of(GlobalRandom(), steps=200)
    assert "determinism" in names
    assert re.search(
        r"determinism: AssertionError: two envs reset with seed=123 diverge at step \d+",
        str(error),
    )
    assert "draw every random value through the trial builder (b.choice" in str(error)


class WrongShape(GoodUpstream):
    """Returns a 4-dim observation for a 3-dim space."""

    def _step(self, action):
        _, *rest = super()._step(action)
        return np.zeros(4, dtype=np.float32), *rest


def test_an_ob_of_the_wrong_shape_fails():
    names, error = failures_of(WrongShape(), steps=100)
    assert "spaces_and_arrays" in names
    assert "step 0: observation array([0., 0., 0., 0.], dtype=float32) outside the space" in str(
        error
    )
    assert "gymnasium_checker" in names


class WrongDtype(GoodUpstream):
    """Returns float64 observations for a float32 space."""

    def _step(self, action):
        _, *rest = super()._step(action)
        return self.ob[self.t_ind].astype(np.float64), *rest


def test_an_ob_of_the_wrong_dtype_fails():
    names, error = failures_of(WrongDtype(), steps=100)
    assert "spaces_and_arrays" in names
    assert "gymnasium_checker" in names
    assert "float64" in str(error)


class WrongArrayDtype(GoodUpstream):
    """Swaps its observation space for a float64 one after the ob array exists."""

    def _new_trial(self, **kwargs):
        trial = super()._new_trial(**kwargs)
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(3,), dtype=np.float64, name={"fixation": 0, "stimulus": [1, 2]}
        )
        return trial

    def _step(self, action):
        _, *rest = super()._step(action)
        return self.ob[self.t_ind].astype(np.float64), *rest


def test_an_ob_array_of_the_wrong_dtype_fails():
    names, error = failures_of(WrongArrayDtype(), steps=50)
    assert "spaces_and_arrays" in names
    assert "ob dtype float32 differs from the space's float64" in str(error)


class NoMetadata(TrialEnv):
    has_groundtruth = False

    def __init__(self):
        super().__init__()
        self.timing = {"a": 100}
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(1,))
        self.action_space = spaces.Discrete(2)

    def _new_trials(self, b, **kwargs):
        b.add_period("a")
        b.add_input(1, "a")
        return {}

    def _step(self, action):
        return self.ob_now, 0.0, False, False, {}


def test_missing_metadata_and_docstring_fail():
    names, error = failures_of(NoMetadata(), steps=50)
    assert names == ["metadata"]
    assert (
        "NoMetadata.metadata/docstring lacks ['paper_name', 'paper_link', 'tags', 'docstring']"
        in str(error)
    )


class NoTags(Good):
    """Documented, but untagged."""

    metadata = {"paper_name": "x", "paper_link": "https://example.org", "tags": []}  # noqa: RUF012


def test_partial_metadata_names_what_is_missing():
    names, error = failures_of(NoTags(), steps=50)
    assert names == ["metadata"]
    assert "lacks ['tags']" in str(error)


class Documented(Good):
    """The Good task without metadata of its own: its TaskSpec documents it."""

    metadata = {"render_modes": []}  # noqa: RUF012


def _registered(registry, cls_name, monkeypatch):
    """Register ``test_check_task:<cls_name>`` in ``registry`` and make it the default one."""
    from neurogym import TaskSpec
    from neurogym._registry import api as _api

    spec = TaskSpec(
        f"test/{cls_name}-v0",
        f"{__name__}:{cls_name}",
        tags=("test",),
        paper_name="A test task",
        paper_link="https://example.org",
        description="A fixate-then-respond test task.",
    )
    registry.register(spec)
    monkeypatch.setattr(_api, "get_registry", lambda: registry)
    return spec


def test_a_registered_task_takes_its_metadata_from_the_spec(ngym_registry, monkeypatch):
    spec = _registered(ngym_registry, "Documented", monkeypatch)
    for env in (spec.make(), Documented()):  # made from the spec, or built directly
        assert env.metadata == {
            "render_modes": [],
            "paper_name": "A test task",
            "paper_link": "https://example.org",
            "tags": ["test"],
            "description": "A fixate-then-respond test task.",
        }
    assert Documented.metadata == {"render_modes": []}  # the class itself is untouched
    check_task(spec.id, steps=50)


def test_a_class_restating_its_spec_fails(ngym_registry, monkeypatch):
    spec = _registered(ngym_registry, "Good", monkeypatch)
    with pytest.raises(TaskCheckError) as caught:
        check_task(spec.id, steps=50)
    assert caught.value.failures == [
        "metadata: AssertionError: Good.metadata restates ['paper_name', 'paper_link', 'tags']: "
        "the TaskSpec of test/Good-v0 holds them (write each fact once, in the plugin's hook "
        "module)"
    ]


class GtOutsideActions(Good):
    """Its ground truth (action 5) is not an action of Discrete(3)."""

    def _new_trials(self, b, **kwargs):
        super()._new_trials(b, **kwargs)
        b.set_target(5, "decision")
        return {}


def test_gt_outside_the_action_space_fails():
    names, error = failures_of(GtOutsideActions(), steps=100)
    assert "spaces_and_arrays" in names
    assert "info['gt'] = 5 outside the space" in str(error)


class Unpicklable(Good):
    """Holds a lambda, so it cannot be pickled."""

    def __init__(self):
        super().__init__()
        self.transform = lambda x: x


def test_an_unpicklable_task_fails_pickling():
    names, error = failures_of(Unpicklable(), steps=50)
    assert names == ["pickling"]
    assert "pickling: " in str(error)


class BatchMismatch(Good):
    """Builds different trials for a batch than for its own stepping."""

    def _new_trials(self, b, **kwargs):
        super()._new_trials(b, **kwargs)
        if b.env is not getattr(self, "_stepping", None):
            b.add_input(1.0, "decision", "stimulus")
        return {}

    def reset(self, *, seed=None, options=None):
        self._stepping = self
        try:
            return super().reset(seed=seed, options=options)
        finally:
            self._stepping = None


def test_a_batch_that_differs_from_the_single_envs_trials_fails():
    names, error = failures_of(BatchMismatch(), steps=50)
    assert "batch" in names
    expected = "trial 0 after reset(seed) differs from row 0 of new_trials(128) drawn from the"
    assert expected in str(error)


class BadName(Good):
    """Its action names point outside the space (set after construction-time validation)."""

    def __init__(self):
        super().__init__()
        self.action_space.name = {"fixation": 0, "choice": (1, 7)}


def test_named_dims_out_of_range_fail():
    names, error = failures_of(BadName(), steps=50)
    assert "named_dims" in names
    assert "action dim 'choice' has indices [7] out of range" in str(error)


class Everything(GlobalRandom):
    """Non-deterministic and without metadata."""

    metadata = {"render_modes": []}  # noqa: RUF012


def test_several_failures_are_all_listed():
    names, error = failures_of(Everything(), steps=100)
    assert {"determinism", "metadata"} <= set(names)
    assert f"failed {len(names)} conformance check(s)" in str(error)


# ============================================================ supervised-data contract
class NoTarget(Good):
    """A Good task whose trials set no ground truth, but which does not say so."""

    def _new_trials(self, b, **kwargs):
        b.add_period(["fixation", "stimulus", "decision"])
        b.add_input(1, ["fixation", "stimulus"], "fixation")
        return {}

    def _step(self, action):
        return self.ob_now, 0.0, False, False, {"new_trial": False}


class DeclaredNoTarget(NoTarget):
    """The same, declared."""

    has_groundtruth = False


def test_a_task_without_ground_truth_must_declare_it():
    names, error = failures_of(NoTarget(), steps=50)
    assert names == ["supervised_data"]
    assert error.failures == [
        "supervised_data: AssertionError: NoTarget declares has_groundtruth = True but its "
        "trials set no ground truth (set_groundtruth); declare has_groundtruth = False"
    ]
    check_task(DeclaredNoTarget(), steps=50)


def test_batches_of_a_task_without_ground_truth_raise():
    from neurogym import Dataset, batch

    message = (
        "neurogym.batch needs supervised targets, but DeclaredNoTarget declares "
        "has_groundtruth = False"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        batch(DeclaredNoTarget(), 4, seed=0)
    with pytest.raises(ValueError, match=r"^neurogym.Dataset needs supervised targets"):
        Dataset(DeclaredNoTarget(), batch_size=2, seq_len=10)


class Hand(Good):
    """Dim 'extra' shows where the agent's last action moved a hand."""

    def __init__(self, dt=100):
        super().__init__(dt=dt)
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(4,), name={"fixation": 0, "stimulus": [1, 2], "hand": 3}
        )

    def post_step(self, ob, reward, terminated, truncated, info):
        ob = ob.copy()
        ob[3] = float(self._last_action)
        return ob, reward, terminated, truncated, info

    def step(self, action):
        self._last_action = action
        return super().step(action)

    def reset(self, *, seed=None, options=None):
        self._last_action = 0
        return super().reset(seed=seed, options=options)


class DeclaredHand(Hand):
    """Hand, declared."""

    agent_dependent_dims = ("hand",)


class MisnamedHand(Hand):
    """Hand, declared under a dim name its space does not have."""

    agent_dependent_dims = ("hands",)


def test_agent_dependent_dims_must_be_declared_by_name():
    names, error = failures_of(Hand(), steps=50)
    assert names == ["supervised_data"]
    assert error.failures == [
        "supervised_data: AssertionError: Hand's observation dims [3] depend on the agent's "
        "actions within a trial; list them (by name) in agent_dependent_dims"
    ]
    _, error = failures_of(MisnamedHand(), steps=50)
    assert "agent_dependent_dims names ['hands'], which are not named dims" in str(error)
    check_task(DeclaredHand(), steps=50)


class Counting(Good):
    """Its stimulus shows how many trials came before: cross-trial state."""

    def reset(self, *, seed=None, options=None):
        self.count = 0
        return super().reset(seed=seed, options=options)

    def _new_trials(self, b, **kwargs):
        super()._new_trials(b, **kwargs)
        count = getattr(self, "count", 0)
        shown = (count + np.arange(b.n, dtype=float))[:, None] * np.ones(2)
        b.add_input(shown, "stimulus", "stimulus")
        self.count = count + b.n
        return {}


class DeclaredCounting(Counting):
    """Counting, declared."""

    cross_trial_state = True


BUILDER_HINT = (
    "draw every random value through the trial builder (b.choice, b.uniform, b.add_noise, "
    "b.rng), never from np.random or a generator of the task's own"
)


def test_cross_trial_state_must_be_declared():
    names, error = failures_of(Counting(), steps=50)
    assert names == ["supervised_data"]
    assert error.failures == [
        "supervised_data: AssertionError: Counting's trials depend on earlier trials, not only "
        f"on its generator's state: {BUILDER_HINT}; declare cross_trial_state = True only for "
        "state that truly carries from trial to trial (a rule block, a curriculum)"
    ]
    check_task(DeclaredCounting(), steps=50)


class UnseededDraws(Good):
    """Draws its ground truth from np.random, which reset(seed=...) does not fix."""

    def _new_trials(self, b, **kwargs):
        b.add_period(["fixation", "stimulus", "decision"])
        gt = np.random.default_rng().integers(2, size=b.n)  # not b.choice: not seeded
        b.add_input(1, ["fixation", "stimulus"], "fixation")
        b.add_input(np.stack([gt, 1 - gt], axis=-1) * 0.5, "stimulus", "stimulus")
        b.set_target(gt, "decision", "choice")
        return {"ground_truth": gt}


class OwnGenerator(UnseededDraws):
    """Draws from a generator of its own, seeded once when made: later trials differ."""

    def __init__(self, dt=100):
        super().__init__(dt=dt)
        self.own = np.random.default_rng(0)

    def _new_trials(self, b, **kwargs):
        b.add_period(["fixation", "stimulus", "decision"])
        gt = self.own.integers(2, size=b.n)
        b.add_input(1, ["fixation", "stimulus"], "fixation")
        b.set_target(gt, "decision", "choice")
        return {"ground_truth": gt}


def test_a_task_drawing_from_np_random_is_told_to_draw_through_the_builder():
    # the fix is b.choice / b.rng, not cross_trial_state (which the check used to suggest)
    names, error = failures_of(UnseededDraws(), steps=50)
    assert "supervised_data" in names
    (supervised,) = [f for f in error.failures if f.startswith("supervised_data")]
    assert supervised == (
        "supervised_data: AssertionError: UnseededDraws's trials differ between two fresh envs "
        "at one generator state, so they are not drawn from the env's generator: "
        f"{BUILDER_HINT}"
    )
    names, error = failures_of(OwnGenerator(), steps=50)
    (supervised,) = [f for f in error.failures if f.startswith("supervised_data")]
    assert f"not only on its generator's state: {BUILDER_HINT}; declare" in supervised


def test_a_task_cannot_set_a_prefetch_size():
    # a per-task block size would change every seeded result whenever it was retuned
    with pytest.raises(
        TypeError,
        match=r"^Tuned sets prefetch, which is not a task setting: .*"
        r"blocks of 128 \(neurogym._env.prefetch.BLOCK\), .* remove the attribute. If its "
        r"trials change with earlier ones: draw every random value through the trial builder "
        r"\(b.choice, b.uniform, b.add_noise, b.rng\), never from np.random or a generator of "
        r"the task's own; declare cross_trial_state = True only for state that truly carries",
    ):

        class Tuned(DeclaredCounting):
            prefetch = 8


def test_an_env_cannot_set_its_prefetch_size_either():
    env = DeclaredCounting()
    with pytest.raises(
        AttributeError,
        match=r"^DeclaredCounting.prefetch cannot be set \(got 4\): a single env draws its "
        r"trials in blocks of 128 \(neurogym._env.prefetch.BLOCK; 1 for tasks with "
        r"cross_trial_state\)",
    ):
        env.prefetch = 4
    assert env.prefetch == 1  # (DeclaredCounting declares cross_trial_state)
