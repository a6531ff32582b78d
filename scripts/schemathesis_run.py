"""Schemathesis over the whole OpenAPI of a fresh Tafelrunde, as a GM: 0 server errors wanted.

Usage (from the repository root, with the test extra installed):

    .venv/bin/python scripts/schemathesis_run.py                    # SQLite in a temp dir
    .venv/bin/python scripts/schemathesis_run.py --postgres postgresql+asyncpg://postgres@127.0.0.1/tafelrunde_st

``--postgres`` names a database that is dropped and created afresh. The script migrates the
database, starts uvicorn on it, creates the fixtures over the API (a GM and a player, an H&H
campaign, characters with items, the library, the bestiary, a running and a prepared
encounter, rolls, a scene with a token, a game session, a message, a handout, a note) and
runs schemathesis with every path id pinned to a fixture, in passes that keep the fixtures
while they are needed: first everything that does not delete (seeded fuzzing with
``--max-examples`` per operation, then the coverage phase), then the deleting operations,
then logout. The event stream (``…/events``) is left out: it never ends, and tests/stream
covers it.

The server runs with the write rate limit out of reach (else most writes answer 429 and the
cases never reach the code behind the limit). ``--time-limit`` bounds the whole run: a pass
that outlasts its share of the time left is stopped, and the cases it sent still count. At
the end a summary from the server's access log: cases, operations, seconds, the answers by
status, and every 5xx with the exceptions behind it. Exits 1 if any response was a 5xx (or
schemathesis failed otherwise). ``.ci/run`` runs it on PostgreSQL with
``--max-examples 10 --time-limit 285``.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

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
    from app.events.broker import libpq_conninfo

    base, _, name = url.rpartition("/")
    server = libpq_conninfo(base) + "/postgres"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def start_server(
    database_url: str, data_dir: Path, log: IO[bytes]
) -> tuple[subprocess.Popen[bytes], str]:
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
        # Raised far above what a fuzzer sends, so its writes reach the code behind the
        # limit instead of answering 429 (tests/api/test_rate_limit.py covers the limit).
        "TAFELRUNDE_WRITE_RATE_PER_MINUTE": "1000000",
        "TAFELRUNDE_WRITE_BURST": "1000000",
    }
    command = [sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(port)]
    # The access log (every status) and any traceback go to ``log`` for the summary.
    process = subprocess.Popen(
        [*command, "--log-level", "info", "--no-use-colors"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
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
    scene = _ok(gm.post(f"{base}/scenes", json={"name": "Lichtung", "cols": 20, "rows": 15}))
    barrel = {"x": 2, "y": 3, "label": "Fass"}
    marker = _ok(gm.post(f"{base}/scenes/{scene['id']}/tokens", json=barrel))
    game = _ok(gm.post(f"{base}/sessions"))
    message = _ok(gm.post(f"{base}/messages", json={"text": "Willkommen am Tisch"}))
    handout = _ok(gm.post(f"{base}/handouts", json={"title": "Karte", "body": "Der Weg"}))
    note = _ok(gm.post(f"{base}/journal", json={"title": "Notiz", "sharing": "group"}))
    token = str(gm.headers["Authorization"]).removeprefix("Bearer ")
    ids = {
        "scene_id": scene["id"],
        "token_id": marker["id"],
        "session_id": game["id"],
        "message_id": message["id"],
        "handout_id": handout["id"],
        "note_id": note["id"],
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


def run_pass(
    config: Path, url: str, token: str, options: argparse.Namespace, seconds: float, *select: str
) -> tuple[int, str]:
    """One schemathesis run, stopped after ``seconds`` (then its exit code is 0: the cases
    it sent are in the server's log, and the time limit is the budget, not a failure)."""
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
        "--request-timeout",
        "20",
        "--suppress-health-check",
        "all",
        "--no-shrink",
        "--no-color",
        *select,
    ]
    print("+", " ".join(command[3:]).replace(token, "…"), flush=True)
    # In the temp dir: schemathesis keeps its crash cache in .schemathesis/ of the cwd. Its
    # output goes to a file too, for the figures of its closing summary.
    output = config.parent / "schemathesis.out"
    with output.open("w") as out:
        process = subprocess.Popen(
            command, cwd=config.parent, stdout=out, stderr=subprocess.STDOUT, text=True
        )
        code = _wait(process, seconds)
    text = output.read_text(errors="replace")
    print(text, end="", flush=True)
    return code, text


def _wait(process: subprocess.Popen[str], seconds: float) -> int:
    try:
        return process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.terminate()
        process.wait(timeout=10)
        print(f"stopped at the time limit ({seconds:.0f} s)", flush=True)
        return 0


#: Uvicorn's access log line: ``"GET /path?query HTTP/1.1" 200``.
ACCESS = re.compile(r'"([A-Z]+) ([^ ?"]+)\S* HTTP/[0-9.]+" (\d{3})')
#: The last line of a traceback: ``package.SomeError: message``.
EXCEPTION = re.compile(r"^(?!INFO|WARNING|ERROR|DEBUG)[A-Za-z_][\w.]*(Error|Exception)\b.*")


@dataclass
class Summary:
    """What the server answered during the fuzz, from its access log and tracebacks."""

    statuses: Counter[int] = field(default_factory=Counter)
    #: Operations each pass tested, from schemathesis's summaries (a pass stopped at the time
    #: limit prints none: ``?``), and how many the schema has.
    tested: list[str] = field(default_factory=list)
    in_schema: int = 0
    server_errors: Counter[str] = field(default_factory=Counter)
    exceptions: Counter[str] = field(default_factory=Counter)

    def read_log(self, text: str) -> None:
        for line in text.splitlines():
            access = ACCESS.search(line)
            if access:
                method, path, status = access.groups()
                self.statuses[int(status)] += 1
                if status.startswith("5"):
                    self.server_errors[f"{status} {method} {path}"] += 1
            elif EXCEPTION.match(line):
                self.exceptions[line[:200]] += 1

    def read_output(self, output: str) -> None:
        tested = re.search(r"Tested:\s+(\d+)", output)
        selected = re.search(r"Selected:\s+\d+/(\d+)", output)
        self.tested.append(tested.group(1) if tested else "?")
        if selected:
            self.in_schema = int(selected.group(1))

    def report(self, seconds: float) -> str:
        statuses = ", ".join(f"{code}: {n}" for code, n in sorted(self.statuses.items()))
        cases = sum(self.statuses.values())
        lines = [
            "=== fuzz summary",
            f"cases {cases} in {seconds:.0f} s; operations tested by the passes "
            f"(fuzzing, coverage, deleting, logout): {' / '.join(self.tested)} "
            f"of {self.in_schema}",
            f"statuses {statuses}",
            f"server errors {sum(self.server_errors.values())}",
        ]
        lines += [f"  {n} x {request}" for request, n in self.server_errors.most_common()]
        lines += [f"  {n} x {exc}" for exc, n in self.exceptions.most_common()]
        return "\n".join(lines)


def run_passes(
    config: Path,
    url: str,
    token: str,
    options: argparse.Namespace,
    deadline: float,
    summary: Summary,
) -> list[int]:
    """Passes in an order that keeps the fixtures while they are needed: everything that
    does not delete, then the deleting operations, then logout. The non-deleting operations
    get the seeded fuzzing first (bounded by ``--max-examples``, the cases that reach the
    most code) and the coverage phase (every boundary of every field: thousands of cases,
    not bounded by it) after it, with most of the time left until ``deadline``."""
    keep = ["--exclude-method", "DELETE", "--exclude-path-regex", f"{STREAM}|{LOGOUT}"]
    every_phase = "examples,coverage,fuzzing"
    passes = [
        (0.5, ["--phases", "examples,fuzzing", *keep]),
        (0.8, ["--phases", "coverage", *keep]),
        (0.75, ["--phases", every_phase, "--include-method", "DELETE"]),
        (1.0, ["--phases", every_phase, "--include-path-regex", LOGOUT]),
    ]
    codes = []
    for share, select in passes:
        seconds = max((deadline - time.monotonic()) * share, 10)
        code, output = run_pass(config, url, token, options, seconds, *select)
        summary.read_output(output)
        codes.append(code)
    return codes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", help="a PostgreSQL database URL, dropped and re-created")
    parser.add_argument("--max-examples", type=int, default=25, help="cases per operation")
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument(
        "--time-limit",
        type=int,
        default=3600,
        help="seconds for the whole run (setup included); a pass that outlasts its share of "
        "the time left is stopped",
    )
    options = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from app.migrate import upgrade

    started = time.monotonic()
    summary = Summary()
    with tempfile.TemporaryDirectory(prefix="tafelrunde-st-") as tmp:
        data_dir = Path(tmp)
        if options.postgres:
            fresh_postgres(options.postgres)
            database_url = options.postgres
        else:
            database_url = f"sqlite+aiosqlite:///{data_dir / 'tafelrunde.db'}"
        upgrade(database_url)
        log_path = data_dir / "server.log"
        with log_path.open("wb") as log:
            server, url = start_server(database_url, data_dir, log)
            try:
                token, ids = create_fixtures(url)
                config = data_dir / "schemathesis.toml"
                write_config(config, ids)
                fixtures_end = log_path.stat().st_size
                deadline = started + options.time_limit
                codes = run_passes(config, url, token, options, deadline, summary)
            finally:
                server.terminate()
                server.wait(timeout=10)
        with log_path.open("rb") as log:
            log.seek(fixtures_end)
            summary.read_log(log.read().decode(errors="replace"))
    print("schemathesis passes:", codes)
    print(summary.report(time.monotonic() - started))
    return 0 if not any(codes) and not summary.server_errors else 1


if __name__ == "__main__":
    sys.exit(main())
