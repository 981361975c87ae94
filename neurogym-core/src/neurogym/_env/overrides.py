"""Which methods of a base class a subclass overrides, decided once per class.

Several code paths depend on what a task or trial wrapper overrides: a ``TrialEnv`` that
overrides ``_new_trials`` is batch-native, one that overrides ``_step`` (or ``step``, ...)
cannot be stepped by the native vector env, a ``TrialWrapper`` that overrides ``new_trial``
builds batches by looping it. Each base class computes an :class:`Overrides` record for every
subclass in ``__init_subclass__`` (``cls._overrides``), and every such decision reads it.

The record describes the class as defined: assigning a method to a class after its creation
(``Task._step = f``) is not seen; define a subclass instead.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Overrides"]


@dataclass(frozen=True)
class Overrides:
    """The tracked methods of a base class that a class overrides.

    Attributes:
        names: The overridden method names (a subset of the names the base tracks).
    """

    names: frozenset[str] = frozenset()

    @classmethod
    def of(cls, klass: type, base: type, tracked: Iterable[str]) -> Overrides:
        """The methods of ``tracked`` whose ``klass`` attribute is not ``base``'s.

        A subclass that assigns the base's own function (``_step = TrialEnv._step``) does
        not override it.
        """
        return cls(frozenset(n for n in tracked if getattr(klass, n) is not getattr(base, n)))

    def __contains__(self, name: object) -> bool:
        return name in self.names
