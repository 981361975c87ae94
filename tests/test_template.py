"""The plugin template, baked for real: generated, installed, tested, discovered and linted.

One fresh virtual environment (module scope, no system site-packages) gets neurogym-core from
this checkout, installed non-editable with its ``template`` extra, like a user's. The
``defaults`` answer set is baked there by ``neurogym new``, from the template packaged in the
wheel, in a directory outside the checkout; the other sets are baked from ``template/`` with
cookiecutter's API. Every baked plugin is pip-installed into that environment, runs its own
tests, is discovered by neurogym and made by ``gymnasium.make``, is listed and checked by the
CLI, runs its README's example, and passes ruff with its own configuration. Invalid answers
must stop generation, with a message naming the answer.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from cookiecutter.exceptions import FailedHookException
from cookiecutter.main import cookiecutter

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "template"
CORE = ROOT / "neurogym-core"
TIMEOUT = 900  # seconds for one pip install (cold caches) or one baked test run

# name -> (answers, plugin name, task id, class, import name)
VALID = {
    "defaults": (
        {},
        "mylab",
        "mylab/StrongerStimulus-v0",
        "StrongerStimulus",
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
            "tags": "motor,go-signal",
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
            "tags": f"{'t' * 30}, u.v_w-x, Z9",
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
        "__task_module is derived from the answers and must be 'strongerstimulus'",
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

    Returns the answer-set name -> project directory, and the output of ``neurogym new``.
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
    run([*pip, *(arg for p in projects.values() for arg in ("-e", p))], cwd=out, env=env)
    return projects, created


def python_in(venv, code, project):
    path, env, _ = venv
    return run([scripts(path) / "python", "-c", code], cwd=project, env=env)


def test_neurogym_new_bakes_from_the_template_packaged_in_the_wheel(venv, baked):
    path, _, _ = venv
    _, created = baked
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


@pytest.mark.parametrize("name", VALID)
def test_baked_plugin_passes_its_own_tests(venv, baked, name):
    path, env, _ = venv
    project = baked[0][name]
    output = run(
        [scripts(path) / "python", "-m", "pytest", "-p", "no:cacheprovider"], cwd=project, env=env
    )
    assert re.search(r"\b5 passed\b", output), output


@pytest.mark.parametrize("name", VALID)
def test_baked_plugin_is_discovered_and_made_by_gymnasium(venv, baked, name):
    _, plugin, task_id, cls, package = VALID[name]
    project = baked[0][name]
    code = f"""
import gymnasium, neurogym
ids = [spec.id for spec in neurogym.tasks(plugin={plugin!r})]
assert ids == [{task_id!r}], ids
spec = neurogym.spec({task_id!r})
assert (spec.distribution, spec.vectorized) == ({"neurogym-" + plugin!r}, True), spec
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
