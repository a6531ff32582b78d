"""Character sheets and inventories for all three rule systems (issue 6).

Every derived value comes from ``app/rules/`` through the campaign's system module
(:mod:`app.characters.systems`, one per rule system behind a typed protocol); the service
(:mod:`app.characters.service`) holds the use cases and checks permissions through
:mod:`app.campaigns.permissions`.
"""
