"""NeuroGym 2.3.1's Config (neurogym.config), re-implemented without pydantic."""

from __future__ import annotations

import copy
import importlib
import os
from pathlib import Path

import pytest

from neurogym import _legacy
from neurogym._legacy.config import (
    FIELDS,
    AgentConfig,
    Config,
    EnvConfig,
    MonitorConfig,
    MonitorPlotConfig,
    PlotFontConfig,
)

TOML = """
local_dir = "${NGYM_TEST_HOME}/out"
[env]
name = "PerceptualDecisionMaking"
dt = 20
[monitor]
trigger = "step"
interval = 50
[monitor.plot]
title = "from the file"
create = false
[agent.training]
unit = "step"
value = 7
[extra_section]
anything = 1
"""


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    _legacy.reset_warnings()
    for name in [n for n in os.environ if n.upper().startswith("NGYM_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("NGYM_TEST_HOME", "/home/someone")


@pytest.fixture
def toml_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(TOML)
    return path


def test_defaults_are_2_3_1s():
    cfg = Config()
    assert (cfg.agent.training.unit, cfg.agent.training.value) == ("trial", 100)
    assert (cfg.agent.inference.unit, cfg.agent.inference.value) == ("step", 10000)
    assert (cfg.env.name, cfg.env.dt) == ("", 10)
    mon = cfg.monitor
    assert (mon.name, mon.trigger, mon.interval, mon.verbose, mon.save_dir) == (
        "", "trial", 1000, True, None
    )  # fmt: skip
    assert (mon.plot.create, mon.plot.step, mon.plot.title, mon.plot.ext) == (True, 10, "", "png")
    assert cfg.plot.legend.location == "upper right"
    assert cfg.plot.legend.bbox_to_anchor == (1.01, 1.0, 0.15, 0.0)
    assert cfg.plot.legend.mode == "expand"
    assert cfg.plot.font.title["size"] == 12
    assert cfg.plot.font.xtick["size"] == 7.5
    assert cfg.local_dir == Path.cwd() / "runs" or cfg.local_dir.name == "runs"
    assert cfg.pkg_dir == Path(importlib.import_module("neurogym").__file__).resolve().parent
    assert cfg.config_dir == cfg.pkg_dir / "config"
    assert cfg.root_dir == cfg.pkg_dir.parent
    assert cfg.config_file is None
    assert isinstance(cfg.agent, AgentConfig)
    assert isinstance(cfg.monitor.plot, MonitorPlotConfig)


def test_toml_file(toml_file):
    cfg = Config(toml_file)
    assert cfg.config_file == toml_file
    assert (cfg.env.name, cfg.env.dt) == ("PerceptualDecisionMaking", 20)
    assert (cfg.monitor.trigger, cfg.monitor.interval) == ("step", 50)
    assert cfg.monitor.plot.title == "from the file"
    assert cfg.monitor.plot.create is False
    assert cfg.monitor.verbose is True  # untouched fields keep their defaults
    assert (cfg.agent.training.unit, cfg.agent.training.value) == ("step", 7)
    assert cfg.local_dir == Path("/home/someone/out")  # expandvars
    assert cfg.extra_section == {"anything": 1}  # extra="allow"
    assert Config(config_file=str(toml_file)).monitor.interval == 50


def test_missing_file_warns_and_is_ignored(tmp_path):
    with pytest.warns(UserWarning, match="does not exist"):
        cfg = Config(tmp_path / "nope.toml")
    assert cfg.config_file is None
    assert cfg.monitor.interval == 1000


def test_nested_dicts_and_section_objects():
    cfg = Config(
        local_dir="/tmp/x", monitor={"trigger": "step", "interval": 10, "plot": {"step": 3}}
    )
    assert cfg.local_dir == Path("/tmp/x")
    assert (cfg.monitor.trigger, cfg.monitor.interval, cfg.monitor.plot.step) == ("step", 10, 3)
    assert cfg.monitor.plot.ext == "png"  # a partial update keeps the rest
    cfg = Config(monitor=MonitorConfig(interval=4), env=EnvConfig(name="Task"))
    assert cfg.monitor.interval == 4
    assert cfg.env.name == "Task"
    assert Config.model_validate({"env": {"dt": 5}}).env.dt == 5
    assert Config(env={"dt": 5}).model_dump()["env"] == {"name": "", "dt": 5}


def test_environment_variables(monkeypatch):
    monkeypatch.setenv("NGYM_MONITOR__INTERVAL", "10")
    monkeypatch.setenv("ngym_monitor__plot__create", "false")  # case-insensitive
    monkeypatch.setenv("NGYM_ENV__NAME", "$NGYM_TEST_HOME/task")
    monkeypatch.setenv("NGYM_AGENT", '{"training": {"value": 3}}')  # a section as JSON
    monkeypatch.setenv("NGYM_NOT_A_FIELD", "ignored")
    cfg = Config()
    assert cfg.monitor.interval == 10
    assert cfg.monitor.plot.create is False
    assert cfg.env.name == "/home/someone/task"
    assert cfg.agent.training.value == 3
    assert not hasattr(cfg, "not_a_field")


def test_priority_kwargs_over_file_over_environment(monkeypatch, toml_file):
    monkeypatch.setenv("NGYM_MONITOR__INTERVAL", "10")
    monkeypatch.setenv("NGYM_MONITOR__NAME", "from env")
    monkeypatch.setenv("NGYM_ENV__DT", "99")
    cfg = Config(toml_file, env={"dt": 1})
    assert cfg.env.dt == 1  # kwargs > file > environment
    assert cfg.monitor.interval == 50  # file > environment
    assert cfg.monitor.name == "from env"  # environment > defaults
    assert cfg.env.name == "PerceptualDecisionMaking"  # merged, not replaced, by env={"dt": 1}


@pytest.mark.parametrize(
    ("section", "field", "value", "valid"),
    [
        ("monitor", "trigger", "day", "one of 'trial', 'step'"),
        ("monitor", "interval", 0, "a positive integer"),
        ("monitor", "interval", "ten", "a positive integer"),
        ("monitor", "verbose", "maybe", "a boolean"),
        ("agent.training", "unit", "epoch", "one of 'trial', 'step'"),
        ("agent.inference", "value", -3, "a positive integer"),
        ("env", "dt", 1.5, "an integer"),
        ("env", "name", 5, "a string"),
        ("monitor.plot", "step", True, "a positive integer"),
        ("plot.legend", "bbox_to_anchor", "x", "a sequence of numbers"),
        ("plot.font", "title", 3, "a dict of matplotlib FontProperties"),
    ],
)
def test_bad_values_name_the_field_and_what_is_valid(section, field, value, valid):
    cfg = Config()
    target = cfg
    for part in section.split("."):
        target = getattr(target, part)
    with pytest.raises(ValueError, match=rf"{section}\.{field} must be {valid}"):
        setattr(target, field, value)
    nested: dict = {field: value}
    for part in reversed(section.split(".")):
        nested = {part: nested}
    with pytest.raises(ValueError, match=rf"{section}\.{field}"):
        Config(**nested)


def test_assignment_converts_like_pydantic():
    cfg = Config()
    cfg.monitor.interval = "25"
    cfg.monitor.verbose = "off"
    cfg.plot.legend.bbox_to_anchor = [1, 2, 3, 4]
    cfg.local_dir = "$NGYM_TEST_HOME/runs"
    assert cfg.monitor.interval == 25
    assert cfg.monitor.verbose is False
    assert cfg.plot.legend.bbox_to_anchor == (1.0, 2.0, 3.0, 4.0)
    assert cfg.local_dir == Path("/home/someone/runs")
    cfg.monitor = {"interval": 3}
    assert isinstance(cfg.monitor, MonitorConfig)
    assert cfg.monitor.interval == 3
    with pytest.raises(ValueError, match="monitor must be a MonitorConfig or a dict"):
        cfg.monitor = 3
    with pytest.raises(ValueError, match="root_dir is read-only"):
        cfg.root_dir = "/"


def test_title_defaults_to_the_env_name():
    assert Config(env={"name": "Task"}).monitor.plot.title == "Task"
    assert Config(env={"name": "Task"}, monitor={"plot": {"title": "T"}}).monitor.plot.title == "T"
    assert Config().monitor.plot.title == ""


def test_extras_are_kept():
    cfg = Config(my_key=[1, 2], monitor={"color": "red"})
    assert cfg.my_key == [1, 2]
    assert cfg.monitor.color == "red"
    cfg.another = "x"
    assert cfg.model_dump()["another"] == "x"
    with pytest.raises(AttributeError, match="no field 'missing'"):
        _ = cfg.missing


def test_fonts_are_plain_dicts():
    fonts = PlotFontConfig()
    assert fonts.label == {
        "size": 9, "family": ["DejaVu Sans", "Noto Sans", "sans-serif"], "weight": "book"
    }  # fmt: skip
    fonts.label = {"size": 3}
    assert fonts.label == {"size": 3}
    assert PlotFontConfig().label["size"] == 9  # defaults are not shared


def test_copies_and_equality():
    cfg = Config(monitor={"interval": 5})
    other = copy.deepcopy(cfg)
    assert other == cfg
    assert other is not cfg
    other.monitor.interval = 6
    assert cfg.monitor.interval == 5
    assert other != cfg


def test_one_field_table_covers_every_section():
    assert set(FIELDS) == {
        "", "agent", "agent.training", "agent.inference", "env", "monitor", "monitor.plot",
        "plot", "plot.font", "plot.legend",
    }  # fmt: skip


def test_old_module_paths_warn_once_and_resolve():
    with pytest.deprecated_call(match=r"neurogym\.config\.Config is NeuroGym 2\.3\.1"):
        from neurogym.config import Config as OldConfig
    assert OldConfig is Config
    from neurogym.config import Config as Again  # no second warning (filterwarnings=error)

    assert Again is Config
    package = importlib.import_module("neurogym.config")
    with pytest.deprecated_call():  # the attribute (the submodule shadows it once imported)
        assert isinstance(package.__getattr__("config"), Config)
    with pytest.deprecated_call():
        from neurogym.config.base import LOCAL_DIR, ConfigBase
    assert LOCAL_DIR.name == "runs"
    assert issubclass(Config, ConfigBase)
    modules = {
        "agent": ["AgentConfig", "AgentInferenceConfig", "AgentTrainingConfig"],
        "env": ["EnvConfig"],
        "monitor": ["MonitorConfig", "MonitorPlotConfig"],
        "plot": ["PlotConfig", "PlotFontConfig", "PlotLegendConfig"],
    }
    components = importlib.import_module("neurogym.config.components")
    for file, names in modules.items():
        module = importlib.import_module(f"neurogym.config.components.{file}")
        assert dir(module) == names
        for name in names:
            with pytest.deprecated_call():
                assert getattr(module, name) is getattr(components, name)


def test_the_package_name_config_is_the_instance_even_after_importing_the_submodule():
    import subprocess
    import sys

    code = (
        "import neurogym.config.config\n"
        "from neurogym.config import config, Config\n"
        "print(type(config).__name__, isinstance(config, Config))\n"
    )
    out = subprocess.run(
        [sys.executable, "-W", "ignore::DeprecationWarning", "-c", code],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert out.stdout.split() == ["Config", "True"]
