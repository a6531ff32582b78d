"""The base of the refusals a user gets to read, shared by the engines and the dice roller.

A refusal is a :class:`ValueError` whose ``message`` has ``%(name)s`` placeholders that
``params`` fill, so the layer that shows it can translate the message before filling it.
"""

from __future__ import annotations


class Refusal(ValueError):
    """A request the rules refuse; ``message`` is the text, ``params`` fill it."""

    def __init__(self, message: str, **params: object) -> None:
        super().__init__(message % params if params else message)
        self.message = message
        self.params = params
