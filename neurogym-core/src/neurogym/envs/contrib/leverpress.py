"""NeuroGym 2.3.1's ``neurogym.envs.contrib.leverpress``: removed (the import says why)."""

raise ImportError(
    "neurogym.envs.contrib.leverpress is gone: LeverPress, LeverPressWithPoke, "
    "LeverPressWithPokeRest, ContextSwitch and FullInput were written for the old gym API "
    "and raised NotImplementedError in 2.3.1; they are not part of neurogym 3.0. See "
    "docs/porting.md, 'Upgrading from 2.3.1'."
)
