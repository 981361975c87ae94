"""Hatchling build hook: ship the plugin template in neurogym-core's wheel.

``neurogym new`` bakes the cookiecutter template that lives in the repository's ``template/``,
which stays its one source. This hook copies it into every wheel as ``neurogym/_template``, so
an installed neurogym-core needs no checkout and no network to bake it. The template is found
beside ``neurogym-core/`` when building from the repository, and inside the project when
building from the sdist, which carries it as ``template/``. Editable installs get no copy:
``neurogym.cli`` reads the checkout's ``template/`` itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PACKAGED = "neurogym/_template"


def _is_template(path: Path) -> bool:
    return (path / "cookiecutter.json").is_file()


def _files(source: Path, target: str) -> dict[str, str]:
    """Map every file under ``source`` (no bytecode) to its path under ``target``."""
    return {
        str(path): f"{target}/{path.relative_to(source).as_posix()}"
        for path in sorted(source.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


class TemplateHook(BuildHookInterface):
    """Adds the template to sdists (as ``template/``) and wheels (as ``neurogym/_template``)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Add the template's files to ``build_data["force_include"]``."""
        root = Path(self.root)
        checkout = root.parent / "template"
        if self.target_name == "sdist":
            if _is_template(checkout):  # else this sdist is built from an sdist: already there
                build_data["force_include"].update(_files(checkout, "template"))
            return
        if version == "editable":
            return
        source = checkout if _is_template(checkout) else root / "template"
        if not _is_template(source):
            raise FileNotFoundError(
                f"neurogym-core's wheel needs the plugin template: neither {checkout} nor "
                f"{root / 'template'} has a cookiecutter.json"
            )
        build_data["force_include"].update(_files(source, PACKAGED))
