"""JSON API of the bestiary, encounters and running combat.

Every response is the caller's view (hidden participants and NSC LP left out for players).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from fastapi import Query
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts.models import User
from app.encounters import actions, foresight, service, views
from app.encounters.models import BestiaryEntry
from app.limits import Int32, Name, RowId, Text, Version
from app.web.deps import LOOKUP, Ctx, CurrentUser, Session
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import MAX_ROW_ID, PathId
from app.web.routers import Router

router = Router(
    prefix="/api/v1/campaigns/{campaign_id}", tags=["encounters"], route_class=IdempotentRoute
)


class EntryIn(BaseModel):
    name: Name
    data: dict[str, object] = Field(default_factory=dict)
    version: Version | None = None


class EncounterIn(BaseModel):
    name: Name
    notes: Text = ""
    settings: dict[str, object] | None = None
    version: Version | None = None


class ParticipantIn(BaseModel):
    character_id: RowId | None = None
    entry_id: RowId | None = None
    count: Int32 = 1
    side: str | None = None
    hidden: bool = False


class ParticipantPatch(BaseModel):
    side: str | None = None
    hidden: bool | None = None
    name: Name | None = None
    stats: dict[str, object] | None = None


class _RowOut(BaseModel):
    """JSON read from a row's attributes: the fields the subclass names."""

    model_config = ConfigDict(from_attributes=True)


class EntryOut(_RowOut):
    """A bestiary entry as ``GET …/bestiary/{id}`` gives it."""

    id: int
    name: str
    system: str
    data: dict[str, object]
    sample: bool
    version: int


class SummaryOut(_RowOut):
    """An encounter in ``GET …/encounters``."""

    id: int
    name: str
    status: str
    version: int


class AddedOut(_RowOut):
    """A participant ``POST …/participants`` added."""

    id: int
    name: str
    side: str
    hidden: bool


class ParticipantOut(AddedOut):
    """A participant after ``PATCH …/participants/{id}``."""

    stats: dict[str, object]


def _json(model: type[_RowOut], row: object) -> dict[str, object]:
    return model.model_validate(row).model_dump()


def _entries(rows: Iterable[BestiaryEntry]) -> list[dict[str, object]]:
    return [_json(EntryOut, e) for e in rows]


@router.get("/bestiary")
async def list_bestiary(
    campaign_id: PathId, session: Session, user: CurrentUser
) -> list[dict[str, object]]:
    return _entries(await service.bestiary(session, user, campaign_id))


@router.post("/bestiary", status_code=201, dependencies=[IDEMPOTENT])
async def create_entry(
    campaign_id: PathId, body: EntryIn, session: Session, user: CurrentUser
) -> dict[str, object]:
    entry = await service.create_entry(session, user, campaign_id, body.name, body.data)
    return _json(EntryOut, entry)


@router.post("/bestiary/import", status_code=201, dependencies=[IDEMPOTENT])
async def import_entry(
    campaign_id: PathId, body: dict[str, object], session: Session, user: CurrentUser
) -> dict[str, object]:
    """A Foundry pf2e NPC or ds4 creature of the campaign's system (GMs): the entry as
    ``GET …/bestiary/{id}`` gives it, with ``import_report`` (taken, converted, skipped)."""
    entry, report = await service.import_entry(session, user, campaign_id, body)
    return {**_json(EntryOut, entry), "import_report": report.as_dict()}


@router.post("/bestiary/samples", status_code=201, dependencies=[IDEMPOTENT])
async def add_samples(
    campaign_id: PathId, session: Session, user: CurrentUser
) -> list[dict[str, object]]:
    return _entries(await service.add_samples(session, user, campaign_id))


@router.get("/bestiary/{entry_id}")
async def get_entry(
    campaign_id: PathId, entry_id: PathId, session: Session, user: CurrentUser
) -> dict[str, object]:
    return _json(EntryOut, await service.bestiary_entry(session, user, campaign_id, entry_id))


@router.put("/bestiary/{entry_id}")
async def update_entry(
    campaign_id: PathId, entry_id: PathId, body: EntryIn, session: Session, user: CurrentUser
) -> dict[str, object]:
    entry = await service.update_entry(
        session, user, campaign_id, entry_id, body.version, body.name, body.data
    )
    return _json(EntryOut, entry)


@router.delete("/bestiary/{entry_id}", status_code=204)
async def delete_entry(
    campaign_id: PathId, entry_id: PathId, session: Session, user: CurrentUser
) -> None:
    await service.delete_entry(session, user, campaign_id, entry_id)


@router.get("/encounters")
async def list_encounters(
    campaign_id: PathId, session: Session, user: CurrentUser
) -> list[dict[str, object]]:
    return [_json(SummaryOut, e) for e in await service.encounters(session, user, campaign_id)]


@router.post("/encounters", status_code=201, dependencies=[IDEMPOTENT])
async def create_encounter(
    campaign_id: PathId, body: EncounterIn, session: Session, user: CurrentUser
) -> dict[str, object]:
    enc = await service.create_encounter(session, user, campaign_id, body.name, body.notes)
    if body.settings:
        enc = await service.update_encounter(
            session, user, campaign_id, enc.id, None, body.name, body.notes, body.settings
        )
    return await _view(session, user, campaign_id, enc.id)


async def _view(
    session: AsyncSession, user: User, campaign_id: int, encounter_id: int
) -> dict[str, object]:
    loaded = await service.load(session, user, campaign_id, encounter_id)
    return dict(views.api_view(loaded))


@router.get("/encounters/{encounter_id}")
async def get_encounter(
    campaign_id: PathId, encounter_id: PathId, session: Session, user: CurrentUser
) -> dict[str, object]:
    """The encounter as the caller sees it (roster, turn, pending step)."""
    return await _view(session, user, campaign_id, encounter_id)


@router.get("/encounters/{encounter_id}/log")
async def get_log(
    campaign_id: PathId,
    encounter_id: PathId,
    session: Session,
    user: CurrentUser,
    before: int | None = Query(default=None, ge=1, le=MAX_ROW_ID),
    limit: int = Query(default=service.LOG_PAGE, ge=1, le=service.LOG_PAGE),
) -> list[dict[str, object]]:
    """The combat log entries the caller may see, newest first; page back with ``before``
    (the smallest ``seq`` received) until a page holds fewer than ``limit``."""
    loaded = await service.load(session, user, campaign_id, encounter_id)
    state = loaded.encounter.state or {}
    undone = {int(s) for s in state.get("undone", [])}
    log = await service.log_entries(session, loaded, limit, before=before)
    return [dict(views.entry_view(e, undone)) for e in log]


@router.patch("/encounters/{encounter_id}")
async def update_encounter(
    campaign_id: PathId,
    encounter_id: PathId,
    body: EncounterIn,
    session: Session,
    user: CurrentUser,
) -> dict[str, object]:
    await service.update_encounter(
        session, user, campaign_id, encounter_id, body.version, body.name, body.notes,
        body.settings,
    )  # fmt: skip
    return await _view(session, user, campaign_id, encounter_id)


@router.delete("/encounters/{encounter_id}", status_code=204)
async def delete_encounter(
    campaign_id: PathId, encounter_id: PathId, session: Session, user: CurrentUser
) -> None:
    await service.delete_encounter(session, user, campaign_id, encounter_id)


@router.post("/encounters/{encounter_id}/duplicate", status_code=201, dependencies=[IDEMPOTENT])
async def duplicate(
    campaign_id: PathId, encounter_id: PathId, session: Session, user: CurrentUser
) -> dict[str, object]:
    enc = await service.duplicate(session, user, campaign_id, encounter_id)
    return await _view(session, user, campaign_id, enc.id)


@router.post("/encounters/{encounter_id}/participants", status_code=201, dependencies=[IDEMPOTENT])
async def add_participants(
    campaign_id: PathId,
    encounter_id: PathId,
    body: ParticipantIn,
    session: Session,
    user: CurrentUser,
    ctx: Ctx,
) -> list[dict[str, object]]:
    """A character (``character_id``) or ``count`` copies of a bestiary entry (``entry_id``)."""
    if body.character_id is not None:
        added = [
            await service.add_character(
                session, user, ctx.roller, campaign_id, encounter_id, body.character_id,
                body.side or "abenteurer", body.hidden,
            )
        ]  # fmt: skip
    else:
        added = await service.add_monsters(
            session, user, ctx.roller, campaign_id, encounter_id, body.entry_id or 0,
            body.count, body.side or "gegner", body.hidden,
        )  # fmt: skip
    return [_json(AddedOut, p) for p in added]


@router.patch("/encounters/{encounter_id}/participants/{participant_id}")
async def update_participant(
    campaign_id: PathId,
    encounter_id: PathId,
    participant_id: PathId,
    body: ParticipantPatch,
    session: Session,
    user: CurrentUser,
) -> dict[str, object]:
    p = await service.update_participant(
        session, user, campaign_id, encounter_id, participant_id,
        side=body.side, hidden=body.hidden, name=body.name, stats=body.stats,
    )  # fmt: skip
    return _json(ParticipantOut, p)


@router.delete("/encounters/{encounter_id}/participants/{participant_id}", status_code=204)
async def remove_participant(
    campaign_id: PathId,
    encounter_id: PathId,
    participant_id: PathId,
    session: Session,
    user: CurrentUser,
) -> None:
    await service.remove_participant(session, user, campaign_id, encounter_id, participant_id)


class ForecastIn(BaseModel):
    actor_id: str = Field(max_length=20)
    action: Literal["attack"] = "attack"
    target_id: str = Field(max_length=20)
    options: dict[str, object] = Field(default_factory=dict, max_length=20)
    assume: Literal["defends", "no_reaction"] | None = None


@router.post("/encounters/{encounter_id}/forecast", dependencies=[LOOKUP])
async def forecast(
    campaign_id: PathId, encounter_id: PathId, body: ForecastIn, session: Session, user: CurrentUser
) -> dict[str, object]:
    """The exact odds of an attack before anyone rolls; changes nothing (issue 18)."""
    req = foresight.ForecastRequest(body.actor_id, body.target_id, body.options, body.assume)
    result = await foresight.forecast(session, user, campaign_id, encounter_id, req)
    return dict(foresight.as_json(result, body.assume))


class RiskIn(BaseModel):
    trials: int = Field(default=foresight.DEFAULT_TRIALS, ge=2, le=foresight.MAX_TRIALS)
    seed: int | None = Field(default=None, ge=0, le=2**63 - 1)


@router.post("/encounters/{encounter_id}/risk", dependencies=[LOOKUP])
async def risk(
    campaign_id: PathId, encounter_id: PathId, session: Session, user: CurrentUser,
    body: RiskIn | None = None,
) -> dict[str, object]:  # fmt: skip
    """The GM's risk estimate: the fight simulated ``trials`` times (issue 18)."""
    req = body or RiskIn()
    result = await foresight.risk(session, user, campaign_id, encounter_id, req.trials, req.seed)
    return dict(foresight.risk_json(result))


@router.post("/encounters/{encounter_id}/actions/{action}", dependencies=[IDEMPOTENT])
async def act(
    campaign_id: PathId,
    encounter_id: PathId,
    action: str,
    session: Session,
    user: CurrentUser,
    ctx: Ctx,
    body: dict[str, object] | None = None,
) -> dict[str, object]:
    """Run a combat action (``start``, ``next``, ``attack``, ``respond``, ``undo``, ...)."""
    fought = await actions.perform(
        session, user, ctx.roller, campaign_id, encounter_id, action, dict(body or {})
    )
    return dict(views.api_view(fought))
