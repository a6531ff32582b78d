"""The ``tafelrunde`` command: serve, migrate, create-user, backup, restore."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from pathlib import Path

from app.config import Settings

#: Live views fan out across processes only through PostgreSQL LISTEN/NOTIFY; on SQLite a
#: second worker would see the first one's events only at its next poll.
SQLITE_ONE_WORKER = (
    "tafelrunde serve: --workers %(workers)d needs PostgreSQL. On SQLite the workers cannot "
    "tell each other about new events, so live views would lag by up to "
    "TAFELRUNDE_STREAM_POLL_SECONDS. Run one worker, or set TAFELRUNDE_DATABASE_URL to a "
    "PostgreSQL database."
)


def _positive(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


def _serve(args: argparse.Namespace) -> None:
    import uvicorn

    from app.migrate import upgrade

    settings = Settings()
    if args.workers > 1 and not settings.is_postgres:
        raise SystemExit(SQLITE_ONE_WORKER % {"workers": args.workers})
    upgrade(settings.resolved_database_url)
    settings.resolved_secret_key  # noqa: B018 - fail early in production without a key
    # X-Forwarded-For only from the configured proxies; by default from no one (uvicorn
    # would trust it from 127.0.0.1, so a client could pick its address for the throttle).
    trusted = settings.trusted_proxy_list
    uvicorn.run(
        "app.main:app",
        host=args.host,
        port=args.port,
        workers=args.workers,
        proxy_headers=bool(trusted),
        forwarded_allow_ips=trusted or None,
        timeout_graceful_shutdown=5,
    )


def _migrate(_args: argparse.Namespace) -> None:
    from app.migrate import upgrade

    upgrade(Settings().resolved_database_url)
    print("Database is up to date.")


def _create_user(args: argparse.Namespace) -> None:
    from app.accounts import service
    from app.accounts.passwords import Hasher
    from app.db import create_engine, create_sessionmaker
    from app.errors import ValidationFailed
    from app.migrate import upgrade

    settings = Settings()
    upgrade(settings.resolved_database_url)
    password = args.password or getpass.getpass("Password: ")

    async def run() -> None:
        engine = create_engine(settings.resolved_database_url)
        hasher = Hasher(settings.argon2_time_cost, settings.argon2_memory_kib)
        async with create_sessionmaker(engine)() as session:
            await service.create_user(session, hasher, args.username, password)
            await session.commit()
        await engine.dispose()

    try:
        asyncio.run(run())
    except ValidationFailed as exc:
        for field, message in exc.fields.items():
            print(f"{field}: {message}", file=sys.stderr)
        raise SystemExit(2) from exc
    print(f"User {args.username} created.")


def _backup(args: argparse.Namespace) -> None:
    from app.backup import BackupError, backup

    try:
        summary = asyncio.run(backup(Settings().resolved_database_url, args.file, args.format))
    except BackupError as exc:
        raise SystemExit(f"tafelrunde backup: {exc}") from exc
    print(f"Backed up {summary.total} rows (schema {summary.revision}) to {args.file}.")


def _restore(args: argparse.Namespace) -> None:
    from app.backup import BackupError, restore

    try:
        summary = asyncio.run(
            restore(Settings().resolved_database_url, args.file, replace=args.replace)
        )
    except BackupError as exc:
        raise SystemExit(f"tafelrunde restore: {exc}") from exc
    print(f"Restored {summary.total} rows (schema {summary.revision}) from {args.file}.")


def _verify(args: argparse.Namespace) -> None:
    from app.sessions.verify_fairplay import main as verify

    raise SystemExit(verify([str(args.file)]))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="tafelrunde", description="Tafelrunde virtual tabletop")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="apply migrations and run the web server")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument(
        "--workers", type=_positive, default=1, help="worker processes (more than 1: PostgreSQL)"
    )
    serve.set_defaults(func=_serve)
    migrate = commands.add_parser("migrate", help="apply database migrations")
    migrate.set_defaults(func=_migrate)
    create_user = commands.add_parser("create-user", help="create an account")
    create_user.add_argument("username")
    create_user.add_argument("--password", help="read from the terminal when omitted")
    create_user.set_defaults(func=_create_user)
    backup = commands.add_parser(
        "backup", help="write a consistent copy of the whole database to FILE"
    )
    backup.add_argument("file", type=Path)
    backup.add_argument(
        "--format",
        choices=("sqlite", "jsonl"),
        help="sqlite: a database file (SQLite only, the default there); "
        "jsonl: a portable archive (the default on PostgreSQL)",
    )
    backup.set_defaults(func=_backup)
    restore = commands.add_parser(
        "restore", help="load a backup (either format) into the configured database"
    )
    restore.add_argument("file", type=Path)
    restore.add_argument("--replace", action="store_true", help="delete the database's data first")
    restore.set_defaults(func=_restore)
    verify = commands.add_parser(
        "verify", help="verify a fair-play session export (the …/sessions/{id}/fairplay JSON)"
    )
    verify.add_argument("file", type=Path)
    verify.set_defaults(func=_verify)
    args = parser.parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
