"""What a member is told on any page of the campaign: a fight began, it is your turn, defend.

The one place that decides what is worth a notice, per viewer and from what the viewer may see
(:func:`app.encounters.views.turn` and :func:`~app.encounters.views.pending` already leave out
hidden participants). The notices stream (``app/encounters/live.py``, ``NOTICES``) asks
:func:`after_event` for every combat step that changed the turn, the open defence or the
status; the notice fragment every campaign page loads asks :func:`standing`. A notice that
still holds is the same notice (its ``key``), so the browser announces it once.

Priority: a defence the viewer must answer, then the viewer's turn, then the start of a fight
(only to those who did not start it). Observers and GMs are told of a fight's start only: the
GM acts for every NSC, and an observer has no turn.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.viewer import Viewer
from app.encounters import events as encounter_events
from app.encounters import service, views
from app.encounters.models import Encounter
from app.events.service import VisibleEvent
from app.i18n import N_


@dataclass(frozen=True, slots=True)
class Notice:
    """One notice for one viewer."""

    #: "defend", "turn" or "started".
    kind: str
    #: Equal for the same standing notice: the browser announces a key once.
    key: str
    encounter_id: int
    encounter_name: str
    #: The short form for the tab title (a msgid).
    title: str
    #: The figure concerned (the viewer's on their turn, the attacker when defending).
    who: str | None = None
    target: str | None = None


TITLES = {
    "defend": N_("Defend yourself"),
    "turn": N_("Your turn"),
    "started": N_("Fight!"),
}


def _standing(loaded: service.Loaded) -> Notice | None:
    """The defence the viewer must answer or the viewer's turn in this running fight."""
    enc = loaded.encounter
    if enc.status != "running" or loaded.viewer.is_gm:
        return None
    pending = views.pending(loaded)
    if pending is not None and pending["answer"] == "owner":
        return Notice(
            "defend",
            f"defend:{enc.id}:{pending['deadline']}",
            enc.id,
            enc.name,
            TITLES["defend"],
            who=pending["attacker"],
            target=pending["target"],
        )
    turn = views.turn(loaded)
    if turn["mine"]:
        key = f"turn:{enc.id}:{turn['round']}:{turn['pid']}:{turn['step'] or ''}"
        return Notice("turn", key, enc.id, enc.name, TITLES["turn"], who=turn["name"])
    return None


#: A fight's rows as :func:`app.encounters.service.live_rows` reads them, by its id: the
#: notices stream shares them with every viewer a step wakes (``app/encounters/live.py``).
RowsOf = Callable[[int], Awaitable[service.LiveRows | None]]


def rows_read_by(session: AsyncSession, campaign_id: int) -> RowsOf:
    """Each fight's rows read with ``session`` (a page's notice: one viewer)."""

    async def rows(encounter_id: int) -> service.LiveRows | None:
        return await service.live_rows(session, campaign_id, encounter_id)

    return rows


async def standing(
    session: AsyncSession, viewer: Viewer, campaign_id: int, rows: RowsOf | None = None
) -> Notice | None:
    """The notice that holds now in any running fight of the campaign (newest fight first)."""
    rows = rows or rows_read_by(session, campaign_id)
    running = (
        await session.scalars(
            select(Encounter.id)
            .where(Encounter.campaign_id == campaign_id, Encounter.status == "running")
            .order_by(Encounter.id.desc())
        )
    ).all()
    for encounter_id in running:
        loaded = service.as_viewer(await rows(encounter_id), viewer)
        notice = _standing(loaded) if loaded is not None else None
        if notice is not None:
            return notice
    return None


def worth_a_look(event: VisibleEvent) -> bool:
    """Whether a (projected) event may change a viewer's notice."""
    if event.type != encounter_events.Combat.TYPE or event.redacted:
        return False
    p = event.event.payload
    return bool(p.get("turn_changed") or p.get("pending_changed") or p.get("status_changed"))


async def after_event(
    session: AsyncSession, viewer: Viewer, campaign_id: int, event: VisibleEvent, rows: RowsOf
) -> Notice | None:
    """The viewer's notice after a combat step (``None``: nothing to tell any more)."""
    encounter_id = event.event.payload.get("encounter_id")
    if not isinstance(encounter_id, int):
        return None
    loaded = service.as_viewer(await rows(encounter_id), viewer)
    if loaded is not None:
        notice = _standing(loaded)
        if notice is not None:
            return notice
        enc = loaded.encounter
        started = event.event.payload.get("status_changed") and enc.status == "running"
        if started and event.event.actor_id != viewer.user_id:
            return Notice("started", f"started:{enc.id}:{event.seq}", enc.id, enc.name,
                          TITLES["started"])  # fmt: skip
    return await standing(session, viewer, campaign_id, rows)
