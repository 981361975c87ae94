"""Declared differences from upstream NeuroGym 2.3.1: one machine-readable file per plugin.

A plugin ships ``differences.toml`` inside its import package (beside ``_plugin.py``). Each
``[[difference]]`` entry declares one intended change of observable behaviour::

    [[difference]]
    tasks = ["yang19.dm1", "yang19.dm2"]          # task names (ids without namespace/version)
    summary = "The fixation input stays 1 until the decision period."   # markdown, one bullet
    reason = "Upstream's DM family shows it in `fixation` only; the authors' code ..."
    follows = "authors' code"                    # the reference followed (see FOLLOWS)
    source = "github.com/gyyang/multitask task.py: trial.add('fix_in', offs=fix_offs)"
    tests = ["test_decision_noise_is_on_both_rings_during_the_stimuli_and_fixation_is_clean"]
    shows = ["yang19.dm*|ob:stimulus:0:*"]       # fidelity-check findings it explains

The plugin README's "Differences from NeuroGym 2.3.1" section is generated from the file
(``python -m neurogym.testing.differences PLUGIN README.md``; the plugin's tests call
:func:`check_readme_section`). The differential fidelity check (``tests/test_fidelity.py``)
compares seeded trials with upstream's and fails on any finding that no ``shows`` pattern
(``fnmatch`` on ``"<config label>|<statistic key>"``) explains, and on a pattern that explains
nothing. Every later change of observable behaviour adds its entry in the same commit.
"""

from __future__ import annotations

import fnmatch
import importlib.resources
import importlib.util
import re
import sys
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from neurogym.testing._readme import check_block, replace_block, run_update

__all__ = [
    "FOLLOWS",
    "Difference",
    "check_readme_section",
    "declared",
    "main",
    "missing_tests",
    "render_section",
    "unexplained",
    "unused_patterns",
    "update_readme_section",
]

FILENAME = "differences.toml"
START = "<!-- differences:start -->"
END = "<!-- differences:end -->"
# The references an entry may follow: upstream 2.3.1 itself (an intended extension that keeps
# its behaviour where it had one), a fix of an upstream bug, the task's paper, or the paper's
# authors' code.
FOLLOWS = ("upstream", "fix", "paper", "authors' code")
_FIELDS = {"tasks", "summary", "reason", "follows", "source", "tests", "shows"}


@dataclass(frozen=True)
class Difference:
    """One declared difference from upstream NeuroGym 2.3.1 (see the module docstring)."""

    plugin: str
    tasks: tuple[str, ...]
    summary: str
    reason: str
    follows: str
    source: str = ""
    tests: tuple[str, ...] = ()
    shows: tuple[str, ...] = ()

    def explains(self, finding: str) -> bool:
        """Whether ``finding`` (``"<label>|<key>"``) matches one of the ``shows`` patterns."""
        return any(fnmatch.fnmatchcase(finding, pattern) for pattern in self.shows)


def _package_of(plugin: str) -> str:
    import neurogym

    specs = neurogym.tasks(plugin=plugin)
    if not specs:
        installed = sorted({spec.plugin for spec in neurogym.tasks()})
        raise LookupError(
            f"no installed plugin {plugin!r} declares tasks; installed plugins: "
            + (", ".join(installed) or "none")
        )
    return specs[0].entry_point.split(":", 1)[0].split(".", 1)[0]


def _string_list(value: object, where: str, *, required: bool = False) -> tuple[str, ...]:
    if value is None and not required:
        return ()
    if (
        not isinstance(value, list)
        or not all(isinstance(v, str) and v for v in value)
        or (required and not value)
    ):
        kind = "a non-empty list" if required else "a list"
        raise ValueError(f"{where} must be {kind} of non-empty strings, got {value!r}")
    return tuple(value)


def _no_markers(where: str, name: str, texts: Iterable[str]) -> None:
    # A marker in the generated section would end (or restart) it early: every run would then
    # grow the README, and check_readme_section would fail forever.
    for marker in (START, END):
        if any(marker in text for text in texts):
            raise ValueError(
                f"{where}: {name!r} contains the README marker {marker!r}, which would end the "
                "generated section early; remove it"
            )


def _entry(plugin: str, index: int, raw: object, *, file: str | None = None) -> Difference:
    where = f"{file or f'{plugin} {FILENAME}'} entry {index}"
    if not isinstance(raw, dict):
        raise ValueError(
            f"{where}: each entry must be a [[difference]] table, got {type(raw).__name__} "
            f"{raw!r}; known fields: {sorted(_FIELDS)}"
        )
    unknown = set(raw) - _FIELDS
    if unknown:
        raise ValueError(f"{where}: unknown fields {sorted(unknown)}; known: {sorted(_FIELDS)}")
    for name in ("summary", "reason", "follows"):
        if not isinstance(raw.get(name), str) or not str(raw[name]).strip():
            raise ValueError(f"{where}: {name!r} must be a non-empty string")
    if raw["follows"] not in FOLLOWS:
        raise ValueError(f"{where}: follows={raw['follows']!r}; valid: {list(FOLLOWS)}")
    source = raw.get("source", "")
    if not isinstance(source, str):
        raise ValueError(f"{where}: 'source' must be a string, got {source!r}")
    difference = Difference(
        plugin=plugin,
        tasks=_string_list(raw.get("tasks"), f"{where}: tasks", required=True),
        summary=" ".join(str(raw["summary"]).split()),
        reason=" ".join(str(raw["reason"]).split()),
        follows=str(raw["follows"]),
        source=" ".join(source.split()),
        tests=_string_list(raw.get("tests"), f"{where}: tests"),
        shows=_string_list(raw.get("shows"), f"{where}: shows"),
    )
    for name in ("tasks", "summary", "reason", "source", "tests"):  # the rendered fields
        value = getattr(difference, name)
        _no_markers(where, name, (value,) if isinstance(value, str) else value)
    return difference


def _parse(path: str, text: bytes) -> dict[str, object]:
    """The TOML table of a differences file; a ValueError naming ``path`` if it is not one."""
    valid = f"a {FILENAME} is UTF-8 TOML holding only [[difference]] tables"
    try:
        return tomllib.loads(text.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{path}: not UTF-8 (byte {exc.start} is {text[exc.start : exc.start + 1]!r}); {valid}"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML: {exc}; {valid}") from None
    except RecursionError:
        raise ValueError(f"{path}: nested too deeply to parse; {valid}") from None


def declared(plugin: str) -> list[Difference]:
    """The differences the installed plugin ``plugin`` declares (empty if it ships no file).

    A plugin whose tasks live in a single module (not a package) has nowhere to ship the file:
    it declares none.

    Raises:
        LookupError: No installed plugin of that name.
        ValueError: The file is malformed (names the entry and the field).
    """
    package = _package_of(plugin)
    found = importlib.util.find_spec(package)
    if found is None or found.submodule_search_locations is None:
        return []  # tasks in a single module: no package directory to ship the file in
    resource = importlib.resources.files(package) / FILENAME
    if not resource.is_file():
        return []
    data = _parse(str(resource), resource.read_bytes())
    entries = data.get("difference", [])
    if set(data) - {"difference"} or not isinstance(entries, list):
        raise ValueError(
            f"{resource}: only [[difference]] tables are allowed, got top-level keys "
            f"{sorted(data)}"
        )
    return [_entry(plugin, i, raw, file=str(resource)) for i, raw in enumerate(entries, 1)]


def unexplained(findings: Iterable[str], differences: Sequence[Difference]) -> list[str]:
    """The findings that no declared difference explains."""
    return [f for f in findings if not any(d.explains(f) for d in differences)]


def unused_patterns(findings: Sequence[str], differences: Sequence[Difference]) -> list[str]:
    """``"<plugin>: <pattern>"`` for every ``shows`` pattern that matches no finding."""
    return [
        f"{d.plugin}: {pattern}"
        for d in differences
        for pattern in d.shows
        if not any(fnmatch.fnmatchcase(f, pattern) for f in findings)
    ]


def missing_tests(plugin: str, test_dirs: Iterable[str | Path]) -> list[str]:
    """The test names the plugin's entries cite that no ``test_*.py`` under ``test_dirs`` defines.

    A plugin's tests call this with the repository's test folders, so a renamed test cannot
    leave a stale citation behind.
    """
    pattern = re.compile(r"^\s*(?:async\s+)?def (test_\w+)", re.MULTILINE)
    defined = {
        name
        for folder in test_dirs
        for path in Path(folder).rglob("test_*.py")
        for name in pattern.findall(path.read_text(encoding="utf-8"))
    }
    return sorted({t for d in declared(plugin) for t in d.tests} - defined)


def render_section(plugin: str) -> str:
    """The markdown of the plugin's differences, one bullet per declared entry."""
    lines = []
    for d in declared(plugin):
        tasks = ", ".join(d.tasks)
        text = f"- **{tasks}**: {d.summary} *Why:* {d.reason} *Follows:* {d.follows}"
        text += f" ({d.source})." if d.source else "."
        if d.tests:
            text += " Tests: " + ", ".join(f"`{t}`" for t in d.tests) + "."
        lines.append(text)
    return "\n".join(lines) if lines else "None declared."


def update_readme_section(plugin: str, readme: str | Path) -> bool:
    """Rewrites the differences block of ``readme``; returns whether the file changed."""
    return replace_block(readme, START, END, render_section(plugin))


def check_readme_section(plugin: str, readme: str | Path) -> None:
    """Raises ``AssertionError`` if the README's differences block is not the generated one."""
    fix = f"python -m neurogym.testing.differences {plugin} {readme}"
    check_block(readme, START, END, render_section(plugin), "differences section", fix)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m neurogym.testing.differences PLUGIN README``: rewrites the section.

    Returns:
        The exit status: 0 success; 1 when the plugin's differences file or the README is
        malformed; 2 for a usage error (arguments, an unknown plugin, no such README). Errors
        are one line on stderr.
    """
    return run_update(
        "neurogym.testing.differences",
        sys.argv[1:] if argv is None else argv,
        update_readme_section,
        "differences",
    )


if __name__ == "__main__":
    raise SystemExit(main())
