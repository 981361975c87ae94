"""Text a plugin wrote is data: ``neurogym list``/``info``/``check`` never print it raw.

A hostile fake plugin declares tags, a description, a paper and a docstring holding ANSI and
OSC escape sequences, a newline that would forge a row of ``neurogym list`` and a
``javascript:`` paper link; plugins whose entry-point names would be path parts (``..``) are
refused before they are imported.
"""

from __future__ import annotations

import pytest

from neurogym import cli
from neurogym._registry.api import build_registry, get_registry
from neurogym.errors import NeurogymPluginWarning

ESC = "\x1b"
OSC_LINK = f"{ESC}]8;;https://evil.example{ESC}\\click{ESC}]8;;{ESC}\\"
FORGED_ROW = "neurogym/Forged-v0  core  trusted"

HOSTILE_PLUGIN = f"""
from neurogym._registry.specs import TaskSpec
from neurogym.hookspecs import hookimpl


@hookimpl
def neurogym_tasks():
    return [
        TaskSpec(
            "evil/Tiny-v0",
            "hostile_tasks:HostileEnv",
            tags=("toy", {OSC_LINK!r}, {"x" + chr(10) + FORGED_ROW!r}, "bidi\\u202eevil"),
            paper_name="A paper\\x1b[2J",
            paper_link="javascript:alert(1)",
            description="clears the screen\\x1b[2J\\x1b[H" + chr(13) + "and returns",
        )
    ]
"""
HOSTILE_TASKS = '''
from fake_tasks import TinyEnv


class HostileEnv(TinyEnv):
    """A docstring that colours the terminal\\x1b[31m red.

    Second line, kept as a line.
    """
'''


@pytest.fixture(autouse=True)
def fresh_default_registry():
    """The CLI reads the default registry: rebuild it around each test (conftest hides plugins)."""
    get_registry.cache_clear()
    yield
    get_registry.cache_clear()


@pytest.fixture
def hostile(installed_fake_plugin, fake_tasks_file):
    installed_fake_plugin(
        "fake-hostile",
        HOSTILE_PLUGIN,
        entry_point="hostile",
        files={**fake_tasks_file, "hostile_tasks.py": HOSTILE_TASKS},
    )


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_display_text_escapes_control_and_format_characters():
    from neurogym._registry.specs import display_text

    assert display_text("plain text, ünïcode") == "plain text, ünïcode"
    assert display_text(f"a{ESC}[31mb\r\nc\u202ed\u2028") == "a\\x1b[31mb\\r\\nc\\u202ed\\u2028"
    assert display_text("line 1\nline\t2", multiline=True) == "line 1\nline\\t2"


@pytest.mark.parametrize(
    ("link", "ok"),
    [
        ("https://doi.org/10.1/x", True),
        ("HTTP://example.org", True),
        ("javascript:alert(1)", False),
        ("data:text/html,<script>", False),
        ("//example.org/x", False),
        ("https://exa mple.org", False),
        ("https://example.org/\x1b[2J", False),
        ("http:///nohost", False),
        ("", False),
    ],
)
def test_only_http_urls_are_links(link, ok):
    from neurogym._registry.specs import is_http_url

    assert is_http_url(link) is ok


def test_list_escapes_tags_and_no_row_is_forged(capsys, hostile):
    code, out, err = run(capsys, "list")
    assert (code, err) == (0, "")
    assert not {ESC, "\r", "\u202e"} & set(out)
    lines = out.splitlines()
    assert not any(line.startswith(FORGED_ROW) for line in lines)
    (row,) = [line for line in lines if line.startswith("evil/Tiny-v0")]
    assert "\\x1b]8;;https://evil.example\\x1b\\click" in row
    assert f"x\\n{FORGED_ROW}" in row
    assert "bidi\\u202eevil" in row
    assert out.rstrip().endswith("2 tasks")


def test_info_escapes_every_field_and_shows_a_javascript_link_as_text(capsys, hostile):
    code, out, err = run(capsys, "info", "evil/Tiny-v0")
    assert (code, err) == (0, "")
    assert not {ESC, "\r"} & set(out)
    assert "paper:          A paper\\x1b[2J\n" in out
    assert "paper link:     'javascript:alert(1)' (not an http(s) link; shown as text)\n" in out
    assert "description:    clears the screen\\x1b[2J\\x1b[H\\rand returns\n" in out
    assert "\nA docstring that colours the terminal\\x1b[31m red.\n\nSecond line" in out
    # every line is a field, the docstring or the blank line between: nothing forged
    assert not any(line.startswith(FORGED_ROW) for line in out.splitlines())


def test_an_unknown_tag_lists_the_installed_ones_escaped(capsys, hostile):
    code, out, err = run(capsys, "list", "--tag", "nope")
    assert (code, out) == (2, "")
    assert ESC not in err
    assert err.count("\n") == 1


def test_check_escapes_the_plugin_problems(capsys, installed_fake_plugin):
    installed_fake_plugin(
        "fake-loud", f"raise ImportError({'needs ' + ESC + '[2J libfoo'!r})", entry_point="loud"
    )
    with pytest.warns(NeurogymPluginWarning):
        code, out, _ = run(capsys, "check", "--plugin", "loud")
    assert code == 1
    assert ESC not in out
    assert "ImportError: needs \\x1b[2J libfoo" in out


@pytest.mark.parametrize("name", ["..", ".", "a/b", "-x", "x" * 65, "tab\tname"])
def test_an_entry_point_name_that_is_no_plugin_name_is_refused_unimported(
    installed_fake_plugin, good_plugin, fake_tasks_file, name
):
    installed_fake_plugin(
        "fake-dots", "raise RuntimeError('imported')", module="fake_dots", entry_point=name
    )
    installed_fake_plugin("fake-good", good_plugin, files=fake_tasks_file, entry_point="good")
    with pytest.warns(NeurogymPluginWarning) as record:
        registry = build_registry()
    (message,) = [str(w.message) for w in record]
    assert message.startswith(
        f"neurogym plugin {name!r} from distribution 'fake-dots' was skipped: its entry-point "
        "name is not a valid plugin name"
    )
    assert "it is never imported" in message
    assert sorted({spec.plugin for spec in registry.tasks()}) == ["core", "good"]


def test_a_command_error_from_a_plugin_command_reaches_the_terminal_as_data(capsys):
    import argparse

    from neurogym.commands import CommandError, run_command

    def run(args: argparse.Namespace) -> int:
        raise CommandError("bad \x1b]0;pwned\x07 input\x1b[2J")

    assert run_command("evil", run, argparse.Namespace()) == 1
    err = capsys.readouterr().err
    assert "\x1b" not in err
    assert "\x07" not in err
    assert "\\x1b]0;pwned\\x07 input\\x1b[2J" in err
