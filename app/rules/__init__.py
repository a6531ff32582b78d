"""Pure rules engines. Nothing below this package does I/O or draws randomness itself.

Dice come from a :class:`app.rules.dice.Roller` passed in by the caller; every result
records the faces it used so it can be shown, audited and replayed.
"""
