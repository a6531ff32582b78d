"""Characters and items in the campaign document (``characters``, ``items``; docs/transfer.md).

A sheet's and an item's JSON travel with their ids renumbered (:func:`app.core.transfer.remap`).
An import gives every owned sheet to the importer until its part is handed over
(``app.transfer.parts``); an item carried by a sheet the copy does not have is left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TypedDict

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.campaigns.refs import add_under_refs
from app.characters.models import Character, Item
from app.core.transfer import Document, IdMaps, Import, remap
from app.limits import Int32


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CharacterDoc(_Doc):
    ref: Int32
    owner: Int32 | None
    name: str = Field(min_length=1, max_length=100)
    kind: str = Field(pattern="^(pc|npc)$")
    hidden_from_players: bool
    archived_at: datetime | None
    data: dict[str, object]


class ItemDoc(_Doc):
    ref: Int32
    character: Int32 | None
    in_library: bool
    name: str = Field(min_length=1, max_length=100)
    description: str
    quantity: Int32
    price: Int32 | None
    fields: dict[str, object]
    slot: str | None = Field(max_length=20)
    equipped: bool
    container: str | None = Field(max_length=20)


class CharactersDoc(_Doc):
    """The document's fields of this part."""

    characters: list[CharacterDoc]
    items: list[ItemDoc]


class CharacterExport(TypedDict):
    """A character as the document holds it (read back as :class:`CharacterDoc`); its
    ``data`` is JSON with the ids renumbered, like the other documents' JSON parts."""

    ref: int | None
    owner: int | None
    name: str
    kind: str
    hidden_from_players: bool
    archived_at: str | None
    data: object


class ItemExport(TypedDict):
    """An item as the document holds it (read back as :class:`ItemDoc`)."""

    ref: int | None
    character: int | None
    in_library: bool
    name: str
    description: str
    quantity: int
    price: int | None
    fields: object
    slot: str | None
    equipped: bool
    container: str | None


def _character_doc(c: Character, maps: IdMaps) -> CharacterExport:
    return {
        "ref": maps.id("character", c.id),
        "owner": maps.id("user", c.owner_id),
        "name": c.name,
        "kind": c.kind,
        "hidden_from_players": c.hidden_from_players,
        "archived_at": c.archived_at.isoformat() if c.archived_at else None,
        "data": remap(c.data, maps, pids=False),
    }


def _item_doc(i: Item, maps: IdMaps) -> ItemExport:
    return {
        "ref": maps.id("item", i.id),
        "character": maps.id("character", i.character_id),
        "in_library": i.in_library,
        "name": i.name,
        "description": i.description,
        "quantity": i.quantity,
        "price": i.price,
        "fields": remap(i.fields, maps, pids=False),
        "slot": i.slot,
        "equipped": i.equipped,
        "container": i.container,
    }


@dataclass
class _Rows:
    characters: list[Character] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)

    def user_ids(self) -> set[int]:
        return {c.owner_id for c in self.characters if c.owner_id is not None}

    def number(self, maps: IdMaps) -> None:
        maps.number("character", [c.id for c in self.characters])
        maps.number("item", [i.id for i in self.items])

    async def write(self, maps: IdMaps) -> dict[str, object]:
        return {
            "characters": [_character_doc(c, maps) for c in self.characters],
            "items": [_item_doc(i, maps) for i in self.items],
        }


class CharactersPart:
    """The characters and the items (carried and the library)."""

    tables = {"character": "characters", "item": "items"}  # noqa: RUF012
    model = CharactersDoc

    async def load(self, session: AsyncSession, campaign_id: int, exporter_id: int) -> _Rows:
        characters = await session.scalars(
            select(Character).where(Character.campaign_id == campaign_id).order_by(Character.id)
        )
        items = await session.scalars(
            select(Item).where(Item.campaign_id == campaign_id).order_by(Item.id)
        )
        return _Rows(list(characters.all()), list(items.all()))

    def check(self, document: Document) -> None:
        """Nothing beyond the document model's own validation of this part."""

    async def import_(self, into: Import) -> None:
        doc = into.document.part(CharactersDoc)
        await self._characters(into, doc.characters)
        await self._items(into, doc.items)

    async def _characters(self, into: Import, docs: list[CharacterDoc]) -> None:
        """The sheets; every owned one is the importer's until its part is handed over."""
        rows = [
            Character(
                campaign_id=into.campaign_id,
                owner_id=None if c.owner is None else into.importer_id,
                system=into.system,
                name=c.name,
                kind=c.kind,
                hidden_from_players=c.hidden_from_players,
                archived_at=c.archived_at,
                data=c.data,
            )
            for c in docs
        ]
        await add_under_refs(into.session, rows, into.maps, "character", [c.ref for c in docs])
        for row in rows:
            row.data = remap(row.data, into.maps, pids=False)
        for c in docs:
            new_id = into.maps.id("character", c.ref)
            if c.owner is not None and new_id is not None:
                into.owned.setdefault(c.owner, []).append(new_id)

    async def _items(self, into: Import, docs: list[ItemDoc]) -> None:
        maps = into.maps
        kept = [i for i in docs if i.in_library or maps.id("character", i.character) is not None]
        rows = [
            Item(
                campaign_id=into.campaign_id,
                character_id=maps.id("character", i.character),
                in_library=i.in_library,
                name=i.name,
                description=i.description,
                quantity=i.quantity,
                price=i.price,
                fields=i.fields,
                slot=i.slot,
                equipped=i.equipped,
                container=i.container,
            )
            for i in kept
        ]
        await add_under_refs(into.session, rows, maps, "item", [i.ref for i in kept])


PART = CharactersPart()
