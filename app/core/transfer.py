"""What a package gives the campaign document (``app.transfer``, docs/transfer.md): its
tables as a :class:`TransferPart`, and the renumbering of the ids its rows and JSON name.

Each package with tables of a campaign exports and imports them itself
(``app/<package>/transfer.py``, one ``PART`` each); ``app.wiring`` registers the parts in
the document's order and in the order an import writes them. ``app.transfer`` writes the
document's frame (format, campaign, users, what it leaves out) around them and names no
package.

An export names every row by a *ref* (its position in the document, from 1) instead of its
database id; an import maps the refs to the new rows' ids. Both directions walk the same
JSON with :func:`remap`, so a round trip is exact whenever the walk is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict, TypeVar

from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.systems import RuleSystem

#: Keys whose integer values are ids, and which kind of row they name.
ID_KEYS = {
    "character_id": "character",
    "to_character_id": "character",
    "from_character_id": "character",
    "owner_id": "user",
    "user_id": "user",
    "item_id": "item",
    "encounter_id": "encounter",
    "source_id": "encounter",
    "entry_id": "bestiary",
    "bestiary_entry_id": "bestiary",
    "participant_id": "participant",
    "message_id": "message",
    "handout_id": "handout",
    "note_id": "note",
    "fact_id": "fact",
    "scene_id": "scene",
    "token_id": "token",
}
#: Keys whose values are lists of ids (a whisper's or a reveal's members); ids of rows the
#: import does not have are left out.
ID_LIST_KEYS = {"to": "user"}
#: Keys whose values are rows written whole, whose ``id`` names that kind (the map events'
#: ``token``).
ROW_KEYS = {"token": "token"}
_SUBJECT_KINDS = ("character", "encounter")


@dataclass
class IdMaps:
    """Old id → new id per kind of row. An id not in its map (a deleted row) becomes None."""

    by_kind: dict[str, dict[int, int]] = field(
        default_factory=lambda: {kind: {} for kind in set(ID_KEYS.values())}
    )

    def number(self, kind: str, ids: list[int]) -> None:
        """Refs for the rows of ``kind`` with ``ids``, in this order (an export)."""
        self.by_kind[kind] = {old: ref for ref, old in enumerate(ids, start=1)}

    def id(self, kind: str, old: int | None) -> int | None:
        return None if old is None else self.by_kind[kind].get(old)

    def pid(self, old: str) -> str:
        """A participant id as the combat state writes it (a string); others pass through."""
        if old.isdigit():
            new = self.by_kind["participant"].get(int(old))
            if new is not None:
                return str(new)
        return old

    def subject(self, subject: str | None) -> str | None:
        if subject is None:
            return None
        kind, _, raw = subject.partition(":")
        new = self.id(kind, int(raw)) if kind in _SUBJECT_KINDS and raw.isdigit() else None
        return None if new is None else f"{kind}:{new}"


def _ints(items: list[Any]) -> bool:
    return all(isinstance(x, int) and not isinstance(x, bool) for x in items)


def remap(value: Any, maps: IdMaps, *, pids: bool) -> Any:
    """``value`` with every id renumbered: ints under :data:`ID_KEYS`, and with ``pids``
    (combat state and combat events) every string key or value that is a participant id."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            new_key = maps.pid(key) if pids else key
            kind = ID_KEYS.get(key)
            listed = ID_LIST_KEYS.get(key)
            row = ROW_KEYS.get(key)
            if kind is not None and isinstance(item, int) and not isinstance(item, bool):
                out[new_key] = maps.id(kind, item)
            elif row is not None and isinstance(item, dict) and isinstance(item.get("id"), int):
                out[new_key] = {**remap(item, maps, pids=pids), "id": maps.id(row, item["id"])}
            elif listed is not None and isinstance(item, list) and _ints(item):
                out[new_key] = [i for i in (maps.id(listed, x) for x in item) if i is not None]
            else:
                out[new_key] = remap(item, maps, pids=pids)
        return out
    if isinstance(value, list):
        return [remap(item, maps, pids=pids) for item in value]
    if pids and isinstance(value, str):
        return maps.pid(value)
    return value


M = TypeVar("M", bound=BaseModel)


class Document:
    """A checked campaign document: each part reads its own fields (typed by its model)."""

    def __init__(self, checked: BaseModel) -> None:
        self._checked = checked

    def part(self, model: type[M]) -> M:
        """The fields of ``model`` as the document has them (checked already)."""
        return model.model_construct(
            **{name: getattr(self._checked, name) for name in model.model_fields}
        )


class GrantedFact(TypedDict):
    """A fact of the bestiary only one person of a document knew (``talk.facts`` with a
    ``user``), kept for whoever takes their part over: the copy's entry id, the fact, its
    text, ``pending`` and ``seq`` as written, ``created_at`` as ISO text."""

    entry_id: int | None
    fact: str
    text: str | None
    pending: bool
    seq: int
    created_at: str


class Grants(TypedDict, total=False):
    """What a person of the document was given in the talk rows (``app.talk.transfer``),
    kept for whoever takes their part over (``app.transfer.parts``): the copy's ids of the
    messages they received, the handouts and notes they were shown, their read mark and the
    facts only they know. All five, or none (``{}``: a part given nothing)."""

    messages: list[int]
    handouts: list[int]
    notes: list[int]
    read: int | None
    facts: list[GrantedFact]


@dataclass
class Import:
    """One import under way: the new campaign and what the parts written so far left for
    the next (the refs' new ids in ``maps``)."""

    session: AsyncSession
    campaign_id: int
    system: RuleSystem
    importer_id: int
    #: The document's GM's user ref (the importer takes that part), if it has one.
    gm_ref: int | None
    document: Document
    maps: IdMaps = field(default_factory=lambda: IdMaps())
    #: User ref -> the copy's ids of the characters the document gives that user.
    owned: dict[int, list[int]] = field(default_factory=dict)
    #: User ref -> what the document gave that person in the talk rows
    #: (``app.core.transfer.Grants``), kept for whoever takes their part over.
    given: dict[int, Grants] = field(default_factory=dict)
    #: The log's last seq (the campaign's ``last_seq``), once the log is written.
    last_seq: int = 0


class Loaded(Protocol):
    """A part's rows of one campaign, loaded for an export."""

    def user_ids(self) -> set[int]:
        """The accounts the rows name (the document's ``users``)."""
        ...

    def number(self, maps: IdMaps) -> None:
        """Refs for the rows (before any part writes: their JSON names each other's)."""
        ...

    async def write(self, maps: IdMaps) -> dict[str, object]:
        """The part's fields of the document, in the document's order."""
        ...


class TransferPart(Protocol):
    """A package's tables in the campaign document."""

    @property
    def tables(self) -> Mapping[str, str]:
        """Each table with a ``campaign_id`` this part carries: where in the document."""
        ...

    @property
    def model(self) -> type[BaseModel]:
        """The document fields this part writes, with their checks (in the document's
        order); unknown fields are refused as everywhere in the document."""
        ...

    async def load(self, session: AsyncSession, campaign_id: int, exporter_id: int) -> Loaded:
        """The rows to export (``exporter_id``: what only the exporter may take along)."""
        ...

    def check(self, document: Document) -> None:
        """What the fields' checks cannot see (422 before anything is written)."""
        ...

    async def import_(self, into: Import) -> None:
        """The part's rows of ``into.document`` as rows of the new campaign."""
        ...
