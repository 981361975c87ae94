"""Developer and CI sessions for the neurogym monorepo (``nox -l`` lists them).

Packages are discovered, never listed: ``neurogym-core`` plus every ``plugins/*/pyproject.toml``.
Adding a plugin therefore touches no file here. Every session uses the interpreter nox runs on
and installs with pip into a virtualenv (torch's CPU wheel comes from pip; uv would fetch CUDA),
always through :func:`install`, which adds ``--constraint constraints.txt``: the published
metadata declares ranges (torch>=2.3,<3), and the constraints file pins the exact builds dev and
CI use (torch==2.13.0, the CPU wheel).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nox

# Read statically by nox before this file runs, and by run.py to install a matching nox.
nox.needs_version = ">=2025.2.9"

nox.options.default_venv_backend = "virtualenv"
nox.options.error_on_external_run = True  # every tool must come from the session's venv
nox.options.sessions = ["tests", "integration", "lint", "typecheck"]

ROOT = Path(__file__).resolve().parent
CORE = "neurogym-core"
APPS = "neurogym-apps"  # the applications (training, plots, RL adapter): not part of the core
META = "neurogym-meta"  # the `neurogym` distribution: core and the task families, no code
# Run by the build session on its wheelhouse; the integration session leaves them out.
PACKAGING_TESTS = "tests/packaging"
PYPROJECT = nox.project.load_toml(ROOT / "pyproject.toml")

# `nox -t test` (what `python3 run.py test` runs) selects every session with this tag.
TEST_TAG = "test"
# The exact versions of dev and CI (torch==2.13.0): every pip install here goes through it.
CONSTRAINTS = ROOT / "constraints.txt"


def install(session: nox.Session, *args: str) -> None:
    """Install ``args`` with pip, constrained by constraints.txt: how every session installs."""
    session.install("--constraint", str(CONSTRAINTS), *args)


def packages() -> list[str]:
    """Return every package directory, relative to the repo root: core, the apps, then plugins.

    Later sessions (template, bench, minimums) parametrize over this too.
    """
    plugins = sorted(p.parent.relative_to(ROOT) for p in ROOT.glob("plugins/*/pyproject.toml"))
    return [CORE, APPS, *(p.as_posix() for p in plugins)]


def package_test_deps(package: str) -> list[str]:
    """Return the root ``test`` group plus the package's own ``test`` group, if it has one."""
    deps = list(nox.project.dependency_groups(PYPROJECT, "test"))
    own = nox.project.load_toml(ROOT / package / "pyproject.toml")
    if "test" in own.get("dependency-groups", {}):
        deps += nox.project.dependency_groups(own, "test")
    return deps


def install_editable(session: nox.Session, *dirs: str) -> None:
    """Install core and ``dirs`` editable in one pip call, so plugins resolve the local core."""
    unique = dict.fromkeys((CORE, *dirs))
    install(session, *(arg for d in unique for arg in ("-e", d)))


def skip_without_tests(session: nox.Session, tests_dir: str) -> None:
    """Skip the session (before installing anything) if ``tests_dir`` has no test modules yet."""
    path = ROOT / tests_dir
    if not any(path.rglob("test_*.py")) and not any(path.rglob("*_test.py")):
        session.skip(f"no test modules under {tests_dir}/ yet")


@nox.session(tags=[TEST_TAG])
@nox.parametrize("package", [nox.param(p, id=Path(p).name) for p in packages()])
def tests(session: nox.Session, package: str) -> None:
    """Run one package's own tests in a venv holding only core, that package and test deps."""
    skip_without_tests(session, f"{package}/tests")
    install(session, *package_test_deps(package))
    install_editable(session, package)
    session.run("pytest", f"{package}/tests", *session.posargs)


@nox.session(tags=[TEST_TAG])
def integration(session: nox.Session) -> None:
    """Install core and every plugin together and run the cross-package tests in tests/.

    Except tests/packaging/ (``--ignore``): those install this checkout's wheels into fresh
    venvs, and the build session runs them on the wheelhouse it has built and checked.
    """
    skip_without_tests(session, "tests")
    # The integration group adds cookiecutter and ruff: tests/test_template.py bakes the
    # template, installs what it bakes into a fresh venv, runs its tests and lints it.
    install(session, *nox.project.dependency_groups(PYPROJECT, "integration"))
    install_editable(session, *packages())
    # Two workers (pytest-xdist), one test module each at a time: modules build venvs and
    # wheelhouses in module fixtures, which must not be built twice. ``-- -n 0`` runs serially.
    session.run(
        "pytest", "-n", "2", "--dist", "loadfile", "tests", f"--ignore={PACKAGING_TESTS}",
        *session.posargs,
    )  # fmt: skip


def distributions() -> list[str]:
    """Return every directory that builds a distribution: the packages, then the meta."""
    return [*packages(), META]


@nox.session(tags=[TEST_TAG])
def build(session: nox.Session) -> None:
    """Build an sdist and a wheel of every distribution into one wheelhouse, check, test them.

    The wheelhouse is ``.nox/build/tmp/dist/`` (emptied first; ``twine upload`` takes it as
    is). Each distribution is built with ``python -m build --no-isolation``: its sdist, then
    its wheel from that sdist, so a file the sdist lacks fails here; hatchling comes from the
    ``build`` group (isolated builds installed it 16 times, a minute more). ``twine check
    --strict`` checks every archive's metadata and that its README renders on PyPI;
    ``check-wheel-contents`` checks each wheel against its package's
    ``[tool.check-wheel-contents]`` table (no stray or missing files). Then tests/packaging/
    runs on this wheelhouse (``--wheelhouse``), not in the integration session: every wheel
    installed together into a fresh venv passes ``neurogym check`` on every task, each family
    installs alone with core, a NeuroGym 2.3.1 venv upgrades to ``neurogym[train,plot]``, and
    the archives hold their changelog, license, types and nothing stray.
    """
    install(session, *nox.project.dependency_groups(PYPROJECT, "build", "test"))
    wheelhouse = Path(session.create_tmp()) / "dist"
    shutil.rmtree(wheelhouse, ignore_errors=True)
    wheels = {}
    for directory in distributions():
        command = ["python", "-m", "build", "--no-isolation", "--outdir", str(wheelhouse)]
        session.run(*command, directory)
        project = nox.project.load_toml(ROOT / directory / "pyproject.toml")["project"]
        stem = f"{project['name'].replace('-', '_')}-{project['version']}"
        wheels[directory] = str(wheelhouse / f"{stem}-py3-none-any.whl")
    session.run("twine", "check", "--strict", *sorted(str(p) for p in wheelhouse.iterdir()))
    for directory, wheel in wheels.items():
        config = str(ROOT / directory / "pyproject.toml")
        session.run("check-wheel-contents", "--config", config, wheel)
    # tests/packaging imports core's first-party table: from core's wheel, not the checkout.
    install(session, wheels[CORE])
    # The first-party copies (core's task table, the template's reserved names, the families'
    # README tables) must match what the built families declare: a stale copy fails the build.
    install(session, *(wheels[d] for d in packages() if d.startswith("plugins/")))
    session.run("python", "tools/first_party.py")
    session.run(
        "pytest", "-n", "2", PACKAGING_TESTS, f"--wheelhouse={wheelhouse}", *session.posargs
    )
    session.log(f"wheelhouse: {wheelhouse}")


@nox.session(tags=[TEST_TAG])
def lint(session: nox.Session) -> None:
    """Check the whole repo with ruff: lint rules, then formatting (no changes are written)."""
    install(session, *nox.project.dependency_groups(PYPROJECT, "lint"))
    paths = session.posargs or ["."]
    session.run("ruff", "check", *paths)
    session.run("ruff", "format", "--check", *paths)


@nox.session(tags=[TEST_TAG])
def typecheck(session: nox.Session) -> None:
    """Type-check core, every plugin and a baked template with mypy --strict (pyproject.toml).

    Each package's ``src`` is a separate mypy base (``MYPYPATH``), so modules get their import
    names. Paths given after ``--`` replace the default set (which includes the baked template).
    """
    install(session, *nox.project.dependency_groups(PYPROJECT, "typecheck"), "cookiecutter>=2.5")
    install_editable(session, *packages())
    sources = [f"{package}/src" for package in packages()]
    if not session.posargs:
        sources.append(str(bake_template(session) / "src"))
    env = {"MYPYPATH": os.pathsep.join(str(ROOT / src) for src in sources)}
    session.run("mypy", *(session.posargs or sources), env=env)


def bake_template(session: nox.Session, *answers: str) -> Path:
    """Bake the plugin template with ``neurogym new --no-input`` into the session's tmp dir.

    ``neurogym new`` keeps cookiecutter's replay files out of the home directory itself.

    Returns:
        The baked project directory.
    """
    out = Path(session.create_tmp()) / "template"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    session.run("neurogym", "new", "--no-input", "--output-dir", str(out), *answers)
    (project,) = out.iterdir()
    return project


#: The paper and description of the template's example task (Britten et al. 1992).
EXAMPLE_TASK_ANSWERS = (
    "task_description=Report which of two noisy stimulus channels is stronger.",
    "paper_name=The analysis of visual motion: a comparison of neuronal and psychophysical "
    "performance",
    "paper_link=https://doi.org/10.1523/JNEUROSCI.12-12-04745.1992",
)


@nox.session(default=False)
def template(session: nox.Session) -> None:
    """Bake the plugin template (answers as KEY=VALUE arguments), run its tests and ruff.

    Not part of the test command: tests/test_template.py, in the integration session, does the
    same for several answer sets. This session is for trying answers by hand.
    """
    install(session, *nox.project.dependency_groups(PYPROJECT, "integration"))
    install_editable(session)
    # Without answers, the baked task's documentation would stay TODO, which its own tests
    # refuse on purpose (a lab cannot publish placeholder metadata): name the example's paper.
    answers = session.posargs or EXAMPLE_TASK_ANSWERS
    project = bake_template(session, *answers)
    install(session, "-e", str(project))
    # Named one by one: ruff skips files found by walking a directory under .nox/.
    files = sorted(path.relative_to(project).as_posix() for path in project.rglob("*.py"))
    with session.chdir(project):
        session.run("pytest")
        session.run("ruff", "check", *files)
        session.run("ruff", "format", "--check", *files)


# The documentation site (mkdocs.yml): built into site/ (git-ignored). mkdocs-material and a
# plugin print a banner about MkDocs 2.0 on every build; these variables silence it.
SITE = ROOT / "site"
DOCS_ENV = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true", "MPLBACKEND": "Agg"}


def build_docs(session: nox.Session) -> None:
    """Install the docs group with core, the apps and every plugin; build the site; check it.

    The packages are installed editable without build isolation: hatchling comes from the
    docs group instead of being installed into an isolated env once per package. Nothing is
    byte-compiled at install (``--no-compile``): the build imports a fraction of it.
    """
    install(session, "--no-compile", *nox.project.dependency_groups(PYPROJECT, "docs"))
    editable = (arg for p in packages() for arg in ("-e", p))
    install(session, "--no-compile", "--no-build-isolation", *editable)
    session.run("mkdocs", "build", "--strict", "--site-dir", str(SITE), env=DOCS_ENV)
    session.run("python", "docs/_gen/check_site.py", str(SITE))


@nox.session(tags=[TEST_TAG])
def docs(session: nox.Session) -> None:
    """Build the documentation site into site/ (mkdocs-material, strict) and check it.

    Strict: a broken link or anchor, a page left out of the navigation or a docstring
    mkdocstrings cannot render fails the build. The home page (docs/index.md with the installed
    families), the README's page, the API reference and the task catalogue (a page per
    installed task, with its figure) are generated by docs/_gen/gen_pages.py;
    docs/_gen/check_site.py then checks one page per registered task and every page as a user
    opens it (links that work from disk, nothing loaded from another host, the search boost).
    Open site/index.html from disk (search works there too), or serve it:
    ``python -m http.server -d site``.
    """
    build_docs(session)


@nox.session(default=False)
def screenshots(session: nox.Session) -> None:
    """Build the site, then look at it in headless Chromium (``apt-get install chromium``).

    Opens the home page from disk (file://), follows its navigation to a guide and opens a
    task page (each checked not blank, showing the page asked for, not a directory listing);
    searches a task's exact name from disk and served, and every task's name served (its
    page must be the first result);
    measures the code blocks at 1280 px (long lines wrap, none cut off)
    (docs/_gen/screenshots.py). The PNGs go to .nox/screenshots/tmp/screenshots/. Not part
    of the test command: it needs a browser.
    """
    build_docs(session)
    out = Path(session.create_tmp()) / "screenshots"
    command = ["python", "docs/_gen/screenshots.py", str(SITE), str(out), *session.posargs]
    session.run(*command)


@nox.session(default=False)
def demo(session: nox.Session) -> None:
    """Install core and every plugin, list the tasks and run PerceptualDecisionMaking."""
    install_editable(session, *packages())
    session.run("python", "-m", "neurogym.demo", *session.posargs)


def install_trainer(session: nox.Session) -> None:
    """Core, the apps with torch (its CPU wheel), matplotlib and psignifit, and every plugin.

    psignifit: the psychometric fits of a run's figure and metrics.json (the plot extra).
    """
    install(
        session,
        *nox.project.dependency_groups(PYPROJECT, "train"),
        "matplotlib>=3.8",
        "psignifit>=4.3,<5",
    )
    install_editable(session, *packages())


@nox.session(default=False)
def train(session: nox.Session) -> None:
    """The main job: train a GRU on one showcase task of each installed family (~4 minutes).

    Prints a table (task, closed-loop accuracy, chance) and writes models, metrics and figures
    under runs/showcase/ (``-- --out DIR`` elsewhere, ``-- --scale 0.1`` for a quick run).
    """
    install_trainer(session)
    session.run("python", "-m", "neurogym_apps.train.showcase", *session.posargs)


@nox.session(default=False)
def mainjob(session: nox.Session) -> None:
    """The main job with its full budget, asserting PerceptualDecisionMaking strict >= 0.85.

    Slow (about 4 minutes), so not part of the test command.
    """
    install_trainer(session)
    install(session, *nox.project.dependency_groups(PYPROJECT, "test"))
    session.run("pytest", "tests/test_train.py", "--run-main-job", "-k", "main_job")


@nox.session(default=False)
def learn(session: nox.Session) -> None:
    """The learnability table: train every task of every installed plugin with one recipe.

    Writes docs/learnability.md: up to 20,000 training steps per supervised task, two tasks
    at a time, and the RL tasks with their stable-baselines3 recipes (about 90 minutes on 2
    cores; ``-- --steps N`` sets the budget per task, ``-- --jobs N`` the processes, ``-- --task
    NAME`` one task, ``-- --rescore`` recomputes ceilings without training, ``-- --ray
    [ADDRESS]`` trains the tasks as Ray tasks, on a local instance or a cluster).
    """
    install_trainer(session)
    install(session, *nox.project.dependency_groups(PYPROJECT, "rl"))
    if "--ray" in session.posargs:
        install(session, "ray>=2.40")
    jobs = [] if "--jobs" in session.posargs or "--ray" in session.posargs else ["--jobs", "2"]
    session.run(
        "python", "-m", "neurogym_apps.train.learnability", "--out", "docs/learnability.md",
        "--rl", *jobs, *session.posargs,
    )  # fmt: skip


@nox.session(default=False)
def yang19(session: nox.Session) -> None:
    """Yang et al. 2019 on CPU: one GRU on all 20 tasks, 26,000 steps, strict per-task scores.

    Writes docs/yang19.md, docs/yang19.json and docs/figures/yang19_learning.png and saves the
    network to runs/yang19 (``-- --steps N`` sets the budget, ``-- --threads N`` the torch
    threads, ``-- --save DIR`` the run folder; about an hour on one thread).
    Slow: not in the test command.
    """
    install_trainer(session)
    install(session, "scikit-learn>=1.4")  # the task-variance analysis of the network
    session.run("python", "-m", "neurogym_apps.train.yang19", *session.posargs)


@nox.session(default=False)
def analysis(session: nox.Session) -> None:
    """docs/analysis.md's figures from fresh runs (PDM GRU and RNN, yang19.all; ~7 minutes).

    Trains the three runs into the session's tmp dir and redraws docs/figures/analysis_*.png
    (``neurogym_apps.analysis._docs``). Slow: not in the test command.
    """
    install_trainer(session)
    install(session, "scikit-learn>=1.4")
    session.run(
        "python", "-m", "neurogym_apps.analysis._docs", "--docs", "docs",
        "--runs", session.create_tmp(), *session.posargs,
    )  # fmt: skip


@nox.session(default=False)
def signatures(session: nox.Session) -> None:
    """docs/signatures.md: the papers' signatures on freshly trained networks (~20 minutes).

    Trains one network per signature (Mante et al. 2013, IBL 2021, switch recovery on
    HierarchicalReasoning and ChangingEnvironment, Wang et al. 2018 on DawTwoStep) with
    seeded step budgets into the session's tmp dir, redraws docs/figures/signature_*.png and
    docs/signatures.json, and fails if a signature does not hold, but for its declared
    ``KNOWN_FAILURES`` (``neurogym_apps.analysis._signatures_docs``; ``-- --only mante ibl``
    runs some). Slow:
    not in the test command (tests/test_signatures.py checks the statistics there).
    """
    install_trainer(session)
    rl = nox.project.dependency_groups(PYPROJECT, "rl")  # DawTwoStep's RecurrentPPO
    install(session, "scikit-learn>=1.4", *rl)
    session.run(
        "python", "-m", "neurogym_apps.analysis._signatures_docs", "--docs", "docs",
        "--runs", session.create_tmp(), *session.posargs,
    )  # fmt: skip


@nox.session(default=False)
def rl(session: nox.Session) -> None:
    """docs/rl.md with its full budgets: PPO 0.70 strict, RecurrentPPO 0.80 strict (fixation held).

    Not part of the test command (tests/test_rl.py runs the same page with tiny budgets).
    """
    install_trainer(session)
    install(session, *nox.project.dependency_groups(PYPROJECT, "rl"))
    install(session, *nox.project.dependency_groups(PYPROJECT, "test"))
    session.run("pytest", "tests/test_rl.py", "--run-rl", "-k", "full_budget", *session.posargs)


@nox.session(default=False)
def scale(session: nox.Session) -> None:
    """Ray on a local instance: a sweep, every task in a Ray worker, one RLlib PPO iteration.

    Installs the ``scale`` group (ray[rllib] and the gymnasium it pins, older than the latest:
    this also tests core at the low end of its gymnasium range) with core and every plugin in
    one pip call, so the pins win. Not part of the test command.
    """
    groups = ("scale", "test")
    deps = [dep for group in groups for dep in nox.project.dependency_groups(PYPROJECT, group)]
    install(session, *deps, *(arg for package in packages() for arg in ("-e", package)))
    session.run(
        "python", "-c", "import gymnasium, ray; print(gymnasium.__version__, ray.__version__)"
    )
    session.run("pytest", "tests/test_scale.py", "tests/test_sweep.py", *session.posargs)


# Upstream NeuroGym as the benchmark's baseline. Its `import neurogym` needs torch, which it
# does not declare; constraints.txt pins it to the CPU wheel (an unpinned torch pulls CUDA).
UPSTREAM_BASELINE = ("neurogym==2.3.1", "torch")


def upstream_python(session: nox.Session) -> Path:
    """The interpreter of a venv holding upstream NeuroGym 2.3.1 (kept in nox's cache dir)."""
    upstream = Path(session.cache_dir) / "bench-upstream-neurogym-2.3.1"
    python = upstream / "bin" / "python"
    if not python.exists():
        session.run("python", "-m", "venv", str(upstream))
    pip = [str(python), "-m", "pip", "install", "-q", "--constraint", str(CONSTRAINTS)]
    session.run(*pip, *UPSTREAM_BASELINE, external=True)
    return python


@nox.session(default=False)
def fidelity(session: nox.Session) -> None:
    """Regenerate upstream 2.3.1's reference statistics and calibrate the fidelity check.

    Collects 2,000 seeded trials of every shared task in upstream's own venv at seeds 1 and 2
    (tests/fidelity/upstream-2.3.1-seed{1,2}.json.gz, committed), checks that the two seeds do
    not differ (the calibration), then runs tests/test_fidelity.py (in the test command too)
    against the new files. Not part of the test command: it installs upstream from PyPI.
    """
    python = upstream_python(session)
    for seed in (1, 2):
        out = f"tests/fidelity/upstream-2.3.1-seed{seed}.json.gz"
        args = ["--side", "upstream", "--seed", str(seed), "--out", out, "--trials", "2000"]
        session.run(str(python), "tests/fidelity/collect.py", *args, external=True)
    references = [f"tests/fidelity/upstream-2.3.1-seed{seed}.json.gz" for seed in (1, 2)]
    session.run("python", "tests/fidelity/compare.py", *references)
    install(session, *nox.project.dependency_groups(PYPROJECT, "test"))
    install_editable(session, *packages())
    session.run("pytest", "tests/test_fidelity.py", "-s", *session.posargs)


@nox.session(default=False)
def bench(session: nox.Session) -> None:
    """Benchmark against upstream NeuroGym 2.3.1 and write bench/results/<date>-<host>.md.

    Not part of the tests. This project (core and every plugin) is installed in the session's
    venv, upstream in a venv of its own (kept in nox's cache dir); bench/compare.py runs the
    same workloads in both, interleaved, and prints one table. ``-- --reps N`` sets the
    number of repetitions (default 5); ``-- --baseline PYTHON`` runs this repo's workloads a
    third time with ``PYTHON`` (an earlier commit's sources first on its path) and lists every
    figure worse than that baseline beyond the run-to-run spread (``bench/baseline.py``).
    Single-env steps/s and new_trial/s of every task, and its Dataset timesteps/s against the
    baseline, are measured in pairs instead (``bench/paired.py``: persistent workers per side,
    alternating 0.1 s windows, the median of 7 per-round ratios), so that a VM changing speed
    between repetitions does not decide a per-task ratio. ``-- --instructions`` also counts,
    with valgrind's callgrind, the instructions per step / new_trial of every per-task row
    under 1.1x on both sides (``bench/instructions.py``), beside its wall-clock ratio.
    """
    install_editable(session, *packages())
    # bench/rl.py: the stable-baselines3 adapter vs DummyVecEnv (torch pinned, as upstream's)
    install(session, *nox.project.dependency_groups(PYPROJECT, "rl"))
    python = upstream_python(session)
    session.run("python", "bench/compare.py", "--upstream", str(python), *session.posargs)
