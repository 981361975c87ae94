"""Bad input is never silent, for every task: step before reset, actions outside the space."""

from __future__ import annotations

import re

import gymnasium
import numpy as np
import pytest

import neurogym
from neurogym.errors import InvalidActionError

TASK_IDS = [spec.id for spec in neurogym.tasks()]


def _discrete(task_id):
    return isinstance(neurogym.make(task_id).action_space, gymnasium.spaces.Discrete)


DISCRETE = [task_id for task_id in TASK_IDS if _discrete(task_id)]
BOX = [task_id for task_id in TASK_IDS if not _discrete(task_id)]


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_step_before_reset_raises_reset_needed(task_id):
    env = neurogym.make(task_id)
    with pytest.raises(gymnasium.error.ResetNeeded, match=r"before reset\(\)"):
        env.step(env.action_space.sample())


@pytest.mark.parametrize("task_id", DISCRETE)
def test_actions_outside_a_discrete_space_raise(task_id):
    env = neurogym.make(task_id)
    env.reset(seed=0)
    n = int(env.action_space.n)
    for action in ([0], "0", n, -1, float("nan"), 0.0, np.array([0, 0]), None):
        with pytest.raises(InvalidActionError, match=r"is not in the action space Discrete"):
            env.step(action)
    assert isinstance(InvalidActionError("x"), ValueError)


@pytest.mark.parametrize("task_id", DISCRETE)
def test_every_form_contains_accepts_is_stepped(task_id):
    env = neurogym.make(task_id)
    env.reset(seed=0)
    for action in (0, np.int64(0), np.int32(0), np.array(0), np.uint8(0)):
        assert env.action_space.contains(action)
        env.step(action)


@pytest.mark.parametrize("task_id", BOX)
def test_box_actions_of_the_wrong_shape_raise(task_id):
    env = neurogym.make(task_id)
    env.reset(seed=0)
    space = env.action_space
    env.step(space.sample())
    for action in (np.zeros((*space.shape, 2), space.dtype), "0", [0.0] * (space.shape[0] + 1)):
        with pytest.raises(InvalidActionError, match=r"is not in the action space Box"):
            env.step(action)


@pytest.mark.parametrize("task_id", BOX)
def test_box_actions_holding_nan_or_infinity_raise(task_id):
    env = neurogym.make(task_id)
    env.reset(seed=0)
    shape = env.action_space.shape
    for bad in (np.nan, np.inf, -np.inf):
        action = np.zeros(shape, np.float32)
        action[-1] = bad
        with pytest.raises(InvalidActionError, match=r"NaN or infinity"):
            env.step(action)


@pytest.mark.parametrize("vectorization", ["loop", "native"])
def test_vector_envs_reject_bad_actions(vectorization):
    envs = gymnasium.make_vec(
        "neurogym/PerceptualDecisionMaking-v0", num_envs=2, vectorization=vectorization
    )
    envs.reset(seed=0)
    envs.step(np.array([0, 1]))
    with pytest.raises(InvalidActionError):
        envs.step(np.array([0, 7]))


def _accepts(task_id, name):
    import inspect

    target = neurogym.spec(task_id).load()
    try:
        return name in inspect.signature(target).parameters
    except (TypeError, ValueError):
        return False


@pytest.mark.parametrize("task_id", [t for t in TASK_IDS if _accepts(t, "rewards")])
def test_reward_keys_are_checked(task_id):
    env = neurogym.make(task_id).unwrapped
    defaults = dict(env.rewards)
    neurogym.make(task_id, rewards=defaults)  # every default key is accepted
    for key in env.optional_rewards:
        neurogym.make(task_id, rewards={key: 0.5})
    typo = next(iter(defaults))[:-1] + "x"
    with pytest.raises(ValueError, match=rf"has no key {typo!r}; valid keys: ") as caught:
        neurogym.make(task_id, rewards={typo: 1.0})
    assert all(repr(key) in str(caught.value) for key in defaults)


@pytest.mark.parametrize("task_id", [t for t in TASK_IDS if _accepts(t, "timing")])
def test_timing_keys_are_checked(task_id):
    env = neurogym.make(task_id).unwrapped
    neurogym.make(task_id, timing=dict(env.timing))  # every default key is accepted
    if not env.timing:  # no timed periods (Bandit): any timing is refused, never ignored
        with pytest.raises(ValueError, match=r"has no timed periods .*timing="):
            neurogym.make(task_id, timing={"stimulus": 100})
        return
    key = next(iter(env.timing))
    typo = key + "s"
    with pytest.raises(
        ValueError, match=rf"has no key {typo!r}; valid keys: .*did you mean {key!r}"
    ):
        neurogym.make(task_id, timing={typo: 100})


def test_a_wrong_keyword_to_make_lists_the_parameters():
    message = (
        "task 'neurogym/PerceptualDecisionMaking-v0' has no parameter 'dtt'; did you mean 'dt'? "
        "(its parameters: dt, dim_ring, rewards, timing, cohs, sigma, abort)"
    )
    with pytest.raises(TypeError, match=re.escape(message)):
        neurogym.make("PerceptualDecisionMaking", dtt=50)
    with pytest.raises(TypeError, match=re.escape(message)):
        gymnasium.make("neurogym/PerceptualDecisionMaking-v0", dtt=50)


def test_an_unknown_forced_trial_variable_raises():
    message = "PerceptualDecisionMaking has no trial variable 'cooh'; did you mean 'coh'?"
    with pytest.raises(ValueError, match=re.escape(message)):
        neurogym.batch("PerceptualDecisionMaking", 4, seed=0, cooh=1)
    env = neurogym.make("PerceptualDecisionMaking")
    env.reset(seed=0)
    with pytest.raises(ValueError, match=re.escape(message)):
        env.new_trial(cooh=1)
    ibl = neurogym.make("perceptualdecisionmaking.ibl20")  # wrappers record what they pass down
    ibl.reset(seed=0)
    assert "p" in ibl.unwrapped.trial


@pytest.mark.parametrize("vectorization", ["loop", "native"])
def test_set_attr_with_an_unknown_name_raises(vectorization):
    envs = gymnasium.make_vec(
        "neurogym/PerceptualDecisionMaking-v0", num_envs=2, vectorization=vectorization
    )
    with pytest.raises(AttributeError, match=r"has no attribute 'sigmaa' .*did you mean 'sigma'"):
        envs.set_attr("sigmaa", 5)
    envs.set_attr("abort", True)
    with pytest.raises(AttributeError, match=r"env.configure\(sigma=\.\.\.\)"):
        envs.set_attr("sigma", 0.5)  # env.sigma holds sigma / sqrt(dt): ambiguous


def _numeric_parameters():
    import inspect

    cases = []
    for task_id in TASK_IDS:
        target = neurogym.spec(task_id).load()
        if not isinstance(target, type):
            continue  # a collection factory passes its kwargs to a task tested here already
        for name, parameter in inspect.signature(target).parameters.items():
            default = parameter.default
            if isinstance(default, int | float) and not isinstance(default, bool):
                cases.append((task_id, name))
    return cases


@pytest.mark.parametrize(("task_id", "name"), _numeric_parameters())
@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_non_finite_numeric_arguments_raise(task_id, name, value):
    with pytest.raises((TypeError, ValueError), match=rf"{name}"):
        neurogym.make(task_id, **{name: value})


@pytest.mark.parametrize(
    "task", ["MemoryRecall", "ReachingDelayResponse", "SpatialSuppressMotion"]
)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_continuous_action_holding_nan_or_infinity_is_refused(task, bad):

    env = neurogym.make(task)
    env.reset(seed=0)
    action = np.zeros(env.action_space.shape, dtype=np.float32)
    action[0] = bad
    with pytest.raises(InvalidActionError, match="it holds NaN or infinity"):
        env.step(action)
    env.step(np.zeros(env.action_space.shape, dtype=np.float32))  # a finite one is scored


_NOT_ONE_OF = r"forced ground_truth={} is not one of its values "
_DERIVED = r"ground_truth cannot be forced: it is derived from "
FORCED_OUT_OF_DOMAIN = [
    ("DelayMatchSample", {"ground_truth": 99}, _NOT_ONE_OF.format(99) + r"\[1, 2\]$"),
    ("PerceptualDecisionMaking", {"ground_truth": -1}, _NOT_ONE_OF.format(-1) + r"\[0, 1\]$"),
    ("PerceptualDecisionMaking", {"ground_truth": 99}, _NOT_ONE_OF.format(99) + r"\[0, 1\]$"),
    ("PerceptualDecisionMaking", {"coh": float("nan")}, r"forced coh must be a finite number"),
    ("PerceptualDecisionMakingDelayResponse", {"ground_truth": 5}, _NOT_ONE_OF.format(5)),
    ("EconomicDecisionMaking", {"ground_truth": 1}, _DERIVED + "the offers"),
    ("EconomicDecisionMaking", {"offer": [-1, 2]}, r"forced offer must be pairs of non-negative"),
    ("yang19.go", {"anti": 2}, r"forced anti=2 is not one of its values \[False, True\]"),
    ("AnnubesEnv", {"catch": 5}, r"forced catch=5 is not one of its values \[False, True\]"),
    ("DawTwoStep", {"hi_state": 99}, r"hi_state must hold ints in \[0, 1\], got \[99\]"),
    (
        "yang19.dm1",
        {"stim_period": 5.0},
        r"stim_period cannot be forced: DM1 derives it .*forced 5.0, the trial has \[\d",
    ),
    ("MatchingPenny", {"previous_opponent": 7}, r"previous_opponent cannot be forced"),
]


@pytest.mark.parametrize(("task", "forced", "message"), FORCED_OUT_OF_DOMAIN)
def test_a_forced_value_outside_its_domain_or_not_forceable_is_refused(task, forced, message):
    env = neurogym.make(task)
    env.reset(seed=0)
    trial = dict(env.unwrapped.trial)
    with pytest.raises(ValueError, match=message):
        env.unwrapped.new_trial(**forced)
    if env.unwrapped.has_groundtruth:  # batches are supervised data
        with pytest.raises(ValueError, match=message):
            neurogym.batch(task, 4, seed=0, **forced)
    assert env.unwrapped.trial.keys() == trial.keys()  # the current trial is kept


def _scalar_trial_variables(trial: dict) -> list[tuple[str, object]]:
    """(name, out-of-domain value) for each scalar int or float variable of a trial."""
    cases: list[tuple[str, object]] = []
    for name, value in trial.items():
        kind = np.asarray(value).dtype.kind
        if np.ndim(value) == 0 and kind in "iu":
            cases += [(name, 99), (name, -1)]
        elif np.ndim(value) == 0 and kind == "f":
            cases += [(name, float("nan")), (name, float("inf"))]
    return cases


@pytest.mark.parametrize("task", TASK_IDS)
def test_no_task_takes_an_out_of_domain_forced_value_silently(task):
    # every first-party task's integer variables are categories or counts that neither 99 nor
    # -1 belongs to, and no variable is NaN or infinite: each forced value is refused (naming
    # the variable), or the trial would silently be wrong
    wrapped = neurogym.make(task)
    wrapped.reset(seed=0)
    env = wrapped.unwrapped
    for name, bad in _scalar_trial_variables(dict(env.trial)):
        with pytest.raises(ValueError, match=re.escape(name)):
            env.new_trial(**{name: bad})


@pytest.mark.parametrize("task", TASK_IDS)
def test_no_task_takes_a_forced_non_number_or_wrong_shape_without_naming_it(task):
    # a scalar number variable forced to a string, None or a dict, or to three values for a
    # batch of two, is refused with a message naming the variable (not numpy's or Python's
    # "could not convert" / "unsupported operand"), for single trials and batches
    wrapped = neurogym.make(task)
    wrapped.reset(seed=0)
    env = wrapped.unwrapped
    names = {name for name, _ in _scalar_trial_variables(dict(env.trial))}
    for name in sorted(names):
        for bad in ("x", None, {"a": 1}, [1.0, 2.0, 3.0]):
            for n in (1, 2):
                with pytest.raises(ValueError, match=re.escape(name)):
                    env.new_trials(n, **{name: bad}) if n > 1 else env.new_trial(**{name: bad})


def test_a_coherence_outside_the_list_can_still_be_forced():
    data = neurogym.batch("PerceptualDecisionMaking", 4, seed=0, coh=3.2)
    assert data.trial["coh"].tolist() == [3.2] * 4


@pytest.mark.parametrize("n", [10**7, 10**9])
def test_a_batch_too_large_to_allocate_is_refused_before_drawing(n):
    with pytest.raises(ValueError, match=rf"a batch of {n:,} trials.* GiB, more than the 4 GiB"):
        neurogym.batch("PerceptualDecisionMaking", n, seed=0)


@pytest.mark.parametrize("task", ["PerceptualDecisionMaking", "yang19.dm1", "Reaching1D"])
def test_a_ring_too_large_to_allocate_is_refused_at_once(task):
    with pytest.raises(
        ValueError, match=r"dim_ring must be an int in \[2, 4096\], got 1000000000"
    ):
        neurogym.make(task, dim_ring=10**9)


def test_reaction_time_on_a_task_without_its_periods_is_refused_at_make():
    with pytest.raises(
        ValueError, match=r"ReactionTime needs a task with 'stimulus' and 'decision'"
    ):
        neurogym.make("Null", wrappers=["ReactionTime"])


@pytest.mark.parametrize("actions", [np.array([0, 0]), 0, np.zeros((4,), dtype=int)])
def test_the_loop_vector_env_wants_one_action_per_env(actions):
    vec = gymnasium.make_vec("neurogym/perceptualdecisionmaking.roitman02-v0", num_envs=3)
    assert vec.metadata["neurogym_vectorization"] == "loop"
    vec.reset(seed=0)
    with pytest.raises(InvalidActionError, match=r"expected 3 actions, one per env"):
        vec.step(actions)


@pytest.mark.parametrize("num_envs", [2**70, 10**7])
def test_a_vector_env_too_large_for_memory_is_refused_before_any_env_is_made(num_envs):
    # #47: 2**70 gave OverflowError, 10**7 built envs for minutes before a MemoryError
    with pytest.raises(ValueError, match=r"sub-envs would need .* GiB.*lower num_envs"):
        gymnasium.make_vec("neurogym/PerceptualDecisionMaking-v0", num_envs=num_envs)


def test_env_kwargs_that_is_not_a_mapping_names_what_is_valid():
    with pytest.raises(TypeError, match=r"env_kwargs must be a dict .* got int: 5"):
        neurogym.batch("neurogym/PerceptualDecisionMaking-v0", 4, env_kwargs=5)
