"""NeuroGym 2.3.1's ``neurogym.wrappers.components``: removed (the import says why)."""

raise ImportError(
    "neurogym.wrappers.components is gone: Monitor's torch activation probes "
    "(record_activations) are not part of neurogym 3.0; record hidden activity from your "
    "own network (docs/training.md). See docs/porting.md, 'Upgrading from 2.3.1'."
)
