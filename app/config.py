"""Settings from the environment (prefix ``TAFELRUNDE_``), with development defaults."""

from __future__ import annotations

import secrets
from enum import StrEnum
from functools import cached_property
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Environment(StrEnum):
    development = "development"
    production = "production"
    test = "test"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TAFELRUNDE_", env_file=".env", extra="ignore")

    environment: Environment = Environment.development
    data_dir: Path = Path("./data")
    database_url: str = ""
    secret_key: str = ""
    #: Sessions expire after this many days without use.
    session_idle_days: int = 14
    #: Failed logins allowed per account (and, tenfold, per address) in the window.
    login_max_failures: int = 5
    login_window_minutes: int = 15
    #: Argon2 parameters; tests may lower them through the environment.
    argon2_time_cost: int = 3
    argon2_memory_kib: int = 65536
    #: Seconds a live stream waits for a notification before it re-reads the log anyway.
    stream_poll_seconds: float = Field(default=15.0, gt=0)

    @cached_property
    def resolved_database_url(self) -> str:
        if self.database_url:
            url = self.database_url
            if url.startswith("postgresql://"):
                url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
            return url
        self.data_dir.mkdir(parents=True, exist_ok=True)
        return f"sqlite+aiosqlite:///{(self.data_dir / 'tafelrunde.db').resolve()}"

    @cached_property
    def resolved_secret_key(self) -> str:
        """The configured key; in development one generated once and kept in the data dir."""
        if self.secret_key:
            return self.secret_key
        if self.environment == Environment.production:
            raise RuntimeError("TAFELRUNDE_SECRET_KEY must be set in production")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        path = self.data_dir / "secret_key"
        if not path.exists():
            path.write_text(secrets.token_urlsafe(48))
            path.chmod(0o600)
        return path.read_text().strip()

    @property
    def is_postgres(self) -> bool:
        return self.resolved_database_url.startswith("postgresql")
