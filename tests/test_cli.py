"""The ``tafelrunde`` command as a newcomer runs it: serve migrates a fresh SQLite file."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


def _env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TAFELRUNDE_")}
    return {
        **env,
        "TAFELRUNDE_DATA_DIR": str(data_dir),
        "TAFELRUNDE_ARGON2_TIME_COST": "1",
        "TAFELRUNDE_ARGON2_MEMORY_KIB": "8192",
    }


def test_serve_on_a_fresh_data_dir_migrates_and_answers(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
        cwd=tmp_path,
        env=_env(tmp_path / "data"),
    )
    try:
        deadline = time.monotonic() + 90  # a busy CI machine starts it slowly
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/login", timeout=1)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.2)
        assert r.status_code == 200 and "Tafelrunde" in r.text
        assert (tmp_path / "data" / "tafelrunde.db").exists()
        assert (tmp_path / "data" / "secret_key").exists()
        r = httpx.post(
            f"http://127.0.0.1:{port}/api/v1/auth/register",
            json={"username": "neuling", "password": "correct horse battery"},
        )
        assert r.status_code == 201
    finally:
        process.terminate()
        process.wait(10)


def test_create_user_and_migrate(tmp_path: Path) -> None:
    env = _env(tmp_path / "data")
    run = [sys.executable, "-m", "app.cli"]
    r = subprocess.run([*run, "migrate"], env=env, capture_output=True, text=True, check=False)
    assert r.returncode == 0 and "up to date" in r.stdout
    r = subprocess.run(
        [*run, "create-user", "admin", "--password", "correct horse battery"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    r = subprocess.run(
        [*run, "create-user", "admin", "--password", "correct horse battery"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 2 and "username" in r.stderr


def test_production_refuses_to_start_without_a_secret(tmp_path: Path) -> None:
    env = {**_env(tmp_path / "data"), "TAFELRUNDE_ENVIRONMENT": "production"}
    r = subprocess.run(
        [sys.executable, "-m", "app.cli", "serve", "--port", "1"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert r.returncode != 0 and "TAFELRUNDE_SECRET_KEY" in r.stderr


def test_serve_refuses_several_workers_on_sqlite(tmp_path: Path) -> None:
    """L4: on SQLite a second worker would see new events only at the next poll."""
    result = subprocess.run(
        [sys.executable, "-m", "app.cli", "serve", "--workers", "2"],
        cwd=tmp_path,
        env=_env(tmp_path / "data"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "--workers 2 needs PostgreSQL" in result.stderr
    assert "TAFELRUNDE_DATABASE_URL" in result.stderr
    assert not (tmp_path / "data" / "tafelrunde.db").exists(), "refused before migrating"
