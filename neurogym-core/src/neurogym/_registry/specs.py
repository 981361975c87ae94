"""``TaskSpec`` and ``WrapperSpec``: what a plugin declares, checked when it is written.

A spec names its class by an ``"module.path:Attr"`` string, so declaring and listing tasks
imports no task code; :meth:`TaskSpec.load` / :meth:`TaskSpec.make` do the import.
"""

from __future__ import annotations

import copy
import functools
import importlib
import inspect
import re
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

import gymnasium
from gymnasium.envs.registration import EnvSpec

from neurogym.validate import closest

__all__ = ["ParsedId", "TaskSpec", "WrapperSpec", "parse_task_id"]

# gymnasium's id grammar (``[namespace/]name[-vN]``) with the namespace and version required,
# ASCII only and without ":" (gymnasium.make reads "a:b" as "import a, then make b").
_ID_RE = re.compile(
    r"(?P<namespace>[A-Za-z0-9_-]+)/(?P<name>[A-Za-z0-9_][A-Za-z0-9_.-]*?)"
    r"-v(?P<version>0|[1-9][0-9]*)"
)
_ID_FORM = "'<namespace>/<Name>-v<N>', e.g. 'neurogym/PerceptualDecisionMaking-v0'"
_ENTRY_POINT_RE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*:[A-Za-z_]\w*", re.ASCII)
_ENTRY_POINT_FORM = "'module.path:Attribute', e.g. 'neurogym_perceptual.tasks.rdm:RandomDotMotion'"
_WRAPPER_NAME_RE = re.compile(r"(?:[A-Za-z0-9_-]+/)?[A-Za-z_][A-Za-z0-9_.-]*")
_WRAPPER_NAME_FORM = (
    "letters, digits, '_', '.' or '-', starting with a letter or '_', optionally prefixed by "
    "'<namespace>/'"
)


#: What an entry-point (plugin) name must be: it becomes a path part (the docs catalogue's
#: ``tasks/<plugin>/``) and is printed, so ASCII letters and digits, with ``_``, ``.`` or ``-``
#: inside, at most 64 characters (never ``.`` or ``..``).
PLUGIN_NAME_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,62}[A-Za-z0-9])?", re.ASCII)
PLUGIN_NAME_FORM = "ASCII letters and digits, with '_', '.' or '-' inside, at most 64 characters"


def display_text(text: object, *, multiline: bool = False) -> str:
    r"""``text`` safe to show: every non-printable character written as its escape.

    The one place where text a plugin wrote (tags, descriptions, paper fields, docstrings,
    error messages) is made fit for a terminal or a page: control characters (ANSI and OSC
    escape sequences, carriage returns, newlines that would forge a table row or a field),
    bidi and other format characters and line separators become ``\x1b``, ``\n``,
    ``\u202e``, ... The data itself is never changed; printers call this.

    Args:
        text: The text (anything else is shown as its ``str``).
        multiline: Keep ``"\n"`` (a docstring, a multi-line message); every other
            non-printable character is still escaped.
    """
    text = str(text)
    if text.isprintable():
        return text
    keep = "\n" if multiline else ""
    return "".join(
        char if char.isprintable() or char in keep else ascii(char)[1:-1] for char in text
    )


def is_http_url(link: object) -> bool:
    """Whether ``link`` may be shown as a link: an ``http(s)://host...`` URL, nothing else.

    ``javascript:``, ``data:``, relative links and anything holding whitespace or control
    characters are not; printers show those as plain (escaped) text.
    """
    if not isinstance(link, str) or not link.isprintable() or any(c.isspace() for c in link):
        return False
    try:
        parts = urllib.parse.urlsplit(link)
    except ValueError:
        return False
    return parts.scheme.lower() in {"http", "https"} and bool(parts.netloc)


class ParsedId(NamedTuple):
    """The three parts of a task id ``namespace/Name-vN``."""

    namespace: str
    name: str
    version: int


def parse_task_id(task_id: str) -> ParsedId:
    """Split a full task id into namespace, name and version.

    Args:
        task_id: An id of the form ``namespace/Name-vN``.

    Returns:
        The parsed parts.

    Raises:
        TypeError: If ``task_id`` is not a str.
        ValueError: If ``task_id`` does not follow the grammar; the message shows the valid form.
    """
    if not isinstance(task_id, str):
        raise TypeError(f"a task id must be a str, got {type(task_id).__name__}: {task_id!r}")
    return _parse_task_id(task_id)


@functools.cache
def _parse_task_id(task_id: str) -> ParsedId:
    match = _ID_RE.fullmatch(task_id)
    if match is None:
        raise ValueError(f"invalid task id {task_id!r}: expected {_ID_FORM}")
    return ParsedId(match["namespace"], match["name"], int(match["version"]))


def _fullmatch(pattern: re.Pattern[str], value: object) -> bool:
    return isinstance(value, str) and pattern.fullmatch(value) is not None


def _check_entry_point(entry_point: object, owner: str) -> None:
    if not _fullmatch(_ENTRY_POINT_RE, entry_point):
        raise ValueError(
            f"invalid entry_point {entry_point!r} for {owner}: expected {_ENTRY_POINT_FORM}"
        )


def _check_str_fields(spec: object, names: tuple[str, ...], owner: str) -> None:
    for name in names:
        value = getattr(spec, name)
        if not isinstance(value, str):
            raise TypeError(
                f"{name} of {owner} must be a str, got {type(value).__name__}: {value!r}"
            )


def _checked_tags(tags: object, owner: str) -> tuple[str, ...]:
    if isinstance(tags, str) or not isinstance(tags, tuple | list):
        raise TypeError(
            f"tags of {owner} must be a tuple (or list) of str, got {type(tags).__name__}: "
            f"{tags!r}"
        )
    for tag in tags:
        if not isinstance(tag, str):
            raise TypeError(f"tags of {owner} must be strs, got {tag!r} in {tags!r}")
        if not tag.strip():
            raise ValueError(f"tags of {owner} must be non-empty, got {tag!r} in {tags!r}")
    return tuple(tags)


def _checked_kwargs(kwargs: object, owner: str) -> dict[str, Any]:
    if not isinstance(kwargs, Mapping):
        raise TypeError(
            f"kwargs of {owner} must be a mapping of argument names to values, got "
            f"{type(kwargs).__name__}: {kwargs!r}"
        )
    bad = [key for key in kwargs if not isinstance(key, str)]
    if bad:
        raise TypeError(f"kwargs of {owner} must have str keys, got {bad!r}")
    return dict(kwargs)


def _load_entry_point(entry_point: str, owner: str) -> Callable[..., Any]:
    module_name, _, attr = entry_point.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        exc.add_note(f"while loading entry point {entry_point!r} of {owner}")
        raise
    try:
        target = getattr(module, attr)
    except AttributeError:
        raise ImportError(
            f"cannot load {owner}: module {module_name!r} has no attribute {attr!r} "
            f"(entry point {entry_point!r})"
        ) from None
    if not callable(target):
        raise TypeError(
            f"entry point {entry_point!r} of {owner} is a {type(target).__name__}, "
            "not a class or callable"
        )
    return cast("Callable[..., Any]", target)


def _describe_origin(plugin: str, distribution: str) -> str:
    if not plugin and not distribution:
        return ""
    return f" (plugin {plugin!r}, distribution {distribution!r})"


@dataclass(frozen=True)
class TaskSpec:
    """Declaration of one task: its id, where its class lives and how to document it.

    Plugins return these from their ``neurogym_tasks`` hook. Nothing is imported when a spec is
    created or listed; :meth:`load` and :meth:`make` import the entry point.

    The spec is the one place a task's paper, tags and description are written: the task class
    does not restate them, and envs made from the spec get them in ``env.metadata``. Whether
    the task steps natively in a vector env is derived from the class (:attr:`vectorized`).

    Args:
        id: ``namespace/Name-vN``, e.g. ``"neurogym/PerceptualDecisionMaking-v0"``.
        entry_point: ``"module.path:Attr"`` naming the env class (or a factory returning an
            env).
        kwargs: Default constructor arguments; arguments given to :meth:`make` override them.
        tags: Free-form tags used by ``neurogym.tasks(tag=...)``. A list is accepted and
            stored as a tuple.
        paper_name: Title of the paper the task comes from.
        paper_link: Link to that paper.
        description: One-paragraph description for listings.
        plugin: Entry-point name of the plugin that declared the spec; filled in by discovery.
        distribution: Name of the installed distribution that declared the spec; filled in by
            discovery.

    Raises:
        ValueError: If ``id`` or ``entry_point`` is malformed or a tag is empty.
        TypeError: If a field has the wrong type.
    """

    id: str
    entry_point: str
    kwargs: Mapping[str, Any] = field(default_factory=dict, hash=False)
    tags: tuple[str, ...] = ()
    paper_name: str = ""
    paper_link: str = ""
    description: str = ""
    plugin: str = ""
    distribution: str = ""

    def __post_init__(self) -> None:
        parse_task_id(self.id)
        owner = f"task {self.id!r}"
        _check_entry_point(self.entry_point, owner)
        _check_str_fields(
            self, ("paper_name", "paper_link", "description", "plugin", "distribution"), owner
        )
        object.__setattr__(self, "kwargs", _checked_kwargs(self.kwargs, owner))
        object.__setattr__(self, "tags", _checked_tags(self.tags, owner))

    @property
    def namespace(self) -> str:
        """The namespace, e.g. ``"neurogym"``."""
        return parse_task_id(self.id).namespace

    @property
    def name(self) -> str:
        """The name without namespace or version, e.g. ``"PerceptualDecisionMaking"``."""
        return parse_task_id(self.id).name

    @property
    def version(self) -> int:
        """The version number, e.g. ``0`` for ``...-v0``."""
        return parse_task_id(self.id).version

    @property
    def metadata(self) -> dict[str, Any]:
        """The documentation fields as they appear in a made env's ``metadata``."""
        return {
            "paper_name": self.paper_name,
            "paper_link": self.paper_link,
            "tags": list(self.tags),
            "description": self.description,
        }

    @property
    def vectorized(self) -> bool:
        """Whether a vector env steps this task natively (imports and builds it once)."""
        return self.vector_obstacle() is None

    def vector_obstacle(self) -> str | None:
        """Why a vector env cannot step this task natively, or None if it can.

        Derived from the task as built with its default kwargs (see
        :func:`neurogym.vector.native_obstacle`); the result is cached per spec.
        """
        cached: dict[str, str | None] = self.__dict__.setdefault("_vector_obstacle", {})
        if "reason" not in cached:
            from neurogym._env.vectorizable import native_obstacle  # imports TrialEnv: on demand

            cached["reason"] = native_obstacle(self.make())
        return cached["reason"]

    def load(self) -> Callable[..., gymnasium.Env[Any, Any]]:
        """Import the entry point and return it (normally the env class).

        Returns:
            The class (or factory) named by :attr:`entry_point`.

        Raises:
            ImportError: If the module cannot be imported (the error gets a note naming this
                task) or has no such attribute.
            TypeError: If the attribute is not callable.
        """
        return _load_entry_point(self.entry_point, f"task {self.id!r}{self._origin()}")

    def make(self, **kwargs: object) -> gymnasium.Env[Any, Any]:
        """Build the env directly from this spec, without resolution or wrappers.

        The spec's default ``kwargs`` are deep-copied, so envs never share mutable defaults.
        The env's ``spec`` is set to a gymnasium :class:`~gymnasium.envs.registration.EnvSpec`
        with this id, entry point and the merged arguments.

        Args:
            **kwargs: Constructor arguments overriding the spec's defaults.

        Returns:
            The new env.

        Raises:
            TypeError: If the entry point does not return a ``gymnasium.Env``.
        """
        merged = {**copy.deepcopy(dict(self.kwargs)), **kwargs}
        target = self.load()
        _check_parameters(target, merged, self.id)
        env = target(**merged)
        if not isinstance(env, gymnasium.Env):
            raise TypeError(
                f"entry point {self.entry_point!r} of task {self.id!r} returned a "
                f"{type(env).__name__}, not a gymnasium.Env"
            )
        env.unwrapped.metadata = {**env.unwrapped.metadata, **self.metadata}
        env.unwrapped.spec = EnvSpec(
            id=self.id,
            entry_point=self.entry_point,
            kwargs=merged,
            order_enforce=False,
            disable_env_checker=True,
        )
        return env

    def _origin(self) -> str:
        return _describe_origin(self.plugin, self.distribution)


@dataclass(frozen=True)
class WrapperSpec:
    """Declaration of one wrapper that ``neurogym.make(..., wrappers=[...])`` can apply.

    Args:
        name: The name users pass in ``wrappers=``, e.g. ``"Noise"``; letters, digits, ``_``,
            ``.`` or ``-``, starting with a letter or ``_``, optionally ``namespace/``-prefixed.
        entry_point: ``"module.path:Attr"`` naming the wrapper class; it is called as
            ``cls(env, **kwargs)``.
        description: One-line description for listings.
        plugin: Entry-point name of the declaring plugin; filled in by discovery.
        distribution: Name of the declaring distribution; filled in by discovery.

    Raises:
        ValueError: If ``name`` or ``entry_point`` is malformed.
        TypeError: If a field has the wrong type.
    """

    name: str
    entry_point: str
    description: str = ""
    plugin: str = ""
    distribution: str = ""

    def __post_init__(self) -> None:
        if not _fullmatch(_WRAPPER_NAME_RE, self.name):
            raise ValueError(f"invalid wrapper name {self.name!r}: expected {_WRAPPER_NAME_FORM}")
        owner = f"wrapper {self.name!r}"
        _check_entry_point(self.entry_point, owner)
        _check_str_fields(self, ("description", "plugin", "distribution"), owner)

    def load(self) -> Callable[..., gymnasium.Env[Any, Any]]:
        """Import the entry point and return the wrapper class.

        Returns:
            The class (or factory) named by :attr:`entry_point`.

        Raises:
            ImportError: If the module cannot be imported or has no such attribute.
            TypeError: If the attribute is not callable.
        """
        origin = _describe_origin(self.plugin, self.distribution)
        return _load_entry_point(self.entry_point, f"wrapper {self.name!r}{origin}")


def _check_parameters(target: Callable[..., Any], kwargs: Mapping[str, Any], task_id: str) -> None:
    """Raise if ``target`` (a class or factory without ``**kwargs``) lacks a given argument."""
    try:
        parameters = inspect.signature(target).parameters
    except (TypeError, ValueError):  # no introspectable signature: let the call decide
        return
    kinds = {parameter.kind for parameter in parameters.values()}
    if inspect.Parameter.VAR_KEYWORD in kinds:
        return
    named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    accepted = [name for name, p in parameters.items() if p.kind in named]
    for key in kwargs:
        if key not in accepted:
            listed = ", ".join(accepted) or "none"
            raise TypeError(
                f"task {task_id!r} has no parameter {key!r}{closest(key, accepted)} (its "
                f"parameters: {listed})"
            )
