"""Game sessions and the fair-play rule in the campaign document.

Both are written whole, column by column (:mod:`app.sessions.rows`), so that a column added
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

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.core.transfer import Document, IdMaps, Import
from app.db import utcnow
from app.errors import ValidationFailed
from app.events.models import CampaignEvent
from app.i18n import _
from app.sessions import rows
from app.sessions.models import FairPlayRule, GameSession, Origin

#: Columns that do not travel: the row's own ids and the accounts it names.
SESSION_SKIP = frozenset({"id", "campaign_id", "started_by"})
RULE_SKIP = frozenset({"campaign_id", "version"})
SessionDoc = rows.doc_model(GameSession, SESSION_SKIP)
RuleDoc = rows.doc_model(FairPlayRule, RULE_SKIP)


class FairPlayDoc(BaseModel):
    """The document's fields of this part (each row checked by :func:`check`)."""

    model_config = ConfigDict(extra="forbid")

    game_sessions: list[dict[str, object]] = Field(
        default_factory=list, max_length=limits.SESSIONS_PER_CAMPAIGN
    )
    fairplay_rule: dict[str, object] | None = None


async def _origin(session: AsyncSession, game: GameSession, campaign_id: int) -> Origin:
    """What the session's dice and chain were made from (an imported one keeps its own):
    the payloads of its events with a fair-play record, up to its end or the log's."""
    if game.origin is not None:
        return game.origin
    query = select(CampaignEvent.seq, CampaignEvent.payload, CampaignEvent.fairplay).where(
        CampaignEvent.campaign_id == campaign_id, CampaignEvent.seq >= game.start_seq
    )
    if game.end_seq is not None:
        query = query.where(CampaignEvent.seq <= game.end_seq)
    events = (await session.execute(query.order_by(CampaignEvent.seq))).all()
    return {
        "campaign_id": campaign_id,
        "session_id": game.id,
        "payloads": {str(seq): payload for seq, payload, fairplay in events if fairplay},
    }


@dataclass
class _Rows:
    games: list[dict[str, object]]
    rule: dict[str, object] | None

    def user_ids(self) -> set[int]:
        return set()

    def number(self, maps: IdMaps) -> None:
        """No ids of its own that other parts refer to."""

    async def write(self, maps: IdMaps) -> dict[str, object]:
        return {"game_sessions": self.games, "fairplay_rule": self.rule}


async def _load(session: AsyncSession, campaign_id: int) -> _Rows:
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
        doc["origin"] = await _origin(session, game, campaign_id)
        if game.ended_at is None:
            doc["server_seed"] = None
        docs.append(doc)
    rule = await session.get(FairPlayRule, campaign_id)
    return _Rows(docs, None if rule is None else rows.row_doc(rule, RULE_SKIP))


def _checked(model: type[BaseModel], raw: object, at: str) -> BaseModel:
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise ValidationFailed(
            {".".join([at, *(str(p) for p in err["loc"])]): err["msg"] for err in exc.errors()[:10]}
        ) from None


def check(sessions: Sequence[dict[str, object]], rule: dict[str, object] | None) -> None:
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
    sessions: Sequence[dict[str, object]],
    rule: dict[str, object] | None,
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


class FairPlayPart:
    """The game sessions (as finished ones) and the table's fair-play rule (after the log
    on import: an unfinished session ends at its last seq)."""

    tables = {"game_session": "game_sessions", "fairplay_rule": "fairplay_rule"}  # noqa: RUF012
    model = FairPlayDoc

    async def load(self, session: AsyncSession, campaign_id: int, exporter_id: int) -> _Rows:
        return await _load(session, campaign_id)

    def check(self, document: Document) -> None:
        doc = document.part(FairPlayDoc)
        check(doc.game_sessions, doc.fairplay_rule)

    async def import_(self, into: Import) -> None:
        doc = into.document.part(FairPlayDoc)
        await import_(
            into.session, into.campaign_id, doc.game_sessions, doc.fairplay_rule, into.last_seq
        )


PART = FairPlayPart()
