"""NeuroGym 2.3.1's ``neurogym.envs.collections.priors``: removed (the import says why)."""

raise ImportError(
    "neurogym.envs.collections.priors is gone: the priors collection referred to a task and"
    " wrappers that did not exist in 2.3.1 (it was never registered); SideBias and "
    "TrialHistoryV2 in neurogym.wrappers build biased priors. See docs/porting.md, "
    "'Upgrading from 2.3.1'."
)
