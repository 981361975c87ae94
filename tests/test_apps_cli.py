"""neurogym-apps' commands reach the ``neurogym`` command line through ``neurogym_commands``."""

from __future__ import annotations

import subprocess
import sys

import pytest

from neurogym._registry.api import get_registry
from neurogym._registry.commands import plugin_commands
from neurogym.cli import main


def test_the_apps_declare_train_plot_and_sweep():
    commands = plugin_commands(get_registry().plugin_manager)
    assert {name: spec.distribution for name, spec in commands.items()} == {
        "plot": "neurogym-apps",
        "sweep": "neurogym-apps",
        "analyze": "neurogym-apps",
        "train": "neurogym-apps",
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["plot", "X", "--seed", "-1"],
            "argument --seed: must be a seed, an integer >= 0, got '-1'",
        ),
        (["plot", "X", "--trials", "100000"], "argument --trials: must be at most 50"),
        (
            ["train", "X", "--seed", "-3"],
            "argument --seed: must be a seed, an integer >= 0, got '-3'",
        ),
        (["sweep", "X", "--steps", "0"], "argument --steps: must be a positive integer, got '0'"),
    ],
)
def test_bad_arguments_of_the_apps_commands_are_refused_by_the_parser(args, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("command", ["plot", "train", "sweep"])
def test_an_unknown_task_id_points_to_neurogym_list(command, capsys):
    assert main([command, "PerceptualDecisionMakin"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"neurogym {command}: error: unknown task 'PerceptualDecisionMakin'")
    assert f"('neurogym list' lists the {len(get_registry().tasks())} registered tasks)" in err
    assert "neurogym.tasks()" not in err


def test_import_neurogym_and_listing_import_no_application():
    probe = (
        "import sys, neurogym\n"
        "from neurogym.cli import main\n"
        "main(['list'])\n"
        "heavy = [m for m in ('neurogym_apps._cli', 'neurogym_apps.train', 'neurogym_apps.plot', "
        "'neurogym_apps.rl', 'torch', 'matplotlib') "
        "if m in sys.modules]\n"
        "print('loaded:', heavy, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stderr.strip().endswith("loaded: []"), done.stderr
