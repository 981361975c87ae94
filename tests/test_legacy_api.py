"""NeuroGym 2.3.1's public API keeps working: every name of its inventory imports, is today's
documented object (or an adapter taking 2.3.1's arguments) and warns once, naming today's
spelling (issue #45).

The inventory below is written from 2.3.1's wheel (its modules' public names; see
../shared/spec/upstream-neurogym.md §1), independently of ``neurogym._legacy.table``, which is
what it checks.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest

import neurogym
from neurogym import wrappers
from neurogym._deprecation import reset_warnings

NATIVE = {
    "annubes": ["AnnubesEnv"],
    "antireach": ["AntiReach"],
    "bandit": ["Bandit"],
    "contextdecisionmaking": ["ContextDecisionMaking"],
    "dawtwostep": ["DawTwoStep"],
    "delaycomparison": ["DelayComparison"],
    "delaymatchcategory": ["DelayMatchCategory"],
    "delaymatchsample": ["DelayMatchSample", "DelayMatchSampleDistractor1D"],
    "delaypairedassociation": ["DelayPairedAssociation"],
    "detection": ["Detection"],
    "dualdelaymatchsample": ["DualDelayMatchSample"],
    "economicdecisionmaking": ["EconomicDecisionMaking"],
    "gonogo": ["GoNogo"],
    "hierarchicalreasoning": ["HierarchicalReasoning"],
    "intervaldiscrimination": ["IntervalDiscrimination"],
    "multisensory": ["MultiSensoryIntegration"],
    "null": ["Null"],
    "perceptualdecisionmaking": [
        "PerceptualDecisionMaking",
        "PerceptualDecisionMakingDelayResponse",
        "PulseDecisionMaking",
    ],
    "postdecisionwager": ["PostDecisionWager"],
    "probabilisticreasoning": ["ProbabilisticReasoning"],
    "reaching": ["Reaching1D", "Reaching1DWithSelfDistraction"],
    "reachingdelayresponse": ["ReachingDelayResponse"],
    "readysetgo": ["ReadySetGo", "MotorTiming", "OneTwoThreeGo"],
    "spatialsuppressmotion": ["SpatialSuppressMotion"],
    "tonedetection": ["ToneDetection"],
}
CONTRIB = {  # 2.3.1 name -> today's task name (the ones that run)
    "anglereproduction": {"AngleReproduction": "AngleReproduction"},
    "changingenvironment": {"ChangingEnvironment": "ChangingEnvironment"},
    "cv_learning": {"CVLearning": "CVLearning"},
    "ibl": {"IBL": "IBL", "IBL_Block": "IBLBlock"},
    "matchingpenny": {"MatchingPenny": "MatchingPenny"},
    "memoryrecall": {"MemoryRecall": "MemoryRecall"},
}
YANG19 = [
    "go", "rtgo", "dlygo", "anti", "rtanti", "dlyanti", "dm1", "dm2", "ctxdm1", "ctxdm2",
    "multidm", "dlydm1", "dlydm2", "ctxdlydm1", "ctxdlydm2", "multidlydm", "dms", "dnms", "dmc",
    "dnmc",
]  # fmt: skip

# 2.3.1 module -> {public name: today's object, or None where the object is an adapter}.
MOVED = {
    "neurogym.core": {
        "TrialEnv": neurogym.TrialEnv,
        "BaseEnv": neurogym.TrialEnv,
        "TrialWrapper": wrappers.TrialWrapper,
        "InvalidOperationError": neurogym.InvalidOperationError,
        "OBNOW": neurogym.OBNOW,
        "EnvMeta": type(neurogym.TrialEnv),
        "METADATA_DEF_KEYS": None,
        "env_string": None,
    },
    "neurogym.utils.data": {"Dataset": neurogym.Dataset},
    "neurogym.utils.spaces": {
        "Box": neurogym.spaces.Box,
        "Discrete": neurogym.spaces.Discrete,
        **{n: getattr(gymnasium.spaces, n) for n in ("Dict", "MultiBinary", "MultiDiscrete")},
        **{n: getattr(gymnasium.spaces, n) for n in ("Space", "Tuple", "flatdim", "flatten")},
        "unflatten": gymnasium.spaces.unflatten,
    },
    "neurogym.utils.scheduler": {
        name: getattr(wrappers, name)
        for name in (
            "BaseSchedule",
            "SequentialSchedule",
            "RandomSchedule",
            "SequentialBlockSchedule",
            "RandomBlockSchedule",
        )
    },
    "neurogym.utils": {
        "RandomSchedule": wrappers.RandomSchedule,
        "SequentialSchedule": wrappers.SequentialSchedule,
        "SequentialBlockSchedule": wrappers.SequentialBlockSchedule,
        "TruncExp": None,
        "plot_env": None,
        "plot_psychometric": None,
    },
    "neurogym.utils.ngym_random": dict.fromkeys(
        ("trunc_exp", "TruncExp", "random_number_fn", "random_number_name")
    ),
    "neurogym.utils.plotting": dict.fromkeys(
        (
            "plot_env",
            "run_env",
            "visualize_run",
            "plot_env_1dbox",
            "plot_env_3dbox",
            "plot_rew_across_training",
            "put_together_files",
            "order_by_suffix",
        )
    ),
    "neurogym.utils.psychometric": dict.fromkeys(("probit", "plot_psychometric")),
    "neurogym.utils.info": dict.fromkeys(
        ("show_all_tasks", "show_all_wrappers", "show_all_tags", "show_info")
    ),
    "neurogym.utils.tasktools": dict.fromkeys(
        (
            "to_map",
            "get_idx",
            "get_periods_idx",
            "minmax_number",
            "circular_dist",
            "divide",
            "correct_2AFC",
            "compute_perf",
        )
    ),
    "neurogym.utils.functions": dict.fromkeys(("ensure_dir", "iso_timestamp")),
    "neurogym.utils.decorators": {"suppress_during_pytest": None},
    "neurogym.utils.logging": {"logger": None},
    "neurogym.envs": dict.fromkeys(("get_collection", "all_envs", "all_tags")),
    "neurogym.envs.collections": {"get_collection": None},
    "neurogym.envs.registration": {
        "make": neurogym.make,
        **dict.fromkeys(
            (
                "ALL_NATIVE_ENVS",
                "ALL_COLLECTIONS_ENVS",
                "ALL_CONTRIB_ENVS",
                "ALL_PSYCHOPY_ENVS",
                "ALL_ENVS",
                "ALL_EXTENDED_ENVS",
                "all_envs",
                "register",
                "all_tags",
            )
        ),
    },
    "neurogym.wrappers.block": {
        name: getattr(wrappers, name)
        for name in ("RandomGroundTruth", "ScheduleAttr", "MultiEnvs", "ScheduleEnvs")
    }
    | {"TrialHistoryV2": wrappers.TrialHistoryV2},
    "neurogym.wrappers.noise": {"Noise": wrappers.Noise},
    "neurogym.wrappers.pass_action": {"PassAction": wrappers.PassAction},
    "neurogym.wrappers.pass_reward": {"PassReward": wrappers.PassReward},
    "neurogym.wrappers.reaction_time": {"ReactionTime": wrappers.ReactionTime},
    "neurogym.wrappers.side_bias": {"SideBias": wrappers.SideBias},
    "neurogym.wrappers.monitor": {"Monitor": wrappers.Monitor},
    "neurogym.wrappers": {"ALL_WRAPPERS": None, "all_wrappers": None},
    "neurogym.config": dict.fromkeys(("Config", "config")),
    "neurogym": dict.fromkeys(("all_envs", "all_tags", "get_collection", "info"))
    | {"_SB3_INSTALLED": True, "_PSYCHOPY_INSTALLED": False},  # the integration venv has SB3
}
# Names that kept their 2.3.1 path (nothing to warn about).
UNCHANGED = {("neurogym.wrappers.monitor", "Monitor"), ("neurogym", "info")}


def _cases() -> list[tuple[str, str, object]]:
    cases = [(module, name, obj) for module, names in MOVED.items() for name, obj in names.items()]
    for file, classes in NATIVE.items():
        cases += [
            (f"neurogym.envs.native.{file}", name, f"neurogym/{name}-v0") for name in classes
        ]
    for file, classes in CONTRIB.items():
        cases += [
            (f"neurogym.envs.contrib.{file}", old, f"neurogym/{new}-v0")
            for old, new in classes.items()
        ]
    cases += [("neurogym.envs.collections.yang19", name, None) for name in YANG19]
    cases += [
        ("neurogym.envs.collections.perceptualdecisionmaking", name, None)
        for name in ("roitman02", "ibl20")
    ]
    return cases


@pytest.fixture(autouse=True)
def _fresh_warnings():
    reset_warnings()
    yield
    reset_warnings()


@pytest.mark.parametrize(
    ("module", "name", "expected"),
    [pytest.param(*case, id=f"{case[0]}.{case[1]}") for case in _cases()],
)
def test_every_2_3_1_name_imports_warns_once_and_is_the_documented_object(module, name, expected):
    imported = importlib.import_module(module)
    if (module, name) in UNCHANGED:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            value = getattr(imported, name)
    else:
        with pytest.warns(
            DeprecationWarning, match=rf"{module}\.{name} is NeuroGym 2\.3\.1's.*use "
        ):
            value = getattr(imported, name)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # once per name
            assert getattr(imported, name) is value
    if isinstance(expected, str) and expected.startswith("neurogym/"):  # the registered class
        assert value is neurogym.spec(expected).load()
    elif expected is not None:
        assert value is expected
    if module not in ("neurogym", "neurogym.wrappers"):  # their dir() is the curated 3.0 API
        assert name in dir(imported)


def test_collection_functions_build_the_registered_task_with_2_3_1_arguments():
    from neurogym.envs.collections import yang19

    with pytest.warns(DeprecationWarning, match="NeuroGym 2.3.1.s spelling"):
        env = yang19.dm1(dt=100, dim_ring=2)
    assert env.spec.id == "neurogym/yang19.dm1-v0"
    assert (
        env.observation_space.shape
        == neurogym.make("yang19.dm1", dim_ring=2).observation_space.shape
    )


def test_registry_listings_keep_2_3_1_ids_and_fix_its_tag_bug():
    with pytest.warns(DeprecationWarning, match="NeuroGym 2.3.1.s spelling"):
        from neurogym.envs.registration import ALL_NATIVE_ENVS, all_envs, all_tags, get_collection
    assert len(ALL_NATIVE_ENVS) == 30
    assert "AnnubesEnv-v0" in ALL_NATIVE_ENVS
    assert "Detection-v0" not in ALL_NATIVE_ENVS  # 2.3.1 did not register it
    everything = all_envs(contrib=True, collections=True)
    assert "yang19.go-v0" in everything
    assert "IBLBlock-v0" in everything
    # 2.3.1 raised AttributeError for tag= with collections=True.
    tagged = all_envs(tag="working memory", collections=True)
    assert "DelayMatchSample-v0" in tagged
    assert "yang19.dms-v0" in tagged
    assert "working memory" in all_tags()
    assert get_collection("yang19")[:3] == ["yang19.go-v0", "yang19.rtgo-v0", "yang19.dlygo-v0"]
    with pytest.raises(TypeError, match="tag must be a str"):
        all_envs(tag=3)
    with pytest.raises(ValueError, match="'priors'"):
        get_collection("priors")
    for env_id in everything:  # every listed id works with both makes
        assert neurogym.make(env_id).spec is not None


def test_gymnasium_make_of_a_2_3_1_id_warns_and_builds_the_task():
    with pytest.warns(DeprecationWarning, match="'GoNogo-v0'.*'neurogym/GoNogo-v0'"):
        env = gymnasium.make("GoNogo-v0")
    assert env.spec.id == "GoNogo-v0"
    assert type(env.unwrapped).__name__ == "GoNogo"
    ob, _ = env.reset(seed=0)
    new = gymnasium.make("neurogym/GoNogo-v0")
    assert np.array_equal(ob, new.reset(seed=0)[0])


def test_info_prints_what_2_3_1_logged(capsys):
    from neurogym import info

    with pytest.warns(DeprecationWarning, match="NeuroGym 2.3.1.s spelling"):
        info.show_all_tasks()
    with pytest.warns(DeprecationWarning, match="NeuroGym 2.3.1.s spelling"):
        info.show_info("GoNogo-v0")
    with pytest.warns(DeprecationWarning, match="NeuroGym 2.3.1.s spelling"):
        info.show_all_wrappers()
    out = capsys.readouterr().out
    assert out.startswith("Available tasks:\nAnnubesEnv-v0\n")
    assert "Info for environment: GoNogo" in out
    assert "correct : 1.0" in out
    assert "SideBias-v0" in out
    with pytest.raises(ValueError, match="Unknown environment or wrapper: 'Nope-v0'"):
        info.show_info("Nope-v0")


def test_seed_raises_naming_reset_and_wrappers_forward_2_3_1_reads_with_a_warning():
    env = neurogym.make("PerceptualDecisionMaking")
    with pytest.raises(AttributeError, match=r"use env\.reset\(seed=s\)"):
        env.seed(0)
    wrapped = wrappers.Noise(env)
    wrapped.reset(seed=0)
    with pytest.warns(DeprecationWarning, match=r"'gt_now' through a wrapper.*env\.unwrapped"):
        assert wrapped.gt_now == env.gt_now
    with pytest.warns(DeprecationWarning, match=r"'timing' through a wrapper"):
        assert wrapped.timing is env.timing
    wrapped.ob = "the wrapper's own"  # 2.3.1: an assignment gives the wrapper its own value
    assert wrapped.ob == "the wrapper's own"
    assert isinstance(env.ob, np.ndarray)
    # not a 2.3.1 forwarded read: gymnasium 1.0 forwards none, and neurogym gives Python's error
    # (a wrapper __getattr__ naming env.unwrapped.choices made every wrapped step slower)
    assert env.unwrapped.choices is not None
    with pytest.raises(AttributeError, match=r"^'Noise' object has no attribute 'choices'$"):
        wrapped.choices  # noqa: B018
    with pytest.raises(AttributeError, match=r"has no attribute 'nope'$"):
        wrapped.nope  # noqa: B018
    # 2.3.1's seed() and set_top() get the errors a task gives, through any wrapper
    assert not hasattr(wrapped, "seed")
    with pytest.raises(AttributeError, match=r"^'Noise' object has no attribute 'seed': use env"):
        wrapped.seed(0)
    with pytest.raises(AttributeError, match=r"'set_top': use nothing: trial wrappers serve"):
        wrappers.SideBias(env, probs=[[0.8, 0.2], [0.2, 0.8]], block_dur=10).set_top(wrapped)


def test_legacy_truncexp_draws_on_its_own_and_from_the_env():
    with pytest.warns(DeprecationWarning, match="NeuroGym 2.3.1.s spelling"):
        from neurogym.utils.ngym_random import TruncExp

    spec = TruncExp(600, 300, 3000)
    spec.seed(0)
    first = [spec() for _ in range(3)]
    spec.seed(0)
    assert [spec() for _ in range(3)] == first
    assert all(300 <= v < 3000 for v in first)
    a = neurogym.make("ContextDecisionMaking", timing={"delay": spec})
    b = neurogym.make("ContextDecisionMaking", timing={"delay": neurogym.TruncExp(600, 300, 3000)})
    a.reset(seed=1)
    b.reset(seed=1)
    assert np.array_equal(a.ob, b.ob)


def test_removed_modules_say_why():
    for module in (
        "neurogym.envs.psychopy",
        "neurogym.envs.collections.priors",
        "neurogym.envs.contrib.leverpress",
        "neurogym.wrappers.components",
    ):
        with pytest.raises(ImportError, match=r"is gone: .*Upgrading from 2\.3\.1"):
            importlib.import_module(module)


def test_import_neurogym_loads_no_2_3_1_module():
    code = (
        "import sys, neurogym; neurogym.make('PerceptualDecisionMaking').reset(seed=0); "
        "print(sorted(m for m in sys.modules if m.startswith(('neurogym._legacy', "
        "'neurogym.utils', 'neurogym.core', 'neurogym.envs', 'neurogym.config'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_warnings_as_errors_show_exactly_the_2_3_1_names_used():
    code = "import neurogym as ngym\nfrom neurogym.utils import RandomSchedule\n"
    out = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", code],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert out.returncode == 1
    assert "neurogym.utils.RandomSchedule is NeuroGym 2.3.1's spelling" in out.stderr
    assert "use neurogym.wrappers.RandomSchedule" in out.stderr


def test_2_3_1_duration_dict_reads_the_current_trial_periods():
    env = neurogym.make("PerceptualDecisionMaking")
    env.reset(seed=0)
    with pytest.warns(DeprecationWarning, match=r"env\._duration\[period\].*env\.end_t"):
        durations = env._duration
    assert durations == {"fixation": 100.0, "stimulus": 2000.0, "delay": 0.0, "decision": 100.0}
