"""NeuroGym 2.3.1's ``neurogym.envs.contrib.pneumostomeopening``: removed (the import says why)."""

raise ImportError(
    "neurogym.envs.contrib.pneumostomeopening is gone: Pneumostomeopening used none of its "
    "arguments in 2.3.1 and is not part of neurogym 3.0. See docs/porting.md, 'Upgrading "
    "from 2.3.1'."
)
