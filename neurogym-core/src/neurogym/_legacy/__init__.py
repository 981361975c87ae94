"""NeuroGym 2.3.1's public names and module paths, kept working as a thin, warned layer.

Code written for NeuroGym 2.3.1 (``from neurogym.core import TrialEnv``,
``from neurogym.utils import plot_env``, ``neurogym.envs.registration.all_envs()``, ...) runs
unchanged: each old module path is a small module whose ``__getattr__`` comes from
:func:`legacy_module`, and each old name resolves, on first use, to today's object (or to a
small adapter taking 2.3.1's arguments) with **one** :class:`DeprecationWarning` per name that
names today's spelling (:func:`neurogym._deprecation.deprecated`). ``import neurogym`` never
imports this package: an old path costs nothing until a program uses it.

Every fact of the mapping lives in :mod:`neurogym._legacy.table`: which old module holds which
name, where it lives now, and what to write instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from neurogym._deprecation import GUIDE, deprecated, reset_warnings

__all__ = ["GUIDE", "deprecated", "legacy_module", "reset_warnings"]


def legacy_module(
    module_name: str, *, depth: int = 0
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Returns the ``__getattr__`` and ``__dir__`` of the old module ``module_name``.

    Usage, as the whole body of an old module (after its docstring)::

        from neurogym._legacy import legacy_module

        __getattr__, __dir__ = legacy_module(__name__)

    Args:
        module_name: The 2.3.1 module (a key of :data:`neurogym._legacy.table.LEGACY`).
        depth: Frames between the user's code and the returned ``__getattr__`` (1 when a
            module's own ``__getattr__`` calls it), so the warning names the user's line.
    """
    from neurogym._legacy.table import LEGACY

    names = LEGACY[module_name]

    def __getattr__(name: str) -> Any:  # noqa: N807  (a module's __getattr__)
        entry = names.get(name)
        if entry is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        value = entry.load()
        spelling = entry.spelling(value)
        if spelling:  # a submodule reached as an attribute warns for its names, not itself
            deprecated(f"{module_name}.{name}", spelling, stacklevel=3 + depth)
        return value

    def __dir__() -> list[str]:  # noqa: N807  (a module's __dir__)
        return sorted(names)

    return __getattr__, __dir__
