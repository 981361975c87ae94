"""Check the answers before anything is generated; exit 1 with every problem found.

Cookiecutter renders this file with the answers (``jsonify`` turns each into a valid Python
string literal), runs it, and stops generating (removing the new directory) when it exits
non-zero. It uses only the standard library, so it runs wherever cookiecutter does.
"""

from __future__ import annotations

import keyword
import re
import sys

ANSWERS = {
    "plugin_name": {{ cookiecutter.plugin_name | jsonify }},
    "namespace": {{ cookiecutter.namespace | jsonify }},
    "task_class": {{ cookiecutter.task_class | jsonify }},
    "author": {{ cookiecutter.author | jsonify }},
    "email": {{ cookiecutter.email | jsonify }},
    "license": {{ cookiecutter.license | jsonify }},
    "description": {{ cookiecutter.description | jsonify }},
    "tags": {{ cookiecutter.tags | jsonify }},
    "task_description": {{ cookiecutter.task_description | jsonify }},
    "paper_name": {{ cookiecutter.paper_name | jsonify }},
    "paper_link": {{ cookiecutter.paper_link | jsonify }},
}
# The private variables are rendered into paths (src/<package>/tasks/<module>.py). They are
# derived from the answers, but a command line or a replay file can set them too: each must
# equal its derivation, so no value can name a path outside the generated plugin.
DERIVED = {
    "__dist_name": {{ cookiecutter.__dist_name | jsonify }},
    "__package": {{ cookiecutter.__package | jsonify }},
    "__task_module": {{ cookiecutter.__task_module | jsonify }},
}

# Upper bounds that keep every generated line within the 99 columns the ruff config allows
# (the task's description and paper are wrapped over several lines, the link stands alone).
MAX_NAME = 32
MAX_TEXT = 80
MAX_LONG_TEXT = 200
MAX_TAG = 30
MAX_WORD = 60  # a longer word could not be wrapped within 99 columns

PLUGIN_NAME_RE = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*", re.ASCII)
NAMESPACE_RE = re.compile(r"[A-Za-z0-9_-]+", re.ASCII)  # gymnasium's namespace grammar
CLASS_RE = re.compile(r"[A-Z][A-Za-z0-9]*", re.ASCII)
EMAIL_RE = re.compile(r"[^@\s\"\\]+@[^@\s\"\\]+\.[^@\s\"\\]+")
# Words of letters, digits, '_', '.' or '-', separated by single spaces: 'working memory',
# 'go-no-go' and 'steps action space' are tags of first-party tasks.
TAG_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*(?: [A-Za-z0-9_.-]+)*", re.ASCII)
LINK_RE = re.compile(r"https?://[^\s\"\\]+", re.ASCII)
# What an answer left at its default says: the baked task spec carries it, and the baked tests
# fail until it is replaced.
TODO = "TODO"
LICENSES = ("Apache-2.0", "MIT", "BSD-3-Clause", "GPL-3.0-or-later")

# neurogym-core is "neurogym-core" and registers its own tasks as plugin "core"; "apps" is
# neurogym-apps (the applications); the others are the first-party task families.
# <reserved-plugin-names>
RESERVED_PLUGIN_NAMES = (  # generated: python tools/first_party.py --write
    "core", "perceptual", "workingmemory", "valuebased", "motor", "multitask", "apps",
)
# </reserved-plugin-names>
# Names the generated task module and tests import: a task class of that name would shadow them.
RESERVED_CLASSES = ("Any", "BatchBuilder", "StandardDecision", "TrialEnv")


def check_plugin_name(name: str) -> list[str]:
    """Problems with the plugin name (distribution ``neurogym-<name>``)."""
    if not PLUGIN_NAME_RE.fullmatch(name) or len(name) > MAX_NAME:
        return [
            f"plugin_name {name!r} is not a valid plugin name: use up to {MAX_NAME} lowercase "
            "letters, digits and single '-', starting with a letter (e.g. 'mylab' or "
            "'rat-lab'); it becomes the distribution name 'neurogym-<name>' and the import "
            "name 'neurogym_<name with _ for ->'"
        ]
    if name in RESERVED_PLUGIN_NAMES:
        return [
            f"plugin_name {name!r} is taken: 'neurogym-{name}' is a distribution of the "
            f"neurogym project itself (reserved: {', '.join(RESERVED_PLUGIN_NAMES)})"
        ]
    return []


def check_namespace(namespace: str) -> list[str]:
    """Problems with the namespace of the task ids."""
    if not NAMESPACE_RE.fullmatch(namespace) or len(namespace) > MAX_NAME:
        return [
            f"namespace {namespace!r} is not a valid task-id namespace: use up to {MAX_NAME} "
            "letters, digits, '_' or '-' (task ids are '<namespace>/<TaskClass>-v0')"
        ]
    # the rule of neurogym's is_reserved_namespace (a test keeps the two equal): any case,
    # with '-', '_' and '.' removed
    if re.sub(r"[-_.]", "", namespace.casefold()) == "neurogym":
        return [
            f"namespace {namespace!r} clashes with neurogym: the 'neurogym/' namespace is "
            "reserved for the tasks of the neurogym project; use your own, e.g. your lab's or "
            "your plugin's name"
        ]
    return []


def check_task_class(name: str) -> list[str]:
    """Problems with the class name of the first task (its module is the name lower-cased)."""
    if not CLASS_RE.fullmatch(name) or len(name) > MAX_NAME:
        return [
            f"task_class {name!r} is not a valid task class name: use up to {MAX_NAME} ASCII "
            "letters and digits in CamelCase, starting with an upper-case letter (e.g. "
            "'DelayedMatch')"
        ]
    if keyword.iskeyword(name) or keyword.iskeyword(name.lower()):
        return [
            f"task_class {name!r} cannot be used: it or its module name {name.lower()!r} is a "
            "Python keyword"
        ]
    if name in RESERVED_CLASSES:
        return [
            f"task_class {name!r} would shadow a name the task module imports "
            f"({', '.join(RESERVED_CLASSES)}); choose another name"
        ]
    return []


def check_text(key: str, value: str, limit: int = MAX_TEXT) -> list[str]:
    """Problems with a free-text answer that is written into TOML, Python and Markdown."""
    if not value.strip():
        return [f"{key} must not be empty"]
    if len(value) > limit:
        return [f"{key} is {len(value)} characters long; the limit is {limit}"]
    if value != value.strip():
        return [f"{key} {value!r} has leading or trailing spaces"]
    if any(char in value for char in '"\\') or not value.isprintable():
        return [f"{key} {value!r} must be one line without double quotes or backslashes"]
    if "  " in value:
        return [f"{key} {value!r} has two spaces in a row; separate words with one"]
    return []


def check_link(key: str, value: str) -> list[str]:
    """Problems with a link: an http(s) URL, or TODO to write it later."""
    if value == TODO:
        return []
    if not LINK_RE.fullmatch(value) or len(value) > MAX_LONG_TEXT:
        return [
            f"{key} {value!r} is not a link: give an http:// or https:// URL of up to "
            f"{MAX_LONG_TEXT} characters without spaces or quotes (e.g. "
            f"'https://doi.org/10.1523/JNEUROSCI.12-12-04745.1992'), or {TODO} to write it later"
        ]
    return []


def check_cell(key: str, value: str) -> list[str]:
    """Problems with text that the README's task table shows in a cell."""
    if "|" in value:
        return [f"{key} {value!r} holds '|', which would split the README's task table"]
    return []


def check_words(key: str, value: str) -> list[str]:
    """Problems with text that is wrapped at spaces (a word longer than a line cannot be)."""
    long_words = [word for word in value.split(" ") if len(word) > MAX_WORD]
    if " " in value and long_words:
        return [
            f"{key} has a word of {len(long_words[0])} characters ({long_words[0][:20]!r}...); "
            f"words have at most {MAX_WORD}"
        ]
    return []


def check_email(email: str) -> list[str]:
    """Problems with the author's email; empty means none."""
    if email and not EMAIL_RE.fullmatch(email):
        return [f"email {email!r} is not an email address (leave it empty for none)"]
    return []


def check_license(license_id: str) -> list[str]:
    """Problems with the license identifier."""
    if license_id not in LICENSES:
        return [f"license {license_id!r} is not one of {', '.join(LICENSES)}"]
    return []


def check_tags(tags: str) -> list[str]:
    """Problems with the comma-separated tags of the first task."""
    items = [tag.strip() for tag in tags.split(",")]
    bad = [tag for tag in items if not TAG_RE.fullmatch(tag) or len(tag) > MAX_TAG]
    if bad:
        return [
            f"tags {tags!r}: {', '.join(repr(tag) for tag in bad)} not valid; give one or more "
            f"comma-separated tags of up to {MAX_TAG} characters each: words of letters, "
            "digits, '_', '.' or '-' separated by single spaces (e.g. 'perceptual, "
            "working memory, go-no-go')"
        ]
    if len(set(items)) != len(items):
        return [f"tags {tags!r} repeat a tag"]
    return []


def problems(answers: dict[str, str]) -> list[str]:
    """Every problem with ``answers``, in question order."""
    return [
        *check_plugin_name(answers["plugin_name"]),
        *check_namespace(answers["namespace"]),
        *check_task_class(answers["task_class"]),
        *check_text("author", answers["author"]),
        *check_email(answers["email"]),
        *check_license(answers["license"]),
        *check_text("description", answers["description"]),
        *check_tags(answers["tags"]),
        *check_text("task_description", answers["task_description"], MAX_LONG_TEXT),
        *check_cell("task_description", answers["task_description"]),
        *check_words("task_description", answers["task_description"]),
        *check_text("paper_name", answers["paper_name"], MAX_LONG_TEXT),
        *check_cell("paper_name", answers["paper_name"]),
        *check_words("paper_name", answers["paper_name"]),
        *check_link("paper_link", answers["paper_link"]),
    ]


def check_derived(answers: dict[str, str], derived: dict[str, str]) -> list[str]:
    """Problems with the private variables: each must be what the answers derive."""
    name = answers["plugin_name"]
    expected = {
        "__dist_name": f"neurogym-{name}",
        "__package": f"neurogym_{name.replace('-', '_')}",
        "__task_module": answers["task_class"].lower(),
    }
    return [
        f"{key} is derived from the answers and must be {value!r}, got {derived[key]!r} (it "
        "is rendered into file paths; do not set it)"
        for key, value in expected.items()
        if derived.get(key) != value
    ]


BRACE = chr(123)  # not written out: this file is itself a template
OPENERS = (BRACE + BRACE, BRACE + "%", BRACE + "#")


def check_literal(answers: dict[str, object]) -> list[str]:
    """Answers are literal text: template syntax typed at a prompt is refused too."""
    return [
        f"{key} {value!r} holds template syntax (a brace followed by a brace, % or #); "
        "answers are literal text"
        for key, value in answers.items()
        if isinstance(value, str) and any(opener in value for opener in OPENERS)
    ]


def main() -> int:
    """Print every problem to stderr; return 1 if there is one."""
    found = check_literal(ANSWERS) or problems(ANSWERS) + check_derived(ANSWERS, DERIVED)
    for problem in found:
        print(f"ERROR: {problem}", file=sys.stderr)
    if found:
        print("The neurogym plugin template generated nothing; answer again.", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
