"""Use cases of campaigns. Every one checks its permission through ``authorize`` first."""

from __future__ import annotations

import secrets
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.accounts.models import User
from app.campaigns import events as campaign_events
from app.campaigns.models import Campaign, Invite, Membership
from app.campaigns.permissions import Action, allowed, authorize
from app.campaigns.settings import validate_settings
from app.core.systems import RuleSystem
from app.core.viewer import Role, Viewer
from app.db import read_memo, utcnow
from app.errors import Conflict, Forbidden, NotFound, ValidationFailed
from app.events import events as log_events
from app.events.service import append_event
from app.i18n import _

INVITE_ROLES = (Role.player, Role.observer)


@dataclass(frozen=True, slots=True)
class MemberView:
    user_id: int
    username: str
    role: Role


@dataclass(frozen=True, slots=True)
class CampaignSummary:
    campaign: Campaign
    role: Role


def _new_code() -> str:
    return secrets.token_urlsafe(9)


async def _count_memberships(session: AsyncSession, *where: Any) -> int:
    return int(
        await session.scalar(select(func.count()).select_from(Membership).where(*where)) or 0
    )


async def create_campaign(session: AsyncSession, user: User, name: str, system: str) -> Campaign:
    running = await _count_memberships(
        session, Membership.user_id == user.id, Membership.role == Role.gm
    )
    limits.check_room(running, limits.CAMPAIGNS_PER_GM, "name")
    name = name.strip()
    errors: dict[str, str] = {}
    if problem := limits.name_problem(name):
        errors["name"] = problem
    if system not in RuleSystem.__members__:
        errors["system"] = _("Choose Helden & Halunken, Dungeonslayers 4 or Pathfinder 2e.")
    if errors:
        raise ValidationFailed(errors)
    campaign = Campaign(name=name, system=system, settings={})
    session.add(campaign)
    await session.flush()
    session.add(Membership(campaign_id=campaign.id, user_id=user.id, role=Role.gm))
    session.add(Invite(campaign_id=campaign.id, code=_new_code(), role=Role.player))
    await append_event(
        session,
        campaign.id,
        campaign_events.CampaignCreated(actor_name=user.username, name=name, system=system),
        actor_id=user.id,
    )
    return campaign


async def my_campaigns(session: AsyncSession, user: User) -> list[CampaignSummary]:
    rows = (
        await session.execute(
            select(Campaign, Membership.role)
            .join(Membership, Membership.campaign_id == Campaign.id)
            .where(Membership.user_id == user.id)
            .order_by(Campaign.name)
        )
    ).all()
    return [CampaignSummary(c, Role(r)) for c, r in rows]


async def open_campaign(
    session: AsyncSession, user: User, campaign_id: int, action: Action = Action.view
) -> tuple[Campaign, Viewer]:
    return await authorize(session, campaign_id, user.id, user.username, action)


async def all_members(session: AsyncSession, campaign_id: int, user_ids: Collection[int]) -> bool:
    """Whether every one of the users is a member of the campaign."""
    found = await session.scalars(
        select(Membership.user_id).where(
            Membership.campaign_id == campaign_id, Membership.user_id.in_(user_ids)
        )
    )
    return set(found.all()) == set(user_ids)


#: Read by every campaign page and its pushes: built once.
_MEMBERS = (
    select(Membership.user_id, User.username, Membership.role)
    .join(User, User.id == Membership.user_id)
    .where(Membership.campaign_id == bindparam("campaign_id"))
    .order_by(Membership.joined_at, Membership.id)
)
_INVITES = (
    select(Invite)
    .where(Invite.campaign_id == bindparam("campaign_id"), Invite.revoked_at.is_(None))
    .order_by(Invite.id)
)


async def members(session: AsyncSession, campaign_id: int) -> list[MemberView]:
    """The members, GM first; read once per transaction until something is written
    (:func:`app.db.read_memo`: the campaign page's panels each show them)."""
    memo = read_memo(session)
    known: list[MemberView] | None = memo.get(("members", campaign_id))
    if known is not None:
        return list(known)
    rows = (await session.execute(_MEMBERS, {"campaign_id": campaign_id})).all()
    order = {Role.gm: 0, Role.co_gm: 1, Role.player: 2, Role.observer: 3}
    views = [MemberView(uid, name, Role(role)) for uid, name, role in rows]
    views.sort(key=lambda m: order[m.role])
    memo[("members", campaign_id)] = views
    return list(views)


async def active_invites(session: AsyncSession, campaign_id: int) -> Sequence[Invite]:
    now = utcnow()
    invites = (await session.scalars(_INVITES, {"campaign_id": campaign_id})).all()
    return [i for i in invites if i.expires_at is None or i.expires_at > now]


async def create_invite(
    session: AsyncSession, user: User, campaign_id: int, role: str, expires_days: int | None
) -> Invite:
    await open_campaign(session, user, campaign_id, Action.manage_invites)
    limits.check_room(
        len(await active_invites(session, campaign_id)), limits.INVITES_PER_CAMPAIGN, "role"
    )
    errors: dict[str, str] = {}
    if role not in (r.value for r in INVITE_ROLES):
        errors["role"] = _("Invite as player or observer.")
    if expires_days is not None and not 1 <= expires_days <= 365:
        errors["expires_days"] = _("Between 1 and 365 days, or empty for no expiry.")
    if errors:
        raise ValidationFailed(errors)
    invite = Invite(
        campaign_id=campaign_id,
        code=_new_code(),
        role=role,
        expires_at=utcnow() + timedelta(days=expires_days) if expires_days else None,
    )
    session.add(invite)
    await session.flush()
    return invite


async def revoke_invite(
    session: AsyncSession, user: User, campaign_id: int, invite_id: int
) -> None:
    await open_campaign(session, user, campaign_id, Action.manage_invites)
    invite = await session.scalar(
        select(Invite).where(Invite.id == invite_id, Invite.campaign_id == campaign_id)
    )
    if invite is None:
        raise NotFound(_("Invite not found."))
    invite.revoked_at = utcnow()


async def invite_by_code(
    session: AsyncSession, code: str, *, lock_campaign: bool = False
) -> tuple[Invite, Campaign]:
    """The invite and its campaign; ``lock_campaign`` holds the campaign row until commit."""
    code = limits.check_no_nul(code, "invite_code")
    if len(code) > limits.INVITE_CODE_MAX:
        raise NotFound(_("This invite code is not valid."))
    statement = (
        select(Invite, Campaign)
        .join(Campaign, Campaign.id == Invite.campaign_id)
        .where(Invite.code == code.strip())
    )
    if lock_campaign:
        statement = statement.with_for_update(of=Campaign)
    row = (await session.execute(statement)).first()
    if row is None:
        raise NotFound(_("This invite code is not valid."))
    invite, campaign = row
    if invite.revoked_at is not None or (invite.expires_at and invite.expires_at <= utcnow()):
        raise NotFound(_("This invite has expired or was revoked."))
    return invite, campaign


async def member_role(session: AsyncSession, campaign_id: int, user_id: int) -> Role | None:
    """The user's role in the campaign, ``None`` for a non-member."""
    role = await session.scalar(
        select(Membership.role).where(
            Membership.campaign_id == campaign_id, Membership.user_id == user_id
        )
    )
    return Role(role) if role is not None else None


async def join(session: AsyncSession, user: User, code: str) -> tuple[Campaign, Role]:
    """Join by invite code; an existing member keeps their role.

    The campaign row is locked before the membership check, so two joins of one user at
    once run one after the other: the second finds the membership and answers like a
    repeated join (on SQLite the IMMEDIATE transaction already serializes them).
    """
    invite, campaign = await invite_by_code(session, code, lock_campaign=True)
    existing = await session.scalar(
        select(Membership).where(
            Membership.campaign_id == campaign.id, Membership.user_id == user.id
        )
    )
    if existing is not None:
        return campaign, Role(existing.role)
    members = await _count_memberships(session, Membership.campaign_id == campaign.id)
    limits.check_room(members, limits.MEMBERS_PER_CAMPAIGN, "invite_code")
    session.add(Membership(campaign_id=campaign.id, user_id=user.id, role=invite.role))
    await append_event(
        session,
        campaign.id,
        log_events.MemberJoined(actor_name=user.username, user_id=user.id, role=invite.role),
        actor_id=user.id,
    )
    return campaign, Role(invite.role)


async def _membership(session: AsyncSession, campaign_id: int, user_id: int) -> Membership:
    member = await session.scalar(
        select(Membership).where(
            Membership.campaign_id == campaign_id, Membership.user_id == user_id
        )
    )
    if member is None:
        raise NotFound(_("This person is not a member of the campaign."))
    return member


async def remove_member(session: AsyncSession, user: User, campaign_id: int, user_id: int) -> None:
    _campaign, viewer = await open_campaign(session, user, campaign_id, Action.manage_members)
    member = await _membership(session, campaign_id, user_id)
    if member.role == Role.gm:
        raise Forbidden(_("The GM cannot be removed; hand over the GM role first."))
    if member.role == Role.co_gm and viewer.role != Role.gm:
        raise Forbidden(_("Only the GM can remove a co-GM."))
    await session.delete(member)
    await append_event(
        session,
        campaign_id,
        log_events.MemberRemoved(actor_name=user.username, user_id=user_id),
        actor_id=user.id,
    )


async def leave(session: AsyncSession, user: User, campaign_id: int) -> None:
    _campaign, viewer = await open_campaign(session, user, campaign_id)
    if viewer.role == Role.gm:
        raise Forbidden(_("The GM cannot leave; hand over the GM role first."))
    member = await _membership(session, campaign_id, user.id)
    await session.delete(member)
    await append_event(
        session,
        campaign_id,
        log_events.MemberRemoved(actor_name=user.username, user_id=user.id),
        actor_id=user.id,
    )


async def set_role(
    session: AsyncSession, user: User, campaign_id: int, user_id: int, role: str
) -> None:
    """Appoint or demote a co-GM, or switch player/observer; only the GM may touch co-GMs.

    The caller's rights are checked before anything about ``user_id`` is looked up, so the
    answer to someone who may not manage members does not depend on who ``user_id`` is.
    """
    _campaign, viewer = await open_campaign(session, user, campaign_id, Action.manage_members)
    if role not in (Role.co_gm, Role.player, Role.observer):
        raise ValidationFailed({"role": _("Choose co-GM, player or observer.")})
    member = await _membership(session, campaign_id, user_id)
    needs_gm = role == Role.co_gm or member.role == Role.co_gm
    if needs_gm and not allowed(viewer.role, Action.appoint_co_gm):
        raise Forbidden(_("Your role in this campaign does not allow this."))
    if member.role == Role.gm:
        raise Forbidden(_("Hand over the GM role instead."))
    member.role = role
    await append_event(
        session,
        campaign_id,
        log_events.MemberRoleChanged(actor_name=user.username, user_id=user_id, role=role),
        actor_id=user.id,
    )


async def transfer_gm(session: AsyncSession, user: User, campaign_id: int, user_id: int) -> None:
    """Make another member the GM; the former GM stays on as co-GM."""
    await open_campaign(session, user, campaign_id, Action.transfer_gm)
    if user_id == user.id:
        raise ValidationFailed({"user_id": _("You are the GM already.")})
    target = await _membership(session, campaign_id, user_id)
    me = await _membership(session, campaign_id, user.id)
    target.role = Role.gm
    me.role = Role.co_gm
    await append_event(
        session,
        campaign_id,
        log_events.GmTransferred(actor_name=user.username, user_id=user_id),
        actor_id=user.id,
    )


async def update_settings(
    session: AsyncSession, user: User, campaign_id: int, version: int, data: Mapping[str, object]
) -> Campaign:
    campaign, _viewer = await open_campaign(session, user, campaign_id, Action.edit_settings)
    if campaign.version != version:
        raise Conflict(_("Someone changed these settings meanwhile. Here are the current values."))
    limits.check_data(data)
    name = str(data.get("name", campaign.name)).strip()
    errors: dict[str, str] = {}
    if problem := limits.name_problem(name):
        errors["name"] = problem
    options, option_errors = validate_settings(RuleSystem(campaign.system), data)
    errors.update(option_errors)
    if errors:
        raise ValidationFailed(errors)
    before = {"name": campaign.name, **campaign.settings}
    campaign.name = name
    campaign.settings = dict(options)
    await session.flush()
    await append_event(
        session,
        campaign_id,
        campaign_events.SettingsChanged(
            actor_name=user.username, before=before, after={"name": name, **options}
        ),
        actor_id=user.id,
    )
    return campaign
