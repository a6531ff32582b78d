"""The bestiary form's structured parts: rows of inputs for resistances, spells and Strikes.

A stat block's structured parts (``StatBlockRules.extras`` of :mod:`app.encounters.statblocks`)
are lists (spells, Strikes) or a mapping (resistances). The form shows each as rows of
ordinary inputs named ``<key>-<row>-<column>`` (``zauber-0-name``), never as JSON. Without
JavaScript a row is added by the "one more row" submit (``_more=<key>``, which saves nothing
and shows the form again with every typed value and an empty row) and removed by its
"remove" checkbox.

:func:`block_rows` turns the posted form into the values :func:`statblocks.validate` checks
(the validation stays the one of the JSON API); :func:`rows_of` turns a stored block back
into rows of text for the form. Row messages of the validation (``zauber.1``) belong to the
row the user sees as the second one: rows left empty are dropped before, so indices count
the rows that were sent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.encounters import statblocks
from app.encounters.statblocks import hh as hh_statblock
from app.i18n import N_

ROW_MAX = 12
"""Rows one part of the form shows at most (the validation allows fewer: 10 spells, 6
Strikes): a form never grows without bound."""


@dataclass(frozen=True, slots=True)
class Column:
    key: str
    #: A rule term (German in both locales) or an English msgid (``msgid``).
    label: str
    #: "text", "int", "number", "flag", "choice" or "hidden" (a spell's key kept on a rename).
    kind: str = "text"
    choices: tuple[tuple[str, str], ...] = ()
    msgid: bool = False


_RESISTANCE_KINDS = (("resistant", "resistent"), ("vulnerable", "verwundbar"), ("immune", "immun"))
_DIE_CHOICES = (("0", "–"), *((str(d), f"W{d}") for d in (4, 6, 8, 10, 12, 20)))

COLUMNS: dict[str, tuple[Column, ...]] = {
    "resistenzen": (
        Column("type", N_("Damage type"), msgid=True),
        Column("kind", N_("Effect"), "choice", _RESISTANCE_KINDS, msgid=True),
    ),
    "zauber": (
        Column("name", N_("Name"), msgid=True),
        Column("grade", "Güteklasse", "choice", tuple((g, g) for g in hh_statblock.HH_GRADES)),
        Column("focus", "Fokus", "int"),
        Column("range", N_("Range (Schritt)"), "int", msgid=True),
        Column("schaden_w", N_("Damage die"), "choice", _DIE_CHOICES, msgid=True),
        Column("schaden_bonus", "Schadensbonus", "int"),
        Column(
            "schadensart",
            "Schadensart",
            "choice",
            tuple((k, k) for k in hh_statblock.HH_DAMAGE_KINDS),
        ),
        Column(
            "zustand",
            "Zustand",
            "choice",
            (("", "–"), *((c, c) for c in hh_statblock.HH_SPELL_CONDITIONS)),
        ),
        Column("verteidigung", "Verteidigung mit Magiekunde", "flag"),
        Column("flaeche", "Flächenzauber", "flag"),
        Column("key", "key", "hidden"),
    ),
    "angriffe": (
        Column("name", N_("Name"), msgid=True),
        Column("bonus", N_("Attack bonus"), "int", msgid=True),
        Column("schaden", N_("Damage"), "text", msgid=True),
        Column("agil", "agil", "flag"),
        Column("fernkampf", N_("Ranged"), "flag", msgid=True),
        Column("entfernung", N_("Range increment"), "number", msgid=True),
        Column("merkmale", N_("Traits"), "text", msgid=True),
    ),
}

#: Legends of the parts and of one row (English msgids).
LEGENDS = {"resistenzen": N_("Resistances"), "zauber": N_("Spells"), "angriffe": N_("Strikes")}
ROW_LEGENDS = {
    "resistenzen": N_("Resistance %(n)d"),
    "zauber": N_("Spell %(n)d"),
    "angriffe": N_("Strike %(n)d"),
}

Row = dict[str, str]


def _filled(columns: tuple[Column, ...], row: Row) -> bool:
    """A row counts when one of its typed inputs (not a choice or a box) holds something."""
    return any(row.get(c.key, "").strip() for c in columns if c.kind in ("text", "int", "number"))


def posted_rows(key: str, form: Mapping[str, str]) -> list[Row]:
    """The rows of part ``key`` as typed, in their order, without those marked for removal."""
    columns = COLUMNS[key]
    pattern = re.compile(rf"^{re.escape(key)}-(\d{{1,2}})-(\w+)$")
    by_index: dict[int, Row] = {}
    for name, value in form.items():
        found = pattern.match(name)
        if found and int(found.group(1)) < ROW_MAX:
            by_index.setdefault(int(found.group(1)), {})[found.group(2)] = value
    rows = [by_index[i] for i in sorted(by_index)]
    return [
        {c.key: row.get(c.key, "") for c in columns}
        for row in rows
        if not row.get("remove") and _filled(columns, row)
    ]


def block_rows(key: str, rows: list[Row]) -> Any:
    """The posted rows as the stat block's part, for :func:`statblocks.validate`."""
    if key == "resistenzen":
        return {row["type"].strip(): row["kind"] for row in rows if row["type"].strip()}
    out: list[dict[str, object]] = []
    for row in rows:
        item: dict[str, object] = {}
        for column in COLUMNS[key]:
            value = row.get(column.key, "")
            item[column.key] = bool(value) if column.kind == "flag" else value.strip()
        out.append(item)
    return out


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "" if value is None else str(value)


def rows_of(key: str, value: Any) -> list[Row]:
    """A stored part as rows of text for the form."""
    if key == "resistenzen":
        items = value.items() if isinstance(value, Mapping) else ()
        return [{"type": str(k), "kind": str(v)} for k, v in items]
    if not isinstance(value, list):
        return []
    columns = COLUMNS[key]
    return [
        {c.key: _text(item.get(c.key)) for c in columns}
        for item in value
        if isinstance(item, Mapping)
    ]


def shown_rows(rows: list[Row], more: bool) -> list[Row]:
    """The rows a form shows: what it has, one empty row when asked (or when it has none)."""
    if (more or not rows) and len(rows) < ROW_MAX:
        return [*rows, {}]
    return rows


@dataclass(frozen=True, slots=True)
class Posted:
    """A bestiary form as the user sent it: shown again as typed when it was refused or
    when the user asked for one more row."""

    #: "new" or the entry's id.
    target: str
    values: Mapping[str, str]
    rows: dict[str, list[Row]]
    #: The part that asked for one more row ("" for a save).
    more: str


def posted(system: str, target: str, form: Mapping[str, str]) -> tuple[Posted, dict[str, object]]:
    """The form as typed, and the stat block it describes (for the validation)."""
    rows = {x.key: posted_rows(x.key, form) for x in statblocks.rules(system).extras}
    block: dict[str, object] = {
        f.key: form[f.key] for f in statblocks.rules(system).schema if f.key in form
    }
    block.update({key: block_rows(key, part) for key, part in rows.items()})
    more = form.get("_more", "")
    return Posted(target, form, rows, more if more in rows else ""), block


def form_view(
    system: str,
    target: str,
    name: str,
    data: Mapping[str, Any],
    state: Posted | None,
    errors: Mapping[str, str],
) -> dict[str, object]:
    """One form of the bestiary page: the stored entry (or the defaults), or what was typed."""
    mine = state is not None and state.target == target
    if state is not None and mine:
        values: Mapping[str, Any] = state.values
        rows = state.rows
    else:
        values = {
            "name": name,
            **{f.key: data.get(f.key, f.default) for f in statblocks.rules(system).schema},
        }
        rows = {x.key: rows_of(x.key, data.get(x.key)) for x in statblocks.rules(system).extras}
    parts = [
        {
            "key": x.key,
            "legend": LEGENDS[x.key],
            "row_legend": ROW_LEGENDS[x.key],
            "columns": COLUMNS[x.key],
            "rows": shown_rows(rows[x.key], mine and state is not None and state.more == x.key),
        }
        for x in statblocks.rules(system).extras
    ]
    return {
        "target": target,
        "values": {k: _text(v) for k, v in values.items()},
        "parts": parts,
        "errors": dict(errors) if mine else {},
        "open": mine,
    }
