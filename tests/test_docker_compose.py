"""docker-compose.yml and the Dockerfile, checked without Docker (no engine on our machines)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml  # type: ignore[import-untyped]

from app.config import Settings

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = re.compile(r"\$\{(\w+):-([^}]*)\}")


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert isinstance(data, dict)
    return data


def env_of(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment", {})
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {str(k): str(v) for k, v in env.items()}


def interpolate(value: str) -> str:
    """Compose's ``${VAR:-default}`` with nothing set: the default."""
    return DEFAULT.sub(lambda m: m.group(2), value)


def healthcheck_command(service: dict[str, Any]) -> str:
    test = service["healthcheck"]["test"]
    if isinstance(test, list):
        assert test[0] in ("CMD", "CMD-SHELL"), test
        return " ".join(test[1:])
    return str(test)


def test_services(compose: dict[str, Any]) -> None:
    assert set(compose["services"]) == {"db", "app"}


def test_database_service(compose: dict[str, Any]) -> None:
    db = compose["services"]["db"]
    image, _, tag = db["image"].partition(":")
    assert image == "postgres"
    assert int(tag.split(".")[0].split("-")[0]) >= 15
    env = env_of(db)
    assert {"POSTGRES_DB", "POSTGRES_USER", "POSTGRES_PASSWORD"} <= set(env)
    assert "pg_isready" in healthcheck_command(db)
    volumes = [v if isinstance(v, str) else f"{v['source']}:{v['target']}" for v in db["volumes"]]
    assert "pgdata:/var/lib/postgresql/data" in volumes
    assert "pgdata" in compose["volumes"]
    assert "ports" not in db, "the database need not be reachable from outside"


def test_app_service(compose: dict[str, Any]) -> None:
    app = compose["services"]["app"]
    build = app["build"]
    context = build if isinstance(build, str) else build.get("context", ".")
    assert (ROOT / context / "Dockerfile").is_file()
    assert app["depends_on"]["db"]["condition"] == "service_healthy"
    assert "8000:8000" in [str(p) for p in app["ports"]]
    check = healthcheck_command(app)
    assert "urllib" in check and "http://127.0.0.1:8000/login" in check


def test_app_environment(compose: dict[str, Any]) -> None:
    env = env_of(compose["services"]["app"])
    fields = Settings.model_fields
    for name in env:
        assert name.startswith("TAFELRUNDE_"), name
        assert name.removeprefix("TAFELRUNDE_").lower() in fields, f"{name} is no setting"
    assert env["TAFELRUNDE_ENVIRONMENT"] == "production"
    assert re.fullmatch(r"\$\{TAFELRUNDE_SECRET_KEY:\?[^}]+\}", env["TAFELRUNDE_SECRET_KEY"])

    db_env = {k: interpolate(v) for k, v in env_of(compose["services"]["db"]).items()}
    url = interpolate(env["TAFELRUNDE_DATABASE_URL"])
    parts = urlsplit(url)
    assert parts.scheme == "postgresql+asyncpg"
    assert parts.hostname == "db"
    assert parts.username == db_env["POSTGRES_USER"]
    assert parts.password == db_env["POSTGRES_PASSWORD"]
    assert parts.path == "/" + db_env["POSTGRES_DB"]
    settings = Settings(database_url=url, secret_key="x", environment="production")  # type: ignore[arg-type]
    assert settings.is_postgres


def dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) per Dockerfile instruction, continuation lines joined."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            instruction, _, args = line.partition(" ")
            out.append((instruction.upper(), args.strip()))
    return out


def test_dockerfile_serves_with_migrations() -> None:
    steps = dockerfile()
    assert steps[0] == ("FROM", "python:3.11-slim")
    assert ("RUN", "pip install .") in steps
    commands = [args for instruction, args in steps if instruction in ("CMD", "ENTRYPOINT")]
    assert commands, "no CMD/ENTRYPOINT"
    command = json.loads(commands[-1])
    assert command[:2] == ["tafelrunde", "serve"]
    assert command[command.index("--host") + 1] == "0.0.0.0"
    assert command[command.index("--port") + 1] == "8000"


def test_dockerfile_ships_what_the_app_reads_at_runtime() -> None:
    copied = {args.split()[0] for instruction, args in dockerfile() if instruction == "COPY"}
    for needed in ("app", "migrations", "templates", "static"):
        assert needed in copied, f"{needed}/ is not copied into the image"
    ignored = (ROOT / ".dockerignore").read_text().split()
    for needed in ("app", "migrations", "templates", "static", "pyproject.toml"):
        assert needed not in ignored
    assert {".venv", ".git", "data"} <= set(ignored)
