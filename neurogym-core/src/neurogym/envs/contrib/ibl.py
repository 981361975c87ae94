"""NeuroGym 2.3.1's ``neurogym.envs.contrib.ibl``, warned (docs/porting.md)."""

from neurogym._legacy import legacy_module

__getattr__, __dir__ = legacy_module(__name__)
