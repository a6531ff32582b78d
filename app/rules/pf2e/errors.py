"""Refusals of the PF2e engine that a user gets to read.

Programming errors (a W20 face of 0, an unknown modifier type) raise a plain
:class:`ValueError`. A request the rules refuse (a target beyond the sixth range increment,
a second fortune effect on one roll, a GM order that breaks the initiative rules) raises a
:class:`Pf2eError`, whose ``message`` is German text in the German edition's terms and whose
``params`` fill its ``%(name)s`` placeholders.
"""

from __future__ import annotations

from app.rules.refusal import Refusal


class Pf2eError(Refusal):
    """A request the PF2e rules refuse; ``message`` is German text, ``params`` fill it."""


class OutOfRange(Pf2eError):
    """The target is beyond the sixth range increment (Entfernungseinheit)."""


class RerollNotAllowed(Pf2eError):
    """A reroll would put a second fortune or misfortune effect on one roll."""


class InvalidInitiativeOrder(Pf2eError):
    """A GM reordering of the initiative breaks the tie rules."""
