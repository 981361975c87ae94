"""The task catalogue: one page per task of the registry, with index pages per family and tag.

Everything comes from what is installed when the site is built: the registry's task specs
(``neurogym.tasks()``), each task built with its default arguments (spaces with named dims,
timing, rewards, docstring), the figure :func:`neurogym_apps.plot.plot_env` draws of it, its
row in ``docs/learnability.json`` and the differences from upstream NeuroGym 2.3.1 its plugin
declares (``neurogym.testing.differences``). A third-party plugin's tasks therefore appear as
soon as the plugin is installed in the docs environment; nothing here lists tasks.

Pages: ``tasks/index.md`` (every task), ``tasks/<plugin>/index.md`` per family,
``tasks/<plugin>/<Task>.md`` (and ``.png``) per task, ``tags/index.md`` and ``tags/<tag>.md``
per tag, and ``tasks/SUMMARY.md`` and ``tags/SUMMARY.md``, the navigation that
mkdocs-literate-nav reads.

Text a plugin wrote is data on every page: it goes in through :func:`text` (every character
that markdown or HTML could read as markup becomes an HTML entity, control characters are
escaped first by ``display_text``), :func:`code` and :func:`link` (only ``http(s)`` URLs
become links). Page paths are built only from names that :func:`slug` reduces to
``[A-Za-z0-9._-]`` without leading dots, so no name can leave ``tasks/`` or ``tags/``.
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import io
import json
import math
import multiprocessing
import os
import re
import struct
import urllib.parse
import zlib
from collections.abc import Iterable, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from rst import to_markdown
from sitelinks import DOCS

import neurogym
from neurogym import TaskSpec
from neurogym._registry.specs import display_text, is_http_url
from neurogym.testing.differences import Difference, declared
from neurogym.timing import parse_timing

#: Size of the example-trial figures, in inches at FIGURE_DPI (small: 62 figures must be fast).
FIGURE_SIZE = (8.0, 5.5)
FIGURE_DPI = 80
#: Trials drawn per figure; tasks whose trials last fewer than SHORT_TRIAL steps on average
#: (bandits: one step per trial) get SHORT_TRIALS instead.
FIGURE_TRIALS = 2
SHORT_TRIAL = 5
SHORT_TRIALS = 10
LEARNABILITY = DOCS / "learnability.json"
UPSTREAM = "NeuroGym 2.3.1"
DASH = "\N{EN DASH}"  # an empty table cell


def slug(text: str) -> str:
    """A file-name-safe form of a tag or name: ``"context dependent"`` -> ``context-dependent``.

    Only ``[A-Za-z0-9._-]``, at most 80 characters, never starting or ending with ``.`` or
    ``-`` (so never ``..``); a text without ASCII letters or digits gets ``_`` and a hash.
    """
    out = re.sub(r"[^A-Za-z0-9._]+", "-", text)[:80].strip("-.")
    return out or "_" + hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:12]


#: Characters plugin text keeps as they are on a page; every other one becomes an entity.
_PLAIN_PUNCTUATION = frozenset(" ,;:/?=%@.'\"()_-")
#: Characters a code span may hold as they are (a value with others goes in <code> escaped).
_CODE_SAFE = re.compile(r"[A-Za-z0-9_.:/=-]+")
#: Characters an http(s) URL keeps in a markdown link; others are percent-encoded.
_URL_SAFE = "/:?#@!$&*+,;=%~"


def text(value: object) -> str:
    """Plugin text as markdown that renders as exactly that text, on one line.

    Whitespace runs become one space and control characters are escaped (``display_text``);
    then every character but letters, digits, spaces and ``,;:/?=%@.'"-`` becomes an HTML
    entity (``<`` -> ``&#60;``, ``[`` -> ``&#91;``, ``{`` -> ``&#123;``, ``|`` -> ``&#124;``),
    so nothing in it is read as HTML, a link, an image, an attribute list or a table cell.
    """
    shown = display_text(" ".join(str(value).split()))
    return "".join(
        char if char.isalnum() or char in _PLAIN_PUNCTUATION else f"&#{ord(char)};"
        for char in shown
    )


_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+).+?\1")
_LINK_TARGET = re.compile(r"\]\(\s*<?([^)\s>]*)")
_REFERENCE = re.compile(r"^(\s{0,3}\[[^\]]+\]):")
_RELATIVE = re.compile(r"[A-Za-z0-9_./#-]*")


def _safe_link(match: re.Match[str]) -> str:
    target = match.group(1)
    if is_http_url(target) or _RELATIVE.fullmatch(target):
        return match.group(0)
    return "]&#40;" + text(match.group(0)[2:])  # no longer a link: the target shown as text


_COMMENT = re.compile(r"\s*<!--[^<>]*-->\s*")  # a whole-line HTML comment (task-table markers)


def _safe_prose(line: str) -> str:
    if _COMMENT.fullmatch(line):
        return line
    line = line.replace("<", "&lt;").replace("{", "&#123;").replace("}", "&#125;")
    line = _LINK_TARGET.sub(_safe_link, line)
    return _REFERENCE.sub(r"\1&#58;", line)


def safe_markdown(markdown: str) -> str:
    """Plugin markdown (a docstring, a third-party README) that keeps its formatting, not HTML.

    Outside code spans and fenced blocks: ``<`` becomes ``&lt;`` (no raw HTML, no ``<...>``
    autolinks), ``{``/``}`` entities (no attribute lists, so no ``onerror=``), control
    characters are escaped and a link or reference whose target is neither an http(s) URL
    nor a plain relative path (``javascript:``, ``data:``) is shown as text.
    """
    out: list[str] = []
    fence = ""
    for line in display_text(markdown, multiline=True).split("\n"):
        opener = _FENCE.match(line)
        if fence:
            if opener and opener.group(1).startswith(fence):
                fence = ""
            out.append(line)
            continue
        if opener:
            fence = opener.group(1)
            out.append(line)
            continue
        pieces, last = [], 0
        for span in _CODE_SPAN.finditer(line):
            pieces += [_safe_prose(line[last : span.start()]), span.group(0)]
            last = span.end()
        out.append("".join([*pieces, _safe_prose(line[last:])]))
    return "\n".join(out)


def code(value: object) -> str:
    """Plugin text as inline code: a code span if it is plain, else ``<code>`` with entities."""
    shown = str(value)
    if _CODE_SAFE.fullmatch(shown):
        return f"`{shown}`"
    return f"<code>{text(shown)}</code>"


def link(label: str, url: object) -> str:
    """``label`` (markdown) linking ``url`` if it is an http(s) URL; else the URL as text.

    ``javascript:``, ``data:``, relative and malformed links are never links.
    """
    if is_http_url(url):
        return f"[{label}]({urllib.parse.quote(str(url), safe=_URL_SAFE)})"
    return f"{label} ({text(url)}; not an http(s) link)"


@dataclass(frozen=True)
class Entry:
    """One task of the catalogue: its spec and where its page lives."""

    spec: TaskSpec
    page: str  # relative to docs/, e.g. "tasks/perceptual/PerceptualDecisionMaking.md"

    @property
    def figure(self) -> str:
        """The example-trial figure beside the page (``.png``)."""
        return self.page.removesuffix(".md") + ".png"


def entries(specs: Iterable[TaskSpec] | None = None) -> list[Entry]:
    """A page path for every task (default: every task of the registry), sorted by id.

    A task's page is named by the task's name; the version is added when a family has more
    than one version of a name, and the namespace when it uses that name in several.
    """
    specs = sorted(neurogym.tasks() if specs is None else specs, key=lambda s: s.id)
    names: dict[tuple[str, str], set[str]] = {}
    for spec in specs:
        names.setdefault((spec.plugin, spec.name), set()).add(spec.id)
    out = []
    for spec in specs:
        ids = names[(spec.plugin, spec.name)]
        stem = spec.name
        if len(ids) > 1:
            stem = f"{spec.name}-v{spec.version}"
            if len({i.split("/")[0] for i in ids}) > 1:
                stem = f"{spec.namespace}.{stem}"
        if stem == "index":  # the family's own page
            stem = f"{stem}-v{spec.version}"
        out.append(Entry(spec, f"tasks/{slug(spec.plugin or 'unknown')}/{slug(stem)}.md"))
    return out


def family_page(plugin: str) -> str:
    """The index page of a family (plugin)."""
    return f"tasks/{slug(plugin or 'unknown')}/index.md"


def tag_page(tag: str) -> str:
    """The index page of a tag."""
    return f"tags/{slug(tag)}.md"


def rel(target: str, page: str) -> str:
    """The link from site page ``page`` to site path ``target``."""
    return os.path.relpath(target, os.path.dirname(page) or ".").replace(os.sep, "/")


def _cell(value: object) -> str:
    return " ".join(str(value).split()).replace("|", "\\|")


# ---------------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------------


def figure_trials(env: Any) -> int:
    """How many trials the task's figure shows: a few more when its trials are very short.

    The length comes from the task's sampled trials; a task whose trials have no periods
    (bandits, Null) is stepped with random actions instead, on a copy.
    """
    stats = getattr(env, "trial_length_stats", None)
    mean = stats(num_trials=20)["mean"] if stats is not None else 0.0
    if mean == 0.0:
        probe = copy.deepcopy(env)
        probe.reset(seed=0)
        probe.action_space.seed(0)
        ended = sum(
            bool(probe.step(probe.action_space.sample())[4].get("new_trial"))
            for _ in range(4 * SHORT_TRIAL)
        )
        mean = 4 * SHORT_TRIAL / max(ended, 1)
    return FIGURE_TRIALS if mean >= SHORT_TRIAL else SHORT_TRIALS


def draw(job: tuple[str, int]) -> bytes:
    """The PNG of :func:`~neurogym_apps.plot.plot_env` for ``(task_id, trials)``."""
    import matplotlib

    matplotlib.use("Agg")
    from neurogym_apps.plot import plot_env

    task_id, trials = job
    fig = plot_env(task_id, num_trials=trials, figsize=FIGURE_SIZE)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=FIGURE_DPI)
    return buffer.getvalue()


class Drawing:
    """Figures being drawn in worker processes (one per core, where ``fork`` exists).

    The pages are rendered meanwhile: :meth:`result` waits for the PNGs. Without ``fork`` (or
    with one core) the figures are drawn at once, in this process.
    """

    def __init__(self, jobs: Mapping[str, int]) -> None:
        items = list(jobs.items())
        workers = min(os.cpu_count() or 1, len(items))
        self._pool: ProcessPoolExecutor | None = None
        self._done: dict[str, bytes] = {}
        self._futures: dict[str, Future[bytes]] = {}
        if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
            self._done = {job[0]: draw(job) for job in items}
            return
        context = multiprocessing.get_context("fork")
        self._pool = ProcessPoolExecutor(workers, mp_context=context)
        self._futures = {job[0]: self._pool.submit(draw, job) for job in items}

    def result(self) -> dict[str, bytes]:
        """Every figure by task id, once all are drawn (a drawing's error is raised here)."""
        try:
            return {**self._done, **{t: f.result() for t, f in self._futures.items()}}
        finally:
            self.cancel()

    def cancel(self) -> None:
        """Stop the workers; figures not yet drawn are dropped."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


def draw_all(jobs: Mapping[str, int]) -> dict[str, bytes]:
    """Draw every task (id -> trials) and wait for the PNGs."""
    return Drawing(jobs).result()


#: Figures still being drawn while mkdocs renders the pages: ``mkdocs_pages.py`` adds them,
#: the post-build hook (``hooks.py``) writes them into the site.
PENDING: list[tuple[Drawing, dict[str, str]]] = []


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


#: What the figure files hold until the drawing is done: a white 1x1 PNG.
PLACEHOLDER = (
    b"\x89PNG\r\n\x1a\n"
    + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
    + _png_chunk(b"IDAT", zlib.compress(b"\x00\xff"))
    + _png_chunk(b"IEND", b"")
)


# ---------------------------------------------------------------------------------------------
# Task pages
# ---------------------------------------------------------------------------------------------


def _dims(indices: object) -> str:
    if isinstance(indices, int):
        return str(indices)
    values = [int(i) for i in indices]  # type: ignore[attr-defined]
    if values == list(range(values[0], values[-1] + 1)) and len(values) > 1:
        return f"{values[0]}{DASH}{values[-1]}"
    return ", ".join(map(str, values))


def space_section(title: str, space: Any) -> list[str]:
    """A space's type and a table of its named dims."""
    names = getattr(space, "name", None)
    lines = [f"### {title}", "", f"{code(type(space).__name__)}, shape "
             f"{code(getattr(space, 'shape', None))}"]  # fmt: skip
    if isinstance(space, neurogym.spaces.Box):
        lines[-1] += f", dtype {code(space.dtype)}"
    elif isinstance(space, neurogym.spaces.Discrete):
        lines[-1] += f", {text(space.n)} actions"
    lines.append("")
    if not isinstance(names, Mapping) or not names:
        return [*lines, "No named dims.", ""]
    lines += ["| name | dims |", "|---|---|"]
    lines += [f"| {code(name)} | {_dims(index)} |" for name, index in names.items()]
    return [*lines, ""]


def describe_timing(raw: Any) -> str:
    """A period's duration spec in words (ms)."""
    try:
        spec = parse_timing(raw)
    except (TypeError, ValueError):
        return code(repr(raw))
    a = [f"{v:g}" for v in spec.args]
    if spec.kind == "constant":
        return f"{a[0]} ms"
    if spec.kind == "choice":
        return f"{a[0]} ms" if spec.is_constant else f"one of {', '.join(a)} ms (uniform)"
    if spec.kind == "uniform":
        return f"uniform on [{a[0]}, {a[1]}) ms"
    if spec.kind == "truncated_exponential":
        return f"truncated exponential, mean {a[0]} ms, on [{a[1]}, {a[2]}) ms"
    if spec.kind == "until":
        return f"until {a[0]} ms after the trial's start"
    return "drawn by a callable each trial"


def timing_section(env: Any) -> list[str]:
    """The table of the task's periods and their durations, and its optional periods."""
    timing = dict(getattr(env, "timing", {}) or {})
    lines = ["## Timing", ""]
    if not timing:
        lines += ["No timed periods: the task's trials are not built from periods.", ""]
    else:
        lines += ["| period | duration |", "|---|---|"]
        lines += [f"| {code(k)} | {describe_timing(v)} |" for k, v in timing.items()]
        lines.append("")
    optional = tuple(getattr(env, "optional_timing", ()) or ())
    if optional:
        lines += [f"Optional periods (absent unless given in `timing=`): "
                  f"{', '.join(code(p) for p in optional)}.", ""]  # fmt: skip
    lines.append(f"Step size `dt` = {text(getattr(env, 'dt', '?'))} ms.")
    return [*lines, ""]


def rewards_section(env: Any) -> list[str]:
    """The table of the task's rewards and its optional reward keys."""
    rewards = dict(getattr(env, "rewards", {}) or {})
    lines = ["## Rewards", ""]
    if rewards:
        lines += ["| outcome | reward |", "|---|---|"]
        lines += [f"| {code(k)} | {v:g} |" if isinstance(v, int | float)
                  else f"| {code(k)} | {code(v)} |" for k, v in rewards.items()]  # fmt: skip
    else:
        lines.append("No reward dict.")
    optional = tuple(getattr(env, "optional_rewards", ()) or ())
    if optional:
        lines += ["", f"Optional rewards (paid only when given in `rewards=`): "
                      f"{', '.join(code(r) for r in optional)}."]  # fmt: skip
    return [*lines, ""]


def load_learnability() -> dict[tuple[str, str], dict[str, Any]]:
    """The rows of ``docs/learnability.json`` by (plugin, task name); empty if absent."""
    if not LEARNABILITY.is_file():
        return {}
    rows = json.loads(LEARNABILITY.read_text(encoding="utf-8"))
    return {(row["plugin"], row["task"]): row for row in rows}


def _num(value: object) -> str:
    if not isinstance(value, int | float) or math.isnan(value):
        return DASH
    return f"{value:.3f}"


def _budget(row: Mapping[str, Any]) -> str:
    """A row's training budget: steps, or seconds for rows trained under a time budget."""
    if isinstance(row.get("budget_steps"), int):
        return f"{row['budget_steps']:,} steps"
    return f"{row['seconds']:g} s" if row.get("seconds") else DASH


def learnability_section(row: Mapping[str, Any] | None, page: str) -> list[str]:
    """The task's row of the learnability table, or why there is none."""
    link = rel("learnability.md", page)
    lines = ["## Learnability", ""]
    if row is None:
        text = f"Not measured yet: this task has no row in the [learnability table]({link})."
        return [*lines, text, ""]
    args = ", ".join(f"{k}={v!r}" for k, v in row.get("env_kwargs", {}).items())
    budget = row.get("rl") or _budget(row)
    trained = row.get("trained")
    lines += [
        f"One recipe for every task ([learnability table]({link}); strict closed-loop "
        f"accuracy){f', task arguments {args}' if args else ''}:",
        "",
        "| accuracy | env perf. | chance | ceiling | trained | budget | status | date |",
        "|---|---|---|---|---|---|---|---|",
        f"| {_num(row.get('accuracy'))} | {_num(row.get('performance'))} "
        f"| {_num(row.get('chance'))} | {_num(row.get('ceiling'))} "
        f"| {f'{trained:.0f} s' if isinstance(trained, int | float) else DASH} "
        f"| {_cell(budget)} | **{_cell(row.get('status', DASH))}** | {row.get('date', DASH)} |",
        "",
    ]
    return lines


def differences_section(differences: list[Difference], name: str) -> list[str]:
    """The differences from upstream that the task's plugin declares for it."""
    own = [d for d in differences if name in d.tasks]
    lines = [f"## Differences from {UPSTREAM}", ""]
    if not own:
        return [*lines, "None declared by its plugin.", ""]
    for d in own:
        item = f"- {text(d.summary)} *Why:* {text(d.reason)} *Follows:* {text(d.follows)}"
        item += f" ({text(d.source)})." if d.source else "."
        if d.tests:
            item += " Tests: " + ", ".join(code(t) for t in d.tests) + "."
        lines.append(item)
    return [*lines, ""]


_ARG = re.compile(r"^(\*{0,2}[A-Za-z_]\w*): ")


def docstring_markdown(doc: str) -> str:
    """A task class's docstring as page markdown: headings one level down, args as a list."""
    doc = to_markdown(doc)
    out: list[str] = []
    in_args = False
    for line in doc.splitlines():
        if line.startswith("#"):
            in_args = line.strip("# ").lower() in {"arguments", "args", "parameters"}
            out.append("#" + line)
            continue
        match = _ARG.match(line) if in_args else None
        if match:
            line = f"- `{match.group(1)}`: {line[match.end() :]}"
        elif in_args and line.strip() and out and out[-1].startswith("- "):
            out[-1] += " " + line.strip()
            continue
        out.append(line)
    return "\n".join(out)


def task_markdown(
    entry: Entry,
    env: Any,
    row: Mapping[str, Any] | None,
    differences: list[Difference],
    trials: int = FIGURE_TRIALS,
) -> str:
    """The page of one task (its figure shows ``trials`` trials)."""
    spec, page = entry.spec, entry.page
    doc = inspect.getdoc(type(env)) or ""
    summary, _, body = doc.partition("\n")
    family = f"[{text(spec.plugin)}]({rel(family_page(spec.plugin), page)})"
    tags = ", ".join(f"[{text(t)}]({rel(tag_page(t), page)})" for t in spec.tags) or "none"
    paper = text(spec.paper_name) or DASH
    if spec.paper_link:
        paper = link(paper, spec.paper_link)
    obstacle = spec.vector_obstacle()
    vector = (
        "native (numpy-batched)" if obstacle is None else f"loops over single envs: {obstacle}"
    )
    kwargs = ", ".join(code(f"{k}={v!r}") for k, v in spec.kwargs.items()) or "none"
    gt = getattr(env, "has_groundtruth", True)
    policy = "its ground-truth actions" if gt else "random actions (the task has no ground truth)"
    lines = [
        f"# {spec.name}",
        "",
        f"**{text(spec.description or summary)}**",
        "",
        f"| id | `{spec.id}` |",
        "|---|---|",
        f"| family | {family} (distribution {code(spec.distribution)}) |",
        f"| tags | {tags} |",
        f"| paper | {paper} |",
        f"| class | `{spec.entry_point}` |",
        f"| default arguments | {kwargs} |",
        f"| vector env | {text(vector)} |",
        "",
        "```python",
        "import neurogym",
        f'env = neurogym.make("{spec.id}")',
        "```",
        "",
        "## Example trials",
        "",
        f"![{trials} trials of {spec.name}]({rel(entry.figure, page)})",
        "",
        f"{trials} trials at seed 0 with {policy}, drawn by "
        f"`neurogym_apps.plot.plot_env` (`neurogym plot {spec.id}`).",
        "",
        "## Spaces",
        "",
        *space_section("Observation space", env.observation_space),
        *space_section("Action space", env.action_space),
        *timing_section(env),
        *rewards_section(env),
        *learnability_section(row, page),
        *differences_section(differences, spec.name),
    ]
    if body.strip():
        docstring = safe_markdown(f"{summary}\n\n{docstring_markdown(body)}")
        lines += ["## From the task's docstring", "", docstring, ""]
    return "\n".join(lines)


def task_pages(items: list[Entry]) -> tuple[dict[str, str], dict[str, int]]:
    """The markdown of every task page by page path, and the trials to draw by task id."""
    rows = load_learnability()
    differences: dict[str, list[Difference]] = {}
    pages, trials = {}, {}
    for entry in items:
        spec = entry.spec
        if spec.plugin not in differences:
            differences[spec.plugin] = declared(spec.plugin)
        env = spec.make().unwrapped
        row = rows.get((spec.plugin, spec.name))
        trials[spec.id] = figure_trials(env)
        pages[entry.page] = task_markdown(
            entry, env, row, differences[spec.plugin], trials[spec.id]
        )
        env.close()
    return pages, trials


# ---------------------------------------------------------------------------------------------
# Index pages and navigation
# ---------------------------------------------------------------------------------------------


def task_table(items: list[Entry], page: str, *, family: bool = True) -> list[str]:
    """A table of tasks linking their pages (with a family column unless ``family=False``)."""
    head = "| task | family | tags | description |" if family else "| task | tags | description |"
    lines = [head, "|---|---|---|---|" if family else "|---|---|---|"]
    for entry in items:
        spec = entry.spec
        tags = ", ".join(f"[{text(t)}]({rel(tag_page(t), page)})" for t in spec.tags)
        cells = [f"[{text(spec.name)}]({rel(entry.page, page)})"]
        if family:
            cells.append(f"[{text(spec.plugin)}]({rel(family_page(spec.plugin), page)})")
        cells += [tags, text(spec.description)]
        lines.append("| " + " | ".join(cells) + " |")
    return [*lines, ""]


def by_family(items: list[Entry]) -> dict[str, list[Entry]]:
    """The entries grouped by plugin, families sorted by name."""
    groups: dict[str, list[Entry]] = {}
    for entry in items:
        groups.setdefault(entry.spec.plugin, []).append(entry)
    return dict(sorted(groups.items()))


def by_tag(items: list[Entry]) -> dict[str, list[Entry]]:
    """The entries grouped by tag, tags sorted."""
    groups: dict[str, list[Entry]] = {}
    for entry in items:
        for tag in entry.spec.tags:
            groups.setdefault(tag, []).append(entry)
    return dict(sorted(groups.items()))


def catalogue_index(items: list[Entry]) -> str:
    """``tasks/index.md``: every task, and links to the family and tag pages."""
    page = "tasks/index.md"
    families = by_family(items)
    lines = [
        "# Task catalogue",
        "",
        f"{len(items)} tasks in {len(families)} families, generated from the task registry of "
        "the environment the site was built in: a plugin's tasks appear once it is installed. "
        "Each page shows the task's spaces, timing, rewards, example trials, learnability and "
        f"its declared differences from {UPSTREAM}.",
        "",
        "Families: "
        + ", ".join(
            f"[{text(p)}]({rel(family_page(p), page)}) ({len(e)})" for p, e in families.items()
        )
        + ".",
        "",
        f"By tag: [all tags]({rel('tags/index.md', page)}).",
        "",
        *task_table(items, page),
    ]
    return "\n".join(lines)


def tags_index(items: list[Entry]) -> str:
    """``tags/index.md``: every tag with its tasks."""
    page = "tags/index.md"
    lines = ["# Tasks by tag", "", "| tag | tasks |", "|---|---|"]
    for tag, group in by_tag(items).items():
        names = ", ".join(f"[{text(e.spec.name)}]({rel(e.page, page)})" for e in group)
        lines.append(f"| [{text(tag)}]({rel(tag_page(tag), page)}) | {names} |")
    return "\n".join([*lines, ""])


def tag_markdown(tag: str, group: list[Entry]) -> str:
    """The page of one tag."""
    page = tag_page(tag)
    lines = [f"# Tag: {text(tag)}", "", f"{len(group)} tasks.", "", *task_table(group, page)]
    return "\n".join(lines)


def summary_nav(items: list[Entry]) -> dict[str, str]:
    """``tasks/SUMMARY.md`` and ``tags/SUMMARY.md``: the navigation (mkdocs-literate-nav)."""
    tasks = ["- [All tasks](index.md)"]
    for plugin, group in by_family(items).items():
        tasks.append(f"- [{text(plugin)}]({rel(family_page(plugin), 'tasks/SUMMARY.md')})")
        tasks += [f"    - [{text(e.spec.name)}]({rel(e.page, 'tasks/SUMMARY.md')})" for e in group]
    tags = ["- [All tags](index.md)"]
    tags += [f"- [{text(t)}]({rel(tag_page(t), 'tags/SUMMARY.md')})" for t in by_tag(items)]
    return {"tasks/SUMMARY.md": "\n".join(tasks) + "\n", "tags/SUMMARY.md": "\n".join(tags) + "\n"}
