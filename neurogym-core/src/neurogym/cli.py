"""The ``neurogym`` command: list, describe, check and create tasks.

Usage::

    neurogym list [--tag TAG] [--plugin NAME]      # installed tasks: id, plugin, tags
    neurogym info ID                               # one task's spec and documentation
    neurogym check [--plugin NAME | ID ...]        # the conformance kit, as a pass/fail table
    neurogym new [--output-dir DIR] [--no-input] [KEY=VALUE ...]   # bake a new plugin

Plugins add further subcommands through the ``neurogym_commands`` hook (neurogym-apps adds
``train``, ``plot`` and ``sweep``); a command's module is imported only when it runs, and a
first-party command that is not installed says which package brings it. What such a module
uses (errors, argument types, ``resolve_task``) is :mod:`neurogym.commands`, not this module.

Exit status: 0 on success; 1 if a task fails its checks, a plugin fails to load or a plugin
cannot be created; 2 for a usage error (unknown id, plugin, tag or answer). ``python -m
neurogym`` runs the same command. The conformance kit and cookiecutter (the optional
``template`` extra) are imported only by the subcommands that use them.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import json
import logging
import os
import shutil
import sys
import tempfile
import time
import tomllib
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import neurogym
from neurogym import TaskSpec
from neurogym._registry.commands import FIRST_PARTY_COMMANDS, CommandSpec, first_party_command
from neurogym._registry.specs import display_text, is_http_url
from neurogym.commands import (
    CommandError,
    UsageError,
    positive_float,
    positive_int,
    resolve_task,
    run_command,
    seed,
)
from neurogym.errors import NeurogymPluginWarning

# CommandError, UsageError, resolve_task and the argument types live in neurogym.commands; they
# stay importable from here for code written against neurogym-core 3.0's neurogym.cli.
__all__ = [
    "CommandError",
    "UsageError",
    "build_parser",
    "main",
    "positive_float",
    "positive_int",
    "resolve_task",
    "seed",
    "template_dir",
]

INSTALL_TEMPLATE_EXTRA = 'pip install "neurogym-core[template]"'
_HERE = Path(__file__).resolve().parent
# The packaged copy (built from template/ into every wheel by hatch_build.py), then the
# checkout's template/ (editable installs, which get no copy).
_TEMPLATE_CANDIDATES = (_HERE / "_template", _HERE.parent.parent.parent / "template")


# ------------------------------------------------------------------------------------ helpers
# Text a plugin wrote (tags, descriptions, paper fields, docstrings, its errors) is printed only
# through display_text (neurogym._registry.specs): control characters are shown escaped, so
# an ANSI/OSC sequence never reaches the terminal and a newline never forges a row or a field.
def _tags(spec: TaskSpec) -> str:
    return ", ".join(display_text(tag) for tag in spec.tags)


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[i]) for row in (headers, *rows)) for i in range(len(headers))]
    lines = (
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in (headers, *rows)
    )
    return "\n".join(lines)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _check_known(kind: str, value: str | None, known: Sequence[str]) -> None:
    if value is not None and value not in known:
        shown = ", ".join(display_text(item) for item in known)
        raise UsageError(f"unknown {kind} {value!r}; installed {kind}s: {shown}")


def _plugins() -> list[str]:
    return sorted({spec.plugin for spec in neurogym.tasks()})


# --------------------------------------------------------------------------------------- list
def cmd_list(args: argparse.Namespace) -> int:
    """Print the installed tasks as a table: id, plugin, tags."""
    _check_known("tag", args.tag, neurogym.tags())
    _check_known("plugin", args.plugin, _plugins())
    specs = neurogym.tasks(tag=args.tag, plugin=args.plugin)
    rows = [(spec.id, display_text(spec.plugin), _tags(spec)) for spec in specs]
    print(_table(("id", "plugin", "tags"), rows))
    print(f"\n{_plural(len(specs), 'task')}")
    return 0


# --------------------------------------------------------------------------------------- info
def cmd_info(args: argparse.Namespace) -> int:
    """Print one task's spec, then its class docstring (importing the task's module)."""
    spec = resolve_task(args.task_id)
    kwargs = dict(spec.kwargs)
    fields = [
        ("id", spec.id),
        ("entry point", spec.entry_point),
        ("plugin", f"{spec.plugin} (distribution {spec.distribution or 'unknown'})"),
        ("tags", _tags(spec)),
        ("paper", spec.paper_name),
        ("paper link", _paper_link(spec.paper_link)),
        ("description", spec.description),
        ("default kwargs", repr(kwargs) if kwargs else "none"),
    ]
    width = max(len(name) for name, _ in fields) + 1
    for name, value in fields:
        print(f"{name + ':':<{width}} {display_text(value)}")
    try:
        cls = spec.load()
    except Exception as exc:  # any import error of the task's module
        problem = display_text(f"{type(exc).__name__}: {exc}")
        raise CommandError(f"cannot import {spec.entry_point}: {problem}") from exc
    print(f"{'vectorized:':<{width}} {display_text(_vectorized(spec))}")
    doc = inspect.getdoc(cls) or "(the task class has no docstring)"
    print(f"\n{display_text(doc, multiline=True)}")
    return 0


def _paper_link(link: str) -> str:
    """The paper link as it is, if it is an http(s) URL; anything else quoted, marked as text."""
    if not link or is_http_url(link):
        return link
    return f"{link!r} (not an http(s) link; shown as text)"


def _vectorized(spec: TaskSpec) -> str:
    """``yes``, or ``no (why)``: derived by building the task with its default kwargs."""
    try:
        obstacle = spec.vector_obstacle()
    except Exception as exc:  # building the task with its defaults failed
        return f"unknown (building the task failed: {type(exc).__name__}: {exc})"
    return "yes (native vector env)" if obstacle is None else f"no: {obstacle}"


# -------------------------------------------------------------------------------------- check
def _discovery_problems(plugin: str | None) -> list[str]:
    """Warnings of a fresh discovery (plugins that fail to load, clashing ids), as messages."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", NeurogymPluginWarning)
        neurogym.build_registry()
    messages = [str(w.message) for w in caught if issubclass(w.category, NeurogymPluginWarning)]
    if plugin is not None:
        messages = [message for message in messages if f"plugin {plugin!r}" in message]
    return list(dict.fromkeys(messages))


def _selected_tasks(args: argparse.Namespace, problems: Sequence[str]) -> list[TaskSpec]:
    if args.task_ids:
        return [resolve_task(task_id) for task_id in args.task_ids]
    if args.plugin is not None and not problems:
        _check_known("plugin", args.plugin, _plugins())
    return neurogym.tasks(plugin=args.plugin)


def _check_one(spec: TaskSpec, steps: int) -> tuple[str, str | None]:
    from neurogym.testing import TaskCheckError, check_task

    start = time.perf_counter()
    try:
        check_task(spec.id, steps=steps)
    except TaskCheckError as exc:
        failure: str | None = str(exc)
    except Exception as exc:  # the task cannot even be made: a failure of this task only
        failure = f"{spec.id} could not be checked: {type(exc).__name__}: {exc}"
    else:
        failure = None
    return f"{time.perf_counter() - start:.1f} s", failure


def cmd_check(args: argparse.Namespace) -> int:
    """Run ``neurogym.testing.check_task`` on each selected task; print a pass/fail table."""
    problems = _discovery_problems(args.plugin)
    specs = _selected_tasks(args, problems)
    rows: list[tuple[str, str, str, str]] = []
    failures: list[str] = []
    for spec in specs:
        elapsed, failure = _check_one(spec, args.steps)
        result = "PASS" if failure is None else "FAIL"
        rows.append((spec.id, display_text(spec.plugin), result, elapsed))
        if failure is not None:
            failures.append(failure)
    if rows:
        print(_table(("task", "plugin", "result", "time"), rows))
    for message in (*failures, *(f"plugin problem: {problem}" for problem in problems)):
        print(f"\n{display_text(message, multiline=True)}")
    summary = f"{len(rows) - len(failures)} passed, {len(failures)} failed"
    if problems:
        summary += f", {_plural(len(problems), 'plugin problem')}"
    print(f"\nchecked {_plural(len(rows), 'task')}: {summary}")
    return 1 if failures or problems else 0


# ---------------------------------------------------------------------------------------- new
def template_dir() -> Path:
    """Return the directory of the plugin template that ``neurogym new`` bakes.

    Returns:
        The template packaged in neurogym-core's wheel, or, for an editable install, the
        checkout's ``template/``.

    Raises:
        FileNotFoundError: If neither exists (a broken installation).
    """
    for candidate in _TEMPLATE_CANDIDATES:
        if (candidate / "cookiecutter.json").is_file():
            return candidate
    raise FileNotFoundError(
        "the plugin template is missing from this neurogym-core installation (looked in "
        f"{' and '.join(str(path) for path in _TEMPLATE_CANDIDATES)}); reinstall neurogym-core"
    )


def _questions(template: Path) -> dict[str, Any]:
    """The template's questions (public keys of ``cookiecutter.json``) and their defaults."""
    context = json.loads((template / "cookiecutter.json").read_text(encoding="utf-8"))
    return {key: value for key, value in context.items() if not key.startswith("_")}


_TEMPLATE_SYNTAX = ("{{", "{%", "{#")


def _parse_answers(items: Sequence[str], questions: dict[str, Any]) -> dict[str, str]:
    answers: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise UsageError(f"answers are KEY=VALUE, got {item!r}")
        if key not in questions:
            raise UsageError(f"unknown question {key!r}; the questions are {', '.join(questions)}")
        syntax = [opener for opener in _TEMPLATE_SYNTAX if opener in value]
        if syntax:
            raise UsageError(
                f"{key}={value!r} holds template syntax ({', '.join(map(repr, syntax))}); "
                "answers are literal text and are never evaluated, so remove it"
            )
        choices = questions[key]
        if isinstance(choices, list) and value not in choices:
            raise UsageError(f"{key} must be one of {', '.join(choices)}; got {value!r}")
        answers[key] = value
    return answers


def _cookiecutter() -> tuple[Callable[..., str], type[Exception], type[Exception]]:
    """``cookiecutter.main.cookiecutter`` and the exceptions ``neurogym new`` reports."""
    try:
        main = importlib.import_module("cookiecutter.main")
        exceptions = importlib.import_module("cookiecutter.exceptions")
    except ImportError:
        raise CommandError(
            "needs cookiecutter, which is not installed; it comes with the 'template' extra: "
            f"{INSTALL_TEMPLATE_EXTRA}"
        ) from None
    return main.cookiecutter, exceptions.CookiecutterException, exceptions.FailedHookException


@contextlib.contextmanager
def _quiet_cookiecutter_log() -> Iterator[None]:
    """Keep cookiecutter's own log (a traceback when a hook fails) off the terminal."""
    logger = logging.getLogger("cookiecutter")
    handler, propagate = logging.NullHandler(), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def _shown(path: Path) -> str:
    relative = os.path.relpath(path)
    return str(path) if relative.startswith("..") else relative


def _plugin_names(project: Path) -> list[str]:
    with contextlib.suppress(OSError, KeyError, tomllib.TOMLDecodeError):
        pyproject = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
        return list(pyproject["project"]["entry-points"]["neurogym.plugins"])
    return []


@contextlib.contextmanager
def _private_cookiecutter_config() -> Iterator[str]:
    """A cookiecutter config whose replay and clone dirs are temporary (never the home dir).

    It also keeps a user's ``~/.cookiecutterrc`` (and its ``default_context``) out of the bake.
    """
    with tempfile.TemporaryDirectory(prefix="neurogym-new-") as tmp:
        config = Path(tmp) / "cookiecutter.yaml"
        config.write_text(
            f"replay_dir: {json.dumps(str(Path(tmp) / 'replay'))}\n"
            f"cookiecutters_dir: {json.dumps(str(Path(tmp) / 'clones'))}\n",
            encoding="utf-8",
        )
        yield str(config)


def _checked_output_dir(output_dir: Path) -> Path | None:
    """The outermost folder a bake into ``output_dir`` would create (None: it exists).

    Raises:
        UsageError: If ``output_dir`` or an ancestor is a file.
    """
    created = None
    for folder in (output_dir, *output_dir.parents):
        if folder.exists():
            if folder == output_dir and not folder.is_dir():
                raise UsageError(f"--output-dir {str(output_dir)!r} is a file, not a directory")
            if not folder.is_dir():
                raise UsageError(f"--output-dir {str(output_dir)!r}: {str(folder)!r} is a file")
            return created
        created = folder
    return created


def cmd_new(args: argparse.Namespace) -> int:
    """Bake the plugin template with cookiecutter (prompting unless ``--no-input``).

    Answers are literal text: template syntax in one is an error, never evaluated. Nothing is
    written to the home directory, and a failed run leaves nothing behind.
    """
    template = template_dir()
    answers = _parse_answers(args.answers, _questions(template))
    created = _checked_output_dir(args.output_dir)
    bake, cookiecutter_error, hook_failed = _cookiecutter()
    try:
        with _quiet_cookiecutter_log(), _private_cookiecutter_config() as config:
            project = Path(
                bake(
                    str(template),
                    no_input=args.no_input,
                    extra_context=answers,
                    output_dir=str(args.output_dir),
                    config_file=config,
                )
            )
    except BaseException as exc:
        if created is not None:  # cookiecutter made it (and its parents): leave nothing behind
            shutil.rmtree(created, ignore_errors=True)
        if isinstance(exc, hook_failed):
            raise CommandError("nothing was created: the answers above were rejected") from None
        if isinstance(exc, EOFError):
            raise UsageError(
                "nothing was created: the input ended before every question was answered "
                "(pass --no-input to take the defaults, or KEY=VALUE answers)"
            ) from None
        if isinstance(exc, cookiecutter_error | ValueError):
            raise CommandError(f"nothing was created: {exc}") from None
        if isinstance(exc, OSError):  # e.g. an answer too long for a file name
            raise CommandError(
                f"nothing was created: {exc.strerror or exc} (is an answer too long for a "
                "file name? plugin names have at most 32 characters)"
            ) from None
        raise
    shown = _shown(project)
    print(f"Created {shown} (from the template in {template})\n\nNext steps:")
    print(f"  pip install -e {shown} pytest")
    print(f"  cd {shown} && pytest")
    for plugin in _plugin_names(project):
        print(f"  neurogym check --plugin {plugin}")
    return 0


# --------------------------------------------------------------------------------------- main
def _selected_command(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names: its first word that is not an option."""
    return next((word for word in argv if not word.startswith("-")), None)


def _plugin_commands() -> dict[str, CommandSpec]:
    """The commands installed plugins declare (``neurogym_commands``), by name."""
    from neurogym._registry.api import get_registry
    from neurogym._registry.commands import plugin_commands

    pm = get_registry().plugin_manager
    return {} if pm is None else plugin_commands(pm)


def _missing_command_error(name: str) -> str:
    owner = first_party_command(name)
    assert owner is not None
    distribution, extra = owner
    return (
        f"the {name!r} command comes with {distribution}, which is not installed: "
        f'pip install "neurogym[{extra}]"'
    )


def _add_plugin_commands(sub: Any, selected: str | None, commands: dict[str, CommandSpec]) -> None:
    """Add the plugins' commands; only the selected one's module is imported (to configure it).

    First-party commands that are not installed are listed too; running one says which
    package brings it.
    """
    for name, spec in commands.items():
        summary = display_text(spec.summary or f"(from {spec.distribution})")
        parser = sub.add_parser(name, help=summary.replace("%", "%%"))  # argparse formats help
        if name != selected:
            continue
        try:
            run = spec.load()(parser)
        except Exception as exc:  # the command's module or its configuration fails
            problem = display_text(f"{type(exc).__name__}: {exc}")
            origin = display_text(spec.distribution)
            raise CommandError(f"cannot load it from {origin}: {problem}") from exc
        parser.set_defaults(run=run)
    for name, (distribution, extra) in FIRST_PARTY_COMMANDS.items():
        if name not in commands:
            sub.add_parser(name, help=f'not installed ({distribution}: "neurogym[{extra}]")')


def build_parser(
    command: str | None = None, commands: dict[str, CommandSpec] | None = None
) -> argparse.ArgumentParser:
    """Build the argument parser of the ``neurogym`` command.

    Args:
        command: The subcommand that will run, if known: a plugin command's module is imported
            (to add its arguments) only when it is the one selected.
        commands: The plugins' commands (default: those of the installed plugins).
    """
    parser = argparse.ArgumentParser(
        prog="neurogym",
        description="List, describe, check and create neurogym tasks (and, with neurogym-apps,"
        " train networks on them and plot them).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    listing = sub.add_parser("list", help="list the installed tasks (id, plugin, tags)")
    listing.add_argument("--tag", help="only tasks with this tag")
    listing.add_argument("--plugin", help="only tasks of this plugin (entry-point name)")
    listing.set_defaults(run=cmd_list)

    info = sub.add_parser("info", help="show a task's spec and documentation")
    info.add_argument("task_id", metavar="ID", help="a task id, e.g. neurogym/Null-v0")
    info.set_defaults(run=cmd_info)

    check = sub.add_parser(
        "check", help="run the conformance kit (neurogym.testing.check_task) on installed tasks"
    )
    which = check.add_mutually_exclusive_group()
    which.add_argument("--plugin", help="check every task of this plugin (entry-point name)")
    which.add_argument("task_ids", nargs="*", default=[], metavar="ID", help="tasks to check")
    check.add_argument("--steps", type=positive_int, default=600, help="steps per rollout")
    check.set_defaults(run=cmd_check)

    new = sub.add_parser(
        "new",
        help="create a new task plugin from the template (needs neurogym-core[template])",
        description="Bake the neurogym plugin template with cookiecutter. Answers given as "
        "KEY=VALUE become the defaults of the questions (and the answers with --no-input).",
        epilog=_questions_epilog(),
    )
    new.add_argument(
        "--output-dir", "-o", type=Path, default=Path(), metavar="DIR", help="where to create it"
    )
    new.add_argument("--no-input", action="store_true", help="ask nothing; use the defaults")
    new.add_argument("answers", nargs="*", metavar="KEY=VALUE", help="e.g. plugin_name=mylab")
    new.set_defaults(run=cmd_new)

    _add_plugin_commands(sub, command, _plugin_commands() if commands is None else commands)
    return parser


def _questions_epilog() -> str | None:
    try:
        questions = _questions(template_dir())
    except (OSError, ValueError):  # a broken installation: `neurogym new` itself reports it
        return None
    return f"questions (KEY): {', '.join(questions)}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``neurogym`` command.

    Args:
        argv: The arguments, without the program name; ``sys.argv[1:]`` if None.

    Returns:
        The exit status: 0 success, 1 failure, 2 usage error.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    selected = _selected_command(argv)
    commands = _plugin_commands()
    if selected in FIRST_PARTY_COMMANDS and selected not in commands:
        print(f"neurogym {selected}: {_missing_command_error(selected)}", file=sys.stderr)
        return 1
    try:
        parser = build_parser(selected, commands)
    except CommandError as exc:
        print(f"neurogym {selected}: {exc}", file=sys.stderr)
        return 1
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    return run_command(args.command, args.run, args)
