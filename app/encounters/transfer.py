"""The bestiary and the encounters in the campaign document (``bestiary``, ``encounters``;
docs/transfer.md): each encounter with its participants, its combat state and its undo steps.

The combat state, the steps and the participants' stats travel with their ids renumbered,
participant ids as the state writes them too (``pids``). An imported state is refused at
the field unless it has the shape the server runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypedDict

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.campaigns.refs import add_under_refs
from app.core.queries import all_rows
from app.core.systems import RuleSystem
from app.core.transfer import Document, IdMaps, Import, remap
from app.encounters import undo
from app.encounters.models import BestiaryEntry, Encounter, Participant
from app.encounters.state import StateError, read_state
from app.errors import ValidationFailed
from app.i18n import _
from app.limits import Int32


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BestiaryDoc(_Doc):
    ref: Int32
    system: RuleSystem
    name: str = Field(min_length=1, max_length=100)
    data: dict[str, object]
    sample: bool


class ParticipantDoc(_Doc):
    ref: Int32
    character: Int32 | None
    bestiary_entry: Int32 | None
    name: str = Field(min_length=1, max_length=100)
    side: str = Field(max_length=12)
    hidden: bool
    stats: dict[str, object]
    position: Int32


class EncounterDoc(_Doc):
    ref: Int32
    name: str = Field(min_length=1, max_length=100)
    notes: str
    status: str = Field(pattern="^(prepared|running|ended)$")
    settings: dict[str, object]
    state: dict[str, object]
    history: list[object]
    participants: list[ParticipantDoc]


class EncountersDoc(_Doc):
    """The document's fields of this part."""

    bestiary: list[BestiaryDoc]
    encounters: list[EncounterDoc]


class BestiaryExport(TypedDict):
    """A bestiary entry as the document holds it (read back as :class:`BestiaryDoc`)."""

    ref: int | None
    system: str
    name: str
    data: Mapping[str, object]
    sample: bool


class ParticipantExport(TypedDict):
    """A participant as the document holds it (read back as :class:`ParticipantDoc`)."""

    ref: int | None
    character: int | None
    bestiary_entry: int | None
    name: str
    side: str
    hidden: bool
    stats: object
    position: int


class EncounterExport(TypedDict):
    """An encounter as the document holds it (read back as :class:`EncounterDoc`)."""

    ref: int | None
    name: str
    notes: str
    status: str
    settings: Mapping[str, object]
    state: object
    history: object
    participants: list[ParticipantExport]


def _encounter_doc(
    e: Encounter, history: list[undo.Entry], participants: list[Participant], maps: IdMaps
) -> EncounterExport:
    """An encounter with its participants and its undo steps (``history``, oldest first)."""
    return {
        "ref": maps.id("encounter", e.id),
        "name": e.name,
        "notes": e.notes,
        "status": e.status,
        "settings": e.settings,
        "state": remap(e.state, maps, pids=True),
        "history": remap(history, maps, pids=True),
        "participants": [
            {
                "ref": maps.id("participant", p.id),
                "character": maps.id("character", p.character_id),
                "bestiary_entry": maps.id("bestiary", p.bestiary_entry_id),
                "name": p.name,
                "side": p.side,
                "hidden": p.hidden,
                "stats": remap(p.stats, maps, pids=True),
                "position": p.position,
            }
            for p in participants
            if p.encounter_id == e.id
        ],
    }


@dataclass
class _Rows:
    bestiary: list[BestiaryEntry] = field(default_factory=list)
    encounters: list[Encounter] = field(default_factory=list)
    participants: list[Participant] = field(default_factory=list)
    histories: dict[int, list[undo.Entry]] = field(default_factory=dict)

    def user_ids(self) -> set[int]:
        return set()

    def number(self, maps: IdMaps) -> None:
        maps.number("bestiary", [b.id for b in self.bestiary])
        maps.number("encounter", [e.id for e in self.encounters])
        maps.number("participant", [p.id for p in self.participants])

    async def write(self, maps: IdMaps) -> dict[str, object]:
        bestiary: list[BestiaryExport] = [
            {
                "ref": maps.id("bestiary", b.id),
                "system": b.system,
                "name": b.name,
                "data": b.data,
                "sample": b.sample,
            }
            for b in self.bestiary
        ]
        return {
            "bestiary": bestiary,
            "encounters": [
                _encounter_doc(e, self.histories[e.id], self.participants, maps)
                for e in self.encounters
            ],
        }


def _runnable_state(state: object) -> dict[str, object]:
    """An imported fight's state, refused at the field unless it has the shape the server
    runs (an empty one: the fight has not started); else every read of it would fail."""
    try:
        if not isinstance(state, dict):
            raise StateError("not a state")
        read_state(state)
    except StateError:
        raise ValidationFailed(
            {"encounters": _("An encounter's combat state does not have the shape of one.")}
        ) from None
    return state


class EncountersPart:
    """The bestiary, and the encounters with their participants, state and undo steps."""

    tables = {"bestiary_entry": "bestiary", "encounter": "encounters"}  # noqa: RUF012
    model = EncountersDoc

    async def load(self, session: AsyncSession, campaign_id: int, exporter_id: int) -> _Rows:
        rows = _Rows()
        rows.bestiary = await all_rows(
            session,
            select(BestiaryEntry)
            .where(BestiaryEntry.campaign_id == campaign_id)
            .order_by(BestiaryEntry.id),
        )
        rows.encounters = await all_rows(
            session,
            select(Encounter).where(Encounter.campaign_id == campaign_id).order_by(Encounter.id),
        )
        ids = [e.id for e in rows.encounters]
        rows.participants = await all_rows(
            session,
            select(Participant).where(Participant.encounter_id.in_(ids)).order_by(Participant.id),
        )
        rows.histories = await undo.entries(session, ids)
        return rows

    def check(self, document: Document) -> None:
        """Nothing beyond the document model's own validation of this part."""

    async def import_(self, into: Import) -> None:
        doc = into.document.part(EncountersDoc)
        rows = [
            BestiaryEntry(campaign_id=into.campaign_id, **b.model_dump(exclude={"ref"}))
            for b in doc.bestiary
        ]
        await add_under_refs(
            into.session, rows, into.maps, "bestiary", [b.ref for b in doc.bestiary]
        )
        await self._encounters(into, doc.encounters)

    async def _encounters(self, into: Import, docs: list[EncounterDoc]) -> None:
        session, maps = into.session, into.maps
        rows = [
            Encounter(campaign_id=into.campaign_id, name=e.name, notes=e.notes, status=e.status)
            for e in docs
        ]
        await add_under_refs(session, rows, maps, "encounter", [e.ref for e in docs])
        figures = [
            Participant.like(
                p,
                row.id,
                maps.id("character", p.character),
                maps.id("bestiary", p.bestiary_entry),
                {},
            )
            for row, e in zip(rows, docs, strict=True)
            for p in e.participants
        ]
        await add_under_refs(
            session, figures, maps, "participant", [p.ref for e in docs for p in e.participants]
        )
        stats = [p.stats for e in docs for p in e.participants]
        for figure, raw in zip(figures, stats, strict=True):
            figure.stats = remap(raw, maps, pids=True)
        for row, e in zip(rows, docs, strict=True):
            row.settings = e.settings
            row.state = _runnable_state(remap(e.state, maps, pids=True))
            history = undo.step_rows(row.id, remap(e.history, maps, pids=True))
            if history is None:
                raise ValidationFailed(
                    {"history": _("An undo step needs a combat state and its events' seqs.")}
                )
            session.add_all(history)


PART = EncountersPart()
