"""What a move costs the phone that shows it: the browser's main thread per move, measured.

    .venv/bin/python -m bench.client_move [--moves 20] [--rounds 2] [--app-root DIR]

Starts ``tafelrunde serve`` from ``--app-root`` (e.g. a worktree of the commit before) on a
fresh SQLite file, builds ``bench.map``'s scene over HTTP (40 × 40 cells, 200 walls, 93
tokens, seven players with a character token each, line of sight on), and opens the scene
page of the last player in Debian's Chromium at 390 × 844 with its CPU slowed down four
times (CDP ``Emulation.setCPUThrottlingRate``: a phone). The GM then moves that player's
token back and forth (what it sees changes: about 20 tokens come into or leave its sight
each time), and a token of the GM's far from it (nothing of its sight changes), ``--moves``
times each, 0.4 s apart. For each kind: the page's main-thread time per move from CDP
``Performance.getMetrics`` (``TaskDuration``, ``ScriptDuration``, ``LayoutDuration``,
``RecalcStyleDuration``) and the live messages it took; and the player's own move ÷ the
GM's, in the same run. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import CDPSession, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.run import Server, free_port  # noqa: E402

PASSWORD = "bench-password-4711"
PHONE = {"width": 390, "height": 844}
METRICS = {"task_ms": "TaskDuration", "script_ms": "ScriptDuration",
           "layout_ms": "LayoutDuration", "style_ms": "RecalcStyleDuration"}  # fmt: skip


def _account(base: str, name: str) -> tuple[httpx.Client, dict[str, str]]:
    client = httpx.Client(base_url=base, timeout=30)
    body = {"username": name, "password": PASSWORD}
    assert client.post("/api/v1/auth/register", json=body).status_code == 201
    token = client.post("/api/v1/auth/login", json=body).json()["token"]
    client.headers["Authorization"] = f"Bearer {token}"
    return client, body


def build(base: str) -> dict[str, Any]:
    """``bench.map``'s scene with line of sight: the GM's client, the page, the player's
    credentials, their token and a GM's token out of everyone's way."""
    stamp = int(time.time() * 1000) % 10**9
    gm, _ = _account(base, f"cmgm{stamp}")
    made = gm.post("/api/v1/campaigns", json={"name": "Runde", "system": "hh"}).json()
    cid = made["id"]
    api = f"/api/v1/campaigns/{cid}/scenes"
    sid = gm.post(api, json={"name": "S", "cols": 40, "rows": 40, "shown": True}).json()["id"]
    walls = [[x, y, x, y + 1] for x in range(2, 40, 4) for y in range(0, 40, 2)][:200]
    assert gm.put(f"{api}/{sid}/walls", json={"segments": walls}).status_code == 200
    tokens = []
    for i in range(93):
        x, y = (i * 3) % 40, (i * 7) % 40 if (i * 3) % 40 % 4 else 39 - i % 20
        r = gm.post(f"{api}/{sid}/tokens", json={"x": x, "y": y, "label": f"T{i}"})
        assert r.status_code == 201, r.text
        tokens.append(r.json())
    player: dict[str, str] = {}
    mover = 0
    for i in range(7):
        client, player = _account(base, f"cmp{i}{stamp}")
        client.post("/api/v1/campaigns/join", json={"invite_code": made["invite_code"]})
        char = client.post(f"/api/v1/campaigns/{cid}/characters", json={"name": f"H{i}"}).json()
        body = {"x": 0, "y": 3 + i * 5, "character_id": char["id"]}
        mover = gm.post(f"{api}/{sid}/tokens", json=body).json()["id"]
    assert gm.patch(f"{api}/{sid}", json={"line_of_sight": True}).status_code == 200
    far = max(tokens, key=lambda t: t["x"] + t["y"])["id"]
    return {"gm": gm, "page": f"/campaigns/{cid}/scenes/{sid}", "api": f"{api}/{sid}",
            "player": player, "mover": mover, "far": far}  # fmt: skip


def _metrics(cdp: CDPSession) -> dict[str, float]:
    values = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return {key: values[name] * 1000 for key, name in METRICS.items()}


def moves_cost(
    table: dict[str, Any], cdp: CDPSession, page: Any, token: int, n: int
) -> dict[str, float]:
    """The page's main-thread time per move of ``token`` (there and back, ``n`` moves)."""
    page.evaluate("() => { window.benchMessages = 0; }")
    before = _metrics(cdp)
    for i in range(n):
        to = [1, 1 + i % 2] if token == table["mover"] else [38, 38 + i % 2]
        r = table["gm"].post(
            f"{table['api']}/tokens/{token}/move", json={"to": to, "override": True}
        )
        assert r.status_code == 200, r.text
        time.sleep(0.4)
    time.sleep(1.0)
    after = _metrics(cdp)
    out = {key: round((after[key] - before[key]) / n, 1) for key in METRICS}
    out["messages_per_move"] = page.evaluate("() => window.benchMessages") / n
    return out


def measure(app_root: Path, moves: int, rounds: int) -> dict[str, Any]:
    db = tempfile.mkstemp(suffix=".db")[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("TAFELRUNDE_")}
    env.update(
        TAFELRUNDE_DATABASE_URL=f"sqlite+aiosqlite:///{db}", TAFELRUNDE_SECRET_KEY="bench",
        TAFELRUNDE_ARGON2_TIME_COST="1", TAFELRUNDE_ARGON2_MEMORY_KIB="8192",
        TAFELRUNDE_WRITE_RATE_PER_MINUTE="1000000", TAFELRUNDE_WRITE_BURST="1000000",
        PYTHONPATH=str(app_root),
    )  # fmt: skip
    subprocess.run(
        [sys.executable, "-m", "app.cli", "migrate"],
        env=env,
        cwd=app_root,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    port = free_port()
    server = Server("client-move", [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
                    env, port, cwd=app_root)  # fmt: skip
    server.start()
    runs: list[dict[str, Any]] = []
    try:
        table = build(f"http://127.0.0.1:{port}")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium",
                                         args=["--no-sandbox", "--disable-gpu"])  # fmt: skip
            context = browser.new_context(base_url=f"http://127.0.0.1:{port}", viewport=PHONE)  # type: ignore[arg-type]
            context.request.post("/api/v1/auth/login", data=table["player"])
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            cdp.send("Performance.enable")
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
            page.goto(table["page"])
            page.wait_for_selector("#live-status[data-state=online]")
            page.evaluate(
                """() => document.addEventListener('htmx:sseMessage',
                     e => { if (e.detail.type === 'map') window.benchMessages++; })"""
            )
            for _ in range(rounds):
                own = moves_cost(table, cdp, page, table["mover"], moves)
                gms = moves_cost(table, cdp, page, table["far"], moves)
                ratio = round(own["task_ms"] / gms["task_ms"], 2)
                runs.append({"own_move": own, "gm_move_elsewhere": gms, "own_over_gm_task": ratio})
            browser.close()
    finally:
        server.stop()
        Path(db).unlink(missing_ok=True)
    ratios = [r["own_over_gm_task"] for r in runs]
    return {"app_root": str(app_root), "moves": moves, "cpu_throttling": 4, "runs": runs,
            "own_over_gm_task_median": statistics.median(ratios)}  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--app-root", type=Path, default=ROOT, help="checkout the server runs from")
    p.add_argument("--moves", type=int, default=20)
    p.add_argument("--rounds", type=int, default=2)
    a = p.parse_args()
    print(json.dumps(measure(a.app_root.resolve(), a.moves, a.rounds), indent=1))


if __name__ == "__main__":
    main()
