"""Who the viewers of many live streams are now, in a constant number of statements: the
process's sweep (``app.events.warden``) over memberships (``AppContext.members.roles``, the
campaigns package's) and login sessions (accounts), which the event stream itself does not
import."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts.service import sessions_active
from app.core.viewer import Viewer
from app.events.broker import Subscription
from app.events.warden import Audit
from app.web.members import MemberRoles


def stream_audit(member_roles: MemberRoles) -> Audit:
    """:func:`audit_streams` with the memberships read by ``member_roles``
    (``AppContext.members.roles``: the campaigns package's)."""

    async def audit(session: AsyncSession, subs: Sequence[Subscription]) -> list[Viewer | None]:
        return await audit_streams(member_roles, session, subs)

    return audit


async def audit_streams(
    member_roles: MemberRoles, session: AsyncSession, subs: Sequence[Subscription]
) -> list[Viewer | None]:
    """Each stream's viewer with their current role, or ``None`` once they left the campaign
    or (for a stream opened with a session token) their session ended: as
    ``app.web.streams.recheck_for`` answers for one stream."""
    roles = await member_roles(session, {s.campaign_id for s in subs})
    hashes = {s.token_hash for s in subs if s.token_hash is not None}
    live = await sessions_active(session, hashes) if hashes else set()
    out: list[Viewer | None] = []
    for sub in subs:
        viewer = sub.viewer
        role = None if viewer is None else roles.get((sub.campaign_id, viewer.user_id))
        if (
            viewer is None
            or role is None
            or (sub.token_hash is not None and sub.token_hash not in live)
        ):
            out.append(None)
        elif role == viewer.role:
            out.append(viewer)
        else:
            out.append(Viewer(viewer.user_id, viewer.username, role))
    return out
