"""Typed event payloads (issue 12 item 5): one shape per type, stored as it was built, read
back from older rows, and the visibilities a type allows enforced at append time."""

from __future__ import annotations

from dataclasses import fields

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.encounters import events as encounter_events
from app.events import events as log_events
from app.events import payload
from app.events.audience import gm_only
from app.events.models import CampaignEvent
from app.events.service import append_event
from app.rules.dice import ScriptedRoller
from tests.api.test_characters import create, make_table, patch
from tests.conftest import ClientFactory


async def _stored(app: FastAPI, campaign_id: int, type_: str) -> list[CampaignEvent]:
    async with app.state.ctx.sessionmaker() as session:
        return list(
            (
                await session.scalars(
                    select(CampaignEvent)
                    .where(CampaignEvent.campaign_id == campaign_id, CampaignEvent.type == type_)
                    .order_by(CampaignEvent.seq)
                )
            ).all()
        )


async def test_free_and_sheet_rolls_store_one_shape(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    c = await create(t)
    await patch(t, "player", c["id"], {"skills.Kampfkunst": 12})
    app.state.ctx.roller = ScriptedRoller([5, 6, 3, 4])
    r = await t["player"].post(f"{t.api}/rolls", json={"expression": "2d10+1", "label": "Frei"})
    assert r.status_code == 201, r.text
    r = await t["player"].post(
        f"{t.api}/characters/{c['id']}/roll", json={"target": "skill:Kampfkunst"}
    )
    assert r.status_code == 201, r.text
    free, sheet = await _stored(app, t.campaign_id, "roll")
    expected = [f.name for f in fields(log_events.Roll)]
    assert list(free.payload) == list(sheet.payload) == expected
    assert free.payload["signs"] == [1] and free.payload["total"] == 12
    assert free.payload["character_id"] is None and free.subject is None
    assert sheet.payload["signs"] == [1] and sheet.payload["character_id"] == c["id"]
    assert sheet.subject == f"character:{c['id']}"
    assert log_events.Roll.from_json(sheet.payload).summary == sheet.payload["summary"]
    # A character event carries its sheet as subject, a member event none.
    (updated,) = await _stored(app, t.campaign_id, "character_updated")
    assert updated.subject == f"character:{c['id']}"
    assert all(e.subject is None for e in await _stored(app, t.campaign_id, "member_joined"))


def test_a_free_roll_stored_before_the_sheet_fields_reads_back() -> None:
    old = {
        "actor_name": "gm",
        "expression": "1d20",
        "label": "",
        "dice": [{"sides": 20, "faces": [7], "kept": [True]}],
        "signs": [1],
        "modifier": 0,
        "total": 7,
    }
    roll = log_events.Roll.from_json(old)
    assert (roll.total, roll.system, roll.character_id, roll.subject) == (7, None, None, None)
    assert log_events.Roll.from_json(roll.to_json()) == roll


def test_every_type_is_registered_once_with_its_class() -> None:
    assert payload.EVENT_TYPES["roll"] is log_events.Roll
    assert all(name == cls.TYPE for name, cls in payload.EVENT_TYPES.items())
    assert len(set(payload.EVENT_TYPES.values())) == len(payload.EVENT_TYPES)


async def test_append_refuses_a_visibility_the_type_does_not_allow(
    make_client: ClientFactory, app: FastAPI
) -> None:
    t = await make_table(make_client, app)
    async with app.state.ctx.sessionmaker() as session:
        with pytest.raises(ValueError, match="never 'public'"):
            await append_event(
                session,
                t.campaign_id,
                encounter_events.EncounterPrepared(
                    actor_name="gm", kind="bestiary_samples", names=["X"]
                ),
                actor_id=t.ids["gm"],
            )
        with pytest.raises(ValueError, match="never 'gm'"):
            await append_event(
                session,
                t.campaign_id,
                log_events.MemberRemoved(actor_name="gm", user_id=t.ids["player"]),
                actor_id=t.ids["gm"],
                audience=gm_only(),
            )
