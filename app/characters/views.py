"""What one viewer sees of a character: the sheet page and its history page.

One context builder per page, used by the full page, its HTMX fragments and its live push
(``app.characters.live``) alike, so that a pushed sheet is the sheet the page shows: with
the other characters to give an item to and the campaign library to add one from.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.campaigns.models import Campaign
from app.campaigns.permissions import can_edit_character
from app.characters import catalog, service, sheets
from app.characters.history import entries as history_entries
from app.characters.models import Character, Item
from app.characters.systems import registry
from app.characters.systems.protocol import Inventory
from app.core.viewer import Viewer
from app.events.service import VisibleEvent


@dataclass(frozen=True, slots=True)
class CharacterPage:
    """What a sheet or history page is about (the key of its live stream); ``tab`` is the
    browser tab of the sheet, whose own changes its stream skips."""

    campaign_id: int
    character_id: int
    tab: str = ""


def base_url(campaign_id: int, character_id: int) -> str:
    return f"/campaigns/{campaign_id}/characters/{character_id}"


def sheet_context(
    viewer: Viewer,
    campaign: Campaign,
    character: Character,
    items: list[Item],
    *,
    others: list[Character],
    library: list[Item],
    errors: dict[str, str] | None = None,
    values: dict[str, str] | None = None,
    conflict: bool = False,
    item_errors: dict[str, str] | None = None,
    roll: dict[str, object] | None = None,
    editing: int | None = None,
    edit_values: dict[str, str] | None = None,
    new_item: dict[str, str] | None = None,
    field_conflicts: list[Any] | None = None,
    check: dict[str, object] | None = None,
    hero: Character | None = None,
    companions: Sequence[Character] = (),
) -> dict[str, object]:
    """The sheet page from its loaded parts; ``errors``, ``values``, ``conflict``,
    ``item_errors``, ``roll``, ``editing``/``edit_values`` and ``new_item`` (a refused "New
    item" form as typed: shown open) and ``check`` (a guided check's answer: ``key``, the
    form's ``values`` and its ``errors`` or the ``result`` event payload) are a request's
    answer. ``hero``/``companions``: the hero a companion belongs to, a hero's companions."""
    system = registry.character_system(character.system)
    inventory = registry.inventory(character.system)
    specs = system.fields(character.kind)
    groups: dict[str, list[sheets.FieldSpec]] = {}
    for spec in specs:
        groups.setdefault(spec.group, []).append(spec)
    shown = {
        spec.key: sheets.format_value(spec, sheets.get_value(character.data, spec.key))
        for spec in specs
    }
    # What the form was built from, per field (``_base.<key>``): a save merges against it.
    stored = {**shown, "name": character.name}
    shown = {**shown, **(values or {})}
    return {
        "campaign": campaign,
        "campaign_id": campaign.id,
        "viewer": viewer,
        "character": character,
        "items": items,
        "groups": groups,
        "group_labels": sheets.GROUP_LABELS,
        "shown": shown,
        "stored": stored,
        "field_conflicts": {c.key: c for c in field_conflicts or []},
        "errors": errors or {},
        "conflict": conflict,
        "item_errors": item_errors or {},
        "can_edit": can_edit_character(viewer, owner_id=character.owner_id),
        "view": system.view(character.data, items, campaign.settings),
        "base": base_url(campaign.id, character.id),
        "equip_slots": inventory.equip_slots,
        "slot_order": {i.id: _fitting_first(inventory, character.data, items, i) for i in items},
        "item_fields": inventory.item_fields,
        "item_texts": {i.id: catalog.field_texts(inventory.item_fields, i.fields) for i in items},
        "starters": inventory.starter_items(),
        "partials": system.partials,
        "rests": registry.rests(character.system).rests,
        "checks": registry.sheet_checks(character.system).checks,
        "has_companions": registry.companions(character.system).new_companion() is not None,
        "hero": hero,
        "companions": list(companions),
        "check": check or {},
        "roll": roll,
        "others": others,
        "library": library,
        "rucksack": sheets.RUCKSACK,
        "live_notice": False,
        "tab": secrets.token_hex(8),
        "editing": editing,
        "edit_values": edit_values or {},
        "new_item": new_item or {},
    }


def _fitting_first(
    system: Inventory, data: Mapping[str, Any], items: Sequence[Item], item: Item
) -> list[str]:
    """The equip slots for ``item``, those it may go into now first: the select's default is a
    slot that fits (armour on the body, a potion in the belt pouch), not the first weapon slot.
    When none fits, an empty choice comes first (the save then says why at the form)."""
    slots = list(system.equip_slots)
    fits = [s for s in slots if system.equip_problem(data, items, item, s) is None]
    return (fits or [""]) + [s for s in slots if s not in fits]


async def sheet_page(
    session: AsyncSession, opened: service.Opened, **answer: Any
) -> dict[str, object]:
    """The sheet page for ``opened.viewer``: the full page, every HTMX answer and the push."""
    everyone = await service.visible_characters(session, opened.viewer, opened.campaign.id)
    others = [c for c in everyone if c.id != opened.character.id and c.archived_at is None]
    library = await service.library_items(session, opened.campaign.id)
    me = opened.character
    hero = next((c for c in everyone if c.id == me.data.get(sheets.COMPANION_KEY)), None)
    companions = [c for c in everyone if c.data.get(sheets.COMPANION_KEY) == me.id]
    return sheet_context(
        opened.viewer,
        opened.campaign,
        opened.character,
        opened.items,
        others=others,
        library=library,
        hero=hero,
        companions=companions,
        **answer,
    )


async def sheet_live_context(
    session: AsyncSession, viewer: Viewer, key: CharacterPage, _parts: frozenset[str]
) -> dict[str, object] | None:
    opened = await service.open_as(session, viewer, key.campaign_id, key.character_id)
    return None if opened is None else await sheet_page(session, opened)


def history_context(
    opened: service.Opened,
    events: Sequence[VisibleEvent],
    owners: dict[int, str],
    *,
    next_before: int | None = None,
    before: int | None = None,
) -> dict[str, object]:
    """The history page: ``events`` newest first; ``owners`` names the campaign's members."""
    character = opened.character
    return {
        "campaign": opened.campaign,
        "character": character,
        "entries": history_entries(character.system, list(events), owners),
        "owners": owners,
        "next_before": next_before,
        "before": before,
        "last_seq": opened.campaign.last_seq,
        "base": base_url(opened.campaign.id, character.id),
    }


async def history_live_context(
    session: AsyncSession, viewer: Viewer, key: CharacterPage, _parts: frozenset[str]
) -> dict[str, object] | None:
    opened = await service.open_as(session, viewer, key.campaign_id, key.character_id)
    if opened is None:
        return None
    return history_context(opened, [], await service.owner_names(session, key.campaign_id))
