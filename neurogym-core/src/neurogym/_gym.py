"""The gymnasium entry point every neurogym id is registered with (a frozen string, §10).

``neurogym._gym:make_from_registry`` is stored by gymnasium for every id and may be in users'
scripts, so it keeps this path; the registration itself lives in ``neurogym._registry.gym``.
"""

from neurogym._registry.gym import make_from_registry

__all__ = ["make_from_registry"]
