"""neurogym-multitask: the 20 tasks of Yang et al. 2019 and the all-tasks set, as a plugin.

Importing this package imports no task code; tasks are made with
``neurogym.make("neurogym/yang19.go-v0")`` or imported from ``neurogym_multitask.tasks``.
"""

__all__: list[str] = []
