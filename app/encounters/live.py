"""The combat page's live regions, registered on :data:`COMBAT_PAGE`.

Every ``combat`` event of the encounter becomes one SSE message ``combat`` (the page bundles
its regions) whose body holds out-of-band swaps of the regions it changed: its log entry
(prepended to the log), the roster rows of changed figures (or the whole roster when
participants or the order changed), the turn marker, the pending step and the viewer's
controls. Regions are rendered from the current state with the same template blocks and the
same context builder (:func:`app.encounters.views.page_context`) as the page.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.characters import events as character_events
from app.core.viewer import Role, Viewer
from app.encounters import events as encounter_events
from app.encounters import notices, service, views
from app.encounters.models import Participant
from app.events.models import CampaignEvent
from app.events.service import VisibleEvent, can_see
from app.events.stream import Outgoing
from app.web.regions import Batch, Page, Region, shared_by, shared_load
from app.web.templating import render

TEMPLATE = "encounters/combat.html"
STATE = frozenset({"state"})


@dataclass(frozen=True, slots=True)
class CombatPage:
    """What a combat page is about (the key of its live stream)."""

    campaign_id: int
    encounter_id: int


def shared_rows(session: AsyncSession, campaign_id: int) -> notices.RowsOf:
    """A fight's rows, read once per step for every viewer it wakes, on any page (the combat
    page and every page's notices share them)."""

    async def rows(encounter_id: int) -> service.LiveRows | None:
        key = CombatPage(campaign_id, encounter_id)
        return await shared_load(
            ("combat rows", key), lambda: service.live_rows(session, campaign_id, encounter_id)
        )

    return rows


async def live_context(
    session: AsyncSession, viewer: Viewer, key: CombatPage, _parts: frozenset[str]
) -> dict[str, object] | None:
    rows = await shared_rows(session, key.campaign_id)(key.encounter_id)
    loaded = service.as_viewer(rows, viewer)
    return None if loaded is None else views.page_context(loaded, service.LogWindow([], None))


#: Observers all see the same fight (they act in none of it); a player sees their own
#: controls, a GM the hidden figures: one render per observer crowd, player and GM.
COMBAT_PAGE: Page[CombatPage] = Page(
    "combat", load=live_context, bundle="combat", audience=shared_by(Role.observer)
)


def _combat_step(key: CombatPage, event: VisibleEvent) -> bool:
    return (
        event.type == encounter_events.Combat.TYPE
        and not event.redacted
        and event.event.payload.get("encounter_id") == key.encounter_id
    )


def _sheet_change(key: CombatPage, event: VisibleEvent) -> bool:
    """A sheet changed outside the fight (its values are the fight's, issue 13); the fight's
    own write-backs (``character_fought``) come with their ``combat`` step."""
    return (
        event.type.startswith("character_")
        and event.type != character_events.CharacterFought.TYPE
        and not event.redacted
    )


def _roster_change(key: CombatPage, event: VisibleEvent) -> bool:
    return _combat_step(key, event) or _sheet_change(key, event)


def _sheet_rows(
    context: Mapping[str, object],
    roster: Sequence[views.RowView],
    participants: Sequence[Participant],
    visible: VisibleEvent,
) -> str:
    """The row of the changed character's figure ("" when it is not in this fight)."""
    cid = visible.event.payload.get("character_id")
    pids = {str(p.id) for p in participants if p.character_id == cid}
    return "\n".join(
        render(TEMPLATE, "row", **{**context, "row": row, "oob": True})
        for row in roster
        if row["pid"] in pids and row.get("in_fight")
    )


def _oob(block: str, context: Mapping[str, object]) -> str:
    return render(TEMPLATE, block, **{**context, "oob": True})


def _per_event(block: str) -> Callable[[Batch[CombatPage]], Awaitable[list[Outgoing]]]:
    """A region that swaps ``block`` after every step of the fight."""

    async def push(batch: Batch[CombatPage]) -> list[Outgoing]:
        html = _oob(block, dict(batch.context))
        return [Outgoing(e.seq, block, html) for e in batch.events]

    return push


async def _push_log(batch: Batch[CombatPage]) -> list[Outgoing]:
    """The step's log entry, and the entries it undid re-rendered as undone."""
    assert batch.session is not None  # the region needs STATE, so the stream opened one
    context = {**batch.context, "oob": True}
    undone = {int(s) for s in (context["encounter"].state or {}).get("undone", [])}
    out: list[Outgoing] = []
    for visible in batch.events:
        parts: list[str] = []
        pushed = partial(_log_push, context, visible.event, undone)
        if html := views.once_per_push(context, ("log_push", visible.event.id), pushed):
            parts.append(html)
        for old in await _undone_by(batch.session, visible, batch.viewer):
            entry = views.entry_view(old, undone)
            parts.append(render(TEMPLATE, "log_entry", **{**context, "entry": entry}))
        out.append(Outgoing(visible.seq, "log", "\n".join(parts)))
    return out


def _log_push(context: Mapping[str, object], event: CampaignEvent, undone: set[int]) -> str:
    """The step's log entry for the top of the log ("" for a step without lines)."""
    entry = views.entry_view(event, undone)
    return render(TEMPLATE, "log_push", **{**context, "entry": entry}) if entry["lines"] else ""


async def _undone_by(
    session: AsyncSession, visible: VisibleEvent, viewer: Viewer
) -> list[CampaignEvent]:
    """The earlier steps an undo step took back, those the viewer may see."""
    out: list[CampaignEvent] = []
    for seq in visible.event.payload.get("undo_of", []):
        old = await session.scalar(
            select(CampaignEvent).where(
                CampaignEvent.campaign_id == visible.event.campaign_id, CampaignEvent.seq == seq
            )
        )
        if old is not None and can_see(old, viewer):
            out.append(old)
    return out


async def _push_roster(batch: Batch[CombatPage]) -> list[Outgoing]:
    """The whole roster when who fights or the order changed, else the changed rows."""
    context = dict(batch.context)
    roster: list[views.RowView] = context["rows"]
    participants: list[Participant] = context["participants"]
    rows = {r["pid"]: r for r in roster}
    out: list[Outgoing] = []
    for visible in batch.events:
        p = visible.event.payload
        if visible.type != encounter_events.Combat.TYPE:
            html = _sheet_rows(context, roster, participants, visible)
        elif p.get("roster_changed") or p.get("order_changed") or p.get("turn_changed"):
            html = _oob("roster", context)
        else:
            changed = [rows[str(pid)] for pid in p.get("changed", []) if str(pid) in rows]
            html = "\n".join(
                render(TEMPLATE, "row", **{**context, "row": row, "oob": True}) for row in changed
            )
        out.append(Outgoing(visible.seq, "roster", html))
    return out


# --- notices on every page of the campaign -------------------------------------------------


@dataclass(frozen=True, slots=True)
class NoticePage:
    """Any page of a campaign (the key of the notices stream)."""

    campaign_id: int


NOTICE_TEMPLATE = "encounters/_notice.html"


async def _no_context(
    _session: AsyncSession, _viewer: Viewer, _key: NoticePage, _parts: frozenset[str]
) -> dict[str, object] | None:
    return {}


NOTICES: Page[NoticePage] = Page("notices", load=_no_context)


async def _push_notice(batch: Batch[NoticePage]) -> list[Outgoing]:
    """The viewer's notice after the batch's last step that may have changed it."""
    assert batch.session is not None  # the region has parts, so the stream opened one
    last = batch.events[-1]
    cid = batch.key.campaign_id
    rows = shared_rows(batch.session, cid)
    notice = await notices.after_event(batch.session, batch.viewer, cid, last, rows)
    html = render(NOTICE_TEMPLATE, "notice", notice=notice, campaign_id=batch.key.campaign_id)
    return [Outgoing(last.seq, "notice", html)]


@dataclass(frozen=True, slots=True)
class EncounterList:
    """The campaign's list of encounters (the key of its live stream)."""

    campaign_id: int


async def _list_context(
    session: AsyncSession, viewer: Viewer, key: EncounterList, _parts: frozenset[str]
) -> dict[str, object] | None:
    listed = await service.encounters_for(session, key.campaign_id, viewer)
    return {
        "campaign_id": key.campaign_id,
        "encounters": listed,
        "status_labels": views.STATUS_LABELS,
    }


#: The list of encounters follows the fights: one that starts shows up for the players, and
#: every entry says whether it runs or ended.
ENCOUNTER_LIST: Page[EncounterList] = Page("encounter_list", load=_list_context)


async def _push_list(batch: Batch[EncounterList]) -> list[Outgoing]:
    html = render("encounters/index.html", "list", **batch.context)
    return [Outgoing(batch.last_seq, "list", html)]


def register_regions() -> None:
    """Put this module's regions on their pages (``app.wiring`` calls it once)."""
    COMBAT_PAGE.register(Region("log", _combat_step, _push_log, parts=STATE))
    COMBAT_PAGE.register(Region("roster", _roster_change, _push_roster, parts=STATE))
    COMBAT_PAGE.register(Region("turn", _combat_step, _per_event("turn"), parts=STATE))
    COMBAT_PAGE.register(Region("pending", _combat_step, _per_event("pending"), parts=STATE))
    COMBAT_PAGE.register(Region("controls", _combat_step, _per_event("controls"), parts=STATE))
    #: The header's "Running" / "Ended": a fight that starts or ends says so at once.
    COMBAT_PAGE.register(Region("status", _combat_step, _per_event("status"), parts=STATE))
    NOTICES.register(
        Region(
            "notice",
            lambda _key, event: notices.worth_a_look(event),
            _push_notice,
            parts=frozenset({"notice"}),
        )
    )
    ENCOUNTER_LIST.register(
        Region(
            "list", lambda _key, e: e.type == encounter_events.Combat.TYPE, _push_list, parts=STATE
        )
    )
