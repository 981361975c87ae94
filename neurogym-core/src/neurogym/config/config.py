"""NeuroGym 2.3.1's neurogym.config.config (Config and the default config), a warned alias."""

from neurogym._legacy import legacy_module

__getattr__, __dir__ = legacy_module(__name__)
