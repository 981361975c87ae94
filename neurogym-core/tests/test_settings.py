"""A task's configuration has one source of truth and one version (issue #46, architecture §4)."""

from __future__ import annotations

import copy
import pickle
from typing import Any, ClassVar

import numpy as np
import pytest
from data_tasks import PrefetchTask

from neurogym import StandardDecision, TrialEnv, spaces, validate
from neurogym.vector import TrialVectorEnv


class Scaled(TrialEnv):
    """A batch-native task whose coherences are derived from an argument (``scale``)."""

    metadata: ClassVar[dict[str, Any]] = {
        "paper_name": "t",
        "paper_link": "https://e.org",
        "tags": [],
    }
    default_rewards: ClassVar[dict[str, float]] = {"abort": -0.1, "correct": 1.0, "fail": 0.0}
    default_timing: ClassVar[dict[str, Any]] = {
        "fixation": 100,
        "stimulus": ("choice", [200, 300]),
        "decision": 100,
    }
    rule = StandardDecision(fixation_periods=("fixation",), decision_periods=("decision",))

    def __init__(
        self,
        dt: float = 100,
        rewards: dict[str, float] | None = None,
        timing: dict[str, Any] | None = None,
        scale: float = 1.0,
        sigma: float = 1.0,
        levels: Any = (0.0, 0.5, 1.0),
    ) -> None:
        super().__init__()
        self.scale = validate.number(scale, "scale", minimum=0)
        self.sigma = validate.number(sigma, "sigma", minimum=0)
        self.levels = levels
        self.cohs = np.asarray(levels, dtype=float) * self.scale  # derived
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(3,), dtype=np.float32, name={"fixation": 0, "stimulus": [1, 2]}
        )
        self.action_space = spaces.Discrete(3, name={"fixation": 0, "choice": [1, 2]})

    def _new_trials(self, b: Any, **kwargs: Any) -> dict[str, Any]:
        ground_truth = b.choice("ground_truth", [1, 2])
        coh = b.choice("coh", self.cohs)
        b.add_period(["fixation", "stimulus", "decision"])
        b.add_input(1, "fixation", where="fixation")
        b.add_input(
            coh[:, None] * np.array([1.0, -1.0]) * np.where(ground_truth == 1, 1, -1)[:, None],
            "stimulus",
            where="stimulus",
        )
        b.add_noise(0, self.sigma, "stimulus", where="stimulus")
        b.set_target(ground_truth, "decision")
        return {}


def _trials(env: TrialEnv, n: int = 40) -> list[tuple[Any, ...]]:
    out = []
    for _ in range(n):
        trial = env.new_trial()
        out.append((sorted((k, float(v)) for k, v in trial.items()), env.ob.tobytes(), env.tmax))
    return out


def _changed_then_reset(change: Any, seed: int = 3) -> list[tuple[Any, ...]]:
    env = Scaled()
    env.reset(seed=0)
    _trials(env, 5)  # mid-block: the pool holds 123 trials of the old configuration
    change(env)
    env.reset(seed=seed)
    return _trials(env)


def _made_with(seed: int = 3, **kwargs: Any) -> list[tuple[Any, ...]]:
    env = Scaled(**kwargs)
    env.reset(seed=seed)
    return _trials(env)


@pytest.mark.parametrize(
    ("change", "made"),
    [
        (lambda env: setattr(env, "scale", 0.5), {"scale": 0.5}),
        (lambda env: env.configure(scale=0.5, sigma=0.0), {"scale": 0.5, "sigma": 0.0}),
        (lambda env: setattr(env, "levels", [0.2, 0.4]), {"levels": [0.2, 0.4]}),
        (lambda env: env.timing.__setitem__("stimulus", 500), {"timing": {"stimulus": 500}}),
        (lambda env: setattr(env, "timing", {"decision": 300}), {"timing": {"decision": 300}}),
        (lambda env: setattr(env, "dt", 50), {"dt": 50}),
    ],
)
def test_a_setting_changed_after_make_gives_the_trials_of_an_env_made_with_it(change, made):
    assert _changed_then_reset(change) == _made_with(**made)


def test_a_derived_value_follows_its_argument_and_invalid_values_change_nothing():
    env = Scaled(scale=2.0)
    env.scale = 0.5
    np.testing.assert_array_equal(env.cohs, [0.0, 0.25, 0.5])
    version = env.config_version
    for name, bad in [("scale", -1), ("sigma", float("nan")), ("dt", 0)]:
        with pytest.raises(ValueError, match=name):
            setattr(env, name, bad)
    assert env.config_version == version
    assert (env.scale, env.dt) == (0.5, 100)
    np.testing.assert_array_equal(env.cohs, [0.0, 0.25, 0.5])


def test_edits_of_rewards_and_timing_survive_a_later_change_of_an_argument():
    env = Scaled()
    env.rewards["correct"] = 5.0
    env.timing["stimulus"] = 400
    env.sigma = 0.0
    assert env.rewards["correct"] == 5.0
    assert env.timing["stimulus"] == 400
    env.reset(seed=1)
    made = Scaled(sigma=0.0, rewards={"correct": 5.0}, timing={"stimulus": 400})
    made.reset(seed=1)
    assert _trials(env, 10) == _trials(made, 10)


@pytest.mark.parametrize(
    "edit",
    [
        lambda env: env.timing["stimulus"][1].__setitem__(0, 2000),  # issue #46's reproduction
        lambda env: env.timing["stimulus"][1].append(-500),
        lambda env: env.cohs.__setitem__(0, 5.0),  # a derived array
        lambda env: env.levels.__setitem__(0, 5.0),  # an argument given as a tuple
    ],
)
def test_an_edit_inside_a_setting_raises(edit):
    env = Scaled(levels=[0.0, 0.5])
    version = env.config_version
    with pytest.raises((TypeError, ValueError), match="read-only"):
        edit(env)
    assert env.config_version == version


def test_rewards_and_timing_keep_their_keys_and_name_the_form_that_works():
    env = Scaled()
    with pytest.raises(TypeError, match=r"env.rewards\['fail'\] = 0"):
        del env.rewards["fail"]
    with pytest.raises(TypeError, match=r"env.timing\['delay'\] = 0"):
        env.timing.pop("stimulus")
    with pytest.raises(ValueError, match="has no key 'corect'"):
        env.rewards["corect"] = 5
    with pytest.raises(AttributeError, match=r"no argument 'coherence'.*\(dt, rewards, timing"):
        env.configure(coherence=3)
    with pytest.raises(AttributeError, match=r"no argument 'scal'.*did you mean 'scale'\?"):
        env.configure(scal=3)


def test_every_change_bumps_the_version_and_a_copy_keeps_it():
    env = Scaled()
    seen = {env.config_version}
    for change in (
        lambda: setattr(env, "sigma", 0.5),
        lambda: env.rewards.__setitem__("fail", -1),
        lambda: env.timing.update(decision=200),
        lambda: setattr(env, "abort", True),
        lambda: setattr(env, "cohs", np.array([0.3])),  # a derived value, assigned
    ):
        change()
        assert env.config_version not in seen
        seen.add(env.config_version)
    for clone in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert clone.config_version == env.config_version
        clone.rewards["fail"] = -2
        assert clone.config_version != env.config_version


def test_abort_is_checked_after_make():
    env = Scaled()
    with pytest.raises(TypeError, match="abort must be True or False"):
        env.abort = "yes"


def test_the_native_vector_env_sees_an_in_place_edit_of_the_rewards():
    # issue #46: vec.get_attr("rewards")[0]["correct"] = 10 paid 10 in a single env, 1.0 here
    vec = TrialVectorEnv(Scaled(timing={"fixation": 0, "stimulus": 100, "decision": 100}), 4)
    vec.reset(seed=0)
    vec.get_attr("rewards")[0]["correct"] = 10
    paid = set()
    for _ in range(20):
        gt = vec._gt.take(vec._pos)
        _, reward, _, _, info = vec.step(gt)  # answer the ground truth at every step
        paid.update(reward[info["new_trial"] & (gt != 0)].tolist())
    assert paid == {10.0}


def test_set_attr_of_an_argument_remakes_the_task_for_every_sub_env():
    vec = TrialVectorEnv(Scaled(), 2)
    vec.set_attr("scale", 0.0)
    np.testing.assert_array_equal(vec.get_attr("cohs")[0], [0.0, 0.0, 0.0])


def test_a_class_default_is_a_setting_and_the_class_keeps_its_value():
    class Cued(PrefetchTask):
        gain = 1.0

    env = Cued()
    version = env.config_version
    env.gain = 2.0
    assert env.config_version != version
    assert Cued.gain == 1.0
    assert Cued().gain == 1.0


def test_nothing_in_the_core_decides_by_reference_counts():
    import pathlib

    import neurogym

    root = pathlib.Path(neurogym.__file__).parent
    assert not [p for p in root.rglob("*.py") if "getrefcount" in p.read_text(encoding="utf-8")]


def test_a_view_of_a_null_observation_kept_from_one_trial_is_not_overwritten_by_the_next():
    from neurogym._env.null import Null

    env = Null()
    env.reset(seed=0)
    kept = env.step(0)[0].reshape(1, -1)
    kept[0, 0] = 7.0  # the caller's array: the env must never write into it again
    for _ in range(250):  # past two trial boundaries
        env.step(0)
    assert kept[0, 0] == 7.0


@pytest.mark.parametrize("configured", [False, True])
def test_an_argument_given_as_a_list_is_held_read_only(configured):
    env = Scaled(levels=[0.0, 1.0])
    if configured:
        env.levels = [0.0, 2.0]
    assert isinstance(env.levels, validate.ReadOnlyList)
    assert env.levels == ([0.0, 2.0] if configured else [0.0, 1.0])
    with pytest.raises(TypeError, match="assign a whole new value"):
        env.levels[0] = 3.0


def test_a_generator_assigned_to_rng_serves_the_next_trial_without_a_reset():
    env = Scaled()
    env.reset(seed=0)
    env.new_trial()  # mid-block
    env.rng = np.random.default_rng(7)
    served = _trials(env, 3)
    other = Scaled()
    other.rng = np.random.default_rng(7)
    assert served == _trials(other, 3)


def test_a_bare_super_init_passes_on_the_arguments_of_its_caller_not_the_outermost():
    class Fixed(Scaled):
        """A subclass that fixes its parent's timing and dt (its parent calls a bare super)."""

        def __init__(self, extra: int = 1) -> None:
            super().__init__(dt=50, timing={"fixation": 300})

    class Passing(Scaled):
        def __init__(self, extra: int = 1, **kwargs: Any) -> None:
            super().__init__(**kwargs)

    fixed = Fixed()
    assert (fixed.dt, fixed.timing["fixation"]) == (50, 300)
    assert Passing().dt == 100  # the parent's default, not a guess
    assert Passing(dt=20).dt == 20
    fixed.configure(extra=2)  # remade from its own arguments: the parent's values stay
    assert (fixed.dt, fixed.timing["fixation"]) == (50, 300)


def test_a_bad_value_in_a_configure_call_changes_nothing():
    env = Scaled()
    version = env.config_version
    with pytest.raises(ValueError, match=r"timing\['decision'\]"):
        env.configure(rewards={"correct": 2.0}, timing={"stimulus": 400, "decision": -1})
    with pytest.raises(ValueError, match=r"timing\['decision'\]"):
        env.timing.update(stimulus=400, decision=-1)
    assert (env.rewards["correct"], env.timing["stimulus"]) == (1.0, ("choice", [200, 300]))
    assert env.config_version == version


def test_set_attr_that_would_change_the_spaces_is_refused_and_undone():
    class Ring(Scaled):
        def __init__(self, dt: float = 100, channels: int = 2) -> None:
            super().__init__(dt=dt)
            names = {"fixation": 0, "stimulus": list(range(1, 1 + channels))}
            self.observation_space = spaces.Box(-np.inf, np.inf, shape=(1 + channels,), name=names)

    vec = TrialVectorEnv(Ring(), 2)
    vec.reset(seed=0)
    with pytest.raises(ValueError, match=r"change its spaces.*make a new vector env"):
        vec.set_attr("channels", 4)
    assert vec.task.observation_space.shape == (3,)
    assert vec.step(np.zeros(2, dtype=np.intp))[0].shape == (2, 3)
