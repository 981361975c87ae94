"""The ``neurogym`` command line, against core's own tasks and fake plugins (hermetic)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from neurogym import cli
from neurogym._registry.api import get_registry
from neurogym.errors import NeurogymPluginWarning

# A task that breaks the contract: a plain gymnasium env without the metadata check_task wants.
FAILING_PLUGIN = """
from neurogym._registry.specs import TaskSpec
from neurogym.hookspecs import hookimpl


@hookimpl
def neurogym_tasks():
    return [TaskSpec("fake/Tiny-v0", "fake_tasks:TinyEnv", tags=("toy",))]
"""


@pytest.fixture(autouse=True)
def fresh_default_registry():
    """The CLI reads the default registry: rebuild it around each test (conftest hides plugins)."""
    get_registry.cache_clear()
    yield
    get_registry.cache_clear()


@pytest.fixture
def cookiecutter_home(tmp_path_factory, monkeypatch):
    """Keep cookiecutter's replay files and clones out of the home directory."""
    home = tmp_path_factory.mktemp("cookiecutter")
    config = home / "cookiecutter.yaml"
    config.write_text(f"cookiecutters_dir: {home / 'clones'}\nreplay_dir: {home / 'replay'}\n")
    monkeypatch.setenv("COOKIECUTTER_CONFIG", str(config))


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def rows(out):
    """The rows of the table that starts the output (up to the first blank line), split."""
    table = out.split("\n\n", 1)[0]
    return [line.split() for line in table.splitlines()[1:]]


# ------------------------------------------------------------------------------------ list
def test_list_shows_every_task_with_plugin_and_tags(capsys):
    code, out, err = run(capsys, "list")
    assert (code, err) == (0, "")
    assert out.splitlines()[0].split() == ["id", "plugin", "tags"]
    assert rows(out) == [["neurogym/Null-v0", "core", "placeholder"]]
    assert out.rstrip().endswith("1 task")


@pytest.mark.parametrize("option", [["--tag", "placeholder"], ["--plugin", "core"]])
def test_list_filters(capsys, option):
    code, out, _ = run(capsys, "list", *option)
    assert code == 0
    assert rows(out) == [["neurogym/Null-v0", "core", "placeholder"]]


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--tag", "nope"], "unknown tag 'nope'; installed tags: placeholder"),
        (["--plugin", "nope"], "unknown plugin 'nope'; installed plugins: core"),
    ],
)
def test_list_unknown_tag_or_plugin_is_a_usage_error(capsys, option, message):
    code, out, err = run(capsys, "list", *option)
    assert (code, out) == (2, "")
    assert err == f"neurogym list: error: {message}\n"


# ------------------------------------------------------------------------------------ info
@pytest.mark.parametrize("query", ["neurogym/Null-v0", "Null"])
def test_info_prints_the_spec_and_the_docstring(capsys, query):
    code, out, _ = run(capsys, "info", query)
    assert code == 0
    assert "id:             neurogym/Null-v0\n" in out
    assert "entry point:    neurogym._env.null:Null\n" in out
    assert "plugin:         core (distribution neurogym-core)\n" in out
    assert "vectorized:     no: Null declares no StandardDecision rule\n" in out
    assert "\n## Observation space (named dims)\n" in out


def test_info_derives_vectorized_from_the_class(capsys, installed_fake_plugin, monkeypatch):
    source = """
        from neurogym._registry.specs import TaskSpec
        from neurogym.hookspecs import hookimpl

        @hookimpl
        def neurogym_tasks():
            return [TaskSpec("fake/Var-v0", "data_tasks:VarTask")]
        """
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    installed_fake_plugin("fake-var", source)
    code, out, _ = run(capsys, "info", "fake/Var-v0")
    assert code == 0
    assert "vectorized:     yes (native vector env)\n" in out


def test_info_unknown_id_suggests_close_ids(capsys):
    code, out, err = run(capsys, "info", "Nul")
    assert (code, out) == (2, "")
    assert err.startswith(
        "neurogym info: error: unknown task 'Nul'; did you mean 'neurogym/Null-v0'?"
    )


def test_an_unknown_id_points_a_shell_user_to_neurogym_list(capsys):
    # the shell gets the command that lists the tasks; Python callers keep the Python call
    count = len(get_registry().tasks())
    code, _, err = run(capsys, "info", "Zebra!")
    assert (code, err) == (
        2,
        f"neurogym info: error: unknown task 'Zebra!' ('neurogym list' lists the {count} "
        f"registered task{'s' * (count != 1)})\n",
    )
    with pytest.raises(LookupError, match=r"\(neurogym\.tasks\(\) lists the \d+ registered task"):
        get_registry().resolve("Zebra!")


def test_info_reports_a_task_whose_module_does_not_import(capsys, installed_fake_plugin):
    installed_fake_plugin("fake-good", FAILING_PLUGIN, files={"fake_tasks.py": "import nope"})
    code, out, err = run(capsys, "info", "fake/Tiny-v0")
    assert code == 1
    assert "id:             fake/Tiny-v0" in out
    assert err == (
        "neurogym info: cannot import fake_tasks:TinyEnv: ModuleNotFoundError: "
        "No module named 'nope'\n"
    )


# ----------------------------------------------------------------------------------- check
def test_check_passes_core_tasks(capsys):
    code, out, err = run(capsys, "check")
    assert (code, err) == (0, "")
    assert out.splitlines()[0].split() == ["task", "plugin", "result", "time"]
    assert [row[:3] for row in rows(out)] == [["neurogym/Null-v0", "core", "PASS"]]
    assert out.rstrip().endswith("checked 1 task: 1 passed, 0 failed")


def test_check_named_ids(capsys):
    code, out, _ = run(capsys, "check", "Null", "--steps", "20")
    assert code == 0
    assert [row[:3] for row in rows(out)] == [["neurogym/Null-v0", "core", "PASS"]]


def test_check_fails_with_the_failed_checks(capsys, installed_fake_plugin, fake_tasks_file):
    installed_fake_plugin("fake-good", FAILING_PLUGIN, files=fake_tasks_file)
    code, out, _ = run(capsys, "check")
    assert code == 1
    assert [row[:3] for row in rows(out)] == [
        ["fake/Tiny-v0", "fake_good", "FAIL"],
        ["neurogym/Null-v0", "core", "PASS"],
    ]
    assert "\nfake/Tiny-v0 failed " in out
    assert "  - metadata: " in out
    assert out.rstrip().endswith("checked 2 tasks: 1 passed, 1 failed")


def test_check_plugin_checks_only_that_plugin(capsys, installed_fake_plugin, fake_tasks_file):
    installed_fake_plugin("fake-good", FAILING_PLUGIN, files=fake_tasks_file)
    code, out, _ = run(capsys, "check", "--plugin", "core")
    assert code == 0
    assert [row[0] for row in rows(out)] == ["neurogym/Null-v0"]


def test_check_counts_a_plugin_that_fails_to_load(capsys, installed_fake_plugin):
    installed_fake_plugin("fake-broken", "raise ImportError('needs libfoo')")
    with pytest.warns(NeurogymPluginWarning, match="needs libfoo"):
        code, out, _ = run(capsys, "check", "--plugin", "fake_broken")
    assert code == 1
    assert (
        "plugin problem: neurogym plugin 'fake_broken' from distribution 'fake-broken' failed "
        "to load: ImportError: needs libfoo" in out
    )
    assert out.rstrip().endswith("checked 0 tasks: 0 passed, 0 failed, 1 plugin problem")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--plugin", "nope"], "unknown plugin 'nope'; installed plugins: core"),
        (["nope/Task-v0"], "unknown task 'nope/Task-v0'"),
    ],
)
def test_check_unknown_plugin_or_id_is_a_usage_error(capsys, argv, message):
    code, out, err = run(capsys, "check", *argv)
    assert (code, out) == (2, "")
    assert err.startswith(f"neurogym check: error: {message}")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "--plugin", "core", "Null"], "not allowed with argument --plugin"),
        (["check", "--steps", "0"], "must be a positive integer, got '0'"),
        (["check", "--steps", "x"], "must be a positive integer, got 'x'"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ],
)
def test_bad_arguments_exit_2(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_no_command_prints_the_help(capsys):
    code, out, err = run(capsys)
    assert (code, out) == (2, "")
    assert err.startswith("usage: neurogym")
    assert all(command in err for command in ("list", "info", "check", "new"))


def test_python_dash_m_neurogym_runs_the_cli():
    result = subprocess.run(
        [sys.executable, "-m", "neurogym", "list", "--plugin", "core"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "neurogym/Null-v0" in result.stdout


# ------------------------------------------------------------------------------------- new
def test_the_template_is_found():
    template = cli.template_dir()
    questions = json.loads((template / "cookiecutter.json").read_text())
    assert list(questions)[:3] == ["plugin_name", "namespace", "task_class"]


def test_new_without_cookiecutter_says_how_to_install_it(capsys, monkeypatch, tmp_path):
    for module in ("cookiecutter", "cookiecutter.main", "cookiecutter.exceptions"):
        monkeypatch.setitem(sys.modules, module, None)  # makes `import cookiecutter` fail
    code, out, err = run(capsys, "new", "--no-input", "-o", str(tmp_path))
    assert (code, out) == (1, "")
    assert err == (
        "neurogym new: needs cookiecutter, which is not installed; it comes with the "
        """'template' extra: pip install "neurogym-core[template]"\n"""
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("plugin_name", "answers are KEY=VALUE, got 'plugin_name'"),
        ("plugin-name=x", "unknown question 'plugin-name'; the questions are plugin_name, "),
        ("license=WTFPL", "license must be one of Apache-2.0, MIT, BSD-3-Clause, "),
    ],
)
def test_new_rejects_malformed_answers_before_baking(capsys, tmp_path, answer, message):
    code, out, err = run(capsys, "new", "--no-input", "-o", str(tmp_path), answer)
    assert (code, out) == (2, "")
    assert err.startswith(f"neurogym new: error: {message}")
    assert list(tmp_path.iterdir()) == []


def test_new_bakes_a_plugin_in_the_current_directory(
    capsys, tmp_path, monkeypatch, cookiecutter_home
):
    pytest.importorskip("cookiecutter")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "new", "--no-input", "plugin_name=rat-lab")
    assert (code, err) == (0, "")
    assert (tmp_path / "neurogym-rat-lab" / "src" / "neurogym_rat_lab" / "_plugin.py").is_file()
    assert out == (
        f"Created neurogym-rat-lab (from the template in {cli.template_dir()})\n\n"
        "Next steps:\n"
        "  pip install -e neurogym-rat-lab pytest\n"
        "  cd neurogym-rat-lab && pytest\n"
        "  neurogym check --plugin rat-lab\n"
    )


def test_new_reports_rejected_answers_and_creates_nothing(capfd, tmp_path, cookiecutter_home):
    pytest.importorskip("cookiecutter")
    code = cli.main(["new", "--no-input", "-o", str(tmp_path), "namespace=neurogym"])
    out, err = capfd.readouterr()
    assert (code, out) == (1, "")
    assert "ERROR: namespace 'neurogym' clashes with neurogym" in err  # the template's hook
    assert "Traceback" not in err
    assert err.endswith("neurogym new: nothing was created: the answers above were rejected\n")
    assert list(tmp_path.iterdir()) == []


def test_new_removes_the_folders_it_created_for_a_rejected_bake(
    capfd, tmp_path, cookiecutter_home
):
    pytest.importorskip("cookiecutter")
    deep = tmp_path / "a" / "b" / "c"
    code = cli.main(["new", "--no-input", "-o", str(deep), "namespace=neurogym"])
    assert code == 1
    assert "nothing was created" in capfd.readouterr().err
    assert list(tmp_path.iterdir()) == []  # not even a/ or a/b/


def test_new_with_an_answer_too_long_for_a_file_name_says_so(capfd, tmp_path, cookiecutter_home):
    pytest.importorskip("cookiecutter")
    code = cli.main(["new", "--no-input", "-o", str(tmp_path / "o"), f"plugin_name={'a' * 5000}"])
    err = capfd.readouterr().err
    assert code == 1
    assert "Traceback" not in err
    assert "nothing was created" in err
    assert not (tmp_path / "o").exists()


def test_template_syntax_typed_at_the_prompt_is_refused(
    monkeypatch, capfd, tmp_path, cookiecutter_home
):
    pytest.importorskip("cookiecutter")
    typed = iter(["", "", "", "{{7*7}}"])  # defaults, then the author; then defaults again
    monkeypatch.setattr("builtins.input", lambda *args: next(typed, ""))
    code = cli.main(["new", "-o", str(tmp_path / "o")])
    err = capfd.readouterr().err
    assert code == 1
    assert "ERROR: author '{{7*7}}' holds template syntax" in err
    assert not (tmp_path / "o").exists()


def test_new_refuses_to_overwrite(capsys, tmp_path, cookiecutter_home):
    pytest.importorskip("cookiecutter")
    (tmp_path / "neurogym-mylab").mkdir()
    code, _, err = run(capsys, "new", "--no-input", "-o", str(tmp_path))
    assert code == 1
    assert err.startswith("neurogym new: nothing was created: ")
    assert "already exists" in err


# --------------------------------------------------------------- new: answers are literal text
PAYLOAD = "{{ cycler.__init__.__globals__.os.system('touch {marker}') }}"


@pytest.fixture
def home(tmp_path, monkeypatch):
    """An empty home directory, so a test can assert nothing was written there."""
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    monkeypatch.delenv("COOKIECUTTER_CONFIG", raising=False)
    return path


@pytest.mark.parametrize("key", ["author", "description", "tags", "plugin_name"])
def test_new_never_evaluates_an_answer(capsys, tmp_path, home, key):
    marker = tmp_path / "X"
    payload = PAYLOAD.replace("{marker}", str(marker))
    code, out, err = run(
        capsys, "new", "--no-input", "-o", str(tmp_path / "out"), f"{key}={payload}"
    )
    assert (code, out) == (2, "")
    assert err == (
        f"neurogym new: error: {key}={payload!r} holds template syntax ('{{{{'); answers are "
        "literal text and are never evaluated, so remove it\n"
    )
    assert not marker.exists()
    assert not (tmp_path / "out").exists()
    assert list(home.iterdir()) == []


def test_plain_cookiecutter_never_evaluates_an_answer(tmp_path, home):
    cookiecutter_main = pytest.importorskip("cookiecutter.main")
    marker = tmp_path / "X"
    out = tmp_path / "out"
    for answer in (
        PAYLOAD.replace("{marker}", str(marker)),
        "{{ 7*7 }}",
        "{% if 1 %}x{% endif %}",
    ):
        with pytest.raises(ValueError, match=r"answers are literal text"):
            cookiecutter_main.cookiecutter(
                str(cli.template_dir()),
                no_input=True,
                extra_context={"author": answer},
                output_dir=str(out),
            )
    assert not marker.exists()
    assert not out.exists() or list(out.iterdir()) == []


def test_new_writes_nothing_to_the_home_directory(capsys, tmp_path, home):
    pytest.importorskip("cookiecutter")
    code, _, err = run(capsys, "new", "--no-input", "-o", str(tmp_path), "author={7*7}")
    assert (code, err) == (0, "")
    pyproject = (tmp_path / "neurogym-mylab" / "pyproject.toml").read_text()
    assert 'name = "{7*7}"' in pyproject  # literal text, not 49
    assert list(home.iterdir()) == []
    code, _, _ = run(
        capsys, "new", "--no-input", "-o", str(tmp_path / "bad"), "namespace=neurogym"
    )
    assert code == 1
    assert list(home.iterdir()) == []


def test_a_failed_new_leaves_no_output_directory(capfd, tmp_path, home):
    pytest.importorskip("cookiecutter")
    out = tmp_path / "a" / "b"
    code = cli.main(["new", "--no-input", "-o", str(out), "plugin_name=core"])
    assert code == 1
    assert not (tmp_path / "a").exists() or not out.exists()
    assert not out.exists()


def test_new_with_output_dir_a_file_is_a_usage_error(capsys, tmp_path, home):
    target = tmp_path / "afile"
    target.write_text("")
    code, out, err = run(capsys, "new", "--no-input", "-o", str(target))
    assert (code, out) == (2, "")
    assert err == f"neurogym new: error: --output-dir {str(target)!r} is a file, not a directory\n"


def test_new_at_end_of_input_is_a_usage_error(tmp_path, home):
    pytest.importorskip("cookiecutter")
    done = subprocess.run(
        [sys.executable, "-m", "neurogym", "new", "-o", str(tmp_path / "out")],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "neurogym new: error: nothing was created: the input ended before every question was "
        "answered (pass --no-input to take the defaults, or KEY=VALUE answers)\n"
    )
    assert "Traceback" not in done.stdout
    assert not (tmp_path / "out").exists()
    assert list(home.iterdir()) == []
