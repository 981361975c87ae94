"""What the module of a ``neurogym`` subcommand uses: its errors, argument types and task lookup.

A plugin declares a subcommand in its hook module with :class:`neurogym.CommandSpec` (the
``neurogym_commands`` hook, beside ``hookimpl``). The ``"module:function"`` the spec names is
a :data:`Configure`: it adds the command's arguments to its ``argparse`` parser and returns the
:data:`Run` that does the work. That module imports this one, never :mod:`neurogym.cli`, the
program that loads it::

    # mylab/_commands.py, declared as CommandSpec("count", "mylab._commands:configure")
    from neurogym.commands import CommandError, Run, positive_int, resolve_task

    def configure(parser: argparse.ArgumentParser) -> Run:
        parser.add_argument("task_id", metavar="ID")
        parser.add_argument("--trials", type=positive_int, default=10)
        return run

    def run(args: argparse.Namespace) -> int:
        spec = resolve_task(args.task_id)  # an unknown id: UsageError, exit status 2
        ...  # a failure: raise CommandError("what went wrong"), exit status 1
        return 0

:func:`run_command` turns those errors into exit statuses; ``neurogym.cli`` runs every command
through it, and so can a command's own ``python -m`` entry point.
"""

from __future__ import annotations

import argparse
import os
import sys

from neurogym import TaskSpec
from neurogym._registry.api import get_registry
from neurogym._registry.commands import Configure, Run
from neurogym._registry.specs import display_text

__all__ = [
    "CommandError",
    "Configure",
    "Run",
    "UsageError",
    "positive_float",
    "positive_int",
    "resolve_task",
    "run_command",
    "seed",
]


class UsageError(Exception):
    """A problem with the command line (an unknown id, a bad answer): one line, exit status 2."""


class CommandError(Exception):
    """A command could not do its work: printed as one line, exit status 1."""


# ------------------------------------------------------------------------ argument types
# Each refuses a bad value with a message argparse prints after the argument's name.
def positive_int(text: str) -> int:
    """An integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def seed(text: str) -> int:
    """A seed: an integer >= 0."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a seed, an integer >= 0, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not (value > 0 and value < float("inf")):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


# --------------------------------------------------------------------------- tasks, running
def resolve_task(task_id: str) -> TaskSpec:
    """Return the spec of an installed task.

    Args:
        task_id: A task id (``neurogym/PerceptualDecisionMaking-v0``) or name.

    Raises:
        UsageError: If the id is unknown (the message names close ones and, for a shell user,
            ``neurogym list``), ambiguous or contested.
    """
    try:
        return get_registry().resolve(task_id, lister="'neurogym list'")
    except (LookupError, ValueError) as exc:
        raise UsageError(str(exc)) from None


def run_command(name: str, run: Run, args: argparse.Namespace) -> int:
    """Run a command as ``neurogym NAME`` does, turning its errors into an exit status.

    Args:
        name: The subcommand, e.g. ``"sweep"``: an error is printed as ``neurogym NAME: ...``.
        run: What the command's :data:`Configure` returned.
        args: The parsed arguments.

    Returns:
        What ``run`` returned; after a :class:`UsageError` 2 and after a :class:`CommandError`
        1 (each printed as one line on stderr); 130 on Ctrl-C; 1 when stdout was closed early
        (output piped into a command that stopped reading, such as ``head``).
    """
    try:
        return run(args)
    except UsageError as exc:  # (a plugin's command wrote it: shown as data)
        print(f"neurogym {name}: error: {display_text(exc, multiline=True)}", file=sys.stderr)
        return 2
    except CommandError as exc:
        print(f"neurogym {name}: {display_text(exc, multiline=True)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # keep Python's flush at exit from failing on the closed pipe
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
