"""What the heroes know, as the monster cards page and the JSON API show it to one viewer.

A player's card holds exactly the facts they know ("Höhlentroll — verwundbar gegen Feuer,
LP ~60") and nothing else of the entry: no id of a fact they lack, no hidden value, not
even the entry's name unless it was revealed. The GMs' card holds every fact with who
knows it, the false facts and the forms to reveal and to confirm.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from sqlalchemy.ext.asyncio import AsyncSession

from app.campaigns.models import Campaign
from app.campaigns.permissions import can_roll_for_character
from app.characters import service as characters
from app.characters.systems.registry import sheet_rolls
from app.core.viewer import Viewer
from app.i18n import _
from app.knowledge import service as knowledge
from app.knowledge.systems import knowledge_rules
from app.talk.views import member_names


class ShownFact(TypedDict):
    """A fact as a player sees it."""

    key: str
    text: str


class GmFactView(ShownFact):
    """A fact as the GMs see it: its label and who knows it."""

    label: str
    party: bool
    users: list[int]
    known_by: str


class FalseFactView(TypedDict):
    """A false fact (GMs only) and to whom it goes."""

    id: int
    key: str
    text: str | None
    pending: bool
    version: int
    to: knowledge.Audience
    to_names: str


class Card(TypedDict):
    """One entry as a viewer may see it (:func:`card`); ``false_facts`` for the GMs only."""

    entry_id: int
    name: str | None
    title: str
    facts: list[ShownFact] | list[GmFactView]
    false_facts: NotRequired[list[FalseFactView]]


class CheckChoice(TypedDict):
    """A character and its knowledge checks (``(value, label)`` options of the form)."""

    name: str
    options: list[tuple[str, str]]


def _audience(to: knowledge.Audience, names: dict[int, str]) -> str:
    if to == "party":
        return _("the group")
    return ", ".join(names.get(u, "?") for u in to)


def card(k: knowledge.EntryKnowledge, names: dict[int, str] | None = None) -> Card:
    """One entry as the viewer may see it (JSON and page alike)."""
    title = k.name
    if not k.gm:
        shown: list[ShownFact] = [{"key": s.key, "text": s.text} for s in k.shown]
        return {
            "entry_id": k.entry.id,
            "name": title,
            "title": title or _("Unknown creature"),
            "facts": shown,
        }
    names = names or {}
    facts: list[GmFactView] = [
        {
            "key": g.fact.key,
            "label": g.fact.label,
            "text": g.fact.text,
            "party": g.party,
            "users": g.users,
            "known_by": _("the group") if g.party else _audience(g.users, names),
        }
        for g in k.facts
    ]
    return {
        "entry_id": k.entry.id,
        "name": title,
        "title": k.entry.name,
        "facts": facts,
        "false_facts": [
            {
                "id": f.row.id,
                "key": f.row.fact,
                "text": f.row.text,
                "pending": f.row.pending,
                "version": f.row.version,
                "to": f.audience,
                "to_names": _audience(f.audience, names),
            }
            for f in k.false_facts
        ],
    }


async def cards_context(
    session: AsyncSession, viewer: Viewer, campaign: Campaign
) -> dict[str, object]:
    """The monster cards page: the viewer's cards (GMs: every entry, with the forms)."""
    entries = await knowledge.known_entries(session, viewer, campaign.id)
    names = await member_names(session, campaign.id) if viewer.is_gm else {}
    players = sorted(
        ((uid, name) for uid, name in names.items() if uid != viewer.user_id),
        key=lambda p: p[1].lower(),
    )
    cards = [card(k, names) for k in entries]
    return {
        "campaign": campaign,
        "campaign_id": campaign.id,
        "viewer": viewer,
        "cards": cards,
        "members": players,
        "checks": await _checks(session, viewer, campaign),
        "creatures": await _creatures(session, viewer, campaign.id, cards),
        "errors": {},
        "values": {},
        "card_errors": {},
    }


async def _checks(session: AsyncSession, viewer: Viewer, campaign: Campaign) -> list[CheckChoice]:
    """Per character the viewer may roll for, the rolls that are knowledge checks."""
    rules = knowledge_rules(campaign.system)
    out: list[CheckChoice] = []
    for c in await characters.visible_characters(session, viewer, campaign.id):
        if c.kind != "pc" or not can_roll_for_character(viewer, owner_id=c.owner_id):
            continue
        targets = sheet_rolls(c.system).roll_targets(c.data, [])
        rolls = [t for t in targets if rules.check_problem({}, t.key) is None]
        if rolls:
            out.append({"name": c.name, "options": [(f"{c.id}:{t.key}", t.label) for t in rolls]})
    return out


async def _creatures(
    session: AsyncSession, viewer: Viewer, campaign_id: int, cards: list[Card]
) -> list[tuple[int, str]]:
    """What a check may be about: the creatures faced in running fights (by their figures'
    names) and those already on a card."""
    out = {
        entry_id: ", ".join(names)
        for entry_id, names in (await knowledge.faced(session, viewer, campaign_id)).items()
    }
    for c in cards:
        out.setdefault(c["entry_id"], c["title"])
    return sorted(out.items(), key=lambda kv: kv[1].lower())
