"""The Audience (``app.events.audience``) is one rule: random audiences and viewers, checked
against the real database (SQLite or PostgreSQL, whichever the suite runs on).

- The SQL twin (``visible_to``) selects exactly the events the Python projection gives the
  viewer in some form (and, without stubs, in a form with content).
- No projection of any event names a hidden party to a player.
- A map event reaches a player only while they see its scene (and token, but for a removal)
  now, and never from a reader that cannot say what they see now (nor from SQL).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Connection, create_engine, insert, select

from app.campaigns.models import Campaign
from app.core.viewer import Role, Viewer
from app.events import audience as a
from app.events.models import CampaignEvent
from app.events.service import project, visible_to
from tests.blocking import blocking_url

USERS = st.integers(1, 5)
WHEN = datetime(2026, 12, 3, 6, 0, tzinfo=UTC)
CHARACTERS = st.integers(10, 14)


def _name(character_id: int) -> str:
    return f"Geheim{character_id}"


@st.composite
def payloads(draw: st.DrawFn) -> dict[str, Any]:
    """A payload that names up to three characters in the places an event may name them."""
    out: dict[str, Any] = {"actor_name": "gm", "item_name": "Seil"}
    for party in a.PARTIES:
        if draw(st.booleans()):
            cid = draw(CHARACTERS)
            out[party.id_key] = cid
            out.update({k: _name(cid) for k in party.keys if k != party.id_key})
    return out


FORMS = st.sampled_from(
    [{"type": "token_removed", "scene_id": 1, "token_id": 7}, {"type": "token_added", "token": {}}]
)


def _bases() -> st.SearchStrategy[a.Audience]:
    return st.one_of(
        st.just(a.public()),
        st.just(a.gm_only()),
        USERS.map(a.only),
        st.frozensets(USERS, max_size=3).map(a.listed),
    )


def _sights() -> st.SearchStrategy[a.Audience]:
    return st.builds(
        a.sight,
        st.integers(1, 2),
        st.one_of(st.none(), st.integers(7, 8)),
        st.one_of(st.none(), FORMS),
        st.dictionaries(USERS, st.one_of(st.none(), FORMS), max_size=3),
        seen=st.booleans(),
    )


@st.composite
def events(draw: st.DrawFn) -> tuple[a.Audience, dict[str, Any], frozenset[int]]:
    """An audience built by the constructors, its payload and the characters hidden."""
    payload = draw(payloads())
    hidden = draw(st.frozensets(CHARACTERS, max_size=3))
    kind = draw(st.sampled_from(["base", "about", "sight"]))
    if kind == "sight":
        audience = draw(_sights())
    else:
        audience = draw(_bases())
        if kind == "about":
            audience = a.about(payload, hidden, audience)
    if draw(st.booleans()):
        audience = audience.read_by(draw(USERS))
    if draw(st.booleans()):
        audience = audience.stubbed()
    return audience, payload, hidden if kind == "about" else frozenset()


VIEWERS = st.builds(Viewer, USERS, st.just("v"), st.sampled_from(list(Role)))


@pytest.fixture(scope="module")
def log(database_url: str) -> Iterator[tuple[Connection, int]]:
    """A connection to the test database with a campaign, all rolled back at the end."""
    url = blocking_url(database_url)
    engine = create_engine(url)
    with engine.connect() as conn:
        outer = conn.begin()
        campaign_id = conn.execute(
            insert(Campaign).values(name="Eigenschaft", system="hh").returning(Campaign.id)
        ).scalar_one()
        yield conn, int(campaign_id)
        outer.rollback()
    engine.dispose()


def _row(campaign_id: int, seq: int, audience: a.Audience, payload: dict[str, Any]) -> Any:
    return CampaignEvent(
        campaign_id=campaign_id,
        seq=seq,
        type="character_item_moved",
        actor_id=None,
        audience=audience.to_json(),
        payload=payload,
        created_at=WHEN,
    )


@given(st.lists(events(), min_size=1, max_size=8), st.lists(VIEWERS, min_size=1, max_size=4))
def test_the_sql_twin_and_the_projection_agree(
    log: tuple[Connection, int],
    drawn: list[tuple[a.Audience, dict[str, Any], frozenset[int]]],
    viewers: list[Viewer],
) -> None:
    conn, campaign_id = log
    rows = [_row(campaign_id, n, aud, payload) for n, (aud, payload, _h) in enumerate(drawn, 1)]
    step = conn.begin_nested()
    try:
        conn.execute(
            insert(CampaignEvent),
            [
                {k: getattr(r, k) for k in ("campaign_id", "seq", "type", "audience", "payload")}
                | {"created_at": WHEN}
                for r in rows
            ],
        )
        for viewer in viewers:
            projected = project(rows, viewer)
            for stubs in (True, False):
                found = conn.scalars(
                    select(CampaignEvent.seq)
                    .where(
                        CampaignEvent.campaign_id == campaign_id, visible_to(viewer, stubs=stubs)
                    )
                    .order_by(CampaignEvent.seq)
                ).all()
                expected = [v.seq for v in projected if stubs or not v.redacted]
                assert list(found) == expected, (viewer, stubs, [r.audience for r in rows])
    finally:
        step.rollback()


@given(events(), VIEWERS)
def test_no_projection_names_a_hidden_party_to_a_player(
    drawn: tuple[a.Audience, dict[str, Any], frozenset[int]], viewer: Viewer
) -> None:
    audience, payload, hidden = drawn
    (event,) = [_row(1, 1, audience, payload)]
    event.id = 1
    shown = [v.data() for v in project([event], viewer)]
    if viewer.is_gm:
        assert len(shown) == 1 and shown[0]["item_name"] == "Seil"
        return
    text = json.dumps(shown)
    for cid in hidden:
        assert _name(cid) not in text, (audience, payload)
        for party in a.PARTIES:
            assert not any(e.get(party.id_key) == cid for e in shown), (audience, payload)


class _Now:
    def __init__(self, scenes: dict[int, frozenset[int]]) -> None:
        self.scenes = scenes

    def sees(self, scene_id: int, token_id: int | None) -> bool:
        seen = self.scenes.get(scene_id)
        return seen is not None and (token_id is None or token_id in seen)


@given(
    _sights(),
    VIEWERS,
    st.dictionaries(st.integers(1, 2), st.frozensets(st.integers(7, 8)), max_size=2),
)
def test_a_map_event_reaches_a_player_only_while_they_see_it_now(
    audience: a.Audience, viewer: Viewer, scenes: dict[int, frozenset[int]]
) -> None:
    now = _Now(scenes)
    form = a.form_for(audience, viewer, now)
    then = a.form_for(audience, viewer, _Now({1: frozenset({7, 8}), 2: frozenset({7, 8})}))
    if viewer.is_gm:
        assert form is a.Form.whole
        return
    # A reader that does not know the scene as it is gives players nothing of it.
    assert a.form_for(audience, viewer) is a.Form.nothing
    if form is a.Form.nothing:
        return
    scene, token = audience.scene_id, audience.token_id
    assert scene is not None and now.sees(scene, None)
    # Never more than when it happened.
    assert form is then
    if token is not None and not now.sees(scene, token):
        # Only a removal reaches a player of a token they do not see: it names its id only.
        replacement = a.form_data(audience, form, viewer.user_id)
        assert replacement is not None and replacement["type"] == "token_removed"
