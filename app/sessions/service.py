"""Game sessions: start and end, client seeds, the fair-play rule, overrides, and what a
member may read of a session (its fair-play export and its record).

Fair play (``docs/fairplay.md``): starting a session draws the ``server_seed`` and publishes
its commitment in ``session_started``, the first event of the session's hash chain (the
log, ``app.events.service.append_event``, chains every event while
``campaign.fairplay_session_id`` names the session); ending it publishes the seed.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

from sqlalchemy import Boolean, Integer, bindparam, column, func, select, table, update
from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.accounts.models import User
from app.campaigns.models import Campaign
from app.campaigns.permissions import Action, authorize
from app.core.queries import all_rows
from app.core.viewer import Viewer
from app.db import utcnow
from app.errors import Conflict, NotFound, ValidationFailed
from app.events import fairplay
from app.events.audience import PARTIES
from app.events.events import Roll
from app.events.models import CampaignEvent
from app.events.service import append_event, assume_no_fairplay, lock_log, sees_whole
from app.i18n import _
from app.sessions.events import ClientSeedSet, FairPlayConfigured, SessionEnded, SessionStarted
from app.sessions.models import ClientSeed, FairPlayRule, GameSession

OVERRIDE_RULES = ("forbidden", "marked", "silent")


@dataclass(frozen=True, slots=True)
class Rule:
    """A campaign's fair-play rule as it is now (the defaults without a row)."""

    enabled: bool = False
    overrides: str = "marked"
    reveal_secret_rolls: bool = True
    version: int = 0


async def rule(session: AsyncSession, campaign_id: int) -> Rule:
    return rule_of(await session.get(FairPlayRule, campaign_id))


def rule_of(row: FairPlayRule | None) -> Rule:
    """The rule a campaign's row says (the defaults without one)."""
    if row is None:
        return Rule()
    return Rule(row.enabled, row.overrides, row.reveal_secret_rolls, row.version)


_OPEN_SESSION = select(GameSession).where(
    GameSession.campaign_id == bindparam("campaign_id"), GameSession.ended_at.is_(None)
)


async def open_session(session: AsyncSession, campaign_id: int) -> GameSession | None:
    return await session.scalar(_OPEN_SESSION, {"campaign_id": campaign_id})


async def configure(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    *,
    enabled: bool,
    overrides: str,
    reveal_secret_rolls: bool,
) -> Rule:
    """The GM sets the table rule; it applies from the next session on."""
    await authorize(session, campaign_id, user.id, user.username, Action.configure_fairplay)
    if overrides not in OVERRIDE_RULES:
        raise ValidationFailed({"overrides": _("Choose forbidden, marked or silent.")})
    await lock_log(session, campaign_id)
    if await open_session(session, campaign_id) is not None:
        raise Conflict(_("End the running session before changing the fair-play rule."))
    row = await session.get(FairPlayRule, campaign_id)
    if row is None:
        row = FairPlayRule(campaign_id=campaign_id)
        session.add(row)
    row.enabled, row.overrides, row.reveal_secret_rolls = enabled, overrides, reveal_secret_rolls
    await session.flush()
    await append_event(
        session,
        campaign_id,
        FairPlayConfigured(
            actor_name=user.username,
            enabled=enabled,
            overrides=overrides,
            reveal_secret_rolls=reveal_secret_rolls,
        ),
        actor_id=user.id,
    )
    return await rule(session, campaign_id)


async def start(session: AsyncSession, user: User, campaign_id: int) -> GameSession:
    """Start a session; with fair play on, commit to a fresh server seed before any roll."""
    await authorize(session, campaign_id, user.id, user.username, Action.run_sessions)
    next_seq, _open = await lock_log(session, campaign_id)
    if await open_session(session, campaign_id) is not None:
        raise Conflict(_("A session is already running."))
    count = await session.scalar(
        select(func.count()).select_from(GameSession).where(GameSession.campaign_id == campaign_id)
    )
    if (count or 0) >= limits.SESSIONS_PER_CAMPAIGN:
        raise ValidationFailed(
            {"session": _("At most %(max)d sessions.", max=limits.SESSIONS_PER_CAMPAIGN)}
        )
    table = await rule(session, campaign_id)
    seed = secrets.token_bytes(32) if table.enabled else None
    game = GameSession(
        campaign_id=campaign_id,
        started_by=user.id,
        started_at=utcnow(),
        start_seq=next_seq,
        server_seed=seed.hex() if seed else None,
        commitment=hashlib.sha256(seed).hexdigest() if seed else None,
        overrides=table.overrides if seed else None,
        reveal_secret_rolls=table.reveal_secret_rolls and seed is not None,
    )
    session.add(game)
    await session.flush()
    if seed is not None:
        await _set_open(session, campaign_id, game.id, game.commitment)
    event = await append_event(
        session,
        campaign_id,
        SessionStarted(
            actor_name=user.username,
            session_id=game.id,
            commitment=game.commitment,
            overrides=game.overrides,
            reveal_secret_rolls=game.reveal_secret_rolls,
        ),
        actor_id=user.id,
    )
    game.start_seq = event.seq
    return game


async def _set_open(
    session: AsyncSession, campaign_id: int, session_id: int | None, chain: str | None
) -> None:
    """Name the open fair-play session on the campaign row (the log chains its events)."""
    await session.execute(
        update(Campaign.__table__)  # type: ignore[arg-type]
        .where(Campaign.__table__.c.id == campaign_id)
        .values(fairplay_session_id=session_id, fairplay_chain=chain)
    )


async def _game(
    session: AsyncSession, user: User, campaign_id: int, session_id: int, action: Action
) -> tuple[GameSession, Viewer]:
    _campaign, viewer = await authorize(session, campaign_id, user.id, user.username, action)
    game = await session.get(GameSession, session_id)
    if game is None or game.campaign_id != campaign_id:
        raise NotFound(_("Session not found."))
    return game, viewer


async def end(session: AsyncSession, user: User, campaign_id: int, session_id: int) -> GameSession:
    """End the session; with fair play, publish its server seed (the last chained event)."""
    game, _viewer = await _game(session, user, campaign_id, session_id, Action.run_sessions)
    await lock_log(session, campaign_id)
    await session.refresh(game)
    if game.ended_at is not None:
        raise Conflict(_("This session has already ended."))
    event = await append_event(
        session,
        campaign_id,
        SessionEnded(actor_name=user.username, session_id=game.id, server_seed=game.server_seed),
        actor_id=user.id,
    )
    if game.commitment is not None:
        await _set_open(session, campaign_id, None, None)
    game.ended_at, game.end_seq = utcnow(), event.seq
    await session.flush()
    return game


async def set_seed(
    session: AsyncSession, user: User, campaign_id: int, session_id: int, client_seed: str
) -> ClientSeed:
    """A member sets their client seed for their rolls in the open fair-play session."""
    game, _viewer = await _game(session, user, campaign_id, session_id, Action.set_client_seed)
    if problem := limits.text_problem(client_seed, limits.CLIENT_SEED_MAX):
        raise ValidationFailed({"client_seed": problem})
    await lock_log(session, campaign_id)
    await session.refresh(game)
    if game.ended_at is not None or game.commitment is None:
        raise Conflict(_("Client seeds are set in a running fair-play session."))
    row = await session.get(ClientSeed, (game.id, user.id))
    if row is None:
        row = ClientSeed(session_id=game.id, user_id=user.id, client_seed=client_seed)
        session.add(row)
    row.client_seed = client_seed
    await session.flush()
    await append_event(
        session,
        campaign_id,
        ClientSeedSet(actor_name=user.username, session_id=game.id, client_seed=client_seed),
        actor_id=user.id,
    )
    return row


async def guard_override(session: AsyncSession, campaign: Campaign) -> None:
    """A GM override (an LP edit, an undo) under the running session's table rule:
    ``forbidden`` refuses it (409), ``marked`` marks its events, ``silent`` lets it be.

    Only a fair-play session has a table rule: when the campaign row read with the
    sign-in shows none, nothing is read (:func:`app.events.service.assume_no_fairplay`
    refuses the override's first event should one have opened since)."""
    if campaign.fairplay_session_id is None:
        assume_no_fairplay(session, campaign.id)
        return
    game = await open_session(session, campaign.id)
    if game is None or game.overrides is None or game.overrides == "silent":
        return
    if game.overrides == "forbidden":
        raise Conflict(_("The table rule of this fair-play session forbids GM overrides."))
    fairplay.mark_override(session, campaign.id)


async def sessions_of(session: AsyncSession, user: User, campaign_id: int) -> list[GameSession]:
    """Every session of the campaign, newest first (every member may list them)."""
    await authorize(session, campaign_id, user.id, user.username, Action.view)
    return await all_rows(
        session,
        select(GameSession)
        .where(GameSession.campaign_id == campaign_id)
        .order_by(GameSession.start_seq.desc()),
    )


async def session_events(session: AsyncSession, game: GameSession) -> Sequence[CampaignEvent]:
    """The events of the session, in ``seq`` order (to the newest while it runs)."""
    query = select(CampaignEvent).where(
        CampaignEvent.campaign_id == game.campaign_id, CampaignEvent.seq >= game.start_seq
    )
    if game.end_seq is not None:
        query = query.where(CampaignEvent.seq <= game.end_seq)
    return (await session.scalars(query.order_by(CampaignEvent.seq))).all()


async def open_game(
    session: AsyncSession, user: User, campaign_id: int, session_id: int
) -> tuple[GameSession, Viewer]:
    """A session of the campaign for a member (404 for non-members and other campaigns)."""
    return await _game(session, user, campaign_id, session_id, Action.view)


#: The secret rolls the rule ``reveal_secret_rolls`` shows everyone after the session: rolls
#: of the dice log for the GMs (a GM's secret roll, a roll to the GM). A whisper stays a
#: whisper, and a combat action's GM-only lines stay the GMs' (they do not record which
#: participants they name, so nobody can tell whether one of them is still hidden).
REVEALABLE = frozenset({"gm", "self"})

#: The character table's columns the reveal reads (sessions sit below the characters
#: package, as the log names the campaign row: ``app.events.service._CAMPAIGN_SEQ``).
_CHARACTER = table(
    "character",
    column("id", Integer),
    column("campaign_id", Integer),
    column("hidden_from_players", Boolean),
)


def named_characters(event: CampaignEvent) -> set[int]:
    """The characters an event's payload names (what it is about, and in passing)."""
    return {
        int(value) for party in PARTIES if isinstance(value := event.payload.get(party.id_key), int)
    }


async def hidden_now(
    session: AsyncSession, campaign_id: int, events: Sequence[CampaignEvent]
) -> set[int]:
    """Which of the characters these events name are hidden from the players now."""
    named = set().union(*(named_characters(e) for e in events)) if events else set()
    if not named:
        return set()
    c = _CHARACTER.c
    rows = await session.scalars(
        select(c.id).where(
            c.campaign_id == campaign_id, c.hidden_from_players.is_(True), c.id.in_(named)
        )
    )
    return set(rows.all())


def revealed(game: GameSession, event: CampaignEvent, hidden: Collection[int]) -> bool:
    """A secret roll shown to everyone: the session has ended, its rule reveals rolls, and
    the roll names no character that is still hidden (an NSC the players have not met
    stays unnamed after the session too; its roll stays digest-only)."""
    return (
        game.ended_at is not None
        and game.reveal_secret_rolls
        and event.type == Roll.TYPE
        and event.visibility in REVEALABLE
        and bool(event.fairplay and event.fairplay.get("draws"))
        and named_characters(event).isdisjoint(hidden)
    )


class ExportedEvent(TypedDict):
    """An event of the fair-play export: its ``fairplay`` as shown to the caller and its
    payload (``None`` where they may not see it)."""

    seq: int
    type: str
    fairplay: Mapping[str, object] | None
    payload: object


class FairplayExport(TypedDict):
    """What the verifiers read (:func:`fairplay_export`)."""

    campaign_id: int
    session_id: int
    commitment: str
    server_seed: str | None
    events: list[ExportedEvent]


async def fairplay_export(
    session: AsyncSession, user: User, campaign_id: int, session_id: int
) -> FairplayExport:
    """What the verifiers read: the commitment, the seed once published, and every event
    of the session with its ``fairplay``; ``payload`` (and the draws and the salt) null
    where the caller may not see them (a payload that reaches them reduced, without a hidden
    character it names, counts as unseen: its digest could not be checked from it)."""
    game, viewer = await open_game(session, user, campaign_id, session_id)
    if game.commitment is None:
        raise Conflict(_("This session was played without fair play."))
    events = await session_events(session, game)
    hidden = await hidden_now(session, campaign_id, events) if game.ended_at else set()
    # An imported session (``origin``) verifies with the ids and payloads it was made with.
    origin = game.origin
    hashed = (origin.get("payloads") if origin else None) or {}
    out: list[ExportedEvent] = []
    for e in events:
        whole = sees_whole(e, viewer) or revealed(game, e, hidden)
        out.append(
            {
                "seq": e.seq,
                "type": e.type,
                "fairplay": None if e.fairplay is None else fairplay.shown(e.fairplay, whole),
                "payload": hashed.get(str(e.seq), e.payload) if whole else None,
            }
        )
    return {
        "campaign_id": origin.get("campaign_id", campaign_id) if origin else campaign_id,
        "session_id": origin.get("session_id", game.id) if origin else game.id,
        "commitment": game.commitment,
        "server_seed": game.server_seed if game.ended_at is not None else None,
        "events": out,
    }
