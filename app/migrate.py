"""Run Alembic migrations from code (the CLI, app start-up and the tests use this)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).resolve().parents[1] / "migrations"


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    config.set_main_option("file_template", "%%(year)d-%%(month).2d-%%(day).2d_%%(rev)s_%%(slug)s")
    return config


def upgrade(url: str, revision: str = "heads") -> None:
    command.upgrade(alembic_config(url), revision)
