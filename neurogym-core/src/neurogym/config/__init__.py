"""NeuroGym 2.3.1's ``neurogym.config`` package, a warned alias of neurogym._legacy.config.

As in 2.3.1, the name ``config`` here is the default ``Config`` instance, not the submodule
``neurogym.config.config``: the submodule is imported first and its attribute dropped, so a
later ``import neurogym.config.config`` cannot make ``from neurogym.config import config``
return a module.
"""

import importlib

from neurogym._legacy import legacy_module

importlib.import_module("neurogym.config.config")
del config  # type: ignore[name-defined]  # noqa: F821  (the submodule attribute; see above)

__getattr__, __dir__ = legacy_module(__name__)
