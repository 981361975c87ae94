"""NeuroGym 2.3.1's ``neurogym.envs.psychopy``: removed (the import says why)."""

raise ImportError(
    "neurogym.envs.psychopy is gone: neurogym 3.0 has no psychopy tasks (2.3.1 registered "
    "them only when psychopy was installed, and its SpatialSuppressMotion id shadowed the "
    "native task); the native SpatialSuppressMotion is "
    "neurogym.make('neurogym/SpatialSuppressMotion-v0'). See docs/porting.md, 'Upgrading "
    "from 2.3.1'."
)
