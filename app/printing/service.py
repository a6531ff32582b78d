"""What each printout shows, for one viewer: exactly what their pages show them.

Every function checks the viewer's rights through the package that owns the thing (the
sheet through ``characters.service.open_character``, the monster card through
``knowledge.service.knowledge``, the initiative list through ``encounters.service.load``
with the GMs' right to run encounters, a handout through ``talk.handouts.visible``) and
builds the content from the same view builders the pages use, so that a printout never
holds more than the page: a player's monster card has only the facts revealed to them.
Strings are translated and numbers formatted here (in the request's locale); the layout is
:func:`app.printing.document.render`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from babel.dates import format_date
from babel.numbers import format_decimal
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts.models import User
from app.campaigns.models import Campaign
from app.campaigns.permissions import Action, authorize
from app.characters import service as characters
from app.characters import sheets
from app.characters.systems.registry import character_system
from app.characters.views import sheet_context
from app.core.systems import RULE_SYSTEMS, RuleSystem
from app.encounters import service as encounters
from app.encounters.views import STATUS_LABELS
from app.encounters.views import rows as initiative_rows
from app.errors import NotFound
from app.i18n import _, get_locale
from app.knowledge import service as knowledge
from app.printing.document import Block, Document, Pairs, Picture, Table, Text
from app.talk import handouts
from app.talk.markup import plain_text

#: Empty rows for items on a sheet printed for the table.
BLANK_ITEM_ROWS = 12
BLANK_NOTE_ROWS = 8
KINDS = ("pc", "npc")


def _kind_label(kind: str) -> str:
    return _("Player character") if kind == "pc" else _("Non-player character")


def _footer(campaign: Campaign | None) -> str:
    printed = format_date(datetime.now(UTC).date(), format="long", locale=get_locale())
    text = _("Printed on %(date)s", date=printed)
    return f"{campaign.name} · {text}" if campaign is not None else f"Tafelrunde · {text}"


def _number(value: object) -> str:
    """A whole or decimal number in the viewer's locale; anything else as it is."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "" if value is None else str(value)
    return format_decimal(value, locale=get_locale())


# --- sheets ---------------------------------------------------------------------------------


def _field_text(spec: sheets.FieldSpec, shown: str) -> str:
    """A field's value as printed: a choice by its label, a flag as yes/no, a number in the
    viewer's locale, a list (Talente, ``Name: Wert`` lines) in one run of text; nothing for
    an empty one (the sheet for the table)."""
    if not shown:
        return ""
    if spec.kind == "choice":
        return _(dict(spec.choices).get(shown, shown))
    if spec.kind == "bool":
        return _("yes") if shown in ("True", "true", "on") else _("no")
    if spec.kind == "int" and shown.lstrip("-").isdigit():
        return _number(int(shown))
    if spec.kind == "text":
        return ", ".join(line for line in shown.splitlines() if line.strip())
    return shown


def _field_blocks(
    groups: Mapping[str, Sequence[sheets.FieldSpec]], shown: Mapping[str, str]
) -> list[Block]:
    return [
        Pairs(
            _(sheets.GROUP_LABELS.get(group, group)),
            [(_(spec.label), _field_text(spec, shown.get(spec.key, ""))) for spec in specs],
        )
        for group, specs in groups.items()
    ]


def _where(item: sheets.ItemLike, slots: Mapping[str, str]) -> str:
    """Where an item is, in the words of the sheet page's inventory."""
    if item.equipped:
        return _(slots.get(item.slot or "", item.slot or ""))
    return _("Rucksack") if item.container == sheets.RUCKSACK else _("stowed")


def _item_columns() -> list[str]:
    return [_("Item"), _("Quantity"), _("Where"), _("Details")]


async def sheet(session: AsyncSession, user: User, campaign_id: int, character_id: int) -> Document:
    """A character's sheet for a member who may read it (404 otherwise)."""
    opened = await characters.open_character(session, user, campaign_id, character_id)
    context: dict[str, Any] = sheet_context(
        opened.viewer, opened.campaign, opened.character, opened.items, others=[], library=[]
    )
    character = opened.character
    view: sheets.SheetView = context["view"]
    blocks = _field_blocks(context["groups"], context["shown"])
    blocks.append(Pairs(_("Derived values"), [(d.label, d.value) for d in view.derived]))
    if view.conditions:
        blocks.append(Pairs(_("Conditions"), [(c, "") for c in view.conditions]))
    texts: Mapping[int, list[str]] = context["item_texts"]
    slots: Mapping[str, str] = context["equip_slots"]
    item_rows = [
        [
            i.name,
            _number(i.quantity),
            _where(i, slots),
            ", ".join(texts.get(i.id, [])),
        ]
        for i in opened.items
    ]
    blocks.append(Table(_("Items"), _item_columns(), item_rows, (5, 2, 3, 6)))
    subtitle = " · ".join(
        (RULE_SYSTEMS[RuleSystem(character.system)].label, _kind_label(character.kind))
    )
    return Document(character.name, subtitle, _footer(opened.campaign), blocks)


def empty_sheet(system_key: str, kind: str) -> Document:
    """An empty sheet of a system to fill in by hand at the table (every label, no values)."""
    if system_key not in set(RuleSystem) or kind not in KINDS:
        raise NotFound(_("No such sheet."))
    system = character_system(system_key)
    groups: dict[str, list[sheets.FieldSpec]] = {}
    for spec in system.fields(kind):
        groups.setdefault(spec.group, []).append(spec)
    blocks = _field_blocks(groups, {})
    view = system.view(system.default_data(kind), [], {})
    blocks.append(Pairs(_("Derived values"), [(d.label, "") for d in view.derived]))
    blank = [["", "", "", ""] for _row in range(BLANK_ITEM_ROWS)]
    blocks.append(Table(_("Items"), _item_columns(), blank, (5, 2, 3, 6)))
    blocks.append(Table(_("Notes"), [""], [[""] for _row in range(BLANK_NOTE_ROWS)]))
    title = _("Name:") + " " + "_" * 40
    subtitle = " · ".join((RULE_SYSTEMS[RuleSystem(system_key)].label, _kind_label(kind)))
    return Document(title, subtitle, _footer(None), blocks)


# --- bestiary, encounters, handouts ----------------------------------------------------------


async def monster_card(
    session: AsyncSession, user: User, campaign_id: int, entry_id: int
) -> Document:
    """A bestiary entry: for the GMs every fact and who knows it; for the others only what
    was revealed to them (an entry they know nothing of is 404, as on the page)."""
    known = await knowledge.knowledge(session, user, campaign_id, entry_id)
    campaign, _viewer = await authorize(session, campaign_id, user.id, user.username, Action.view)
    system = RULE_SYSTEMS[RuleSystem(known.entry.system)].label
    if known.gm:
        rows = [
            [f.fact.label, f.fact.text, _("the party") if f.party else _number(len(f.users))]
            for f in known.facts
        ]
        columns = [_("Value"), _("What the heroes would read"), _("Known to")]
        block = Table(_("Facts"), columns, rows, (3, 8, 3))
    else:
        block = Table(_("What the heroes know"), [_("Fact")], [[s.text] for s in known.shown])
    title = known.name or _("Unknown creature")
    return Document(title, f"{_('Monster card')} · {system}", _footer(campaign), [block])


async def initiative(
    session: AsyncSession, user: User, campaign_id: int, encounter_id: int
) -> Document:
    """An encounter's roster in initiative order, for the GMs (who run encounters)."""
    loaded = await encounters.load(session, user, campaign_id, encounter_id, Action.run_encounters)
    state = loaded.encounter.state or {}
    columns = [_("No."), _("Name"), _("Side"), _("Initiative"), _("Points"), _("Conditions")]
    rows = [
        [
            _number(n),
            r["name"] + (" " + _("(hidden)") if r["hidden"] else ""),
            _(r["side_label"]),
            _number(r.get("initiative")),
            r.get("points") or "",
            ", ".join([*r.get("conditions", []), *r.get("extra", [])]),
        ]
        for n, r in enumerate(initiative_rows(loaded), start=1)
    ]
    status = _(STATUS_LABELS.get(loaded.encounter.status, loaded.encounter.status))
    subtitle = " · ".join(
        (_("Initiative list"), status, _("Round %(round)s", round=_number(state.get("round", 0))))
    )
    block = Table(_("Participants"), columns, rows, (2, 7, 4, 4, 4, 8))
    return Document(loaded.encounter.name, subtitle, _footer(loaded.campaign), [block])


async def handout(session: AsyncSession, user: User, campaign_id: int, handout_id: int) -> Document:
    """A handout for a member it was shown to (the GMs: any); 404 for the others."""
    campaign, viewer = await authorize(session, campaign_id, user.id, user.username, Action.view)
    shown = await handouts.readable(session, viewer, campaign_id, handout_id)
    blocks: list[Block] = []
    if shown.image is not None:
        image = await handouts.image_for(session, viewer, campaign_id, handout_id)
        blocks.append(Picture(image.data, image.width, image.height, shown.handout.title))
    if shown.handout.body:
        blocks.append(Text("", plain_text(shown.handout.body)))
    return Document(shown.handout.title, _("Handout"), _footer(campaign), blocks)
