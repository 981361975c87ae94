"""neurogym-valuebased: value-based tasks as a neurogym plugin.

Importing this package imports no task code; tasks are made with
``neurogym.make("neurogym/Bandit-v0")`` or imported from ``neurogym_valuebased.tasks``.
"""

__all__: list[str] = []
