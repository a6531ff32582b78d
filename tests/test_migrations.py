"""The migrations build exactly the schema the models describe, on SQLite and PostgreSQL."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection

from app.config import Settings
from app.db import create_engine
from app.migrate import alembic_config
from app.models import Base


def _diff(connection: Connection) -> list[object]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, Base.metadata))


async def test_models_and_migrations_agree(settings: Settings) -> None:
    engine = create_engine(settings.resolved_database_url)
    async with engine.connect() as connection:
        diff = await connection.run_sync(_diff)
    await engine.dispose()
    assert diff == [], f"models and migrations differ; write a migration: {diff}"


def test_migration_history_is_linear_or_merged(database_url: str) -> None:
    script = ScriptDirectory.from_config(alembic_config(database_url))
    assert len(script.get_heads()) == 1, f"several heads: {script.get_heads()}"
