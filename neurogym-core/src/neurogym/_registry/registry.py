"""The registry: an object mapping task ids to :class:`TaskSpec` and names to :class:`WrapperSpec`.

There is no process-global registry here. ``neurogym.get_registry()`` caches one built by plugin
discovery; tests and tools build their own with ``neurogym.build_registry()`` or ``Registry()``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar

import importlib_metadata

from neurogym import validate
from neurogym._registry.firstparty import FIRST_PARTY_NAMESPACE, distribution_key, providing_family
from neurogym._registry.specs import ParsedId, TaskSpec, WrapperSpec, parse_task_id
from neurogym.errors import (
    AmbiguousTaskError,
    DuplicateTaskError,
    DuplicateWrapperError,
    UnknownTaskError,
    UnknownWrapperError,
)

if TYPE_CHECKING:
    import gymnasium
    import pluggy

__all__ = ["Registry", "TaskSpec", "WrapperRequest", "WrapperSpec"]

#: One item of ``make(..., wrappers=[...])``: a wrapper name, or ``(name, kwargs)``.
WrapperRequest: TypeAlias = str | tuple[str, Mapping[str, Any]]

_SpecT = TypeVar("_SpecT", TaskSpec, WrapperSpec)

# What users may type for a task: the id, with the namespace and/or the version left out.
_QUERY_RE = re.compile(
    r"(?:(?P<namespace>[A-Za-z0-9_-]+)/)?(?P<name>[A-Za-z0-9_][A-Za-z0-9_.-]*?)"
    r"(?:-v(?P<version>[0-9]+))?"
)
_MAX_SUGGESTIONS = 5


def _join(names: Sequence[str]) -> str:
    quoted = [repr(name) for name in names]
    if len(quoted) < 3:
        return " and ".join(quoted)
    return f"{', '.join(quoted[:-1])} and {quoted[-1]}"


def _origin(spec: TaskSpec | WrapperSpec) -> str:
    if not spec.distribution:
        return ""
    return f", from distribution {spec.distribution!r}"


def _is_installed(distribution: str) -> bool:
    try:
        importlib_metadata.distribution(distribution)
    except importlib_metadata.PackageNotFoundError:
        return False
    return True


class _Table(Generic[_SpecT]):
    """Specs of one kind (tasks or wrappers) by key, plus the keys declared more than once."""

    def __init__(
        self,
        kind: str,
        duplicate_error: type[ValueError],
        unknown_error: type[LookupError],
    ) -> None:
        self.kind = kind
        self.duplicate_error = duplicate_error
        self.unknown_error = unknown_error
        self.specs: dict[str, _SpecT] = {}
        self.conflicts: dict[str, tuple[str, ...]] = {}

    def add(self, key: str, spec: _SpecT, *, override: bool) -> None:
        if not override and key in self.conflicts:
            raise self.conflict_error(key)
        old = self.specs.get(key)
        if not override and old is not None:
            raise self.duplicate_error(
                f"{self.kind} {key!r} is already registered (entry point "
                f"{old.entry_point!r}{_origin(old)}); pass override=True to replace it"
            )
        self.conflicts.pop(key, None)
        self.specs[key] = spec

    def add_conflict(self, key: str, distributions: Sequence[str]) -> None:
        self.specs.pop(key, None)
        self.conflicts[key] = tuple(distributions)

    def conflict_error(self, key: str) -> ValueError:
        return self.duplicate_error(
            f"{self.kind} {key!r} is declared by more than one installed distribution "
            f"({_join(self.conflicts[key])}), so it is unavailable; uninstall one of them or "
            "disable its plugin with NEUROGYM_DISABLE_PLUGINS=<entry-point name>"
        )

    def get(self, key: str) -> _SpecT | None:
        if key in self.conflicts:
            raise self.conflict_error(key)
        return self.specs.get(key)

    def unknown_error_for(
        self,
        query: str,
        aliases: Mapping[str, Sequence[str]],
        hint: str | None = None,
        lister: str | None = None,
    ) -> LookupError:
        """Build the error for an unknown key, naming up to five close keys (or ``hint``).

        ``lister`` is what the message says lists every key (default: the Python call).
        """
        suggestions: list[str] = []
        hits = difflib.get_close_matches(query.lower(), aliases, n=4 * _MAX_SUGGESTIONS)
        for hit in hits:
            suggestions.extend(key for key in aliases[hit] if key not in suggestions)
        count = len(self.specs)
        plural = "" if count == 1 else "s"
        if lister is None:
            lister = "neurogym.tasks()" if self.kind == "task" else "neurogym.wrapper_specs()"
        listing = f"{lister} lists the {count} registered {self.kind}{plural}"
        if hint is not None:
            return self.unknown_error(f"unknown {self.kind} {query!r}: {hint} ({listing})")
        if not suggestions:
            return self.unknown_error(f"unknown {self.kind} {query!r} ({listing})")
        close = ", ".join(repr(key) for key in suggestions[:_MAX_SUGGESTIONS])
        return self.unknown_error(
            f"unknown {self.kind} {query!r}; did you mean {close}? ({listing})"
        )


def _task_aliases(task_ids: Iterable[str]) -> dict[str, list[str]]:
    """Map every lower-cased way of writing each id (full, no version, no namespace) to ids."""
    aliases: dict[str, list[str]] = {}
    for task_id in task_ids:
        ns, name, version = parse_task_id(task_id)
        for alias in (task_id, f"{ns}/{name}", f"{name}-v{version}", name):
            aliases.setdefault(alias.lower(), []).append(task_id)
    return aliases


def _matching_ids(query: str, task_ids: Iterable[str]) -> list[str]:
    """Ids that ``query`` (an id with namespace and/or version left out) can mean.

    A query without a version means the latest version in each namespace.
    """
    match = _QUERY_RE.fullmatch(query)
    if match is None:
        return []
    namespace, name, version = match["namespace"], match["name"], match["version"]
    latest: dict[str, tuple[ParsedId, str]] = {}
    found: list[str] = []
    for task_id in task_ids:
        parsed = parse_task_id(task_id)
        if parsed.name != name or namespace not in (None, parsed.namespace):
            continue
        if version is not None:
            if parsed.version == int(version):
                found.append(task_id)
        elif (
            parsed.namespace not in latest or parsed.version > latest[parsed.namespace][0].version
        ):
            latest[parsed.namespace] = (parsed, task_id)
    found.extend(task_id for _, task_id in latest.values())
    return sorted(found)


def _check_optional_str(value: object, name: str) -> None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name} must be a str or None, got {type(value).__name__}: {value!r}")


def _checked_limits(**limits: int | None) -> dict[str, int]:
    return {
        name: validate.positive_int(value, name)
        for name, value in limits.items()
        if value is not None
    }


def _parse_wrapper_request(item: object) -> tuple[str, Mapping[str, Any]]:
    if isinstance(item, str):
        return item, {}
    if (
        isinstance(item, tuple)
        and len(item) == 2
        and isinstance(item[0], str)
        and isinstance(item[1], Mapping)
    ):
        return item[0], item[1]
    raise TypeError(
        "each item of wrappers= must be a wrapper name or a (name, kwargs dict) pair, "
        f"got {item!r}"
    )


class Registry:
    """Task and wrapper specs, resolved by id or name; builds envs from them.

    A registry is a plain object: build as many as you like. The one ``neurogym.make`` uses is
    built by plugin discovery (``neurogym.get_registry()``).

    Args:
        plugin_manager: The plugin manager the registry was filled from, if any; hooks that act
            on envs at make time are called through it.
    """

    def __init__(self, plugin_manager: pluggy.PluginManager | None = None) -> None:
        self.plugin_manager = plugin_manager
        self._tasks: _Table[TaskSpec] = _Table("task", DuplicateTaskError, UnknownTaskError)
        self._wrappers: _Table[WrapperSpec] = _Table(
            "wrapper", DuplicateWrapperError, UnknownWrapperError
        )

    def __repr__(self) -> str:
        return f"<Registry: {len(self._tasks.specs)} tasks, {len(self._wrappers.specs)} wrappers>"

    def __len__(self) -> int:
        return len(self._tasks.specs)

    def __contains__(self, task_id: object) -> bool:
        return task_id in self._tasks.specs

    # -- registration ------------------------------------------------------------------------

    def register(self, spec: TaskSpec | WrapperSpec, *, override: bool = False) -> None:
        """Add a task or wrapper spec.

        Args:
            spec: The spec to add.
            override: Replace an existing spec of the same id (or name) instead of raising;
                this also clears a recorded conflict for it.

        Raises:
            DuplicateTaskError: If the task id is already registered or contested.
            DuplicateWrapperError: If the wrapper name is already registered or contested.
            TypeError: If ``spec`` is neither a ``TaskSpec`` nor a ``WrapperSpec``.
        """
        if isinstance(spec, TaskSpec):
            self._tasks.add(spec.id, spec, override=override)
        elif isinstance(spec, WrapperSpec):
            self._wrappers.add(spec.name, spec, override=override)
        else:
            raise TypeError(
                f"register() takes a TaskSpec or a WrapperSpec, got {type(spec).__name__}: "
                f"{spec!r}"
            )

    def add_conflict(self, specs: Sequence[TaskSpec] | Sequence[WrapperSpec]) -> None:
        """Record that several distributions declare the same task id (or wrapper name).

        The contested id is not available: making it raises an error naming the distributions.

        Args:
            specs: Two or more specs sharing one id (or one wrapper name).

        Raises:
            ValueError: If fewer than two specs are given or they do not share one key.
        """
        keys = {spec.id if isinstance(spec, TaskSpec) else spec.name for spec in specs}
        if len(specs) < 2 or len(keys) != 1:
            raise ValueError(f"a conflict needs two or more specs sharing one key, got {specs!r}")
        distributions = [spec.distribution or spec.plugin or "<unknown>" for spec in specs]
        table: _Table[Any] = self._tasks if isinstance(specs[0], TaskSpec) else self._wrappers
        table.add_conflict(keys.pop(), distributions)

    @property
    def conflicts(self) -> dict[str, tuple[str, ...]]:
        """Task ids declared by more than one distribution, each with those distributions."""
        return dict(self._tasks.conflicts)

    @property
    def wrapper_conflicts(self) -> dict[str, tuple[str, ...]]:
        """Wrapper names declared by more than one distribution, with those distributions."""
        return dict(self._wrappers.conflicts)

    # -- lookup ------------------------------------------------------------------------------

    def resolve(self, task_id: str, *, lister: str = "neurogym.tasks()") -> TaskSpec:
        """Find the spec for a task id, or for a shorter way of writing one.

        ``"ns/Name-vN"`` is looked up exactly. ``"Name-vN"`` and bare ``"Name"`` resolve across
        namespaces when exactly one namespace has them; ``"Name"`` and ``"ns/Name"`` mean the
        latest version.

        Args:
            task_id: The id or name to resolve.
            lister: What the error for an unknown id names as the way to list every task:
                the Python call by default; the command line passes ``"'neurogym list'"``.

        Returns:
            The matching spec.

        Raises:
            UnknownTaskError: If nothing matches; the message lists up to five close ids.
            AmbiguousTaskError: If several namespaces match; the message lists their ids.
            DuplicateTaskError: If the id is declared by two distributions.
            TypeError: If ``task_id`` is not a str.
        """
        if not isinstance(task_id, str):
            raise TypeError(f"a task id must be a str, got {type(task_id).__name__}: {task_id!r}")
        known = self._tasks.specs.keys() | self._tasks.conflicts.keys()
        candidates = [task_id] if task_id in known else _matching_ids(task_id, known)
        if not candidates:
            raise self._tasks.unknown_error_for(
                task_id, _task_aliases(known), self._first_party_hint(task_id), lister
            )
        if len(candidates) > 1:
            raise AmbiguousTaskError(
                f"task {task_id!r} is ambiguous: it matches {_join(candidates)}; "
                "pass one of these ids in full"
            )
        spec = self._tasks.get(candidates[0])
        assert spec is not None  # candidates come from the table's keys
        return spec

    def _first_party_hint(self, query: str) -> str | None:
        """Which distribution to install for a first-party task none of whose family is here."""
        match = _QUERY_RE.fullmatch(query)
        if match is None or match["namespace"] not in (None, FIRST_PARTY_NAMESPACE):
            return None
        row = providing_family(match["name"])
        name = (FIRST_PARTY_NAMESPACE, match["name"].lower())
        if row is None or any(
            (spec.namespace, spec.name.lower()) == name  # another version is registered
            for spec in self._tasks.specs.values()
        ):
            return None
        if any(
            distribution_key(s.distribution) == row.distribution
            for s in self._tasks.specs.values()
        ):
            if match["name"].lower() in {task.lower() for task in row.planned}:
                return (
                    f"it is planned for the first-party distribution {row.distribution!r} "
                    "but not part of the installed release yet"
                )
            return None
        provided = f"it is provided by the first-party distribution {row.distribution!r}"
        if not _is_installed(row.distribution):
            return (
                f"{provided}, which is not installed; install it with: "
                f"pip install {row.distribution}"
            )
        return (
            f"{provided}, which is installed but its plugin {row.plugin!r} is not loaded "
            "(disabled by NEUROGYM_NO_PLUGINS or NEUROGYM_DISABLE_PLUGINS, or it failed to "
            "load: see the NeurogymPluginWarning issued at import)"
        )

    def spec_for_entry_point(self, entry_point: str) -> TaskSpec | None:
        """The registered spec (the first by id) whose entry point is ``entry_point``, if any."""
        for _, spec in sorted(self._tasks.specs.items()):
            if spec.entry_point == entry_point:
                return spec
        return None

    def tasks(self, tag: str | None = None, plugin: str | None = None) -> list[TaskSpec]:
        """List task specs sorted by id, optionally filtered.

        Args:
            tag: Keep only tasks carrying this tag.
            plugin: Keep only tasks declared by the plugin with this entry-point name.

        Returns:
            The matching specs; an empty list if none match.

        Raises:
            TypeError: If ``tag`` or ``plugin`` is neither a str nor None.
        """
        _check_optional_str(tag, "tag")
        _check_optional_str(plugin, "plugin")
        return [
            spec
            for _, spec in sorted(self._tasks.specs.items())
            if (tag is None or tag in spec.tags) and (plugin is None or spec.plugin == plugin)
        ]

    def tags(self) -> list[str]:
        """Every tag used by a registered task, sorted and without repeats."""
        return sorted({tag for spec in self._tasks.specs.values() for tag in spec.tags})

    def wrappers(self) -> list[WrapperSpec]:
        """List wrapper specs sorted by name."""
        return [spec for _, spec in sorted(self._wrappers.specs.items())]

    def wrapper(self, name: str) -> WrapperSpec:
        """Find a wrapper spec by its exact name.

        Args:
            name: The wrapper name.

        Returns:
            The matching spec.

        Raises:
            UnknownWrapperError: If no wrapper has that name; lists up to five close names.
            DuplicateWrapperError: If two distributions declare that name.
            TypeError: If ``name`` is not a str.
        """
        if not isinstance(name, str):
            raise TypeError(f"a wrapper name must be a str, got {type(name).__name__}: {name!r}")
        spec = self._wrappers.get(name)
        if spec is None:
            aliases = {key.lower(): [key] for key in self._wrappers.specs}
            raise self._wrappers.unknown_error_for(name, aliases)
        return spec

    # -- making envs -------------------------------------------------------------------------

    def make(
        self,
        task_id: str,
        /,
        *,
        wrappers: Iterable[WrapperRequest] = (),
        max_episode_steps: int | None = None,
        trials_per_episode: int | None = None,
        hold_fixation: bool = False,
        **kwargs: object,
    ) -> gymnasium.Env[Any, Any]:
        """Build a task env, set its episode limits and apply the requested wrappers.

        Everything is checked (id, wrapper names, limits) before the env is built.

        Args:
            task_id: A task id or an unambiguous shorter form (see :meth:`resolve`).
            wrappers: Wrapper names, or ``(name, kwargs)`` pairs, applied in order (the first
                is innermost): ``env = cls(env, **kwargs)``.
            max_episode_steps: Truncate episodes after this many steps (sets the env's
                ``max_episode_steps`` attribute).
            trials_per_episode: Terminate episodes at the end of this many trials (sets the
                env's ``trials_per_episode`` attribute).
            hold_fixation: Hold fixation until the response, a break ending the trial, as
                labs train it (sets the env's ``hold_fixation``: ``TrialEnv.hold_fixation``;
                False, the default, keeps the task's own rule, as upstream).
            **kwargs: Constructor arguments overriding the spec's defaults.

        Returns:
            The env itself, wrapped only by the wrappers asked for. Before it is returned,
            the plugins' ``neurogym_env_created`` hooks see it (once).

        Raises:
            TypeError: If an episode limit or ``hold_fixation`` is given for an env that is
                not a neurogym ``TrialEnv`` (or, for ``hold_fixation``, whose task has no
                declarative rule), or an argument has the wrong type.
            ValueError: If an episode limit is not positive.
        """
        spec = self.resolve(task_id)
        plan = self._load_wrappers(wrappers)
        settings: dict[str, object] = {
            **_checked_limits(
                max_episode_steps=max_episode_steps, trials_per_episode=trials_per_episode
            )
        }
        if validate.boolean(hold_fixation, "hold_fixation"):
            settings["hold_fixation"] = True
        env = spec.make(**kwargs)
        base = env.unwrapped
        for name, value in settings.items():
            if not hasattr(base, name):
                raise TypeError(
                    f"{name}= needs a neurogym TrialEnv, but task {spec.id!r} builds a "
                    f"{type(base).__name__}, which has no {name!r} attribute"
                )
            setattr(base, name, value)
        for cls, wrapper_kwargs in plan:
            env = cls(env, **wrapper_kwargs)
        self._announce(env, spec)
        return env

    def _announce(self, env: gymnasium.Env[Any, Any], spec: TaskSpec) -> None:
        """Calls the ``neurogym_env_created`` hook once for a made env (no-op without a pm)."""
        if self.plugin_manager is None:
            return
        try:
            self.plugin_manager.hook.neurogym_env_created(env=env, spec=spec)
        except Exception as exc:
            exc.add_note(f"raised by a neurogym_env_created hook while making {spec.id!r}")
            raise

    def _load_wrappers(
        self, wrappers: Iterable[WrapperRequest]
    ) -> list[tuple[Callable[..., gymnasium.Env[Any, Any]], Mapping[str, Any]]]:
        if isinstance(wrappers, str | bytes) or not isinstance(wrappers, Iterable):
            raise TypeError(
                "wrappers= takes a list of wrapper names or (name, kwargs) pairs, got "
                f"{type(wrappers).__name__}: {wrappers!r}"
            )
        plan: list[tuple[Callable[..., gymnasium.Env[Any, Any]], Mapping[str, Any]]] = []
        for item in wrappers:
            name, wrapper_kwargs = _parse_wrapper_request(item)
            plan.append((self.wrapper(name).load(), wrapper_kwargs))
        return plan
