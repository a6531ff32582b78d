"""Settings from the environment (prefix ``TAFELRUNDE_``), with development defaults."""

from __future__ import annotations

import ipaddress
import secrets
from enum import StrEnum
from functools import cached_property
from pathlib import Path

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

#: The PostgreSQL driver for a plain ``postgresql://`` URL: asyncpg prepares each statement
#: once per connection and decodes rows in C: a quarter less CPU per roll request than psycopg
#: (issue 29, ``bench/RESULTS.md``). ``postgresql+psycopg://`` still chooses psycopg.
ASYNCPG = "postgresql+asyncpg://"


def _split(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


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
    #: Failed logins of one account from one address before each further attempt from
    #: there waits: 1 s after the last failure, then twice as long each time, up to
    #: ``login_max_delay_seconds``. Other addresses (the owner's) are not slowed.
    login_free_failures: int = Field(default=5, ge=1)
    login_max_delay_seconds: int = Field(default=900, ge=1)
    #: Failed logins from one address, any account, before its attempts are slowed the same
    #: way, up to the much shorter ``login_address_max_delay_seconds``: guessing across many
    #: accounts is slowed, everyone behind a shared address is never locked out for long.
    login_address_free_failures: int = Field(default=50, ge=1)
    login_address_max_delay_seconds: int = Field(default=60, ge=1)
    #: Failures older than this are forgotten.
    login_window_minutes: int = Field(default=15, ge=1)
    #: Reverse proxies whose ``X-Forwarded-For`` names the client: comma-separated
    #: addresses or networks (``10.0.0.1, 192.168.0.0/24``). None by default: the client
    #: is the address the connection comes from.
    trusted_proxies: str = ""
    #: Argon2 parameters; tests may lower them through the environment.
    argon2_time_cost: int = 3
    argon2_memory_kib: int = 65536
    #: Seconds a live stream waits for a notification before it re-reads the log anyway.
    stream_poll_seconds: float = Field(default=15.0, gt=0)
    #: NATS server (``nats://host:4222``) whose JetStream carries new events between the app
    #: processes and hosts instead of PostgreSQL's ``NOTIFY``; empty: ``NOTIFY``.
    nats_url: str = ""
    #: A live stream whose client has not taken a message for this long is closed (a client
    #: that stopped reading must not hold the server's buffers).
    stream_send_timeout_seconds: float = Field(default=30.0, gt=0)
    #: Live streams one user may hold open, and one credential (a login session; the
    #: personal API tokens to come are meant to get 5). Opening one more closes the oldest
    #: of them with a ``stream-closed`` event and an SSE ``retry`` hint. Counted per process.
    streams_per_user: int = Field(default=20, ge=1)
    streams_per_credential: int = Field(default=20, ge=1)
    #: Live streams one personal API token holds open (a script follows a campaign or two).
    streams_per_api_token: int = Field(default=5, ge=1)
    #: Writes (POST/PUT/PATCH/DELETE) a signed-in user may make per minute, after a burst of
    #: ``write_burst`` at once; more answer 429 with ``Retry-After``. Counted per process.
    write_rate_per_minute: float = Field(default=120.0, gt=0)
    write_burst: int = Field(default=60, ge=1)
    #: Request bodies above this many bytes answer 413 before they are read.
    max_body_bytes: int = Field(default=1_048_576, ge=1024)
    #: Only in the test environment: the server's dice come from a generator with this
    #: seed, so a browser test that plays a fight sees the same dice on every run.
    dice_seed: int | None = None
    #: Webhooks may post to private and loopback addresses and over plain http (tests, home
    #: networks); off by default: https to public addresses only (``app/webhooks/guard.py``).
    webhooks_allow_private: bool = False
    #: How often each process looks for webhooks with something to post.
    webhooks_poll_seconds: float = Field(default=2.0, gt=0)

    @model_validator(mode="after")
    def _dice_seed_only_in_tests(self) -> Settings:
        if self.dice_seed is not None and self.environment != Environment.test:
            raise ValueError(
                "TAFELRUNDE_DICE_SEED is only allowed with TAFELRUNDE_ENVIRONMENT=test"
            )
        return self

    @field_validator("trusted_proxies")
    @classmethod
    def _check_trusted_proxies(cls, value: str) -> str:
        for entry in _split(value):
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(f"not an address or network: {entry!r}") from None
        return value

    @property
    def trusted_proxy_list(self) -> list[str]:
        return _split(self.trusted_proxies)

    @cached_property
    def resolved_database_url(self) -> str:
        if self.database_url:
            url = self.database_url
            if url.startswith("postgresql://"):
                url = ASYNCPG + url.removeprefix("postgresql://")
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
