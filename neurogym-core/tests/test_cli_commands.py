"""Subcommands from plugins (the ``neurogym_commands`` hook), against fake plugins (hermetic)."""

from __future__ import annotations

import sys

import pytest

from neurogym import CommandSpec, cli, commands
from neurogym._registry.api import get_registry
from neurogym.errors import NeurogymPluginWarning

# A command plugin: `neurogym hello NAME [--times N]`; its module records that it was imported.
# It greets a task by its name, and fails for nobody.
COMMANDS_MODULE = """
import sys
from neurogym.commands import CommandError, positive_int, resolve_task

IMPORTED = sys.modules[__name__]


def configure(parser):
    parser.add_argument("name")
    parser.add_argument("--times", type=positive_int, default=1)
    return run


def run(args):
    if args.name == "nobody":
        raise CommandError("there is nobody to greet")
    name = resolve_task(args.name).name if "/" in args.name else args.name
    print(" ".join(["hello", name] * args.times))
    return 0
"""


def _declaring(*specs: str) -> str:
    return (
        "from neurogym import CommandSpec, hookimpl\n\n@hookimpl\ndef neurogym_commands():\n"
        f"    return [{', '.join(specs)}]\n"
    )


HELLO = 'CommandSpec("hello", "fake_commands:configure", summary="say hello")'


@pytest.fixture(autouse=True)
def fresh_default_registry():
    get_registry.cache_clear()
    sys.modules.pop("fake_commands", None)
    yield
    get_registry.cache_clear()
    sys.modules.pop("fake_commands", None)


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("command", "extra"), [("train", "train"), ("plot", "plot"),
                                                 ("sweep", "train"),
                                                 ("analyze", "analysis")])  # fmt: skip
def test_a_first_party_command_that_is_not_installed_says_which_package_brings_it(
    capsys, command, extra
):
    code, out, err = run(capsys, command, "PerceptualDecisionMaking", "--steps", "3")
    assert code == 1
    assert out == ""
    assert err == (
        f"neurogym {command}: the {command!r} command comes with neurogym-apps, which is not "
        f'installed: pip install "neurogym[{extra}]"\n'
    )


def test_help_lists_the_missing_first_party_commands(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps to the terminal's width
    assert 'train not installed (neurogym-apps: "neurogym[train]")' in out
    assert 'plot not installed (neurogym-apps: "neurogym[plot]")' in out


def test_a_plugin_command_runs_with_its_own_arguments(capsys, installed_fake_plugin):
    installed_fake_plugin(
        "fake-hello", _declaring(HELLO), files={"fake_commands.py": COMMANDS_MODULE}
    )
    code, out, err = run(capsys, "hello", "world", "--times", "2")
    assert (code, out, err) == (0, "hello world hello world\n", "")
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["hello", "world", "--times", "0"])
    assert exit_info.value.code == 2
    assert "argument --times: must be a positive integer, got '0'" in capsys.readouterr().err


def test_a_plugin_commands_errors_are_its_exit_status(capsys, installed_fake_plugin):
    installed_fake_plugin(
        "fake-hello", _declaring(HELLO), files={"fake_commands.py": COMMANDS_MODULE}
    )
    assert run(capsys, "hello", "neurogym/Null-v0") == (0, "hello Null\n", "")
    assert run(capsys, "hello", "nobody") == (1, "", "neurogym hello: there is nobody to greet\n")
    code, out, err = run(capsys, "hello", "neurogym/Nul-v0")
    assert (code, out) == (2, "")
    assert err.startswith("neurogym hello: error: ")
    assert "Null" in err  # a close id


def test_the_command_lines_names_for_commands_are_those_of_neurogym_commands():
    # Code written against neurogym.cli keeps working; the names' home is neurogym.commands.
    for name in ("CommandError", "UsageError", "resolve_task", "positive_int", "positive_float",
                 "seed"):  # fmt: skip
        assert getattr(cli, name) is getattr(commands, name), name
        assert name in cli.__all__


def test_a_plugin_commands_module_is_imported_only_when_it_runs(capsys, installed_fake_plugin):
    installed_fake_plugin(
        "fake-hello", _declaring(HELLO), files={"fake_commands.py": COMMANDS_MODULE}
    )
    code, out, _ = run(capsys, "list")
    assert code == 0
    assert "neurogym/Null-v0" in out
    assert "fake_commands" not in sys.modules
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "hello say hello" in " ".join(capsys.readouterr().out.split())
    assert "fake_commands" not in sys.modules


def test_a_command_whose_module_fails_says_so(capsys, installed_fake_plugin):
    installed_fake_plugin(
        "fake-hello", _declaring(HELLO), files={"fake_commands.py": "raise ImportError('no libx')"}
    )
    code, out, err = run(capsys, "hello", "world")
    assert (code, out) == (1, "")
    assert err == ("neurogym hello: cannot load it from fake-hello: ImportError: no libx\n")


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("list", "is one of core's own commands (list, info, check, new)"),
        ("train", "is reserved for first-party 'neurogym-apps'"),
    ],
)
def test_core_and_first_party_command_names_cannot_be_taken(
    capsys, installed_fake_plugin, name, problem
):
    spec = f'CommandSpec("{name}", "fake_commands:configure")'
    installed_fake_plugin(
        "fake-thief", _declaring(spec), files={"fake_commands.py": COMMANDS_MODULE}
    )
    with pytest.warns(NeurogymPluginWarning) as record:
        code, _, err = run(capsys, name, *(["x"] if name == "train" else []))
    assert (
        f"neurogym plugin 'fake_thief' from distribution 'fake-thief' declares command "
        f"{name!r}, which {problem}; it is ignored"
    ) in [str(w.message) for w in record]
    assert "fake_commands" not in sys.modules
    if name == "train":
        assert code == 1
        assert "comes with neurogym-apps, which is not installed" in err
    else:
        assert code == 0  # core's own list ran


def test_a_command_declared_by_two_plugins_is_registered_for_neither(
    capsys, installed_fake_plugin
):
    files = {"fake_commands.py": COMMANDS_MODULE}
    installed_fake_plugin("fake-one", _declaring(HELLO), files=files)
    installed_fake_plugin("fake-two", _declaring(HELLO))
    declared_twice = "command 'hello' is declared by 'fake-one'"
    with (
        pytest.warns(NeurogymPluginWarning, match=declared_twice),
        pytest.raises(SystemExit) as exit_info,
    ):
        cli.main(["hello", "x"])
    assert exit_info.value.code == 2  # argparse: invalid choice
    assert "invalid choice: 'hello'" in capsys.readouterr().err


def test_a_plugin_returning_garbage_commands_is_warned_about(capsys, installed_fake_plugin):
    installed_fake_plugin("fake-bad", _declaring('"hello"'))
    with pytest.warns(NeurogymPluginWarning, match="not CommandSpec"):
        code, _, _ = run(capsys, "list")
    assert code == 0


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"name": "Train"}, ValueError, "invalid command name 'Train'"),
        ({"name": "-x"}, ValueError, "invalid command name '-x'"),
        ({"entry_point": "no colon"}, ValueError, "invalid entry_point 'no colon'"),
        ({"summary": 3}, TypeError, "summary of command 'hello' must be a str, got int: 3"),
    ],
)
def test_command_specs_are_checked_when_written(kwargs, error, message):
    fields = {"name": "hello", "entry_point": "m:f", **kwargs}
    with pytest.raises(error, match=message):
        CommandSpec(**fields)
