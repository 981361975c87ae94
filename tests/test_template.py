"""The plugin template, baked for real: generated, installed, tested, discovered and linted.

One fresh virtual environment (module scope, no system site-packages) gets neurogym-core from
this checkout, installed non-editable with its ``template`` extra, like a user's. The
``defaults`` answer set is baked there by ``neurogym new``, from the template packaged in the
wheel, in a directory outside the checkout; the other sets are baked from ``template/`` with
cookiecutter's API. Every baked plugin is pip-installed into that environment, runs its own
tests, is discovered by neurogym and made by ``gymnasium.make``, is listed and checked by the
CLI, runs its README's example, and passes ruff with its own configuration. Its GitHub
workflows pass the GitHub workflow schema (check-jsonschema's vendored copy: no network), and
the release workflow's build and check commands run on one baked plugin, read from its
``release.yml``. Invalid answers must stop generation, with a message naming the answer.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest
import yaml
from cookiecutter.exceptions import FailedHookException
from cookiecutter.main import cookiecutter

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "template"
CORE = ROOT / "neurogym-core"
PROJECT_TEMPLATE = TEMPLATE / "neurogym-{{cookiecutter.plugin_name|slugify}}"
DEFAULTS = json.loads((TEMPLATE / "cookiecutter.json").read_text(encoding="utf-8"))
TIMEOUT = 900  # seconds for one pip install (cold caches) or one baked test run
# Answers of exactly this length put `paper_name="..."` at exactly 99 columns, and make
# `description="..."` one column too long for one line, so it is wrapped.
AT_THE_LIMIT = 77

# name -> (answers, plugin name, task id, class, import name)
VALID = {
    "defaults": (
        {},
        "mylab",
        "mylab/MyTask-v0",
        "MyTask",
        "neurogym_mylab",
    ),
    "hyphenated": (
        {
            "plugin_name": "rat-lab2",
            "namespace": "RatLab",
            "task_class": "GoSignal",
            "author": "Zoë O'Brien",
            "email": "",
            "license": "MIT",
            "description": "Rodent tasks, ported from the lab's MATLAB code",
            # multi-word tags, as first-party tasks have ('working memory', 'go-no-go')
            "tags": "motor,go-no-go, working memory,steps action space",
            "task_description": "Hold still until a go signal, then press the lever: a rat "
            "reaction time task.",
            "paper_name": "Waiting for the go: how rats learn to hold still until a cue before "
            "they act.",
            "paper_link": "https://doi.org/10.1000/182",
        },
        "rat-lab2",
        "RatLab/GoSignal-v0",
        "GoSignal",
        "neurogym_rat_lab2",
    ),
    # Every name at its maximal length: the generated lines must still fit in 99 columns.
    "longest": (
        {
            "plugin_name": "abcdefghij-klmnopqrst-uvwxyz-123",
            "namespace": "Abcdefghij_klmnopqrst-uvwxyz_123",
            "task_class": "AbcdefghijKlmnopqrstUvwxyz123456",
            "author": "A" * 80,
            "email": "first.last+neurogym@lab.example.org",
            "license": "GPL-3.0-or-later",
            "description": "d" * 80,
            "tags": f"{'t' * 30}, u.v_w-x, Z9, {'w' * 14} {'x' * 15}",
            "task_description": ("w" * 60 + " ") * 3 + "e" * 17,
            "paper_name": "p" * 200,
            "paper_link": "https://" + "l" * 192,
        },
        "abcdefghij-klmnopqrst-uvwxyz-123",
        "Abcdefghij_klmnopqrst-uvwxyz_123/AbcdefghijKlmnopqrstUvwxyz123456-v0",
        "AbcdefghijKlmnopqrstUvwxyz123456",
        "neurogym_abcdefghij_klmnopqrst_uvwxyz_123",
    ),
}

INVALID = {
    "slug with a space": ({"plugin_name": "My Lab"}, "plugin_name 'My Lab' is not a valid"),
    "slug with _": ({"plugin_name": "my_lab"}, "plugin_name 'my_lab' is not a valid"),
    "slug too long": ({"plugin_name": "a" * 33}, f"plugin_name '{'a' * 33}' is not a valid"),
    "first-party slug": ({"plugin_name": "core"}, "plugin_name 'core' is taken"),
    "neurogym namespace": ({"namespace": "neurogym"}, "namespace 'neurogym' clashes with"),
    "Neurogym namespace": ({"namespace": "NeuroGym"}, "namespace 'NeuroGym' clashes with"),
    "namespace with /": ({"namespace": "a/b"}, "namespace 'a/b' is not a valid task-id"),
    "snake_case class": ({"task_class": "my_task"}, "task_class 'my_task' is not a valid"),
    "keyword module": (
        {"task_class": "Import"},
        "task_class 'Import' cannot be used: it or its module name 'import' is a",
    ),
    "shadowing class": (
        {"task_class": "BatchBuilder"},
        "task_class 'BatchBuilder' would shadow a name",
    ),
    "quoted description": ({"description": 'a "b"'}, "description 'a \"b\"' must be one line"),
    "empty author": ({"author": " "}, "author must not be empty"),
    "bad email": ({"email": "nobody"}, "email 'nobody' is not an email address"),
    "empty tag": ({"tags": "a,,b"}, "tags 'a,,b': '' not valid"),
    "tag with two spaces": (
        {"tags": "working  memory"},
        "tags 'working  memory': 'working  memory' not valid; give one or more comma-separated "
        "tags of up to 30 characters each: words of letters, digits, '_', '.' or '-' separated "
        "by single spaces",
    ),
    "tag too long": ({"tags": f"a, {'b' * 31}"}, f"tags 'a, {'b' * 31}': '{'b' * 31}' not valid"),
    "link not a URL": (
        {"paper_link": "doi:10.1000/182"},
        "paper_link 'doi:10.1000/182' is not a link: give an http:// or https:// URL",
    ),
    "link with a space": (
        {"paper_link": "https://a.org/b c"},
        "paper_link 'https://a.org/b c' is not a link",
    ),
    "quoted paper": (
        {"paper_name": 'The "best" task'},
        "paper_name 'The \"best\" task' must be one line without double quotes",
    ),
    "paper with a bar": (
        {"paper_name": "A | B"},
        "paper_name 'A | B' holds '|', which would split the README's task table",
    ),
    "task description too long": (
        {"task_description": "ab " * 67},
        "task_description is 201 characters long; the limit is 200",
    ),
    "task description with a long word": (
        {"task_description": f"a {'w' * 61}"},
        "task_description has a word of 61 characters ('wwwwwwwwwwwwwwwwwwww'...); words "
        "have at most 60",
    ),
    "two spaces in a row": (
        {"task_description": "a  b"},
        "task_description 'a  b' has two spaces in a row; separate words with one",
    ),
    "Neuro-Gym namespace": ({"namespace": "Neuro-Gym"}, "namespace 'Neuro-Gym' clashes with"),
    # the private variables are rendered into paths: a command line or replay file that sets
    # them must not write outside the output directory
    "escaping package": (
        {"__package": "../../../ESCAPED"},
        "__package is derived from the answers and must be 'neurogym_mylab', got "
        "'../../../ESCAPED'",
    ),
    "escaping module": (
        {"__task_module": "../../../../../ESCAPED"},
        "__task_module is derived from the answers and must be 'mytask'",
    ),
    "other dist name": ({"__dist_name": "numpy"}, "__dist_name is derived from the answers"),
}


def scripts(venv: Path) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin")


def run(command, *, cwd, env=None, timeout=TIMEOUT):
    result = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    output = f"$ {' '.join(map(str, command))}\n{result.stdout}\n{result.stderr}"
    assert result.returncode == 0, output
    return result.stdout


@pytest.fixture(scope="module")
def cookiecutter_config(tmp_path_factory):
    """A cookiecutter config keeping replay files and clones out of the home directory."""
    home = tmp_path_factory.mktemp("cookiecutter")
    config = home / "config.yaml"
    config.write_text(f"cookiecutters_dir: {home / 'clones'}\nreplay_dir: {home / 'replay'}\n")
    return config


@pytest.fixture(scope="module")
def venv(tmp_path_factory, cookiecutter_config):
    """A fresh venv with neurogym-core[template] (non-editable, from this checkout) and pytest.

    Returns the venv and the environment to run its commands with: its scripts first on PATH,
    no PYTHON* or NEUROGYM_* variables inherited from this test run.
    """
    path = tmp_path_factory.mktemp("venv")
    run([sys.executable, "-m", "venv", path], cwd=path)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTHON", "NEUROGYM_")) and key != "VIRTUAL_ENV"
    }
    env |= {
        "PATH": f"{scripts(path)}{os.pathsep}{os.environ.get('PATH', '')}",
        "VIRTUAL_ENV": str(path),
        "COOKIECUTTER_CONFIG": str(cookiecutter_config),
    }
    pip = [scripts(path) / "python", "-m", "pip", "install", "--disable-pip-version-check"]
    run([*pip, f"{CORE}[template]", "pytest"], cwd=path, env=env)
    return path, env, pip


@pytest.fixture(scope="module")
def baked(venv, tmp_path_factory, cookiecutter_config):
    """Bake every valid answer set and pip-install them all (editable) into the venv.

    Returns the answer-set name -> project directory, the output of ``neurogym new``, and the
    answer-set name -> the bytecode files and folders its project held right after baking
    (before anything ran in it).
    """
    path, env, pip = venv
    out = tmp_path_factory.mktemp("baked")
    created = run([scripts(path) / "neurogym", "new", "--no-input"], cwd=out, env=env)
    projects = {"defaults": out / "neurogym-mylab"}
    for name, (answers, *_) in VALID.items():
        if name != "defaults":
            project = cookiecutter(
                str(TEMPLATE),
                no_input=True,
                extra_context=answers,
                output_dir=str(out),
                config_file=str(cookiecutter_config),
            )
            projects[name] = Path(project)
    bytecode = {
        name: sorted(
            path.relative_to(project).as_posix()
            for path in project.rglob("*")
            if path.name == "__pycache__" or path.suffix in (".pyc", ".pyo")
        )
        for name, project in projects.items()
    }
    run([*pip, *(arg for p in projects.values() for arg in ("-e", p))], cwd=out, env=env)
    return projects, created, bytecode


def python_in(venv, code, project):
    path, env, _ = venv
    return run([scripts(path) / "python", "-c", code], cwd=project, env=env)


def test_neurogym_new_bakes_from_the_template_packaged_in_the_wheel(venv, baked):
    path, _, _ = venv
    _, created, _ = baked
    packaged = python_in(
        venv, "from neurogym.cli import template_dir; print(template_dir())", path
    )
    packaged = Path(packaged.strip())
    assert packaged.is_relative_to(path), "neurogym new did not use the installed copy"
    assert f"(from the template in {packaged})" in created
    assert "neurogym check --plugin mylab" in created

    def files(root):
        return {
            p.relative_to(root).as_posix(): p.read_bytes()
            for p in root.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        }

    assert files(packaged) == files(TEMPLATE), "the wheel's template differs from template/"


def answer(name, key):
    """The answer of set ``name`` to question ``key`` (the template's default if not given)."""
    return VALID[name][0].get(key, DEFAULTS[key])


@pytest.mark.parametrize("name", VALID)
def test_baked_plugin_passes_its_own_tests(venv, baked, name):
    path, env, _ = venv
    project = baked[0][name]
    command = [scripts(path) / "python", "-m", "pytest", "-p", "no:cacheprovider"]
    if name != "defaults":
        output = run(command, cwd=project, env=env)
        assert re.search(r"\b7 passed\b", output), output
        return
    # The defaults leave the task's paper and description as TODO: one test says so, by name.
    result = subprocess.run(
        [str(part) for part in command],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert re.search(r"\b1 failed, 6 passed\b", result.stdout), result.stdout
    failed = "tests/test_check_task.py::test_task_documentation_is_written[mylab/MyTask-v0]"
    assert f"FAILED {failed}" in result.stdout
    assert (
        "AssertionError: the TaskSpec of mylab/MyTask-v0 in src/neurogym_mylab/"
        "_plugin.py still says TODO in paper_name, paper_link, description: write the task's "
        "paper (title and link) and a one-line description there"
    ) in result.stdout


def test_neurogym_new_names_the_answers_left_as_todo(baked):
    projects, created, _ = baked
    assert created.startswith(
        "TODO: you left task_description, paper_name, paper_link for later. They stand as TODO "
        "in src/neurogym_mylab/_plugin.py and in the README's task table, and the plugin's "
        "tests fail until you write them.\n"
    )
    plugin = (projects["defaults"] / "src" / "neurogym_mylab" / "_plugin.py").read_text()
    assert (
        '        paper_name="TODO",\n        paper_link="TODO",\n        description="TODO",\n'
        in plugin
    )
    assert "        # TODO: write your task's paper and description" in plugin
    readme = (projects["defaults"] / "README.md").read_text()
    assert "| perceptual, two-alternative, supervised | TODO | [TODO](TODO) |" in readme
    for name in VALID:
        if name != "defaults":
            assert "TODO" not in (projects[name] / "README.md").read_text()


def test_long_answers_are_wrapped_within_99_columns(baked):
    answers = VALID["hyphenated"][0]
    assert len(answers["paper_name"]) == len(answers["task_description"]) == AT_THE_LIMIT
    plugin = baked[0]["hyphenated"] / "src" / "neurogym_rat_lab2" / "_plugin.py"
    lines = plugin.read_text().splitlines()
    assert f'        paper_name="{answers["paper_name"]}",' in lines  # 99 columns: it fits
    assert "        description=(" in lines  # 100 columns would not: wrapped
    assert max(len(line) for line in lines) == 99


@pytest.mark.parametrize("name", VALID)
def test_baked_plugin_holds_no_bytecode(venv, baked, name):
    if name == "defaults":  # baked from the wheel's template, which pip byte-compiled
        packaged = Path(
            python_in(
                venv, "from neurogym.cli import template_dir; print(template_dir())", "."
            ).strip()
        )
        compiled = list(packaged.glob("neurogym-*/**/__pycache__/*.pyc"))
        assert compiled, "precondition: the installed template should hold pip's bytecode"
    assert baked[2][name] == []


@pytest.mark.parametrize("name", VALID)
def test_baked_plugin_is_discovered_and_made_by_gymnasium(venv, baked, name):
    _, plugin, task_id, cls, package = VALID[name]
    project = baked[0][name]
    tags = tuple(tag.strip() for tag in answer(name, "tags").split(","))
    documentation = tuple(
        answer(name, key) for key in ("paper_name", "paper_link", "task_description")
    )
    code = f"""
import gymnasium, neurogym
ids = [spec.id for spec in neurogym.tasks(plugin={plugin!r})]
assert ids == [{task_id!r}], ids
spec = neurogym.spec({task_id!r})
assert (spec.distribution, spec.vectorized) == ({"neurogym-" + plugin!r}, True), spec
assert spec.tags == {tags!r}, spec.tags
assert (spec.paper_name, spec.paper_link, spec.description) == {documentation!r}, spec
env = gymnasium.make({task_id!r})
task = env.unwrapped
assert type(task).__module__ == {package + ".tasks." + cls.lower()!r}, type(task)
assert type(task).__name__ == {cls!r}
observation, _ = env.reset(seed=0)
assert env.observation_space.contains(observation)
print("ok")
"""
    assert python_in(venv, code, project).strip() == "ok"


@pytest.mark.parametrize("name", VALID)
def test_cli_lists_and_checks_the_baked_plugin(venv, baked, name):
    path, env, _ = venv
    _, plugin, task_id, _, _ = VALID[name]
    project = baked[0][name]
    listed = run([scripts(path) / "neurogym", "list", "--plugin", plugin], cwd=project, env=env)
    assert listed.splitlines()[1].split()[:2] == [task_id, plugin]
    checked = run([scripts(path) / "neurogym", "check", "--plugin", plugin], cwd=project, env=env)
    assert checked.splitlines()[1].split()[:3] == [task_id, plugin, "PASS"]
    assert "checked 1 task: 1 passed, 0 failed" in checked


@pytest.mark.parametrize("name", VALID)
def test_baked_readme_example_runs(venv, baked, name):
    project = baked[0][name]
    readme = (project / "README.md").read_text(encoding="utf-8")
    examples = re.findall(r"```python\n(.*?)```", readme, flags=re.DOTALL)
    assert len(examples) == 1, "the README should have one Python example"
    python_in(venv, examples[0], project)


@pytest.mark.parametrize("name", VALID)
def test_baked_plugin_is_ruff_clean(baked, name):
    project = baked[0][name]
    files = sorted(path.relative_to(project) for path in project.rglob("*.py"))
    assert len(files) == 7, files
    ruff = [sys.executable, "-m", "ruff"]
    run([*ruff, "check", "--no-cache", *files], cwd=project)
    formatted = run([*ruff, "format", "--no-cache", "--check", *files], cwd=project)
    assert "7 files already formatted" in formatted


def test_baked_tooling_matches_the_repository(baked):
    baked_toml = tomllib.loads((baked[0]["defaults"] / "pyproject.toml").read_text())
    root_toml = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert baked_toml["dependency-groups"]["lint"] == root_toml["dependency-groups"]["lint"]
    baked_ruff, root_ruff = baked_toml["tool"]["ruff"], root_toml["tool"]["ruff"]
    for key in ("line-length", "target-version"):
        assert baked_ruff[key] == root_ruff[key], key
    for key in ("select", "ignore"):
        assert baked_ruff["lint"][key] == root_ruff["lint"][key], key
    entry_points = baked_toml["project"]["entry-points"]["neurogym.plugins"]
    assert entry_points == {"mylab": "neurogym_mylab._plugin"}


def test_baked_task_is_a_skeleton_marked_todo_where_the_author_writes(baked):
    project = baked[0]["hyphenated"]  # every answer given: only the task's code is left
    task = (project / "src" / "neurogym_rat_lab2" / "tasks" / "gosignal.py").read_text()
    docstring = ast.get_docstring(ast.parse(task).body[-1])
    assert docstring.startswith("TODO: say in one line what the agent does")
    # each part of a task has its TODO, in the order a reader meets them
    todos = [line.strip() for line in task.splitlines() if line.strip().startswith("# TODO:")]
    parts = ["rewards", "which periods", "own arguments", "observation and action spaces",
             "trial variables", "periods, in order", "observations", "ground truth"]  # fmt: skip
    assert len(todos) == len(parts), todos
    for part, todo in zip(parts, todos, strict=True):
        assert todo.removeprefix("# TODO: ").removeprefix("your ").startswith(part), todo
    assert "coh" not in task  # nothing of another task's stimulus is left to rewrite
    # the complete two-alternative example lives in the guide the skeleton names, whose
    # blocks neurogym-core/tests/test_writing_a_task.py runs (check_task included)
    assert "docs/writing-a-task.md" in docstring
    guide = (ROOT / "docs" / "writing-a-task.md").read_text(encoding="utf-8")
    assert (
        'class LouderTone(TrialEnv):\n    """Report which of two noisy tones is louder.' in guide
    )
    assert 'check_task(registry.make("mylab/LouderTone-v0"))' in guide


def guide_task(page, name, docstring=None):
    """The imports and the class ``name`` of a ``python`` block of docs/``page``, as written.

    ``docstring`` is added when the class has none (check_task requires one).
    """
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    (block,) = [
        b for b in re.findall(r"```python\n(.*?)```", text, re.DOTALL) if f"class {name}(" in b
    ]
    lines = block.splitlines()
    tree = ast.parse(block)
    imports = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name]
    body = lines[cls.lineno - 1 : cls.end_lineno]
    if docstring is not None and ast.get_docstring(cls) is None:
        body.insert(1, f'    """{docstring}"""')
    kept = [line for node in imports for line in lines[node.lineno - 1 : node.end_lineno]]
    return "\n".join([*kept, "", "", *body]) + "\n"


@pytest.fixture(scope="module")
def ported(venv, tmp_path_factory, cookiecutter_config):
    """A baked plugin whose task is porting.md's ``Ring``, as the guide writes it, installed.

    Its task module is replaced by the guide's code (plus a one-line docstring), with no
    annotations, and writing-a-task.md's ``LouderTone`` is added beside it; then the fixes the
    plugin's README names run (``ruff check --fix``, ``ruff format``), as an author would.
    """
    _, env, pip = venv
    answers = {
        "plugin_name": "ported",
        "task_class": "Ring",
        "tags": "perceptual",
        "task_description": "Report where on a ring a noisy stimulus points.",
        "paper_name": "An example task of the neurogym documentation",
        "paper_link": "https://example.org/ring",
    }
    project = Path(
        cookiecutter(
            str(TEMPLATE),
            no_input=True,
            extra_context=answers,
            output_dir=str(tmp_path_factory.mktemp("ported")),
            config_file=str(cookiecutter_config),
        )
    )
    tasks = project / "src" / "neurogym_ported" / "tasks"
    ring = guide_task("porting.md", "Ring", "A ring task, ported from NeuroGym 2.3.1.")
    assert "def __init__(self, dt=100, dim_ring=2" in ring  # un-annotated, as upstream wrote it
    (tasks / "ring.py").write_text(ring, encoding="utf-8")
    (tasks / "loudertone.py").write_text(guide_task("writing-a-task.md", "LouderTone"))
    ruff = [sys.executable, "-m", "ruff"]
    run([*ruff, "check", "--no-cache", "--fix", "--quiet", "--exit-zero", "."], cwd=project)
    run([*ruff, "format", "--no-cache", "--quiet", "."], cwd=project)
    run([*pip, "--no-deps", "-e", project], cwd=project, env=env)
    return project


def test_a_task_written_as_the_guides_show_passes_the_baked_ci(venv, ported):
    """The commands of the baked CI's nox sessions (read from its noxfile) pass, unchanged."""
    path, env, _ = venv
    noxfile = ast.parse((ported / "noxfile.py").read_text(encoding="utf-8"))
    commands = [
        [arg.value for arg in node.args if isinstance(arg, ast.Constant)]
        for node in ast.walk(noxfile)
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "session.run"
    ]
    assert commands == [["pytest"], ["ruff", "check"], ["ruff", "format", "--check"]]
    pytest_run = run(
        [scripts(path) / "python", "-m", "pytest", "-p", "no:cacheprovider"], cwd=ported, env=env
    )
    assert re.search(r"\b7 passed\b", pytest_run), pytest_run
    for command in commands[1:]:  # the sessions' default arguments: "."
        run([sys.executable, "-m", *command, "--no-cache", "."], cwd=ported)


@pytest.mark.parametrize(("answers", "message"), INVALID.values(), ids=INVALID)
def test_invalid_answers_stop_generation(tmp_path, capfd, cookiecutter_config, answers, message):
    with pytest.raises(FailedHookException):
        cookiecutter(
            str(TEMPLATE),
            no_input=True,
            extra_context=answers,
            output_dir=str(tmp_path),
            config_file=str(cookiecutter_config),
        )
    err = capfd.readouterr().err
    assert f"ERROR: {message}" in err
    assert "The neurogym plugin template generated nothing" in err
    assert list(tmp_path.iterdir()) == []
    assert not list(tmp_path.parent.glob("**/ESCAPED*"))  # nothing written outside either


# ------------------------------------------------------------------- publishing: CI and release
def workflow(project, name):
    return yaml.safe_load((project / ".github" / "workflows" / name).read_text(encoding="utf-8"))


def triggers(parsed):
    return parsed[True]  # YAML 1.1 (PyYAML) reads the key `on` as the boolean True


def runs(job):
    return [step["run"] for step in job["steps"] if "run" in step]


def test_baked_workflows_pass_the_github_workflow_schema(baked):
    files = sorted(p for project in baked[0].values() for p in project.glob(".github/*/*.yml"))
    assert len(files) == 2 * len(VALID), files
    check = [sys.executable, "-m", "check_jsonschema", "--builtin-schema"]
    assert "ok -- validation done" in run([*check, "vendor.github-workflows", *files], cwd=ROOT)


@pytest.mark.parametrize("name", VALID)
def test_baked_workflows_are_the_templates_text(baked, name):
    """Jinja removes exactly its own lines: no blank line added, no newline lost."""
    project = baked[0][name]
    for file in ("ci.yml", "release.yml"):
        text = (PROJECT_TEMPLATE / ".github" / "workflows" / file).read_text(encoding="utf-8")
        text = re.sub(r"\A\{#.*?#\}\n", "", text, flags=re.DOTALL).replace("{% raw %}", "")
        text = text.replace("{% endraw %}\n", "").replace(
            "{{ cookiecutter.__dist_name }}", f"neurogym-{VALID[name][1]}"
        )
        assert not re.search(r"\{[%#]", text)
        assert (project / ".github" / "workflows" / file).read_text(encoding="utf-8") == text


def test_ci_runs_the_nox_sessions_on_every_supported_python(baked):
    project = baked[0]["hyphenated"]
    ci = workflow(project, "ci.yml")
    assert set(triggers(ci)) == {"push", "pull_request", "workflow_call"}
    assert ci["permissions"] == {"contents": "read"}
    tests, lint = ci["jobs"]["tests"], ci["jobs"]["lint"]
    pythons = tests["strategy"]["matrix"]["python-version"]
    assert runs(tests)[-1] == "nox -s tests-${{ matrix.python-version }}"
    assert runs(lint)[-1] == "nox -s lint"
    # the matrix, the noxfile's sessions and the classifiers name the same versions
    noxfile = ast.parse((project / "noxfile.py").read_text(encoding="utf-8"))
    (assigned,) = [
        node.value
        for node in noxfile.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "PYTHONS"
    ]
    sessions = {
        node.name: ast.unparse(node.decorator_list[0])
        for node in noxfile.body
        if isinstance(node, ast.FunctionDef)
    }
    assert sessions == {"tests": "nox.session(python=PYTHONS)", "lint": "nox.session"}
    classifiers = tomllib.loads((project / "pyproject.toml").read_text())["project"]["classifiers"]
    listed = [c.rpartition(":: ")[2] for c in classifiers if re.fullmatch(r".*:: 3\.\d+", c)]
    assert pythons == ast.literal_eval(assigned) == listed == ["3.11", "3.12", "3.13"]


def test_release_publishes_a_tag_with_trusted_publishing(baked):
    release = workflow(baked[0]["hyphenated"], "release.yml")
    assert triggers(release) == {"push": {"tags": ["v*"]}}
    jobs = release["jobs"]
    assert jobs["ci"] == {"uses": "./.github/workflows/ci.yml"}  # the tests run first
    assert (jobs["build"]["needs"], jobs["publish"]["needs"]) == ("ci", "build")
    publish = jobs["publish"]
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"] == {
        "name": "pypi",
        "url": "https://pypi.org/project/neurogym-rat-lab2/",
    }
    (upload,) = [step for step in publish["steps"] if "gh-action-pypi-publish" in step.get("uses")]
    assert upload == {"name": "Publish to PyPI", "uses": "pypa/gh-action-pypi-publish@release/v1"}


def test_baked_changelog_and_readme_say_how_to_release(baked):
    project = baked[0]["hyphenated"]
    changelog = (project / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## 0.1.0\n\n- The first task: `RatLab/GoSignal-v0`.\n" in changelog
    release = (project / "README.md").read_text(encoding="utf-8").partition("## Release")[2]
    for fact in (
        "trusted publishing",
        "environment named `pypi`",
        "PyPI project name\n   `neurogym-rat-lab2`",
        "workflow name `release.yml` and environment name `pypi`",
        "git tag v0.1.0\ngit push origin v0.1.0",
        "twine check --strict dist/* && check-wheel-contents dist/*.whl",
    ):
        assert fact in release, fact


def test_release_build_and_checks_run_on_the_baked_plugin(baked, tmp_path):
    """The build job's commands, read from release.yml, run as GitHub would run them."""
    project = tmp_path / "project"
    shutil.copytree(
        baked[0]["hyphenated"], project, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    steps = runs(workflow(project, "release.yml")["jobs"]["build"])
    install, tag_check, *build_and_check = steps
    # the tools CI installs are the ones this test runs (from the integration group)
    tools = install.removeprefix("python -m pip install ").split()
    assert tools == ["build", "twine", "check-wheel-contents"]
    group = tomllib.loads((ROOT / "pyproject.toml").read_text())["dependency-groups"]
    assert set(tools) <= {
        re.split(r"[<>=!~ ]", dep)[0] for dep in group["integration"] if isinstance(dep, str)
    }
    env = os.environ | {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "GITHUB_REF_NAME": "v0.1.0",
    }

    def bash(script, **kwargs):
        command = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script]
        return subprocess.run(command, cwd=project, capture_output=True, text=True, **kwargs)

    for script in (tag_check, *build_and_check):
        done = bash(script, env=env, timeout=TIMEOUT)
        assert done.returncode == 0, f"$ {script}\n{done.stdout}\n{done.stderr}"
    wheel, sdist = sorted(p.name for p in (project / "dist").iterdir())
    assert (wheel, sdist) == (
        "neurogym_rat_lab2-0.1.0-py3-none-any.whl",
        "neurogym_rat_lab2-0.1.0.tar.gz",
    )
    with tarfile.open(project / "dist" / sdist) as archive:
        members = archive.getnames()
    assert "neurogym_rat_lab2-0.1.0/CHANGELOG.md" in members
    assert not [m for m in members if "__pycache__" in m or m.endswith(".pyc")], members
    # a tag that is not the version, or a version without a changelog section, is refused
    wrong = bash(tag_check, env=env | {"GITHUB_REF_NAME": "v0.2.0"})
    assert wrong.returncode == 1
    assert "::error::tag v0.2.0 does not name version 0.1.0 of pyproject.toml" in wrong.stdout
    (project / "CHANGELOG.md").write_text("# Changelog\n\n## 0.0.9\n", encoding="utf-8")
    missing = bash(tag_check, env=env)
    assert (missing.returncode, missing.stdout) == (
        1,
        "::error::CHANGELOG.md has no section '## 0.1.0'\n",
    )
