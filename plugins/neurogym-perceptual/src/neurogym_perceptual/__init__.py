"""neurogym-perceptual: perceptual decision-making tasks as a neurogym plugin.

Importing this package imports no task code; tasks are made with
``neurogym.make("neurogym/PerceptualDecisionMaking-v0")`` or imported from
``neurogym_perceptual.tasks``.
"""

__all__: list[str] = []
