"""Imported parts (:class:`app.transfer.models.ImportedPart`): made by an import, listed for
the GM with a takeover link each, claimed by whoever the GM sends the link to."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.accounts.models import User
from app.campaigns.models import Campaign, Membership
from app.campaigns.permissions import Action, authorize
from app.characters import events as character_events
from app.characters.models import Character
from app.core.transfer import Grants, IdMaps
from app.core.viewer import Role
from app.db import utcnow
from app.errors import Conflict, Forbidden, NotFound
from app.events import events as log_events
from app.events.audience import gm_only, public
from app.events.service import append_event
from app.i18n import N_, _
from app.talk import transfer as talk
from app.transfer.models import ImportedPart

if TYPE_CHECKING:
    from app.transfer.service import UserDoc

#: The label of a part by its role: who played which characters (German «Spieler·in von
#: «Alrik» (importiert)»), or the imported name for a part without characters.
_WITH_CHARACTERS = {
    Role.player: N_("Player of «%(characters)s» (imported)"),
    Role.co_gm: N_("Co-GM of «%(characters)s» (imported)"),
    Role.observer: N_("Observer of «%(characters)s» (imported)"),
}
_WITHOUT_CHARACTERS = {
    Role.player: N_("Player «%(name)s» (imported)"),
    Role.co_gm: N_("Co-GM «%(name)s» (imported)"),
    Role.observer: N_("Observer «%(name)s» (imported)"),
}


@dataclass(frozen=True, slots=True)
class PartView:
    """A part as the GM sees it."""

    id: int
    label: str
    name: str
    role: Role
    characters: list[str]
    code: str | None
    claimed_by: str | None


def part_role(role: Role | None) -> Role:
    """The role a part of the document gets: a former GM's is co-GM; a named person without
    a role who has characters plays them."""
    if role is Role.gm:
        return Role.co_gm
    return role or Role.player


async def import_parts(
    session: AsyncSession,
    campaign_id: int,
    users: list[UserDoc],
    owned: dict[int, list[int]],
    given: dict[int, Grants],
    gm_ref: int | None,
) -> None:
    """A part for every person of the document but its GM (whose part the importer takes)
    who had a role or characters; nobody becomes a member."""
    session.add_all(
        ImportedPart(
            campaign_id=campaign_id,
            name=u.username,
            role=part_role(u.role),
            character_ids=owned.get(u.ref, []),
            grants=given.get(u.ref, {}),
        )
        for u in users
        if u.ref != gm_ref and (u.role is not None or owned.get(u.ref))
    )
    await session.flush()


async def count(session: AsyncSession, campaign_id: int) -> int:
    """How many parts the campaign has not handed over yet."""
    found = await session.scalar(
        select(func.count())
        .select_from(ImportedPart)
        .where(ImportedPart.campaign_id == campaign_id, ImportedPart.claimed_at.is_(None))
    )
    return int(found or 0)


async def export_parts(
    session: AsyncSession, campaign_id: int, document: dict[str, object], maps: IdMaps
) -> None:
    """The parts not handed over yet, written into ``document`` as the people they stand
    for: a user each (after the accounts), the owner of their characters, and what they
    were given in the talk rows; so a copy exported again keeps them."""
    waiting = (
        await session.scalars(
            select(ImportedPart)
            .where(ImportedPart.campaign_id == campaign_id, ImportedPart.claimed_at.is_(None))
            .order_by(ImportedPart.id)
        )
    ).all()
    users, written, talk_rows = document["users"], document["characters"], document["talk"]
    assert isinstance(users, list) and isinstance(written, list) and isinstance(talk_rows, dict)
    characters = {c["ref"]: c for c in written}
    for part in waiting:
        ref = max((u["ref"] for u in users), default=0) + 1
        users.append({"ref": ref, "username": part.name, "role": part.role})
        for character_id in part.character_ids:
            found = characters.get(maps.id("character", character_id))
            if found is not None:
                found["owner"] = ref
        talk.export_grants(talk_rows, maps, ref, part.grants)


def label(role: Role, name: str, characters: Sequence[str]) -> str:
    if characters:
        return _(_WITH_CHARACTERS[role], characters="», «".join(characters))
    return _(_WITHOUT_CHARACTERS[role], name=name)


async def parts_of(session: AsyncSession, user: User, campaign_id: int) -> list[PartView]:
    """The campaign's imported parts (GM and co-GMs: they hand out invites)."""
    await authorize(session, campaign_id, user.id, user.username, Action.manage_invites)
    rows = (
        await session.scalars(
            select(ImportedPart)
            .where(ImportedPart.campaign_id == campaign_id)
            .order_by(ImportedPart.id)
        )
    ).all()
    names = dict(
        (
            await session.execute(
                select(Character.id, Character.name).where(Character.campaign_id == campaign_id)
            )
        ).all()
    )
    claimers = dict(
        (
            await session.execute(
                select(User.id, User.username).where(
                    User.id.in_([r.claimed_by for r in rows if r.claimed_by is not None])
                )
            )
        ).all()
    )
    out = []
    for row in rows:
        characters = [names[c] for c in row.character_ids if c in names]
        role = Role(row.role)
        out.append(
            PartView(
                id=row.id,
                label=label(role, row.name, characters),
                name=row.name,
                role=role,
                characters=characters,
                code=row.code,
                claimed_by=claimers.get(row.claimed_by) if row.claimed_by else None,
            )
        )
    return out


async def _part(
    session: AsyncSession, campaign_id: int, part_id: int, lock: bool = False
) -> ImportedPart:
    """The part (``lock``: its row locked until the commit, so that requests at once for one
    part take turns instead of overwriting each other's code)."""
    query = select(ImportedPart).where(
        ImportedPart.id == part_id, ImportedPart.campaign_id == campaign_id
    )
    part = await session.scalar(query.with_for_update() if lock else query)
    if part is None:
        raise NotFound(_("This imported part does not exist."))
    return part


async def make_takeover_link(
    session: AsyncSession, user: User, campaign_id: int, part_id: int
) -> str:
    """A takeover code for an unclaimed part (the same one on a second request). A co-GM's
    part only the GM hands out (co-GMs invite players and observers only)."""
    _campaign, viewer = await authorize(
        session, campaign_id, user.id, user.username, Action.manage_invites
    )
    part = await _part(session, campaign_id, part_id, lock=True)
    if part.role == Role.co_gm and viewer.role != Role.gm:
        raise Forbidden(_("Only the GM hands out a co-GM's part."))
    if part.claimed_by is not None or part.claimed_at is not None:
        raise Conflict(_("Someone has taken over this part already."))
    code = part.code or secrets.token_urlsafe(12)
    part.code = code
    await session.flush()
    return code


async def part_by_code(
    session: AsyncSession, code: str, *, lock: bool = False
) -> tuple[ImportedPart, Campaign]:
    code = limits.check_no_nul(code, "code").strip()
    if len(code) > limits.INVITE_CODE_MAX:
        raise NotFound(_("This takeover link is not valid."))
    statement = (
        select(ImportedPart, Campaign)
        .join(Campaign, Campaign.id == ImportedPart.campaign_id)
        .where(ImportedPart.code == code)
    )
    if lock:
        statement = statement.with_for_update(of=Campaign)
    row = (await session.execute(statement)).first()
    if row is None or row[0].claimed_at is not None:
        raise NotFound(_("This takeover link is not valid."))
    return row[0], row[1]


async def claim(session: AsyncSession, user: User, code: str) -> Campaign:
    """Take over a part: join with its role (a member keeps theirs) and become the owner of
    its characters; the link is spent. Every change is an event of the campaign log."""
    part, campaign = await part_by_code(session, code, lock=True)
    member = await session.scalar(
        select(Membership).where(
            Membership.campaign_id == campaign.id, Membership.user_id == user.id
        )
    )
    if member is None:
        members = await session.scalar(
            select(func.count())
            .select_from(Membership)
            .where(Membership.campaign_id == campaign.id)
        )
        limits.check_room(int(members or 0), limits.MEMBERS_PER_CAMPAIGN, "code")
        session.add(Membership(campaign_id=campaign.id, user_id=user.id, role=part.role))
        await append_event(
            session,
            campaign.id,
            log_events.MemberJoined(actor_name=user.username, user_id=user.id, role=part.role),
            actor_id=user.id,
        )
    await _hand_over(session, user, campaign.id, part.character_ids)
    if part.grants:
        await talk.grant(session, campaign.id, user.id, part.grants)
    part.claimed_by, part.claimed_at, part.code = user.id, utcnow(), None
    await session.flush()
    return campaign


async def _hand_over(
    session: AsyncSession, user: User, campaign_id: int, character_ids: list[int]
) -> None:
    characters = (
        await session.scalars(
            select(Character)
            .where(Character.campaign_id == campaign_id, Character.id.in_(character_ids))
            .order_by(Character.id)
        )
    ).all()
    for character in characters:
        before, character.owner_id = character.owner_id, user.id
        await session.flush()
        await append_event(
            session,
            campaign_id,
            character_events.CharacterUpdated(
                **character_events.about_character(
                    user.username, character.id, character.name, None
                ),
                field="owner_id",
                before=before,
                after=user.id,
            ),
            actor_id=user.id,
            audience=gm_only() if character.hidden_from_players else public(),
        )
