"""What a request made with a personal API token may reach: its scope and its campaign.

The route decides, by its path template and method, before the route runs; the use case
then checks the user's role as for any login, so a token never does more than its user.
"""

from __future__ import annotations

from fastapi import Request
from sqlalchemy import Integer, column, select, table
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts.tokens import Grant, Scope
from app.errors import Forbidden, NotFound
from app.i18n import _
from app.web.security import SAFE_METHODS

#: The three columns of a sheet the scope check reads: the web toolkit names them instead of
#: importing the characters package, whose HTTP edge imports the toolkit (no package cycle).
_CHARACTER = table(
    "character",
    column("id", Integer),
    column("campaign_id", Integer),
    column("owner_id", Integer),
)
_CAMPAIGN = "/api/v1/campaigns/{campaign_id}"
_SHEET = f"{_CAMPAIGN}/characters/{{character_id}}"
#: Writes a ``play`` token may make besides reading (sheet routes: the user's own sheets).
PLAY_WRITES = frozenset(
    {
        ("POST", f"{_CAMPAIGN}/rolls"),
        ("POST", f"{_CAMPAIGN}/encounters/{{encounter_id}}/actions/{{action}}"),
        ("POST", f"{_CAMPAIGN}/encounters/{{encounter_id}}/forecast"),
        ("POST", f"{_CAMPAIGN}/encounters/{{encounter_id}}/risk"),
        ("POST", f"{_CAMPAIGN}/scenes/{{scene_id}}/tokens/{{token_id}}/move"),
        ("POST", f"{_CAMPAIGN}/scenes/{{scene_id}}/pointer"),
        ("POST", f"{_CAMPAIGN}/messages"),
        ("POST", f"{_CAMPAIGN}/messages/read"),
        ("PATCH", f"{_CAMPAIGN}/messages/{{message_id}}"),
        ("DELETE", f"{_CAMPAIGN}/messages/{{message_id}}"),
        ("PUT", f"{_CAMPAIGN}/sessions/{{session_id}}/seed"),
    }
)
#: Routes of the user's own sheets a ``play`` token may write to.
SHEET_WRITES = frozenset(
    {
        ("PATCH", _SHEET),
        ("POST", f"{_SHEET}/rest"),
        ("POST", f"{_SHEET}/check"),
        ("POST", f"{_SHEET}/odds"),
        ("POST", f"{_SHEET}/roll"),
        ("POST", f"{_SHEET}/items"),
        ("PUT", f"{_SHEET}/items/{{item_id}}"),
        ("DELETE", f"{_SHEET}/items/{{item_id}}"),
        ("POST", f"{_SHEET}/items/{{item_id}}/equip"),
        ("POST", f"{_SHEET}/items/{{item_id}}/unequip"),
        ("POST", f"{_SHEET}/items/{{item_id}}/move"),
    }
)
#: Account settings and tokens: never with a token, whatever its scope.
ACCOUNT_PREFIXES = ("/api/v1/auth/", "/logout", "/language", "/account")
#: Token management: never with a token, not even to read.
TOKEN_PREFIXES = ("/api/v1/auth/tokens", "/account/tokens")


def _template(request: Request) -> str:
    route = request.scope.get("route")
    return str(getattr(route, "path", request.url.path))


async def check_grant(request: Request, session: AsyncSession, user_id: int, grant: Grant) -> None:
    """Refuse what the token may not do: another campaign (404, as for a non-member),
    account settings and tokens (403), writes beyond its scope (403)."""
    template = _template(request)
    if grant.campaign_id is not None and _campaign_id(request) != grant.campaign_id:
        raise NotFound(_("Not found."))
    method = request.method
    if template.startswith(ACCOUNT_PREFIXES) and method not in SAFE_METHODS:
        raise Forbidden(_("A personal API token cannot change the account or its tokens."))
    if template.startswith(TOKEN_PREFIXES):
        raise Forbidden(_("A personal API token cannot change the account or its tokens."))
    if method in SAFE_METHODS or grant.scope == Scope.manage:
        return
    if grant.scope == Scope.play:
        if (method, template) in PLAY_WRITES:
            return
        if (method, template) in SHEET_WRITES and await _own_sheet(request, session, user_id):
            return
    raise Forbidden(_("This token's scope does not allow this."))


def _campaign_id(request: Request) -> int | None:
    raw = request.path_params.get("campaign_id")
    return int(raw) if isinstance(raw, str) and raw.isdigit() and len(raw) < 10 else None


async def _own_sheet(request: Request, session: AsyncSession, user_id: int) -> bool:
    raw = str(request.path_params.get("character_id", ""))
    if not raw.isdigit() or len(raw) >= 10:
        return False
    owner = await session.scalar(
        select(_CHARACTER.c.owner_id).where(
            _CHARACTER.c.id == int(raw), _CHARACTER.c.campaign_id == _campaign_id(request)
        )
    )
    return owner == user_id
