"""Game sessions and the fair-play rule in the campaign document.

Both are written whole, column by column (:mod:`app.transfer.rows`), so that a column added
to them travels. Columns naming accounts (``started_by``) do not: the copy names no account.

A fair-play session's dice were derived from its campaign's id, the events' ``seq`` and the
rollers' user ids, and its chain hashes every payload as it was stored. The copy keeps all
of that: the events keep their ``seq`` and their ``fairplay`` record unchanged, and the
session's ``origin`` holds the original campaign and session ids and the payloads as hashed
(the copy's log names its own rows). The fair-play export of the copy reads them from there,
so it verifies like the original. Every session is imported as finished; one that was still
open when exported lost its seed (never exported: it would let the exporter predict dice).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import utcnow
from app.errors import ValidationFailed
from app.events.models import CampaignEvent
from app.i18n import _
from app.sessions.models import FairPlayRule, GameSession
from app.transfer import rows

#: Columns that do not travel: the row's own ids and the accounts it names.
SESSION_SKIP = frozenset({"id", "campaign_id", "started_by"})
RULE_SKIP = frozenset({"campaign_id", "version"})
SessionDoc = rows.doc_model(GameSession, SESSION_SKIP)
RuleDoc = rows.doc_model(FairPlayRule, RULE_SKIP)


def _origin(game: GameSession, campaign_id: int, events: list[CampaignEvent]) -> dict[str, Any]:
    """What the session's dice and chain were made from (an imported one keeps its own)."""
    if game.origin is not None:
        return game.origin
    last = game.end_seq if game.end_seq is not None else max((e.seq for e in events), default=0)
    return {
        "campaign_id": campaign_id,
        "session_id": game.id,
        "payloads": {
            str(e.seq): e.payload for e in events if game.start_seq <= e.seq <= last and e.fairplay
        },
    }


async def export(
    session: AsyncSession, campaign_id: int, events: list[CampaignEvent]
) -> dict[str, Any]:
    """The document's ``game_sessions`` and ``fairplay_rule``."""
    games = (
        await session.scalars(
            select(GameSession)
            .where(GameSession.campaign_id == campaign_id)
            .order_by(GameSession.start_seq)
        )
    ).all()
    docs = []
    for game in games:
        doc = rows.row_doc(game, SESSION_SKIP)
        doc["origin"] = _origin(game, campaign_id, events)
        if game.ended_at is None:
            doc["server_seed"] = None
        docs.append(doc)
    rule = await session.get(FairPlayRule, campaign_id)
    return {
        "game_sessions": docs,
        "fairplay_rule": None if rule is None else rows.row_doc(rule, RULE_SKIP),
    }


def _checked(model: type[BaseModel], raw: object, at: str) -> BaseModel:
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise ValidationFailed(
            {".".join([at, *(str(p) for p in err["loc"])]): err["msg"] for err in exc.errors()[:10]}
        ) from None


def check(sessions: list[dict[str, Any]], rule: dict[str, Any] | None) -> None:
    """422 at the first wrong field of the sessions or the rule (before anything is written)."""
    for n, raw in enumerate(sessions):
        _checked(SessionDoc, raw, f"game_sessions.{n}")
        origin = raw.get("origin")
        if origin is not None and not (
            isinstance(origin, dict)
            and isinstance(origin.get("campaign_id"), int)
            and isinstance(origin.get("session_id"), int)
            and isinstance(origin.get("payloads", {}), dict)
        ):
            raise ValidationFailed(
                {f"game_sessions.{n}.origin": _("The origin names a campaign and a session.")}
            )
    if rule is not None:
        _checked(RuleDoc, rule, "fairplay_rule")


async def import_(
    session: AsyncSession,
    campaign_id: int,
    sessions: list[dict[str, Any]],
    rule: dict[str, Any] | None,
    last_seq: int,
) -> None:
    """The sessions, all finished, and the rule of the copy (checked by :func:`check`)."""
    for raw in sessions:
        values = rows.row_values(GameSession, SessionDoc.model_validate(raw), SESSION_SKIP)
        game = GameSession(campaign_id=campaign_id, **values)
        if game.ended_at is None:
            game.ended_at, game.server_seed = utcnow(), None
        if game.end_seq is None:
            game.end_seq = last_seq
        session.add(game)
    if rule is not None:
        values = rows.row_values(FairPlayRule, RuleDoc.model_validate(rule), RULE_SKIP)
        session.add(FairPlayRule(campaign_id=campaign_id, **values))
