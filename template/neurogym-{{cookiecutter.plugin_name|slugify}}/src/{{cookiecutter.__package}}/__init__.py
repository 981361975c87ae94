"""{{ cookiecutter.__dist_name }}: a neurogym plugin.

{{ cookiecutter.description }}

Importing this package imports no task code. Make its tasks with ``neurogym.make`` (or
``gymnasium.make``)::

    import neurogym

    env = neurogym.make("{{ cookiecutter.namespace }}/{{ cookiecutter.task_class }}-v0")

or import their classes from ``{{ cookiecutter.__package }}.tasks``.
"""

__all__: list[str] = []
