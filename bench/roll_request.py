"""CPU of one roll (or chat line) request in process: the app called as an ASGI callable.

    .venv/bin/python -m bench.roll_request --db postgresql+asyncpg://postgres@127.0.0.1/bench_roll

Creates the database afresh (``--keep`` reuses it), migrates it, signs up one player with a
campaign, then posts ``--requests`` rolls straight into the ASGI app (no uvicorn, no HTTP
client, no streams) and prints the process's CPU per request: the cost of the request
itself (sign-in, rules, log append, commit, response), the part of the roll pipeline a
change to the request's code moves. ``--what chat`` posts chat lines instead (the chat's
per-member rate limit lifted, its check still run), as the game night's players do; the
statements each request sends are counted too. ``--app-root DIR`` imports the app from another
checkout (``git archive`` of an older commit), for a before/after on the same machine.
``--keyed`` gives each request an ``Idempotency-Key`` of its own, as every form of the app
carries one (the key is claimed, and the answer stored, in the request's transaction);
``--what form --keyed`` posts the roll as the campaign page's roll dialog does (HTMX, the
dialog rendered again in the answer), a browser's roll; ``--what chat-form --keyed`` a
chat line as the campaign page's chat form posts it (HTMX, the form rendered again).
``--autocommit`` (an API roll or chat line, no key) runs the timed requests on connections
in PostgreSQL's autocommit mode: no ``BEGIN`` before the first statement and no ``COMMIT``
after the last, what those two round trips cost a request whose one write is one statement
(an experiment: the app always runs a request in one transaction).
``--profile FILE`` writes a cProfile of the timed requests (its figures then include the
profiler's own cost; read them as shares, not as times).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import itertools
import json
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import psycopg

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "bench-password-4711"


def recreate(db_url: str, app_root: Path) -> None:
    base, _, name = ("postgresql://" + db_url.partition("://")[2]).rpartition("/")
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    env = dict(os.environ, TAFELRUNDE_DATABASE_URL=db_url, PYTHONPATH=str(app_root))
    subprocess.run(
        [sys.executable, "-m", "app.cli", "migrate"],
        env=env, cwd=app_root, check=True, capture_output=True,
    )  # fmt: skip


def app_for(db_url: str) -> Any:
    """The app on ``db_url``, set for measuring: cheap password hashes, no write limit."""
    from app.config import Settings
    from app.main import create_app

    settings = Settings(
        database_url=db_url,
        secret_key="x",
        argon2_time_cost=1,
        argon2_memory_kib=8192,
        write_rate_per_minute=10**8,
        write_burst=10**8,
    )
    return create_app(settings)


async def sign_up(app: Any, name: str) -> tuple[str, int]:
    """A new player's session token and the id of a new H&H campaign of theirs."""
    import httpx

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://b") as c:
        body = {"username": f"{name}{time.time_ns() % 10**9}", "password": PASSWORD}
        assert (await c.post("/api/v1/auth/register", json=body)).status_code == 201
        token = (await c.post("/api/v1/auth/login", json=body)).json()["token"]
        camp = {"name": name, "system": "hh"}
        h = {"Authorization": f"Bearer {token}"}
        cid = (await c.post("/api/v1/campaigns", json=camp, headers=h)).json()["id"]
    return str(token), int(cid)


def post_scope(path: str, token: str, body: bytes) -> dict[str, Any]:
    """The ASGI scope of a JSON POST to ``path`` signed in with ``token``."""
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
        "root_path": "", "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 80),
        "headers": [
            (b"host", b"b"), (b"authorization", f"Bearer {token}".encode()),
            (b"content-type", b"application/json"), (b"content-length", b"%d" % len(body)),
        ],
    }  # fmt: skip


def get_scope(path: str, token: str) -> dict[str, Any]:
    """The ASGI scope of a ``GET`` of ``path`` (a page) signed in with ``token``."""
    scope = post_scope(path, token, b"")
    scope["method"] = "GET"
    scope["headers"] = scope["headers"][:2]  # host and authorization
    return scope


Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def asgi_channel(body: bytes) -> tuple[Receive, Send, set[int]]:
    """``receive`` and ``send`` for calling an app in process with ``body`` as the request,
    and the set that collects the statuses it answers."""
    statuses: set[int] = set()

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses.add(message["status"])

    return receive, send, statuses


#: What ``--what`` posts to the API: the path under the campaign and the JSON body.
REQUESTS = {
    "roll": ("rolls", {"expression": "2d20+3", "label": "Probe"}),
    "chat": ("messages", {"text": "Weiter so!"}),
}
#: ``--what form``: the roll as the campaign page's roll dialog posts it (HTMX), answered
#: with the dialog rendered again.
FORM_ROLL = {"expression": "2d20+3", "label": "Probe", "visibility": "public"}
#: The HTML forms ``--what`` may post: the path under the campaign and the form's fields
#: (``{cid}`` the campaign's id), as the campaign page sends them.
FORMS = {
    "form": ("rolls", FORM_ROLL),
    "chat-form": ("chat", {"text": "Weiter so!", "kind": "ooc", "back": "/campaigns/{cid}"}),
}


def form_scope(cid: int, token: str, body: bytes, path: str = "rolls") -> dict[str, Any]:
    """The scope of an HTMX post of ``body`` (form-encoded) to the campaign's ``path``."""
    scope = post_scope(f"/campaigns/{cid}/{path}", token, body)
    scope["headers"] = [
        (b"content-type", b"application/x-www-form-urlencoded") if name == b"content-type"
        else (name, value)
        for name, value in scope["headers"]
    ] + [(b"hx-request", b"true")]  # fmt: skip
    return scope


def count_statements(app: Any) -> list[int]:
    """A one-element counter of the statements ``app``'s engine sends from now on."""
    from sqlalchemy import event

    sent = [0]

    def one(*_args: Any) -> None:
        sent[0] += 1

    event.listen(app.state.ctx.engine.sync_engine, "before_cursor_execute", one)
    return sent


def scopes(scope: dict[str, Any], keyed: bool) -> Iterator[dict[str, Any]]:
    """The scope of each request: ``scope`` anew, with a key of its own if ``keyed``."""
    for n in itertools.count():
        if keyed:
            yield dict(
                scope, state={}, headers=[*scope["headers"], (b"idempotency-key", b"k%d" % n)]
            )
        else:
            yield dict(scope, state={})


async def measure(
    db_url: str,
    requests: int,
    profile: Path | None = None,
    what: str = "roll",
    keyed: bool = False,
    autocommit: bool = False,
) -> dict[str, Any]:
    app = app_for(db_url)
    if what in ("chat", "chat-form"):
        import app.talk.service as talk

        talk.RATE_LIMIT = 10**9
    token, cid = await sign_up(app, "roller")
    if autocommit:  # after the sign-up, whose registration takes a savepoint
        await app.state.ctx.engine.dispose()
        app.state.ctx.engine.sync_engine.update_execution_options(isolation_level="AUTOCOMMIT")
    if what in FORMS:
        path, fields = FORMS[what]
        payload = urlencode({k: v.format(cid=cid) for k, v in fields.items()}).encode()
        answer = 200
        scope = form_scope(cid, token, payload, path)
    else:
        path, body = REQUESTS[what]
        payload, answer = json.dumps(body).encode(), 201
        scope = post_scope(f"/api/v1/campaigns/{cid}/{path}", token, payload)
    receive, send, statuses = asgi_channel(payload)
    each = scopes(scope, keyed)
    gc.collect()
    gc.freeze()  # as the server's lifespan does
    for _ in range(100):  # warm: statement caches, the pool
        await app(next(each), receive, send)
    sent = count_statements(app)
    await app(next(each), receive, send)
    statements = sent[0]
    profiler = cProfile.Profile() if profile else None
    cpu, wall = time.process_time(), time.perf_counter()
    if profiler:
        profiler.enable()
    for _ in range(requests):
        await app(next(each), receive, send)
    if profiler:
        profiler.disable()
        profiler.dump_stats(str(profile))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    await app.state.ctx.engine.dispose()
    assert statuses == {answer}, statuses
    return {
        "what": what,
        "keyed": keyed,
        "autocommit": autocommit,
        "statements_per_request": statements,
        "requests": requests,
        "cpu_ms_per_request": cpu * 1000 / requests,
        "wall_ms_per_request": wall * 1000 / requests,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--db", required=True, help="postgresql+asyncpg://… of a scratch database")
    p.add_argument("--requests", type=int, default=2000)
    p.add_argument("--app-root", type=Path, default=ROOT)
    p.add_argument("--keep", action="store_true", help="reuse the database as it is")
    p.add_argument("--profile", type=Path, default=None, help="cProfile stats to this file")
    p.add_argument("--what", choices=[*sorted(REQUESTS), *sorted(FORMS)], default="roll")
    p.add_argument("--keyed", action="store_true", help="an Idempotency-Key on each request")
    p.add_argument("--autocommit", action="store_true", help="no BEGIN/COMMIT (an experiment)")
    a = p.parse_args()
    if a.autocommit and (a.keyed or a.what not in REQUESTS or "postgresql" not in a.db):
        p.error("--autocommit: an API roll or chat line without a key, on PostgreSQL")
    sys.path.insert(0, str(a.app_root))
    if not a.keep:
        recreate(a.db, a.app_root)
    import uvloop

    result = uvloop.run(measure(a.db, a.requests, a.profile, a.what, a.keyed, a.autocommit))
    print(json.dumps({"app_root": str(a.app_root), **result}))


if __name__ == "__main__":
    main()
