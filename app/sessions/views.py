"""What one member sees of the game sessions: the campaign page's panel, the sessions page
and the verification page (one context builder each, shared by page, HTMX and push)."""

from __future__ import annotations

from sqlalchemy import Select, bindparam, select, true
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from app.campaigns.models import Campaign
from app.campaigns.permissions import Action, allowed
from app.core.systems import RULE_SYSTEMS, RuleSystem
from app.core.viewer import Viewer
from app.i18n import N_, gettext
from app.sessions import service
from app.sessions.models import ClientSeed, FairPlayRule, GameSession

#: Sessions the campaign page's panel lists (the sessions page lists every one).
PANEL_SIZE = 5

#: What the verification page calls each event type (``app.events.payload.EVENT_TYPES``),
#: translated.
EVENT_LABELS = {
    "campaign_created": N_("Campaign created"),
    "member_joined": N_("Member joined"),
    "member_removed": N_("Member removed"),
    "member_role_changed": N_("Member's role changed"),
    "gm_transferred": N_("GM role handed over"),
    "settings_changed": N_("Campaign settings changed"),
    "library_item_added": N_("Library item added"),
    "library_item_updated": N_("Library item changed"),
    "library_item_removed": N_("Library item removed"),
    "character_created": N_("Character created"),
    "character_updated": N_("Sheet changed"),
    "character_rested": N_("Rest taken"),
    "character_checked": N_("Check rolled from a sheet"),
    "character_advanced": N_("Companion advanced"),
    "character_fought": N_("Sheet changed by a fight"),
    "character_archived": N_("Character archived"),
    "character_restored": N_("Character restored"),
    "character_deleted": N_("Character deleted"),
    "character_imported": N_("Character imported"),
    "character_item_added": N_("Item added to a sheet"),
    "character_item_updated": N_("Item on a sheet changed"),
    "character_item_removed": N_("Item removed from a sheet"),
    "character_item_equipped": N_("Item equipped"),
    "character_item_unequipped": N_("Item unequipped"),
    "character_item_moved": N_("Item moved"),
    "character_item_received": N_("Item received"),
    "roll": N_("Dice roll"),
    "encounter": N_("Encounter prepared"),
    "combat": N_("Combat"),
    "area_placed": N_("Area placed"),
    "area_resolved": N_("Area resolved"),
    "chat_message": N_("Chat message"),
    "chat_message_edited": N_("Chat message edited"),
    "chat_message_deleted": N_("Chat message deleted"),
    "handout_created": N_("Handout created"),
    "handout_shown": N_("Handout shown"),
    "handout_image_set": N_("Handout image set"),
    "journal_note_shared": N_("Journal note shared"),
    "journal_note_deleted": N_("Journal note deleted"),
    "session_started": N_("Session started"),
    "session_ended": N_("Session ended"),
    "client_seed_set": N_("Client seed set"),
    "fairplay_configured": N_("Fair-play rule set"),
    "scene_updated": N_("Scene changed"),
    "token_added": N_("Token placed"),
    "token_moved": N_("Token moved"),
    "token_sighted": N_("Token sighted"),
    "token_removed": N_("Token removed"),
    "fog_changed": N_("Fog changed"),
    "light_changed": N_("Light changed"),
    "token_changed": N_("Token changed"),
    "map_pointer": N_("Pointer on the map"),
    "knowledge_revealed": N_("Knowledge revealed"),
    "knowledge_false_pending": N_("False knowledge pending"),
}


def event_labels() -> dict[str, str]:
    """Event type → its name in the viewer's language (the page shows these, not keys)."""
    return {type_: gettext(label) for type_, label in EVENT_LABELS.items()}


def session_view(game: GameSession) -> dict[str, object]:
    return {
        "id": game.id,
        "started_at": game.started_at,
        "ended_at": game.ended_at,
        "fairplay": game.commitment is not None,
        "commitment": game.commitment,
        "overrides": game.overrides,
        "reveal_secret_rolls": game.reveal_secret_rolls,
    }


def _panel_query(limited: bool) -> Select[FairPlayRule, GameSession, str]:
    """The campaign's fair-play rule, its sessions newest first (every one, or the newest
    ``limit``) and the member's client seed in each, in one statement: a row per session,
    or one without a session, the rule ``None`` where the campaign has none."""
    games = (
        select(GameSession)
        .where(GameSession.campaign_id == bindparam("campaign_id"))
        .order_by(GameSession.start_seq.desc())
    )
    games = games.limit(bindparam("limit")) if limited else games
    game = aliased(GameSession, games.subquery())
    return (
        select(FairPlayRule, game, ClientSeed.client_seed)
        .select_from(Campaign)
        .outerjoin(FairPlayRule, FairPlayRule.campaign_id == Campaign.id)
        .outerjoin(game, true())
        .outerjoin(
            ClientSeed,
            (ClientSeed.session_id == game.id) & (ClientSeed.user_id == bindparam("user_id")),
        )
        .where(Campaign.id == bindparam("campaign_id"))
        .order_by(game.start_seq.desc())
    )


#: Built once: the panel (the newest ``limit``) and the sessions page (every one).
_PANEL, _EVERY_SESSION = _panel_query(limited=True), _panel_query(limited=False)


async def sessions_context(
    session: AsyncSession, viewer: Viewer, campaign: Campaign, *, limit: int | None = None
) -> dict[str, object]:
    """The sessions of the campaign (newest first), the open one, the member's client seed
    in it, and the fair-play rule; ``limit`` for the panel."""
    query = _PANEL if limit else _EVERY_SESSION
    values = {"campaign_id": campaign.id, "limit": limit, "user_id": viewer.user_id}
    rows = (await session.execute(query, values)).all()
    games = [game for _rule, game, _seed in rows if game is not None]
    # A session starts only when none is open, at the log's next seq: an open one is the
    # newest, so the list shows it (no second read).
    running = games[0] if games and games[0].ended_at is None else None
    seed = rows[0][2] if running is not None and running.commitment is not None else None
    return {
        "campaign": campaign,
        "campaign_id": campaign.id,
        "viewer": viewer,
        "sessions": [session_view(g) for g in games],
        "running": session_view(running) if running else None,
        "client_seed": seed,
        "rule": service.rule_of(rows[0][0] if rows else None),
        "hit_points": RULE_SYSTEMS[RuleSystem(campaign.system)].hit_points,
        "can_run": allowed(viewer.role, Action.run_sessions),
        "can_configure": allowed(viewer.role, Action.configure_fairplay),
        "errors": {},
    }
