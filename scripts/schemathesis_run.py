"""Schemathesis over the whole OpenAPI of a fresh Tafelrunde, as a GM: 0 server errors wanted.

Usage (from the repository root, with the test extra installed):

    .venv/bin/python scripts/schemathesis_run.py                    # SQLite in a temp dir
    .venv/bin/python scripts/schemathesis_run.py --postgres postgresql+psycopg://postgres@127.0.0.1/tafelrunde_st

``--postgres`` names a database that is dropped and created afresh. The script migrates the
database, starts uvicorn on it, creates the fixtures over the API (a GM and a player, an H&H
campaign, characters with items, the library, the bestiary, a running and a prepared
encounter, rolls) and runs schemathesis with every path id pinned to a fixture, in three
passes so the fixtures survive while they are needed: first everything that does not delete
(seeded, ``--max-examples`` per operation), then the deleting operations, then logout. The
event stream (``…/events``) is left out: it never ends, and tests/stream covers it. Exits 1
if any response was a 5xx (or schemathesis failed otherwise).
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import psycopg

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "correct horse battery staple"
SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
#: Never run: they would end the GM's session (pass 3 runs them last) or never answer.
STREAM = "^/api/v1/campaigns/\\{campaign_id\\}/events$"
LOGOUT = "^/api/v1/auth/logout"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fresh_postgres(url: str) -> None:
    """Drop and create the database ``url`` names (on the same server)."""
    base, _, name = url.rpartition("/")
    server = base.replace("postgresql+psycopg://", "postgresql://") + "/postgres"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def start_server(database_url: str, data_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "TAFELRUNDE_DATABASE_URL": database_url,
        "TAFELRUNDE_DATA_DIR": str(data_dir),
        "TAFELRUNDE_SECRET_KEY": "schemathesis",
        "TAFELRUNDE_ENVIRONMENT": "test",
        "TAFELRUNDE_ARGON2_TIME_COST": "1",
        "TAFELRUNDE_ARGON2_MEMORY_KIB": "8192",
    }
    command = [sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(port)]
    process = subprocess.Popen([*command, "--log-level", "warning"], cwd=ROOT, env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/login", timeout=1).status_code == 200:
                return process, url
        except httpx.HTTPError:
            time.sleep(0.2)
    process.terminate()
    raise SystemExit("the server did not start")


def _ok(response: httpx.Response) -> Any:
    if response.status_code >= 400:
        raise SystemExit(f"fixture failed: {response.request.url} {response.text}")
    return response.json() if response.content else None


def _account(url: str, name: str) -> tuple[httpx.Client, int]:
    client = httpx.Client(base_url=url, timeout=30)
    _ok(client.post("/api/v1/auth/register", json={"username": name, "password": PASSWORD}))
    login = _ok(client.post("/api/v1/auth/login", json={"username": name, "password": PASSWORD}))
    client.headers["Authorization"] = f"Bearer {login['token']}"
    client.cookies.clear()
    return client, int(login["user"]["id"])


def create_fixtures(url: str) -> tuple[str, dict[str, int]]:
    """The GM's bearer token and the ids every path parameter is pinned to."""
    gm, _gm_id = _account(url, "st_gm")
    player, player_id = _account(url, "st_player")
    campaign = _ok(gm.post("/api/v1/campaigns", json={"name": "Schemathesis", "system": "hh"}))
    cid = campaign["id"]
    _ok(player.post("/api/v1/campaigns/join", json={"invite_code": campaign["invite_code"]}))
    base = f"/api/v1/campaigns/{cid}"
    pc = _ok(gm.post(f"{base}/characters", json={"name": "Alrik", "owner_id": player_id}))
    _ok(gm.post(f"{base}/characters", json={"name": "Brida", "owner_id": player_id}))
    _ok(gm.post(f"{base}/characters", json={"name": "Der Graue", "kind": "npc"}))
    item = _ok(gm.post(f"{base}/characters/{pc['id']}/items", json={"name": "Seil"}))
    _ok(gm.post(f"{base}/items", json={"name": "Heiltrank", "price": 5}))
    entries = _ok(gm.post(f"{base}/bestiary/samples"))
    encounter = _ok(gm.post(f"{base}/encounters", json={"name": "Hinterhalt"}))
    enc = f"{base}/encounters/{encounter['id']}"
    _ok(gm.post(f"{enc}/participants", json={"character_id": pc["id"]}))
    figures = _ok(gm.post(f"{enc}/participants", json={"entry_id": entries[0]["id"]}))
    _ok(gm.post(f"{enc}/actions/start", json={}))
    _ok(gm.post(f"{base}/encounters", json={"name": "Vorbereitet"}))
    _ok(gm.post(f"{base}/rolls", json={"expression": "2W6"}))
    _ok(player.post(f"{base}/rolls", json={"expression": "1W20", "visibility": "gm"}))
    token = str(gm.headers["Authorization"]).removeprefix("Bearer ")
    ids = {
        "campaign_id": cid,
        "character_id": pc["id"],
        "item_id": item["id"],
        "entry_id": entries[0]["id"],
        "encounter_id": encounter["id"],
        "participant_id": figures[0]["id"],
    }
    return token, ids


def write_config(path: Path, ids: dict[str, int]) -> None:
    lines = ["[parameters]"] + [f'"path.{name}" = {value}' for name, value in ids.items()]
    path.write_text("\n".join(lines) + "\n")


def run_pass(config: Path, url: str, token: str, options: argparse.Namespace, *select: str) -> int:
    command = [
        str(SCHEMATHESIS),
        "--config-file",
        str(config),
        "run",
        f"{url}/api/openapi.json",
        "--checks",
        "not_a_server_error",
        "--header",
        f"Authorization: Bearer {token}",
        "--seed",
        str(options.seed),
        "--max-examples",
        str(options.max_examples),
        "--workers",
        "1",
        "--phases",
        "examples,coverage,fuzzing",
        "--request-timeout",
        "20",
        "--suppress-health-check",
        "all",
        "--no-shrink",
        *select,
    ]
    print("+", " ".join(command[3:]).replace(token, "…"), flush=True)
    # In the temp dir: schemathesis keeps its crash cache in .schemathesis/ of the cwd.
    return subprocess.run(command, cwd=config.parent, check=False).returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", help="a PostgreSQL database URL, dropped and re-created")
    parser.add_argument("--max-examples", type=int, default=25, help="cases per operation")
    parser.add_argument("--seed", type=int, default=20261201)
    options = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from app.migrate import upgrade

    with tempfile.TemporaryDirectory(prefix="tafelrunde-st-") as tmp:
        data_dir = Path(tmp)
        if options.postgres:
            fresh_postgres(options.postgres)
            database_url = options.postgres
        else:
            database_url = f"sqlite+aiosqlite:///{data_dir / 'tafelrunde.db'}"
        upgrade(database_url)
        server, url = start_server(database_url, data_dir)
        try:
            token, ids = create_fixtures(url)
            config = data_dir / "schemathesis.toml"
            write_config(config, ids)
            codes = [
                run_pass(
                    config,
                    url,
                    token,
                    options,
                    "--exclude-method",
                    "DELETE",
                    "--exclude-path-regex",
                    f"{STREAM}|{LOGOUT}",
                ),
                run_pass(config, url, token, options, "--include-method", "DELETE"),
                run_pass(config, url, token, options, "--include-path-regex", LOGOUT),
            ]
        finally:
            server.terminate()
            server.wait(timeout=10)
    print("schemathesis passes:", codes)
    return 0 if not any(codes) else 1


if __name__ == "__main__":
    sys.exit(main())
