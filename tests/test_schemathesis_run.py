"""scripts/schemathesis_run.py: its server lets the fuzz's writes through (issue 25, N14:
with the default write rate most of its writes answered 429 and never reached their logic),
and its summary counts every answer and fails on a server error."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import httpx

from app.migrate import upgrade

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "schemathesis_run.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("schemathesis_run", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


def test_the_fuzzed_server_answers_every_write_instead_of_429(tmp_path: Path) -> None:
    script = load_script()
    database_url = f"sqlite+aiosqlite:///{tmp_path / 'fuzz.db'}"
    upgrade(database_url)
    log_path = tmp_path / "server.log"
    with log_path.open("wb") as log:
        server, url = script.start_server(database_url, tmp_path, log)
        try:
            token, ids = script.create_fixtures(url)
            gm = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"})
            rolls = f"/api/v1/campaigns/{ids['campaign_id']}/rolls"
            # Three times the default burst, at once: the fuzz writes faster than a person.
            answers = [gm.post(rolls, json={"expression": "1W6"}).status_code for _ in range(180)]
            gm.close()
        finally:
            server.terminate()
            server.wait(timeout=10)
    assert set(answers) == {201}
    summary = script.Summary()
    summary.read_log(log_path.read_text(errors="replace"))
    assert summary.statuses[201] >= 180
    assert not summary.server_errors


def test_the_summary_reports_server_errors_with_their_exception() -> None:
    summary = load_script().Summary()
    summary.read_log(
        'INFO:     127.0.0.1:5000 - "GET /api/v1/campaigns/1 HTTP/1.1" 200 OK\n'
        'INFO:     127.0.0.1:5000 - "POST /api/v1/campaigns/1/messages/read HTTP/1.1" 500 '
        "Internal Server Error\n"
        "ERROR:    Exception in ASGI application\n"
        "Traceback (most recent call last):\n"
        '  File "x.py", line 1, in f\n'
        "sqlalchemy.exc.DataError: (psycopg.errors.NumericValueOutOfRange) integer out of range\n"
    )
    report = summary.report(12.0)
    assert summary.statuses == {200: 1, 500: 1}
    assert "server errors 1" in report
    assert "500 POST /api/v1/campaigns/1/messages/read" in report
    assert "integer out of range" in report
