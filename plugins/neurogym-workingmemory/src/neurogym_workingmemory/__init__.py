"""neurogym-workingmemory: working-memory tasks as a neurogym plugin.

Importing this package imports no task code; tasks are made with
``neurogym.make("neurogym/DelayMatchSample-v0")`` or imported from
``neurogym_workingmemory.tasks``.
"""

__all__: list[str] = []
