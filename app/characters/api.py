"""JSON API of character sheets: CRUD, inventory, library, rolls, export/import."""

from __future__ import annotations

from typing import Annotated, Any, Literal, NamedTuple

from fastapi import Depends, Query, Response
from pydantic import BaseModel, Field
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts.models import User
from app.characters import rolling, service
from app.characters.models import Character, Item
from app.characters.systems.protocol import ItemDraft
from app.characters.systems.registry import inventory
from app.events.models import CampaignEvent
from app.limits import Int32, Name, RowId, Text, Version
from app.web.answers import no_content
from app.web.deps import LOOKUP, Ctx, CurrentUser, Session
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import MAX_ROW_ID, PathId
from app.web.routers import Router

router = Router(
    prefix="/api/v1/campaigns/{campaign_id}", tags=["characters"], route_class=IdempotentRoute
)


class CharacterIn(BaseModel):
    name: Name
    kind: Literal["pc", "npc"] = "pc"
    owner_id: RowId | None = None
    hidden_from_players: bool = False
    data: dict[str, Any] | None = Field(
        default=None, description="Sheet values; missing ones take the system's defaults."
    )


class CharacterPatch(BaseModel):
    version: Version | None = Field(
        default=None, description="The version read; a stale one gets 409 and nothing changes."
    )
    changes: dict[str, Any] = Field(
        description="Dotted field keys (``be``, ``skills.Spürsinn``) or name, "
        "hidden_from_players, owner_id → new value."
    )


class DerivedOut(BaseModel):
    key: str
    label: str
    value: str
    breakdown: list[tuple[str, str]]
    roll: str | None
    dc: str | None


class WarningOut(BaseModel):
    message: str
    severity: str
    field: str | None


class ItemOut(BaseModel):
    id: int
    name: str
    description: str
    quantity: int
    price: int | None
    fields: dict[str, Any]
    slot: str | None
    equipped: bool
    container: str | None
    version: int


class CharacterSummary(BaseModel):
    id: int
    name: str
    system: str
    kind: str
    owner_id: int | None
    hidden_from_players: bool
    archived: bool
    version: int


class CharacterOut(CharacterSummary):
    data: dict[str, Any]
    can_edit: bool
    derived: list[DerivedOut]
    warnings: list[WarningOut]
    conditions: list[str]
    load: dict[str, Any] | None
    items: list[ItemOut]


class ImportedOut(CharacterOut):
    #: ``{taken, converted, skipped}``: items ``{field, label, from?, to?, reason?}``, labels
    #: in the caller's language; ``null`` for our own character files.
    import_report: dict[str, list[dict[str, str]]] | None = None


class ItemIn(BaseModel):
    name: str = Field(default="", max_length=200)
    description: Text = ""
    quantity: Int32 = 1
    price: Int32 | None = None
    fields: dict[str, Any] = Field(default_factory=dict)
    starter: str = Field(default="", description="Key of a starter item instead of the values.")
    library_item_id: RowId | None = Field(default=None, description="Copy from the library.")
    container: Literal["default", "rucksack", ""] = "default"

    def draft(self) -> ItemDraft:
        return ItemDraft(self.name, self.quantity, self.price, self.fields, self.description)


class ItemPatch(BaseModel):
    version: Version | None = None
    name: Name
    description: Text = ""
    quantity: Int32 = 1
    price: Int32 | None = None
    fields: dict[str, Any] = Field(default_factory=dict)

    def draft(self) -> ItemDraft:
        return ItemDraft(self.name, self.quantity, self.price, self.fields, self.description)


class EquipIn(BaseModel):
    slot: str


class UnequipIn(BaseModel):
    container: Literal["default", "rucksack", ""] = "default"


class MoveIn(BaseModel):
    to_character_id: RowId
    quantity: Int32 | None = None


class RollIn(BaseModel):
    target: str = Field(description="e.g. skill:Kampfkunst, kampfwert:schlagen, save:reflex")
    modifier: int = Field(default=0, ge=-50, le=50)
    difficulty: str = ""
    luck: Literal["", "bonus", "cancel_penalty", "auto_volltreffer"] = ""
    dc: Int32 | None = None
    fortune: bool = False
    misfortune: bool = False
    attack_number: Int32 = 1
    visibility: Literal["public", "gm", "self"] = "public"
    knowledge_of: RowId | None = Field(
        default=None, description="a bestiary entry: the roll is a knowledge check about it"
    )
    helper_id: RowId | None = Field(
        default=None, description="H&H Helfen: a character of the campaign who helps first"
    )

    def request(self) -> rolling.RollRequest:
        return rolling.RollRequest(**self.model_dump())


class OddsOut(BaseModel):
    headline: str
    details: list[tuple[str, str]]


class RollOut(BaseModel):
    """A sheet roll; a Verdeckter Wurf (PF2e) shows its roller who is not a GM only that it
    happened (``secret``, the values ``None``), as the dice log does."""

    event_id: int
    visibility: str
    expression: str
    label: str
    secret: bool = False
    dice: list[dict[str, Any]] | None
    modifier: int | None
    total: int | None
    system: str
    summary: str | None
    outcome: dict[str, Any] | None


class StarterOut(BaseModel):
    key: str
    name: str
    fields: dict[str, Any]
    quantity: int
    sample: bool


def _summary(c: Character) -> CharacterSummary:
    return CharacterSummary(
        id=c.id,
        name=c.name,
        system=c.system,
        kind=c.kind,
        owner_id=c.owner_id,
        hidden_from_players=c.hidden_from_players,
        archived=c.archived_at is not None,
        version=c.version,
    )


def _item(i: Item) -> ItemOut:
    return ItemOut.model_validate(i, from_attributes=True)


def _full(opened: service.Opened) -> CharacterOut:
    c = opened.character
    v = service.view(opened)
    return CharacterOut(
        **_summary(c).model_dump(),
        data=c.data,
        can_edit=opened.can_edit,
        derived=[
            DerivedOut(
                key=d.key,
                label=d.label,
                value=d.value,
                breakdown=list(d.breakdown),
                roll=d.roll,
                dc=d.dc,
            )
            for d in v.derived
        ],
        warnings=[
            WarningOut(message=w.message, severity=w.severity, field=w.field) for w in v.warnings
        ],
        conditions=list(v.conditions),
        load=dict(v.load) if v.load is not None else None,
        items=[_item(i) for i in opened.items],
    )


async def _sheet(
    session: Session, user: CurrentUser, campaign_id: int, character_id: int
) -> CharacterOut:
    """The sheet as the caller reads it now."""
    return _full(await service.open_character(session, user, campaign_id, character_id))


class CampaignRef(NamedTuple):
    """A campaign as the service's use cases take it (``service.library(*campaign)``): the
    request's session, who asks, and the campaign in the path."""

    session: AsyncSession
    user: User
    campaign_id: int


class LibraryItemRef(NamedTuple):
    """An item of the campaign's library as the service's use cases take it (``*item``)."""

    session: AsyncSession
    user: User
    campaign_id: int
    item_id: int


class SheetRef(NamedTuple):
    """A sheet as the service's use cases take it (``service.gain_xp(*sheet, …)``): the
    request's session, who asks, and the sheet's path (campaign and character)."""

    session: AsyncSession
    user: User
    campaign_id: int
    character_id: int


class ItemRef(NamedTuple):
    """An item of a sheet as the service's item use cases take it (``*item``)."""

    session: AsyncSession
    user: User
    campaign_id: int
    character_id: int
    item_id: int


async def _campaign_ref(campaign_id: PathId, session: Session, user: CurrentUser) -> CampaignRef:
    return CampaignRef(session, user, campaign_id)


async def _library_item_ref(
    campaign_id: PathId, item_id: PathId, session: Session, user: CurrentUser
) -> LibraryItemRef:
    return LibraryItemRef(session, user, campaign_id, item_id)


async def _sheet_ref(
    campaign_id: PathId, character_id: PathId, session: Session, user: CurrentUser
) -> SheetRef:
    return SheetRef(session, user, campaign_id, character_id)


async def _item_ref(
    campaign_id: PathId, character_id: PathId, item_id: PathId, session: Session, user: CurrentUser
) -> ItemRef:
    return ItemRef(session, user, campaign_id, character_id, item_id)


Campaign = Annotated[CampaignRef, Depends(_campaign_ref)]
LibraryItem = Annotated[LibraryItemRef, Depends(_library_item_ref)]
Sheet = Annotated[SheetRef, Depends(_sheet_ref)]
SheetItem = Annotated[ItemRef, Depends(_item_ref)]


@router.get("/characters", response_model=list[CharacterSummary])
async def list_characters(campaign: Campaign) -> list[CharacterSummary]:
    """Characters the caller may see (hidden NSCs only for GMs)."""
    _campaign, _viewer, rows = await service.list_characters(*campaign)
    return [_summary(c) for c in rows]


@router.post("/characters", status_code=201, response_model=CharacterOut, dependencies=[IDEMPOTENT])
async def create(campaign: Campaign, body: CharacterIn) -> CharacterOut:
    character = await service.create_character(
        *campaign,
        body.name,
        kind=body.kind,
        owner_id=body.owner_id,
        hidden_from_players=body.hidden_from_players,
        data=body.data,
    )
    return await _sheet(*campaign, character.id)


@router.post(
    "/characters/import", status_code=201, response_model=ImportedOut, dependencies=[IDEMPOTENT]
)
async def import_character(
    campaign: Campaign,
    body: dict[str, Any],
    owner_id: Annotated[int | None, Query(ge=1, le=MAX_ROW_ID)] = None,
) -> ImportedOut:
    """Import our own character file, a Pathbuilder 2e export or a Foundry pf2e/ds4
    character of the campaign's system (told apart by shape; ``owner_id``: a GM imports for
    another member). A bad file changes nothing (422, ``file``). The answer is the sheet with
    ``import_report``: what was taken, converted and skipped."""
    character, report = await service.import_file(*campaign, body, owner_id)
    full = await _sheet(*campaign, character.id)
    return ImportedOut(
        **full.model_dump(), import_report=report.as_dict() if report is not None else None
    )


@router.get("/characters/{character_id}", response_model=CharacterOut)
async def get(sheet: Sheet) -> CharacterOut:
    return await _sheet(*sheet)


@router.patch("/characters/{character_id}", response_model=CharacterOut)
async def patch(sheet: Sheet, body: CharacterPatch) -> CharacterOut:
    """Change fields, validated against the system's ranges (422 per field); 409 if stale."""
    opened = await service.update_fields(*sheet, body.version, body.changes)
    return _full(opened)


class RestIn(BaseModel):
    rest: str = Field(description="one of the system's rests: verschnaufen (DS4), kurz, lang (H&H)")
    version: Version | None = None
    hours: Int32 | None = Field(
        default=None,
        description="H&H: hours after the end of the last rest (empty: kurz 2, lang 0)",
    )
    camp_site: bool = Field(default=False, description="H&H Lange Rast: a suitable camp site")
    camp_value: Int32 | None = Field(
        default=None, description="H&H Lange Rast: the Lagermeister's Probenwert (camp Probe)"
    )
    healer_id: int | None = Field(
        default=None,
        ge=1,
        le=MAX_ROW_ID,
        description="H&H: another character of the campaign whose Heilkunde tends this one",
    )

    def params(self) -> dict[str, str]:
        """The fields as the sheet's form sends them."""
        return {
            "hours": "" if self.hours is None else str(self.hours),
            "camp_site": "on" if self.camp_site else "",
            "camp_value": "" if self.camp_value is None else str(self.camp_value),
            "healer_id": "" if self.healer_id is None else str(self.healer_id),
        }


@router.post("/characters/{character_id}/rest", response_model=CharacterOut)
async def rest(sheet: Sheet, body: RestIn, ctx: Ctx) -> CharacterOut:
    """Take a rest from the sheet (DS4: Verschnaufen; H&H: Kurze or Lange Rast)."""
    opened = await service.take_rest(
        sheet.session, ctx.roller, sheet.user, sheet.campaign_id, sheet.character_id,
        body.version, body.rest, body.params(),
    )  # fmt: skip
    return _full(opened)


class CheckIn(BaseModel):
    check: str = Field(description="one of the system's checks: beschaffung, herstellung (H&H)")
    version: Version | None = None
    source: str = Field(
        default="", description="the item: starter:<key> or library:<id> (empty: by name)"
    )
    name: str = Field(default="", description="the item's name when no source is chosen")
    price: Int32 | None = Field(
        default=None, description="price in Lira (empty: the catalogue item's price)"
    )
    modifier: Int32 | None = Field(default=None, description="the GM's modifier (−20 … 20)")
    pay: bool = Field(default=False, description="pay from the sheet's Lira")
    category: str = Field(default="", description="Beschaffung: ausruestung or konstruktion")
    step: str = Field(default="", description="Beschaffung: glueck (now) or gassenwissen (1 day)")
    grade: str = Field(default="", description="Herstellung: Güte C, B, A or S")
    skill: str = Field(default="", description="Herstellung: the Fertigkeit (empty: Handwerk)")
    equipment: str = Field(
        default="", description="Herstellung: passend, fehlt_erschwert or fehlt_unmoeglich"
    )
    probe: bool = Field(default=False, description="Herstellung: the GM asks for a Probe")

    def params(self) -> dict[str, str]:
        """The fields as the sheet's form sends them."""
        out = self.model_dump(exclude={"check", "version", "pay", "probe"})
        params = {k: "" if v is None else str(v) for k, v in out.items()}
        return {**params, "pay": "on" if self.pay else "", "probe": "on" if self.probe else ""}


class CheckOut(BaseModel):
    event: dict[str, Any] = Field(description="the character_checked event's payload")
    character: CharacterOut


@router.post("/characters/{character_id}/check", response_model=CheckOut, dependencies=[IDEMPOTENT])
async def check(sheet: Sheet, body: CheckIn, ctx: Ctx) -> CheckOut:
    """A guided check from the sheet (H&H: Beschaffung, Herstellung) with its result."""
    _opened, event = await service.sheet_check(
        sheet.session, ctx.roller, sheet.user, sheet.campaign_id, sheet.character_id,
        body.version, body.check, body.params(),
    )  # fmt: skip
    fresh = await _sheet(*sheet)
    return CheckOut(event={"type": event.type, **event.payload}, character=fresh)


class CompanionIn(BaseModel):
    name: Name


@router.post(
    "/characters/{character_id}/companions",
    response_model=CharacterOut,
    status_code=201,
    dependencies=[IDEMPOTENT],
)
async def create_companion(sheet: Sheet, body: CompanionIn) -> CharacterOut:
    """A Gefährte of its own for this hero (H&H): an NSC sheet owned by the hero's owner."""
    companion = await service.create_companion(*sheet, body.name)
    return await _sheet(*sheet._replace(character_id=companion.id))


class XpIn(BaseModel):
    amount: Int32 = Field(description="XP the hero gains (1 … 100)")
    companion_id: RowId | None = Field(
        default=None, description="«Band der Erfahrung»: the Gefährte who gains as many"
    )
    version: Version | None = None


@router.post("/characters/{character_id}/xp", response_model=CharacterOut)
async def gain_xp(sheet: Sheet, body: XpIn) -> CharacterOut:
    """XP for the hero, shared with one of its Gefährten (H&H «Band der Erfahrung»)."""
    await service.gain_xp(*sheet, body.version, body.amount, body.companion_id)
    return await _sheet(*sheet)


class AdvanceIn(BaseModel):
    version: Version | None = None


@router.post("/characters/{character_id}/advance", response_model=CharacterOut)
async def advance(sheet: Sheet, body: AdvanceIn) -> CharacterOut:
    """A Gefährte's next Monsterstufe for its XP (H&H Steigerungskosten)."""
    opened = await service.advance_companion(*sheet, body.version)
    return _full(opened)


@router.post("/characters/{character_id}/archive", response_model=CharacterSummary)
async def archive(sheet: Sheet) -> CharacterSummary:
    return _summary(await service.set_archived(*sheet, True))


@router.post("/characters/{character_id}/restore", response_model=CharacterSummary)
async def restore(sheet: Sheet) -> CharacterSummary:
    return _summary(await service.set_archived(*sheet, False))


@router.delete("/characters/{character_id}", status_code=204)
async def delete(
    sheet: Sheet,
    confirm: bool = Query(default=False, description="Must be true: deleting cannot be undone."),
) -> Response:
    return await no_content(service.delete_character(*sheet, confirm=confirm))


@router.get("/characters/{character_id}/export")
async def export(sheet: Sheet) -> dict[str, Any]:
    """The character as a JSON document for import elsewhere."""
    return service.export(await service.open_character(*sheet))


@router.get("/characters/{character_id}/history")
async def history(
    sheet: Sheet, before: int | None = Query(default=None, ge=1, le=MAX_ROW_ID)
) -> list[dict[str, Any]]:
    """The sheet's events, newest first; ``before`` (a seq) pages back."""
    _opened, events = await service.history(*sheet, before=before)
    return [e.data() for e in events]


@router.post(
    "/characters/{character_id}/items",
    status_code=201,
    response_model=ItemOut,
    dependencies=[IDEMPOTENT],
)
async def add_item(sheet: Sheet, body: ItemIn) -> ItemOut:
    item = await service.add_item(
        *sheet,
        body.draft(),
        starter=body.starter,
        library_item_id=body.library_item_id,
        container=body.container,
    )
    return _item(item)


@router.put("/characters/{character_id}/items/{item_id}", response_model=ItemOut)
async def update_item(item: SheetItem, body: ItemPatch) -> ItemOut:
    return _item(await service.update_item(*item, body.draft(), version=body.version))


@router.delete("/characters/{character_id}/items/{item_id}", status_code=204)
async def remove_item(item: SheetItem) -> Response:
    return await no_content(service.remove_item(*item))


@router.post("/characters/{character_id}/items/{item_id}/equip", response_model=ItemOut)
async def equip(item: SheetItem, body: EquipIn) -> ItemOut:
    return _item(await service.equip_item(*item, body.slot))


@router.post("/characters/{character_id}/items/{item_id}/unequip", response_model=ItemOut)
async def unequip(item: SheetItem, body: UnequipIn) -> ItemOut:
    return _item(await service.unequip_item(*item, body.container))


@router.post("/characters/{character_id}/items/{item_id}/move", response_model=ItemOut)
async def move(item: SheetItem, body: MoveIn) -> ItemOut:
    """Give (part of) the stack to another character, atomically."""
    return _item(await service.move_item(*item, body.to_character_id, body.quantity))


@router.post("/characters/{character_id}/odds", response_model=OddsOut, dependencies=[LOOKUP])
async def odds(sheet: Sheet, body: RollIn) -> OddsOut:
    """The success chance of a roll from the sheet, before rolling."""
    result = await service.roll_odds(*sheet, body.request())
    return OddsOut(headline=result.headline, details=list(result.details))


def _roll_out(event: CampaignEvent, *, secret: bool) -> RollOut:
    """A sheet roll as its roller receives it; a Verdeckter Wurf (``secret``, the roller is
    not a GM): that it happened, no value (like every other player in the dice log)."""
    p = event.payload
    return RollOut(
        event_id=event.seq, visibility=event.visibility, expression=p["expression"],
        label=p["label"], secret=secret, system=p["system"],
        dice=None if secret else p["dice"], modifier=None if secret else p["modifier"],
        total=None if secret else p["total"], summary=None if secret else p["summary"],
        outcome=None if secret else p["outcome"],
    )  # fmt: skip


@router.post(
    "/characters/{character_id}/roll",
    status_code=201,
    response_model=RollOut,
    dependencies=[IDEMPOTENT],
)
async def roll(sheet: Sheet, body: RollIn, ctx: Ctx) -> RollOut:
    """Roll from the sheet; the result is a ``roll`` event in the campaign's dice log."""
    event = await service.roll(
        sheet.session, ctx.roller, sheet.user, sheet.campaign_id, sheet.character_id,
        body.request(),
    )  # fmt: skip
    opened = await service.open_character(*sheet)
    return _roll_out(event, secret=service.hidden_from_roller(event, opened.viewer))


@router.get("/items", response_model=list[ItemOut])
async def library(campaign: Campaign) -> list[ItemOut]:
    """The campaign's item library (curated by the GMs, readable by every member)."""
    _c, _v, items = await service.library(*campaign)
    return [_item(i) for i in items]


@router.post("/items", status_code=201, response_model=ItemOut, dependencies=[IDEMPOTENT])
async def add_library_item(campaign: Campaign, body: ItemIn) -> ItemOut:
    item = await service.add_library_item(*campaign, body.draft(), starter=body.starter)
    return _item(item)


@router.put("/items/{item_id}", response_model=ItemOut)
async def update_library_item(item: LibraryItem, body: ItemPatch) -> ItemOut:
    """Edit a library entry (GMs); a stale ``version`` answers 409."""
    return _item(await service.update_library_item(*item, body.draft(), version=body.version))


@router.delete("/items/{item_id}", status_code=204)
async def remove_library_item(item: LibraryItem) -> Response:
    return await no_content(service.remove_library_item(*item))


@router.get("/starter-items", response_model=list[StarterOut])
async def starter_items(campaign: Campaign) -> list[StarterOut]:
    """Starter items of the campaign's system (DS4 from the rules; others sample data)."""
    found, _v, _items = await service.library(*campaign)
    return [
        StarterOut(key=s.key, name=s.name, fields=s.fields, quantity=s.quantity, sample=s.sample)
        for s in inventory(found.system).starter_items()
    ]
