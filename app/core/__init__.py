"""What every domain package may use and that uses none of them: who is looking (`viewer`).

The other cross-cutting modules (`app.config`, `app.db`, `app.errors`, `app.i18n`) sit in the
same layer; see docs/architecture.md, "Layers and import contracts".
"""
