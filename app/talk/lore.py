"""What the heroes know, as the monster cards page and the JSON API show it to one viewer.

A player's card holds exactly the facts they know ("Höhlentroll — verwundbar gegen Feuer,
LP ~60") and nothing else of the entry: no id of a fact they lack, no hidden value, not
even the entry's name unless it was revealed. The GMs' card holds every fact with who
knows it, the false facts and the forms to reveal and to confirm.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.campaigns.models import Campaign
from app.core.viewer import Viewer
from app.i18n import _
from app.knowledge import service as knowledge
from app.talk.views import member_names

View = dict[str, Any]


def _audience(to: knowledge.Audience, names: dict[int, str]) -> str:
    if to == "party":
        return _("the group")
    return ", ".join(names.get(u, "?") for u in to)


def card(k: knowledge.EntryKnowledge, names: dict[int, str] | None = None) -> View:
    """One entry as the viewer may see it (JSON and page alike)."""
    title = k.name
    if not k.gm:
        return {
            "entry_id": k.entry.id,
            "name": title,
            "title": title or _("Unknown creature"),
            "facts": [{"key": s.key, "text": s.text} for s in k.shown],
        }
    names = names or {}
    return {
        "entry_id": k.entry.id,
        "name": title,
        "title": title,
        "facts": [
            {
                "key": g.fact.key,
                "label": g.fact.label,
                "text": g.fact.text,
                "party": g.party,
                "users": g.users,
                "known_by": _("the group") if g.party else _audience(g.users, names),
            }
            for g in k.facts
        ],
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


async def cards_context(session: AsyncSession, viewer: Viewer, campaign: Campaign) -> View:
    """The monster cards page: the viewer's cards (GMs: every entry, with the forms)."""
    entries = await knowledge.known_entries(session, viewer, campaign.id)
    names = await member_names(session, campaign.id) if viewer.is_gm else {}
    players = sorted(
        ((uid, name) for uid, name in names.items() if uid != viewer.user_id),
        key=lambda p: p[1].lower(),
    )
    return {
        "campaign": campaign,
        "campaign_id": campaign.id,
        "viewer": viewer,
        "cards": [card(k, names) for k in entries],
        "members": players,
        "errors": {},
    }
