"""NeuroGym 2.3.1's neurogym.config.components.agent, a warned alias."""

from neurogym._legacy import legacy_module

__getattr__, __dir__ = legacy_module(__name__)
