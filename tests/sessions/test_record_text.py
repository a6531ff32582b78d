"""The session record reads like the UI (issue 31): the times the pages show, in the zone it
names, Markdown a person can read as it is, and a ``/r`` roll once."""

from __future__ import annotations

import re
from datetime import datetime

from fastapi import FastAPI

from app.i18n import TIME_ZONE
from tests.api.helpers import make_table
from tests.conftest import ClientFactory
from tests.sessions.helpers import base

NOTE = "Treffen am 3.12. um 19:30 (Taverne) - bitte pünktlich! #1"


async def test_the_record_shows_local_times_readable_text_and_each_roll_once(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    sid = (await t.gm.post(f"{base(t)}/sessions")).json()["id"]
    r = await t.player.post(f"{base(t)}/messages", json={"text": "/r 2W6 Klettern"})
    assert r.status_code == 201, r.text
    r = await t.player.post(f"{base(t)}/messages", json={"text": NOTE})
    assert r.status_code == 201, r.text
    r = await t.player.post(f"{base(t)}/messages", json={"text": "- [x](http://evil) *a*\n# b"})
    assert r.status_code == 201, r.text
    assert (await t.gm.post(f"{base(t)}/sessions/{sid}/end")).status_code == 200
    url = f"{base(t)}/sessions/{sid}/export"

    md = (await t.player.get(url, params={"format": "md"})).text
    assert md.count("Klettern") == 1, md  # the roll, not also its chat message
    assert "2W6 [" in md and NOTE in md, md  # no backslash before ".", "-", "(", "!" or "#"
    assert "\\- [x\\](http://evil) \\*a\\*" in md and "\n  \\# b" in md, md
    assert "player_user" in md, md
    assert "Mitteleuropäische Zeit (Europe/Berlin)" in md, md
    html = (await t.player.get(url, params={"format": "html"})).text
    stamps = re.findall(r'<time datetime="([^"]+)">([^<]+)</time>', html)
    assert stamps
    for iso, shown in stamps:  # the page's time, to the second in the file
        local = datetime.fromisoformat(iso).astimezone(TIME_ZONE)
        assert shown == f"{local:%H:%M}"
        assert f"- {local:%H:%M:%S} **" in md, (local, md)
    assert "Mitteleuropäische Zeit" in html

    await t.player.post("/language", data={"locale": "en", "next": "/campaigns"})
    md = (await t.player.get(url, params={"format": "md"})).text
    assert "Central European Time (Europe/Berlin)" in md and "2d6 [" in md, md
    assert "2W6" not in md, md
