"""An event's audience is read once for all the viewers a stream projects it for
(``app.events.service.audience_of``), and read anew when the event's audience is given a new
value — as a whisper's is when its part changes hands (``app.talk.transfer``)."""

from __future__ import annotations

from app.core.viewer import Role, Viewer
from app.events import audience as a
from app.events.models import CampaignEvent
from app.events.service import audience_of, project

PLAYER = Viewer(7, "p", Role.player)


def _whisper() -> CampaignEvent:
    return CampaignEvent(
        id=1, campaign_id=1, seq=1, type="chat_message", actor_id=3,
        audience=a.listed({5}).to_json(), payload={"text": "psst"},
    )  # fmt: skip


def test_the_same_event_gives_the_same_audience_to_every_viewer() -> None:
    event = _whisper()
    assert audience_of(event) is audience_of(event)
    assert project([event], PLAYER) == []


def test_a_new_audience_is_read_anew() -> None:
    event = _whisper()
    assert project([event], PLAYER) == []
    event.audience = a.Audience.from_json(event.audience).read_by(PLAYER.user_id).to_json()
    assert [v.event for v in project([event], PLAYER)] == [event]
    assert PLAYER.user_id in audience_of(event).readers
