"""The shared tail of a campaign's log: what a notification may add to it, and when the
streams must go back to the database instead."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import httpx
import psycopg
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.events.audience import Form
from app.events.broker import Broker
from app.events.encoding import encode
from app.events.models import CampaignEvent
from app.events.service import (
    NOTE_MAX,
    NOTIFY_CHANNEL,
    VisibleEvent,
    event_from_note,
    note_head,
    note_of,
)
from app.events.stream import Outgoing
from tests.conftest import register

WHEN = datetime(2026, 11, 29, 17, 0, 0, 123456, tzinfo=UTC)
ROLL_AUDIENCE = {"v": "public", "stub": 1}


def _event(seq: int, campaign_id: int = 7) -> CampaignEvent:
    return CampaignEvent(
        id=100 + seq,
        campaign_id=campaign_id,
        seq=seq,
        type="roll",
        actor_id=3,
        audience=ROLL_AUDIENCE,
        payload={"total": seq},
        created_at=WHEN,
    )


def _complete_tail(broker: Broker, last: int) -> None:
    """As after a stream read the database up to ``last``."""
    tail = broker.recent(7)
    tail.start(0)
    tail.extend([_event(s) for s in range(1, last + 1)])
    tail.fresh = tail.generation


def test_the_next_event_extends_a_complete_tail_without_a_read() -> None:
    broker = Broker()
    sub = broker.subscribe(7)
    _complete_tail(broker, 3)
    broker.publish(7, 4, _event(4))
    tail = broker.recent(7)
    assert [e.seq for e in tail.after(0, 10)] == [1, 2, 3, 4]
    assert tail.fresh == tail.generation  # no database read needed
    assert sub._rung  # the stream is woken


@pytest.mark.parametrize(
    "seq, carried",
    [(5, True), (4, False)],
    ids=["a gap (event 4 never announced)", "a notification without the event"],
)
def test_anything_but_the_next_event_sends_streams_to_the_database(seq: int, carried: bool) -> None:
    broker = Broker()
    broker.subscribe(7)
    _complete_tail(broker, 3)
    broker.publish(7, seq, _event(seq) if carried else None)
    tail = broker.recent(7)
    assert tail.last == 3
    assert tail.fresh != tail.generation


def test_a_tail_already_waiting_for_a_read_is_not_extended() -> None:
    broker = Broker()
    broker.subscribe(7)
    _complete_tail(broker, 3)
    broker.invalidate(7)  # e.g. the LISTEN connection came back: something may be missing
    broker.publish(7, 4, _event(4))
    tail = broker.recent(7)
    assert tail.last == 3 and tail.fresh != tail.generation


def test_a_repeated_notification_changes_nothing() -> None:
    broker = Broker()
    broker.subscribe(7)
    _complete_tail(broker, 3)
    broker.publish(7, 4, _event(4))  # from this process, right after its commit
    broker.publish(7, 4, _event(4))  # the same event again, by NOTIFY
    tail = broker.recent(7)
    assert [e.seq for e in tail.after(3, 10)] == [4]
    assert tail.fresh == tail.generation


def test_the_listener_reads_only_announcements_someone_waits_for() -> None:
    broker = Broker()
    assert not broker.wants(7, 1)  # nobody follows campaign 7
    broker.subscribe(7)
    assert broker.wants(7, 1)
    broker.publish(7, 4, _event(4))  # this process wrote it: published at its commit
    assert not broker.wants(7, 4)  # its own NOTIFY, coming back, is not even parsed
    assert not broker.wants(7, 3)
    assert broker.wants(7, 5)
    note = note_of("roll", 3, '{"v":"public"}', "{}", WHEN)
    assert note_head(f"7:12:345{note}") == (7, 12)
    with pytest.raises(ValueError):
        note_head("sieben:12:345")


def test_note_round_trip_and_size_limit() -> None:
    payload = '{"total": 17, "label": "Kletterei \\u00fcber die Mauer"}'
    note = note_of("roll", 3, '{"v": "self", "to": {"9": 1}, "stub": 1}', payload, WHEN)
    campaign_id, seq, event = event_from_note(f"7:12:345{note}")
    assert (campaign_id, seq) == (7, 12)
    assert event is not None
    assert (event.id, event.type, event.actor_id, event.visibility) == (345, "roll", 3, "self")
    assert event.audience == {"v": "self", "to": {"9": 1}, "stub": 1}
    assert event.payload == {"total": 17, "label": "Kletterei über die Mauer"}
    assert event.created_at == WHEN
    big = '{"text": "%s"}' % ("x" * NOTE_MAX)
    assert note_of("roll", 3, '{"v":"public"}', big, WHEN) == ""
    assert event_from_note("7:12:345") == (7, 12, None)
    with pytest.raises(ValueError):
        event_from_note("7:zwölf:345")


async def test_the_notification_carries_the_event_as_committed(
    app: FastAPI, client: httpx.AsyncClient, database_url: str
) -> None:
    """On PostgreSQL the NOTIFY of a roll holds the very row the log holds."""
    if not database_url.startswith("postgresql"):
        pytest.skip("NOTIFY is PostgreSQL's")
    await register(client, "notegm")
    campaign = (
        await client.post("/api/v1/campaigns", json={"name": "Noten", "system": "hh"})
    ).json()
    conninfo = "postgresql://" + database_url.partition("://")[2]
    async with await psycopg.AsyncConnection.connect(conninfo, autocommit=True) as listener:
        await listener.execute(f"LISTEN {NOTIFY_CHANNEL}")
        r = await client.post(
            f"/api/v1/campaigns/{campaign['id']}/rolls",
            json={"expression": "3W6+2", "label": "Schlösser öffnen", "visibility": "self"},
        )
        assert r.status_code == 201
        gen = listener.notifies(timeout=5, stop_after=1)
        notes = [n.payload async for n in gen]
    campaign_id, seq, carried = event_from_note(notes[0])
    async with app.state.ctx.sessionmaker() as session:
        stored = await session.scalar(
            select(CampaignEvent).where(
                CampaignEvent.campaign_id == campaign_id, CampaignEvent.seq == seq
            )
        )
    assert stored is not None and carried is not None
    assert seq == r.json()["event_id"]
    columns = ("id", "campaign_id", "seq", "type", "actor_id", "audience")
    assert [getattr(carried, c) for c in columns] == [getattr(stored, c) for c in columns]
    assert carried.payload == stored.payload and carried.payload["label"] == "Schlösser öffnen"
    assert carried.created_at == stored.created_at


async def test_subscription_wait_wakes_and_times_out() -> None:
    broker = Broker()
    sub = broker.subscribe(7)
    assert await sub.wait(0.01) is False
    sub.wake()  # rung before anyone waits: the next wait returns at once
    assert await sub.wait(5) is True

    async def ring_later() -> None:
        await asyncio.sleep(0.01)
        broker.publish(7, 1)

    ringer = asyncio.create_task(ring_later())
    assert await asyncio.wait_for(sub.wait(5), 1) is True
    await ringer
    sub.close()
    assert broker.subscriber_count == 0


@pytest.mark.parametrize(
    "data, lines",
    [
        ('{"a":1}', ['data: {"a":1}']),
        ("<li>\n  Wurf\r\n</li>", ["data: <li>", "data:   Wurf", "data: </li>"]),
    ],
)
def test_sse_frames(data: str, lines: list[str]) -> None:
    frame = Outgoing(12, "roll", data).frame().decode()
    assert frame == "\r\n".join(["id: 12", "event: roll", *lines]) + "\r\n\r\n"


def test_nothing_is_kept_for_a_campaign_nobody_follows() -> None:
    broker = Broker()
    sub = broker.subscribe(7)
    _complete_tail(broker, 3)
    broker.publish(7, 4, _event(4))
    sub.close()
    # The campaign id comes again (SQLite after a delete), its log starts over at 1.
    again = broker.subscribe(7)
    broker.recent(7).start(0)
    broker.recent(7).fresh = broker.recent(7).generation
    broker.publish(7, 1, _event(1))
    assert [e.seq for e in broker.recent(7).after(0, 10)] == [1]
    assert again._rung


def test_encoded_events_belong_to_their_event_not_to_its_ids() -> None:
    first, second = _event(4), _event(4)
    second.payload = {"total": 99}
    assert '"total":4' in encode(VisibleEvent(first))
    assert '"total":99' in encode(VisibleEvent(second))
    assert '"secret":true' in encode(VisibleEvent(first, Form.stub))
