"""A sheet's history in words: one sentence per change of a ``character_*`` event, with the
field labels of the system's sheet fields and item fields (:mod:`app.characters.systems`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from app.characters import catalog, sheets
from app.characters.systems.registry import character_system, inventory
from app.events.service import VisibleEvent
from app.i18n import N_, _

META_LABELS = {"name": "Name", "hidden_from_players": "Hide from players", "owner_id": "Owner"}


def _plain(value: Any) -> str:
    if value is None or value == "" or value == [] or value == {}:
        return "—"
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {v}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def _field_spec(system: str, key: str) -> sheets.FieldSpec | None:
    """The field's spec; the NSC sheet has every field a sheet of the system may have."""
    return sheets.by_key(character_system(system).fields("npc")).get(key)


def _field_label(system: str, key: str) -> str:
    spec = _field_spec(system, key)
    if spec is not None:
        return _(spec.label)
    if key in META_LABELS:
        return _(META_LABELS[key])
    return key


def _field_value(system: str, key: str, value: Any, owners: Mapping[int, str]) -> str:
    spec = _field_spec(system, key)
    if key == "owner_id":
        return owners.get(value, "—") if isinstance(value, int) else "—"
    if spec is not None and spec.kind == "choice":
        label = dict(spec.choices).get(str(value))
        if label is not None:
            return _(label)
    if spec is not None and spec.kind == "text" and value is not None:
        return sheets.format_value(spec, value).replace("\n", ", ") or "—"
    return _plain(value)


def _where(system: str, entry: Mapping[str, Any]) -> str:
    if entry.get("equipped") and entry.get("slot"):
        label = inventory(system).equip_slots.get(entry["slot"], entry["slot"])
        return _(label)
    if entry.get("container") == sheets.RUCKSACK:
        return _("Rucksack")
    return _("stowed")


def _item_changes(system: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    labels = {"name": _("Name"), "quantity": _("Quantity"), "price": _("Price")}
    for key, label in labels.items():
        if before.get(key) != after.get(key):
            out.append(f"{label}: {_plain(before.get(key))} → {_plain(after.get(key))}")
    old, new = before.get("fields") or {}, after.get("fields") or {}
    for spec in inventory(system).item_fields:
        if old.get(spec.key) != new.get(spec.key):
            values = [
                catalog.field_value_text(spec, v) for v in (old.get(spec.key), new.get(spec.key))
            ]
            out.append(f"{_(spec.label)}: {values[0]} → {values[1]}")
    return out


Describer = Callable[[str, Mapping[str, Any], Mapping[int, str]], list[str]]


def _created(system: str, e: Mapping[str, Any], owners: Mapping[int, str]) -> list[str]:
    return [_("created as NPC") if e.get("kind") == "npc" else _("created")]


def _updated(system: str, e: Mapping[str, Any], owners: Mapping[int, str]) -> list[str]:
    key = str(e.get("field", ""))
    before = _field_value(system, key, e.get("before"), owners)
    after = _field_value(system, key, e.get("after"), owners)
    return [f"{_field_label(system, key)}: {before} → {after}"]


def _fought(system: str, e: Mapping[str, Any], owners: Mapping[int, str]) -> list[str]:
    lines = [_("changed in a fight")]
    for change in e.get("changes") or []:
        key = str(change.get("field", ""))
        before = _field_value(system, key, change.get("before"), owners)
        after = _field_value(system, key, change.get("after"), owners)
        lines.append(f"{_field_label(system, key)}: {before} → {after}")
    return lines


def _item_added(system: str, e: Mapping[str, Any], owners: Mapping[int, str]) -> list[str]:
    item, qty = e.get("item_name", ""), e.get("quantity")
    if e.get("container") == sheets.RUCKSACK:
        return [_("Item «%(item)s» (%(qty)s) put into the Rucksack", item=item, qty=qty)]
    return [_("Item «%(item)s» (%(qty)s) added", item=item, qty=qty)]


def _item_updated(system: str, e: Mapping[str, Any], owners: Mapping[int, str]) -> list[str]:
    changes = _item_changes(system, e.get("before") or {}, e.get("after") or {})
    return [_("Item «%(item)s» edited", item=e.get("item_name", "")), *changes]


def _item_moved(system: str, e: Mapping[str, Any], owners: Mapping[int, str]) -> list[str]:
    """Without the other character's name when it is hidden from the viewer."""
    item, qty, to = e.get("item_name", ""), e.get("quantity"), e.get("to_character_name")
    if to is None:
        return [_("%(qty)s × «%(item)s» given away", qty=qty, item=item)]
    return [_("%(qty)s × «%(item)s» given to %(name)s", qty=qty, item=item, name=to)]


def _item_received(system: str, e: Mapping[str, Any], owners: Mapping[int, str]) -> list[str]:
    item, qty, source = e.get("item_name", ""), e.get("quantity"), e.get("from_character_name")
    if source is None:
        return [_("%(qty)s × «%(item)s» received", qty=qty, item=item)]
    return [_("%(qty)s × «%(item)s» received from %(name)s", qty=qty, item=item, name=source)]


def _fixed(text: str) -> Describer:
    return lambda system, e, owners: [_(text)]


def _with_item(text: str, **where: bool) -> Describer:
    def describe(system: str, e: Mapping[str, Any], owners: Mapping[int, str]) -> list[str]:
        extra = {k: _where(system, e) for k in where}
        return [_(text, item=e.get("item_name", ""), **extra)]

    return describe


#: Verschnaufen's words in events before issue 31, written as the notation is now.
_OLD_VERSCHNAUFEN = re.compile(r", die Hälfte von (\d+) verlorenen\)")


def _rested(system: str, e: Mapping[str, Any], owners: Mapping[int, str]) -> list[str]:
    """The rest's name (a rule term) and its rule notation."""
    detail = _OLD_VERSCHNAUFEN.sub(r" = \1 / 2)", str(e.get("detail", "")))
    return [_("%(rest)s taken", rest=e.get("label", "")), detail]


def _checked(system: str, e: Mapping[str, Any], owners: Mapping[int, str]) -> list[str]:
    """The check's name (a rule term), its outcome, where the item went, and its rule text."""
    label, item = e.get("label", ""), e.get("item_name", "")
    if e.get("item_id") is None:
        head = _("%(check)s: «%(item)s» without success", check=label, item=item)
    elif e.get("container") == sheets.RUCKSACK:
        head = _("%(check)s: «%(item)s» put into the Rucksack", check=label, item=item)
    else:
        head = _("%(check)s: «%(item)s» added", check=label, item=item)
    return [head, str(e.get("detail", ""))]


def _advanced(system: str, e: Mapping[str, Any], owners: Mapping[int, str]) -> list[str]:
    """The new Monsterstufe, its XP and the sheet's values that grew with it."""
    head = _("Monsterstufe %(level)s for %(cost)s XP", level=e.get("level"), cost=e.get("xp_cost"))
    lines = [head]
    for key, pair in (e.get("changes") or {}).items():
        if _field_spec(system, key) is None or not isinstance(pair, list) or len(pair) != 2:
            continue  # the exact growth kept behind the values is no line of its own
        before, after = (_field_value(system, key, v, owners) for v in pair)
        lines.append(f"{_field_label(system, key)}: {before} → {after}")
    return lines


DESCRIBERS: dict[str, Describer] = {
    "character_created": _created,
    "character_updated": _updated,
    "character_rested": _rested,
    "character_checked": _checked,
    "character_advanced": _advanced,
    "character_fought": _fought,
    "character_archived": _fixed(N_("archived")),
    "character_restored": _fixed(N_("restored")),
    "character_deleted": _fixed(N_("deleted")),
    "character_imported": lambda system, e, owners: [
        _("imported with %(count)s items", count=e.get("items", 0))
    ],
    "character_item_added": _item_added,
    "character_item_updated": _item_updated,
    "character_item_removed": _with_item(N_("Item «%(item)s» removed")),
    "character_item_equipped": _with_item(N_("Item «%(item)s» equipped: %(slot)s"), slot=True),
    "character_item_unequipped": _with_item(N_("Item «%(item)s» put away: %(where)s"), where=True),
    "character_item_moved": _item_moved,
    "character_item_received": _item_received,
}


def describe(system: str, entry: Mapping[str, Any], owners: Mapping[int, str]) -> list[str]:
    """The sentences for one event as the viewer received it (``VisibleEvent.data()``)."""
    kind = str(entry.get("type", ""))
    describer = DESCRIBERS.get(kind)
    return describer(system, entry, owners) if describer is not None else [kind]


def entries(
    system: str, events: Sequence[VisibleEvent], owners: Mapping[int, str]
) -> list[dict[str, object]]:
    """The template entries (newest first as given): the event data plus ``when`` and ``lines``."""
    out = []
    for event in events:
        data = event.data()
        data["when"] = datetime.fromisoformat(data["created_at"])
        data["lines"] = describe(system, data, owners)
        out.append(data)
    return out
