"""What the web toolkit asks of a campaign's membership: handed in by ``app.main``.

The toolkit names no package with an HTTP edge (``tests/test_no_package_cycles.py``): the
campaigns package decides who is a member and as what (``app.campaigns.permissions``), and
its routes use this toolkit. ``app.main`` puts its answers into :class:`Members`
(``AppContext.members``), which the session lookup (``app.web.deps``), a stream's recheck
(``app.web.streams``) and the sweep over the live streams (``app.web.stream_audit``) use.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.viewer import Role, Viewer

#: The viewer with the role they have now in the campaign, ``None`` once they left it.
CurrentViewer = Callable[[AsyncSession, int, Viewer], Awaitable[Viewer | None]]
#: The member's viewer in the campaign (its role), or ``NotFound`` for anyone else; the
#: arguments: session, campaign id, user id, username.
MemberViewer = Callable[[AsyncSession, int, int, str], Awaitable[Viewer]]
#: Every membership of these campaigns, ``(campaign_id, user_id)`` → role.
MemberRoles = Callable[[AsyncSession, Collection[int]], Awaitable[dict[tuple[int, int], Role]]]


@dataclass(frozen=True, slots=True)
class Members:
    #: The session lookup (``app.accounts.service.USER_FOR_TOKEN``) with more columns: the
    #: user's role in the campaign bound as ``:role_campaign_id`` and that campaign's row,
    #: read on a request under ``/campaigns/{campaign_id}/…`` in the same statement.
    lookup: Select[Any]
    #: Keeps what :attr:`lookup` read (its added columns) for the request's authorization:
    #: session, campaign id, user id, the added columns.
    remember: Callable[[AsyncSession, int, int, Sequence[Any]], None]
    current_viewer: CurrentViewer
    roles: MemberRoles
    #: Opens a campaign-wide live stream (``app.web.streams.MemberStream``).
    member_viewer: MemberViewer
