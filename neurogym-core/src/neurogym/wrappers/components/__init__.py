"""NeuroGym 2.3.1's ``neurogym.wrappers.components``: removed (the import says why)."""

raise ImportError(
    "neurogym.wrappers.components is gone: its probe classes were internals of Monitor's "
    "activation probes, and monitor.record_activations(layer) / monitor.plot_activations(...) "
    "work as in 2.3.1 (with neurogym[train]). See docs/porting.md, 'Upgrading from 2.3.1'."
)
