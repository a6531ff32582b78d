"""The one place that says which role may do what in a campaign."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from enum import StrEnum
from typing import Any

from sqlalchemy import ScalarSelect, Select, bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from app.accounts.models import User
from app.accounts.service import USER_FOR_TOKEN
from app.campaigns.models import Campaign, Membership
from app.core.viewer import Role, Viewer
from app.db import in_chunks, read_memo
from app.errors import Forbidden, NotFound
from app.i18n import _


class Action(StrEnum):
    view = "view"
    roll = "roll"
    manage_invites = "manage_invites"
    manage_members = "manage_members"
    edit_settings = "edit_settings"
    appoint_co_gm = "appoint_co_gm"
    transfer_gm = "transfer_gm"
    create_character = "create_character"
    #: Edit any sheet, make NSCs and sheets for others, hide NSCs from players.
    manage_characters = "manage_characters"
    manage_item_library = "manage_item_library"
    #: Bestiary, encounters and running combat as the GM (issue 7).
    run_encounters = "run_encounters"
    #: Take part in a combat: act with one's own characters, answer one's defence prompts.
    act_in_combat = "act_in_combat"
    #: Write in the campaign chat, whisper, edit and delete one's own messages (issue 16).
    chat = "chat"
    #: Prepare handouts and show them; delete any chat message.
    manage_talk = "manage_talk"
    #: Battle map scenes: build them (grid, background, walls, doors, terrain, fog), place and
    #: remove tokens, move any token at any time, override the movement rules (issue 15).
    manage_maps = "manage_maps"
    #: Export the whole campaign (every sheet, secret and log entry) as one document.
    export_campaign = "export_campaign"
    #: Start and end game sessions (issue 17).
    run_sessions = "run_sessions"
    #: Turn fair play on or off and choose its table rule.
    configure_fairplay = "configure_fairplay"
    #: Set one's own client seed for the open session.
    set_client_seed = "set_client_seed"


_ALLOWED: dict[Action, frozenset[Role]] = {
    Action.view: frozenset(Role),
    Action.roll: frozenset({Role.gm, Role.co_gm, Role.player}),
    Action.manage_invites: frozenset({Role.gm, Role.co_gm}),
    Action.manage_members: frozenset({Role.gm, Role.co_gm}),
    Action.edit_settings: frozenset({Role.gm, Role.co_gm}),
    Action.appoint_co_gm: frozenset({Role.gm}),
    Action.transfer_gm: frozenset({Role.gm}),
    Action.create_character: frozenset({Role.gm, Role.co_gm, Role.player}),
    Action.manage_characters: frozenset({Role.gm, Role.co_gm}),
    Action.manage_item_library: frozenset({Role.gm, Role.co_gm}),
    Action.run_encounters: frozenset({Role.gm, Role.co_gm}),
    Action.act_in_combat: frozenset({Role.gm, Role.co_gm, Role.player}),
    Action.chat: frozenset({Role.gm, Role.co_gm, Role.player}),
    Action.manage_talk: frozenset({Role.gm, Role.co_gm}),
    Action.manage_maps: frozenset({Role.gm, Role.co_gm}),
    Action.export_campaign: frozenset({Role.gm}),
    Action.run_sessions: frozenset({Role.gm, Role.co_gm}),
    Action.configure_fairplay: frozenset({Role.gm}),
    Action.set_client_seed: frozenset(Role),
}


def allowed(role: Role, action: Action) -> bool:
    return role in _ALLOWED[action]


def can_see_character(viewer: Viewer, *, hidden_from_players: bool) -> bool:
    """Hidden NSC sheets exist only for GMs; everything else is visible to every member."""
    return viewer.is_gm or not hidden_from_players


def can_edit_character(viewer: Viewer, *, owner_id: int | None) -> bool:
    """The owner (while a player) and the GMs edit a sheet; other members only read it."""
    if allowed(viewer.role, Action.manage_characters):
        return True
    return owner_id == viewer.user_id and allowed(viewer.role, Action.create_character)


def can_roll_for_character(viewer: Viewer, *, owner_id: int | None) -> bool:
    """Rolling from a sheet, and asking its odds first: whoever may edit the sheet, if their
    role may roll. One rule for the roll dialog, the odds and the roll, in HTML and API."""
    return allowed(viewer.role, Action.roll) and can_edit_character(viewer, owner_id=owner_id)


_CAMPAIGN_AND_ROLE = (
    select(Campaign, Membership.role)
    .join(Membership, Membership.campaign_id == Campaign.id)
    .where(Campaign.id == bindparam("campaign_id"), Membership.user_id == bindparam("user_id"))
)
_ROLE = select(Membership.role).where(
    Membership.campaign_id == bindparam("campaign_id"), Membership.user_id == bindparam("user_id")
)
#: Built once: the ids are bound at execution (an ``in_`` of a list would build the statement
#: anew, value by value, on every sweep).
_MEMBERS_OF = select(Membership.campaign_id, Membership.user_id, Membership.role).where(
    Membership.campaign_id.in_(bindparam("campaign_ids", expanding=True))
)
#: ``AsyncSession.info`` key: roles already read in this transaction, (campaign, user) → role.
_ROLES_READ = "campaign_roles"


def role_in_campaign(user_id: InstrumentedAttribute[int]) -> ScalarSelect[str]:
    """The role of ``user_id`` in the campaign bound as ``:role_campaign_id`` (or NULL), to
    read with the session lookup in one statement; hand the result to :func:`remember_role`."""
    return (
        select(Membership.role)
        .where(
            Membership.campaign_id == bindparam("role_campaign_id"),
            Membership.user_id == user_id,
        )
        .scalar_subquery()
    )


def remember_role(
    session: AsyncSession,
    campaign_id: int,
    user_id: int,
    role_name: str | None,
    campaign: Campaign | None = None,
) -> None:
    """Record a role read in this transaction, so :func:`authorize_viewer` need not read it
    again (lives as long as the session: one request); with the ``campaign`` row read along,
    :func:`authorize` need not either, until something is written."""
    session.info.setdefault(_ROLES_READ, {})[(campaign_id, user_id)] = role_name
    if campaign is not None or role_name is None:
        read_memo(session)[(_ROLES_READ, campaign_id, user_id)] = (role_name, campaign)


#: The session lookup (``app.accounts.service.USER_FOR_TOKEN``), the user's role in the
#: campaign bound as ``:role_campaign_id`` and that campaign's row: a campaign request's
#: authorization then reads neither again (``app.web.deps``; hand the added columns to
#: :func:`remember_lookup`).
USER_AND_ROLE_FOR_TOKEN: Select[Any] = USER_FOR_TOKEN.add_columns(
    role_in_campaign(User.id), Campaign
).outerjoin(Campaign, Campaign.id == bindparam("role_campaign_id"))


def remember_lookup(
    session: AsyncSession, campaign_id: int, user_id: int, more: Sequence[Any]
) -> None:
    """:func:`remember_role` with the columns :data:`USER_AND_ROLE_FOR_TOKEN` added."""
    role_name, campaign = more
    remember_role(session, campaign_id, user_id, role_name, campaign)


async def current_viewer(session: AsyncSession, campaign_id: int, viewer: Viewer) -> Viewer | None:
    """The viewer with the role they have now, or ``None`` if they left the campaign (for a
    live stream, which outlives the request that authorized it)."""
    role_name = await session.scalar(_ROLE, {"campaign_id": campaign_id, "user_id": viewer.user_id})
    return None if role_name is None else Viewer(viewer.user_id, viewer.username, Role(role_name))


async def member_roles(
    session: AsyncSession, campaign_ids: Collection[int]
) -> dict[tuple[int, int], Role]:
    """Every membership of these campaigns, ``(campaign_id, user_id)`` → role: one statement
    per 500 campaigns (the process's sweep over its live streams)."""
    roles: dict[tuple[int, int], Role] = {}
    for chunk in in_chunks(campaign_ids):
        rows = await session.execute(_MEMBERS_OF, {"campaign_ids": chunk})
        for campaign_id, user_id, role_name in rows:
            roles[(campaign_id, user_id)] = Role(role_name)
    return roles


def _not_a_member() -> NotFound:
    """Non-members learn nothing, not even that the campaign exists."""
    return NotFound(_("Campaign not found."))


def _viewer(role_name: str | None, user_id: int, username: str, action: Action) -> Viewer:
    """The member as a viewer, if their role allows ``action`` (else :class:`Forbidden`)."""
    if role_name is None:
        raise _not_a_member()
    viewer = Viewer(user_id=user_id, username=username, role=Role(role_name))
    if not allowed(viewer.role, action):
        raise Forbidden(_("Your role in this campaign does not allow this."))
    return viewer


async def authorize(
    session: AsyncSession, campaign_id: int, user_id: int, username: str, action: Action
) -> tuple[Campaign, Viewer]:
    """Load the campaign for a member allowed to do ``action`` (else NotFound / Forbidden).

    The role read with the session lookup (:func:`remember_role`) and the campaign row it
    brought along answer without another statement while nothing was written since."""
    known: tuple[str | None, Campaign | None] | None = read_memo(session).get(
        (_ROLES_READ, campaign_id, user_id)
    )
    if known is not None:
        role_name, campaign = known
        viewer = _viewer(role_name, user_id, username, action)  # not a member: NotFound
        assert campaign is not None  # a member's campaign exists (foreign key)
        return campaign, viewer
    row = (
        await session.execute(_CAMPAIGN_AND_ROLE, {"campaign_id": campaign_id, "user_id": user_id})
    ).first()
    if row is None:
        raise _not_a_member()
    campaign, role_name = row
    return campaign, _viewer(role_name, user_id, username, action)


async def member_viewer(
    session: AsyncSession, campaign_id: int, user_id: int, username: str
) -> Viewer:
    """The member's viewer in the campaign (:func:`authorize` to view it)."""
    _campaign, viewer = await authorize(session, campaign_id, user_id, username, Action.view)
    return viewer


async def authorize_viewer(
    session: AsyncSession, campaign_id: int, user_id: int, username: str, action: Action
) -> Viewer:
    """:func:`authorize` for use cases that need the member's role but not the campaign row
    (the roll, the hottest path of all)."""
    read: dict[tuple[int, int], str | None] = session.info.get(_ROLES_READ, {})
    if (campaign_id, user_id) in read:
        role_name = read[(campaign_id, user_id)]
    else:
        role_name = await session.scalar(_ROLE, {"campaign_id": campaign_id, "user_id": user_id})
    return _viewer(role_name, user_id, username, action)
