"""What users get from pip: each family alone with core, every wheel at once, and ``neurogym``
installed over NeuroGym 2.3.1; and what the archives hold.

The wheelhouse (conftest.py: ``--wheelhouse DIR`` from ``nox -s build``, or wheels built here)
holds the wheels of every distribution of this checkout (neurogym-core, neurogym-apps, each
plugin under ``plugins/`` and the ``neurogym`` distribution of ``neurogym-meta/``). Each
plugin's wheel is installed with core's into a fresh virtual environment holding nothing else
(dependencies from the package index): every task the first-party table lists for it is
listed, made, reset and stepped there, no application code is installed, and ``neurogym
train`` says which package brings it. Every wheel installed together into a fresh venv passes
``neurogym check`` on every task. A venv holding upstream's ``neurogym==2.3.1`` is upgraded to
this checkout's ``neurogym[train,plot]``: every first-party task works there, psignifit (the
plot extra's psychometric fits) imports, ``neurogym plot`` draws and ``neurogym train`` trains.
"""

from __future__ import annotations

import json
import re
import subprocess
import tarfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from pip_venvs import (
    CONSTRAINTS,
    DIRS,
    ROOT,
    TIMEOUT,
    archive_stem,
    clean_env,
    make_venv,
    project,
    run,
)

from neurogym._registry.firstparty import FIRST_PARTY

# No byte-compiling at install: torch alone has thousands of modules, and the probes import
# only a few of them. constraints.txt: torch is the CPU build dev and CI pin, never a CUDA one.
QUIET_PIP = ("--disable-pip-version-check", "--no-compile", "--constraint", str(CONSTRAINTS))
PLUGINS = sorted(p.parent for p in ROOT.glob("plugins/*/pyproject.toml"))
ROWS = {row.distribution: row for row in FIRST_PARTY}

# No byte-compiling at install: torch alone has thousands of modules, and the probes import
# only a few of them. constraints.txt: torch is the CPU build dev and CI pin, never a CUDA one.
QUIET_PIP = ("--disable-pip-version-check", "--no-compile", "--constraint", str(CONSTRAINTS))
PLUGINS = sorted(p.parent for p in ROOT.glob("plugins/*/pyproject.toml"))
ROWS = {row.distribution: row for row in FIRST_PARTY}
CORE, META = ROOT / "neurogym-core", ROOT / "neurogym-meta"
# Every registered first-party task (neurogym-apps registers none).
EVERY_TASK = sorted(
    f"neurogym/{name}-v0"
    for row in FIRST_PARTY
    if row.distribution != "neurogym-apps"
    for name in row.tasks
)

# Runs inside the fresh venv: lists the plugin's tasks, makes each one and steps it.
PROBE = """
import json, sys
import gymnasium, neurogym
plugin = sys.argv[1]
ids = [spec.id for spec in neurogym.tasks(plugin=plugin)]
for task_id in ids:
    env = gymnasium.make(task_id)
    env.reset(seed=0)
    for _ in range(5):
        env.step(env.action_space.sample())
others = sorted({spec.plugin for spec in neurogym.tasks()} - {plugin, "core"})
import importlib.util
absent = [m for m in sys.argv[2:] if importlib.util.find_spec(m) is None]
print(json.dumps({"ids": ids, "others": others, "absent": absent}))
"""
APPLICATION_MODULES = ("neurogym_apps", "torch", "matplotlib")


def _wheel(wheelhouse: Path, directory: Path) -> Path:
    return wheelhouse / f"{archive_stem(directory)}-py3-none-any.whl"


@pytest.mark.parametrize("plugin_dir", PLUGINS, ids=lambda path: path.name)
def test_plugin_wheel_alone_with_core_lists_and_makes_its_tasks(plugin_dir, wheelhouse, tmp_path):
    table = project(plugin_dir)
    (entry_point,) = table["entry-points"]["neurogym.plugins"]
    bin_dir, env = make_venv(tmp_path / "venv"), clean_env()
    wheels = [_wheel(wheelhouse, CORE), _wheel(wheelhouse, plugin_dir)]
    run([bin_dir / "python", "-m", "pip", "install", *QUIET_PIP, *wheels], env=env)
    found = json.loads(
        run(
            [bin_dir / "python", "-c", PROBE, entry_point, *APPLICATION_MODULES],
            env=env,
            cwd=tmp_path,
        )
    )
    expected = sorted(f"neurogym/{name}-v0" for name in ROWS[table["name"]].tasks)
    assert found == {"ids": expected, "others": [], "absent": list(APPLICATION_MODULES)}
    train = subprocess.run(
        [bin_dir / "neurogym", "train", expected[0]],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=TIMEOUT, check=False,
    )  # fmt: skip
    assert train.returncode == 1, train
    assert train.stderr.strip() == (
        "neurogym train: the 'train' command comes with neurogym-apps, which is not installed: "
        'pip install "neurogym[train]"'
    )


def test_every_wheel_installed_together_passes_neurogym_check_on_every_task(wheelhouse, tmp_path):
    bin_dir, env = make_venv(tmp_path / "venv"), clean_env()
    wheels = [_wheel(wheelhouse, directory) for directory in DIRS]
    run([bin_dir / "python", "-m", "pip", "install", *QUIET_PIP, *wheels], env=env)
    out = run([bin_dir / "neurogym", "check"], env=env, cwd=tmp_path)
    checked = sorted(re.findall(r"^(neurogym/\S+-v0)\s+\S+\s+PASS\b", out, re.MULTILINE))
    assert checked == EVERY_TASK, out
    n = len(EVERY_TASK)
    assert out.rstrip().endswith(f"checked {n} tasks: {n} passed, 0 failed"), out
    # Installed from the wheels, not from this checkout.
    where = run([bin_dir / "python", "-c", "import neurogym; print(neurogym.__file__)"], env=env)
    assert Path(where.strip()).is_relative_to(tmp_path / "venv")


# Runs inside the upgraded venv: every first-party task, and no file of 2.3.1 left over (every
# file under the installed neurogym/ belongs to neurogym-core's or neurogym's RECORD).
UPGRADED = """
import importlib.metadata as md, json
from pathlib import Path
import gymnasium, neurogym
ids = sorted(spec.id for spec in neurogym.tasks())
for task_id in ids:
    env = gymnasium.make(task_id)
    env.reset(seed=0)
    env.step(env.action_space.sample())
package = Path(neurogym.__file__).resolve().parent
owned = {
    Path(file.locate()).resolve()
    for dist in ("neurogym-core", "neurogym")
    for file in md.distribution(dist).files or ()
}
print(json.dumps({
    "ids": ids,
    "neurogym": md.version("neurogym"),
    "core": md.version("neurogym-core"),
    "left of 2.3.1": sorted(
        path.relative_to(package.parent).as_posix()
        for path in package.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.resolve() not in owned
    ),
}))
"""


def test_neurogym_upgrades_a_2_3_1_venv_to_every_task_and_the_app_commands(wheelhouse, tmp_path):
    bin_dir, env = make_venv(tmp_path / "venv"), clean_env()
    pip = [bin_dir / "python", "-m", "pip", "install", *QUIET_PIP]
    run([*pip, "--no-deps", "neurogym==2.3.1"], env=env)  # upstream's files and metadata
    run([*pip, "--find-links", wheelhouse, "--upgrade", "neurogym[train,plot]"], env=env)
    found = json.loads(run([bin_dir / "python", "-c", UPGRADED], env=env, cwd=tmp_path))
    assert found == {
        "ids": EVERY_TASK,
        "neurogym": project(META)["version"],
        "core": project(CORE)["version"],
        "left of 2.3.1": [],
    }
    run([bin_dir / "python", "-c", "import psignifit"], env=env)  # the plot extra's fits
    out = tmp_path / "pdm.png"
    run([bin_dir / "neurogym", "plot", "PerceptualDecisionMaking", "--out", out], env=env)
    assert out.stat().st_size > 10_000
    runs = tmp_path / "run"
    train = ["train", "PerceptualDecisionMaking", "--steps", "3", "--eval-trials", "5"]
    run([bin_dir / "neurogym", *train, "--no-figures", "--out", runs], env=env, cwd=tmp_path)
    assert json.loads((runs / "metrics.json").read_text())["task"].endswith(
        "PerceptualDecisionMaking-v0"
    )
    # tests/compat: each 2.3.1-style script runs unchanged in the upgraded venv, warns for its
    # 2.3.1 names, and prints what its 3.0 twin prints (two scripts at a time).
    run([*pip, "stable-baselines3"], env=env)  # the rl pair; constrained like every install
    compat = ROOT / "tests" / "compat"
    patterns = sorted(p.stem.removeprefix("legacy_") for p in compat.glob("legacy_*.py"))
    assert patterns == ["custom", "info", "plotting", "rl", "supervised", "yang19"]
    assert sorted(p.stem.removeprefix("new_") for p in compat.glob("new_*.py")) == patterns
    scripts = [
        (compat / f"{kind}_{pattern}.py", warnings)
        for pattern in patterns
        for kind, warnings in (("legacy", "always"), ("new", "error"))
    ]

    def script(args: tuple[Path, str]) -> subprocess.CompletedProcess[str]:
        path, warnings = args
        command = [bin_dir / "python", "-W", f"{warnings}::DeprecationWarning", path]
        return subprocess.run(
            command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=TIMEOUT,
            check=False,
        )  # fmt: skip

    with ThreadPoolExecutor(2) as pool:
        done = dict(
            zip((path.stem for path, _ in scripts), pool.map(script, scripts), strict=True)
        )
    for name, result in done.items():
        assert result.returncode == 0, f"{name}:\n{result.stderr}"
    for pattern in patterns:
        legacy, new = done[f"legacy_{pattern}"], done[f"new_{pattern}"]
        assert json.loads(legacy.stdout) == json.loads(new.stdout), pattern
        assert "is NeuroGym 2.3.1's spelling" in legacy.stderr, pattern  # the old names warn


def _metadata(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return archive.read(name).decode()


def test_the_neurogym_wheel_pins_core_and_carries_its_shared_files_byte_for_byte(wheelhouse):
    wheel = _wheel(wheelhouse, META)
    core = project(CORE)["version"]
    requires = re.findall(r"^Requires-Dist: (.*)$", _metadata(wheel), re.MULTILINE)
    assert f"neurogym-core=={core}" in requires
    assert f"neurogym-core[template]=={core}; extra == 'template'" in requires
    with zipfile.ZipFile(wheel) as archive:
        shared = sorted(name for name in archive.namelist() if not name.startswith("neurogym-"))
        # Core's file at every path 2.3.1's wheel installs too (neurogym-meta/hatch_build.py).
        listed = (META / "upstream-2.3.1-files.txt").read_text().splitlines()
        expected = sorted(
            p for p in listed if p and not p.startswith("#") and (CORE / "src" / p).is_file()
        )
        assert {"neurogym/__init__.py", "neurogym/core.py", "neurogym/utils/__init__.py"} <= set(
            expected
        )
        assert shared == expected
        for name in shared:
            assert archive.read(name) == (CORE / "src" / name).read_bytes(), name


@pytest.mark.parametrize("directory", DIRS, ids=lambda path: path.name)
def test_no_wheel_pins_exactly_but_the_neurogym_wheel_its_core(directory, wheelhouse):
    """Installing never replaces what a lab has: Requires-Dist holds ranges (torch>=2.3,<3)."""
    requires = re.findall(r"^Requires-Dist: (.*)$", _metadata(_wheel(wheelhouse, directory)), re.M)
    exact = [
        r for r in requires
        if {spec.operator for spec in Requirement(r).specifier} & {"==", "==="}
    ]  # fmt: skip
    core = project(CORE)["version"]
    allowed = (
        {f"neurogym-core=={core}", f"neurogym-core[template]=={core}; extra == 'template'"}
        if directory == META
        else set()
    )
    assert set(exact) == allowed, requires
    assert sorted(r for r in requires if r.startswith("torch")) == (
        [f"torch<3,>=2.3; extra == '{e}'" for e in ("analysis", "ray", "rl", "torch")]
        if directory.name == "neurogym-apps"
        else []
    )


def test_the_plot_extra_brings_the_psychometric_fits(wheelhouse):
    """``neurogym[plot]`` is ``neurogym-apps[plot]``: matplotlib and psignifit (fit_psignifit)."""
    apps, meta = (
        re.findall(r"^Requires-Dist: (.*)$", _metadata(_wheel(wheelhouse, d)), re.MULTILINE)
        for d in (ROOT / "neurogym-apps", META)
    )
    assert {r for r in apps if r.endswith("extra == 'plot'")} == {
        "matplotlib>=3.8; extra == 'plot'",
        "psignifit<5,>=4.3; extra == 'plot'",
    }
    assert "neurogym-apps[plot]<4,>=3.0; extra == 'plot'" in meta


def _source_files(directory: Path) -> set[str]:
    """Files under ``directory``, relative to it, without bytecode."""
    return {
        path.relative_to(directory).as_posix()
        for path in directory.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


def test_the_core_wheel_holds_its_sources_and_the_template_and_nothing_else(wheelhouse):
    # check-wheel-contents cannot see this one (its table in neurogym-core/pyproject.toml).
    with zipfile.ZipFile(_wheel(wheelhouse, CORE)) as archive:
        files = {n for n in archive.namelist() if ".dist-info/" not in n}
    expected = {f"neurogym/{name}" for name in _source_files(CORE / "src" / "neurogym")}
    expected |= {f"neurogym/_template/{name}" for name in _source_files(ROOT / "template")}
    expected.add("_neurogym_pytest.py")  # the pytest11 plugin: outside the package (#47)
    assert files == expected


@pytest.mark.parametrize("directory", DIRS, ids=lambda path: path.name)
def test_each_wheel_carries_its_license_and_types(directory, wheelhouse):
    with zipfile.ZipFile(_wheel(wheelhouse, directory)) as archive:
        names = archive.namelist()
        (license_file,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert archive.read(license_file) == (ROOT / "LICENSE").read_bytes()
    assert "License-Expression: Apache-2.0" in _metadata(_wheel(wheelhouse, directory))
    if (directory / "src").is_dir():
        (package,) = [
            p.name for p in (directory / "src").iterdir() if (p / "__init__.py").is_file()
        ]
        assert f"{package}/py.typed" in names


@pytest.mark.parametrize("directory", DIRS, ids=lambda path: path.name)
def test_each_sdist_carries_its_changelog_license_readme_and_sources(directory, sdists):
    with tarfile.open(sdists[directory]) as archive:
        top = f"{archive_stem(directory)}/"
        names = {name.removeprefix(top) for name in archive.getnames()}
        for name in ("CHANGELOG.md", "LICENSE", "README.md", "pyproject.toml", "PKG-INFO"):
            assert name in names, f"{sdists[directory].name} has no {name}"
            if name != "PKG-INFO":
                member = archive.extractfile(top + name)
                assert member is not None
                assert member.read() == (directory / name).read_bytes(), name
    if (directory / "src").is_dir():
        assert {f"src/{name}" for name in _source_files(directory / "src")} <= names
