"""neurogym-apps: the applications built on neurogym's task contract.

* :mod:`neurogym_apps.train`: supervised training of recurrent networks, closed-loop strict
  evaluation, the main job (``showcase``), the learnability table, the Yang et al. (2019)
  reproduction and sweeps (here or on Ray). Needs torch (extra ``torch``).
* :mod:`neurogym_apps.plot`: trial figures, psychometric curves, training histories. Needs
  matplotlib (extra ``plot``).
* :mod:`neurogym_apps.rl`: the native vector env as a stable-baselines3 ``VecEnv`` (extra ``rl``).
* The ``neurogym train``, ``neurogym plot`` and ``neurogym sweep`` commands, which reach the
  ``neurogym`` command line through its ``neurogym_commands`` hook.

``import neurogym_apps`` imports none of them (nor torch, matplotlib or Ray); ``import
neurogym`` never imports this package. ``pip install "neurogym[train,plot]"`` installs it with
its extras. Before this package existed these modules were ``neurogym.train``,
``neurogym.plot`` and ``neurogym.rl`` (docs/porting.md, "Applications").
"""

from __future__ import annotations

from typing import Any

__all__ = ["__version__"]


def __getattr__(name: str) -> Any:
    # Read on demand: `import neurogym` loads this package (for its plugin module), and a
    # metadata lookup at import would cost every `import neurogym`.
    if name == "__version__":
        from importlib.metadata import version

        return version("neurogym-apps")
    raise AttributeError(f"module 'neurogym_apps' has no attribute {name!r}")
