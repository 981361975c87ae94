"""The optional libraries of the analysis extra, imported when a function needs them."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["require"]

INSTALL = 'pip install "neurogym[analysis]"'


def require(module: str) -> ModuleType:
    """``import module`` (e.g. ``"sklearn.cluster"``), or an ImportError saying how to install it.

    Raises:
        ImportError: The module is missing; the message names the extra to install.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        package = {"sklearn": "scikit-learn"}.get(module.split(".")[0], module.split(".")[0])
        raise ImportError(
            f"neurogym_apps.analysis needs {package} for this (import {module} failed: {exc}); "
            f"it comes with the analysis extra: {INSTALL}"
        ) from exc
