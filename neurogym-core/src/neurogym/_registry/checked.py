"""The specs a plugin's hook returned, checked and rebuilt as exactly the declared type.

Shared by task, wrapper and command discovery (``plugins.py``, ``commands.py``): a hook's
result must be a list of specs of one type; anything else is dropped with a
``NeurogymPluginWarning`` naming the plugin, and a subclass is rebuilt as the base class.
"""

from __future__ import annotations

import dataclasses
import reprlib
import warnings
from typing import Any

from neurogym.errors import NeurogymPluginWarning

__all__ = ["checked_specs", "exact_spec", "hook_specs", "warn_plugin"]


def warn_plugin(plugin: str, distribution: str, problem: str) -> None:
    """Warn (``NeurogymPluginWarning``) about ``plugin``, naming its distribution."""
    origin = f" from distribution {distribution!r}" if distribution else ""
    warnings.warn(
        f"neurogym plugin {plugin!r}{origin} {problem}", NeurogymPluginWarning, stacklevel=3
    )


def checked_specs(
    result: object,
    spec_type: type[Any],
    hook: str,
    plugin: str,
    distribution: str,
) -> list[Any]:
    if not isinstance(result, list | tuple):
        warn_plugin(
            plugin,
            distribution,
            f"returned a {type(result).__name__} from {hook}(), not a list of "
            f"{spec_type.__name__}; it is ignored",
        )
        return []
    bad = [item for item in result if not isinstance(item, spec_type)]
    if bad:
        warn_plugin(
            plugin,
            distribution,
            f"returned items that are not {spec_type.__name__} from {hook}(): "
            f"{reprlib.repr(bad)}; they are ignored",
        )
    exact = []
    for item in result:
        if not isinstance(item, spec_type):
            continue
        try:
            exact.append(exact_spec(item, spec_type))
        except Exception as exc:  # a hostile subclass: a property that raises, bad fields
            warn_plugin(
                plugin,
                distribution,
                f"returned a {type(item).__name__} from {hook}() whose fields cannot be read "
                f"as a {spec_type.__name__} ({type(exc).__name__}: {exc}); it is ignored",
            )
    return exact


def exact_spec(item: Any, spec_type: type[Any]) -> Any:
    """``item`` rebuilt as exactly ``spec_type`` from its init fields, each read once.

    A plugin may return a subclass whose ``id`` or ``namespace`` is a property, or whose
    ``__post_init__`` sets ``distribution``: nothing the registry decides (ids, namespaces,
    which distribution declared what) may come from such code, so the registry only ever
    holds the base class, rebuilt from plain values; ``plugin`` and ``distribution`` are set
    by the registry afterwards.
    """
    if type(item) is spec_type:
        return item
    values = {
        field.name: getattr(item, field.name)
        for field in dataclasses.fields(spec_type)
        if field.init and field.name not in ("plugin", "distribution")
    }
    return spec_type(**values)


def hook_specs(
    pm: Any, plugin: str, hook: str, spec_type: type[Any], unavailable: str
) -> list[Any] | None:
    """The checked specs ``plugin`` returns from ``hook``, attributed to it (plugin, distribution).

    None if the hook raised (anything but ``KeyboardInterrupt``, ``SystemExit`` too: a plugin
    must not end the process): warned, with ``unavailable`` saying what is lost.
    """
    distribution = pm.distributions.get(plugin, "")
    specs: list[Any] = []
    for impl in getattr(pm.hook, hook).get_hookimpls():
        if impl.plugin_name != plugin:
            continue
        try:
            result = impl.function()
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            problem = f"raised in {hook}(): {type(exc).__name__}: {exc}; {unavailable}"
            warn_plugin(plugin, distribution, problem)
            return None
        specs.extend(checked_specs(result, spec_type, hook, plugin, distribution))
    return [dataclasses.replace(spec, plugin=plugin, distribution=distribution) for spec in specs]
