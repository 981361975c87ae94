"""Finish the new plugin: remove bytecode copied from the template; name what is left as TODO.

pip byte-compiles every ``.py`` file it installs, so the copy of this template inside
neurogym-core's wheel (``neurogym/_template``) holds ``__pycache__/`` folders beside the
template's own ``.py`` files (those that are valid Python before rendering), and cookiecutter
copies them into the plugin as binary files. They are stale bytecode of unrendered files:
remove them. Cookiecutter runs this hook in the new plugin's directory, which it has just
created, so nothing else is touched. Standard library only.

Answers left at their default, TODO, stand as TODO in the task's spec and the README's task
table, and the plugin's tests fail until they are written: the hook says so.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ANSWERS = (
    ("task_description", {{ cookiecutter.task_description | jsonify }}),
    ("paper_name", {{ cookiecutter.paper_name | jsonify }}),
    ("paper_link", {{ cookiecutter.paper_link | jsonify }}),
)
PLUGIN_MODULE = "src/{{ cookiecutter.__package }}/_plugin.py"


def remove_bytecode(project: Path) -> list[Path]:
    """Remove every ``__pycache__`` folder and ``.pyc``/``.pyo`` file under ``project``.

    Returns:
        What was removed, relative to ``project``.
    """
    removed = []
    for path in sorted(project.rglob("*"), reverse=True):  # children before their folders
        if path.is_dir() and path.name == "__pycache__":
            shutil.rmtree(path)
        elif path.is_file() and path.suffix in (".pyc", ".pyo"):
            path.unlink()
        else:
            continue
        removed.append(path.relative_to(project))
    return removed


def todo_note(answers: tuple[tuple[str, str], ...]) -> str | None:
    """What to write later, if an answer was left as TODO."""
    todo = [key for key, value in answers if value == "TODO"]
    if not todo:
        return None
    return (
        f"TODO: you left {', '.join(todo)} for later. They stand as TODO in {PLUGIN_MODULE} "
        "and in the README's task table, and the plugin's tests fail until you write them."
    )


if __name__ == "__main__":
    remove_bytecode(Path.cwd())
    note = todo_note(ANSWERS)
    if note:
        print(note)
    sys.exit(0)
