"""neurogym-motor: motor-control and interval-timing tasks as a neurogym plugin.

Importing this package imports no task code; tasks are made with
``neurogym.make("neurogym/ReadySetGo-v0")`` or imported from ``neurogym_motor.tasks``.
"""

__all__: list[str] = []
