"""HTML pages of campaigns: my campaigns, the campaign page, members, invites, settings."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Annotated, Any

from fastapi import Depends, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.accounts.models import User
from app.campaigns import service, views
from app.campaigns import settings as rule_settings
from app.campaigns.live import CAMPAIGN_PAGE
from app.campaigns.models import Campaign
from app.campaigns.permissions import Action, allowed
from app.campaigns.views import CampaignPage
from app.core.systems import LABELS, RULE_SYSTEMS, RuleSystem
from app.errors import Conflict, NotFound, ValidationFailed
from app.i18n import N_, _
from app.web.calls import CampaignAt, CampaignCall
from app.web.confirm import ConfirmText, confirmed
from app.web.deps import CurrentUser, OptionalUser, Session
from app.web.feed import carrying_feed, checked_urls, feed_render
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import MAX_ROW_ID, PathId
from app.web.routers import Router
from app.web.sse import LiveStream
from app.web.streams import MemberStream
from app.web.templating import is_htmx, page, redirect

router = Router(include_in_schema=False, route_class=IdempotentRoute)

#: What the confirmation pages ask, by the last part of their action's path (``%(name)s``:
#: the member, or the campaign one leaves).
_ASKS = {
    "revoke": ConfirmText(
        N_("Revoke this invite?"),
        N_("Nobody can join with its code any more."),
        N_("Revoke the invite"),
    ),
    "remove": ConfirmText(
        N_("Remove %(name)s from the campaign?"),
        N_("They lose access at once; their characters stay in the campaign."),
        N_("Remove"),
    ),
    "transfer-gm": ConfirmText(
        N_("Hand over the GM role to %(name)s? You stay on as co-GM."),
        N_("Only the new GM can hand the role back."),
        N_("Make GM"),
    ),
    "leave": ConfirmText(
        N_("Leave the campaign “%(name)s”?"),
        N_("You can only come back with a new invite."),
        N_("Leave the campaign"),
    ),
}


@router.get("/")
async def home(user: OptionalUser) -> Response:
    return RedirectResponse("/campaigns" if user else "/login", status_code=303)


@router.get("/campaigns", response_class=HTMLResponse)
async def index(request: Request, session: Session, user: CurrentUser) -> Response:
    summaries = await service.my_campaigns(session, user)
    return page(
        request,
        "campaigns/index.html",
        {"summaries": summaries, "errors": {}, "values": {}, "systems": LABELS},
    )


@dataclass(frozen=True, slots=True)
class NewCampaignForm:
    """The new campaign's form fields, as typed."""

    name: str
    system: str

    def values(self) -> dict[str, object]:
        """What the form shows again after a refusal: every field as typed."""
        return asdict(self)


async def _new_campaign_form(
    name: Annotated[str, Form()] = "", system: Annotated[str, Form()] = ""
) -> NewCampaignForm:
    return NewCampaignForm(name, system)


@router.post("/campaigns", dependencies=[IDEMPOTENT])
async def create(
    request: Request,
    session: Session,
    user: CurrentUser,
    form: Annotated[NewCampaignForm, Depends(_new_campaign_form)],
) -> Response:
    try:
        campaign = await service.create_campaign(session, user, form.name, form.system)
    except ValidationFailed as exc:
        summaries = await service.my_campaigns(session, user)
        return page(
            request,
            "campaigns/index.html",
            {
                "summaries": summaries,
                "errors": exc.fields,
                "values": form.values(),
                "systems": LABELS,
            },
            block="create_form",
            status_code=422,
        )
    return redirect(request, f"/campaigns/{campaign.id}")


@router.get("/campaigns/{campaign_id}", response_class=HTMLResponse)
async def detail(
    call: CampaignAt, before: int | None = Query(default=None, ge=1, le=MAX_ROW_ID)
) -> Response:
    request, session, user, campaign_id = call.parts()
    campaign, viewer = await service.open_campaign(session, user, campaign_id)
    context = await views.page_context(session, campaign, viewer)
    key = CampaignPage(campaign_id, log_before=before)
    await CAMPAIGN_PAGE.contribute(session, viewer, key, context)
    return page(request, "campaigns/detail.html", context)


@router.get("/campaigns/{campaign_id}/live")
async def live(stream: MemberStream) -> LiveStream:
    """The campaign page's live regions as HTML, for the HTMX SSE extension."""
    return stream(CAMPAIGN_PAGE.stream(CampaignPage(stream.campaign_id)))


@router.get("/campaigns/{campaign_id}/feed")
async def feed(
    request: Request,
    stream: MemberStream,
    s: Annotated[list[str], Query(max_length=limits.FEED_STREAMS)] = [],  # noqa: B006
) -> LiveStream:
    """The campaign's feed (``app.web.feed``): one ``seq`` message per batch of events the
    viewer may see; given the page streams of a browser's tabs (``s``), it carries them, one
    ``batch`` message per batch. One tab per campaign holds it and tells the others."""
    urls = checked_urls(stream.campaign_id, s)
    return await carrying_feed(request, stream, urls) if urls else stream(feed_render)


@router.post("/campaigns/{campaign_id}/invites", dependencies=[IDEMPOTENT])
async def create_invite(
    call: CampaignAt,
    role: Annotated[str, Form()] = "player",
    expires_days: Annotated[str, Form()] = "",
) -> Response:
    request, session, user, campaign_id = call.parts()
    days: int | None = None
    try:
        if expires_days.strip():
            try:
                days = int(expires_days)
            except ValueError:
                days = 0
        await service.create_invite(session, user, campaign_id, role, days)
    except ValidationFailed as exc:
        campaign, viewer = await service.open_campaign(session, user, campaign_id)
        context = await views.page_context(session, campaign, viewer, parts={"invites"})
        context["invite_errors"] = exc.fields
        return page(request, "campaigns/detail.html", context, block="invites", status_code=422)
    return await _region(call, "invites")


@router.post("/campaigns/{campaign_id}/invites/{invite_id}/revoke")
async def revoke_invite(call: CampaignAt, invite_id: PathId) -> Response:
    request, session, user, campaign_id = call.parts()
    if not confirmed(await request.form()):
        await service.open_campaign(session, user, campaign_id, Action.manage_invites)
        action = f"/campaigns/{campaign_id}/invites/{invite_id}/revoke"
        return _ASKS["revoke"].page(request, action, f"/campaigns/{campaign_id}")
    await service.revoke_invite(session, user, campaign_id, invite_id)
    return await _region(call, "invites")


async def _member_name(
    session: Any, user: User, campaign_id: int, user_id: int, action: Action
) -> str:
    """The member's name for a confirmation, after the asker's right to ``action`` (403)."""
    await service.open_campaign(session, user, campaign_id, action)
    for member in await service.members(session, campaign_id):
        if member.user_id == user_id:
            return member.username
    raise NotFound(_("Member not found."))


#: A change to a member by the service: session, asker, campaign id, the member's user id.
MemberChange = Callable[[AsyncSession, User, int, int], Awaitable[None]]


async def _change_member(
    call: CampaignCall, user_id: int, path_end: str, right: Action, change: MemberChange
) -> Response | None:
    """A change to a member that asks first (its confirmation page, after the asker's
    ``right``: 403): ``None`` once it is made. ``path_end`` ends its path."""
    request, session, user, campaign_id = call.parts()
    if not confirmed(await request.form()):
        name = await _member_name(session, user, campaign_id, user_id, right)
        action = f"/campaigns/{campaign_id}/members/{user_id}/{path_end}"
        return _ASKS[path_end].page(request, action, f"/campaigns/{campaign_id}", name=name)
    await change(session, user, campaign_id, user_id)
    return None


async def _region(call: CampaignCall, block: str) -> Response:
    request, session, user, campaign_id = call.parts()
    if not is_htmx(request):
        return redirect(request, f"/campaigns/{campaign_id}")
    campaign, viewer = await service.open_campaign(session, user, campaign_id)
    context = await views.page_context(session, campaign, viewer, parts={block})
    return page(request, "campaigns/detail.html", context, block=block)


@router.post("/campaigns/{campaign_id}/members/{user_id}/remove")
async def remove_member(call: CampaignAt, user_id: PathId) -> Response:
    asking = await _change_member(
        call, user_id, "remove", Action.manage_members, service.remove_member
    )
    return asking or await _region(call, "members")


@router.post("/campaigns/{campaign_id}/members/{user_id}/role")
async def set_role(
    call: CampaignAt, user_id: PathId, role: Annotated[str, Form()] = ""
) -> Response:
    await service.set_role(call.session, call.user, call.campaign_id, user_id, role)
    return await _region(call, "members")


@router.post("/campaigns/{campaign_id}/members/{user_id}/transfer-gm")
async def transfer_gm(call: CampaignAt, user_id: PathId) -> Response:
    asking = await _change_member(
        call, user_id, "transfer-gm", Action.transfer_gm, service.transfer_gm
    )
    return asking or redirect(call.request, f"/campaigns/{call.campaign_id}")


@router.post("/campaigns/{campaign_id}/leave")
async def leave(call: CampaignAt) -> Response:
    request, session, user, campaign_id = call.parts()
    if not confirmed(await request.form()):
        campaign, _viewer = await service.open_campaign(session, user, campaign_id)
        back = f"/campaigns/{campaign_id}"
        return _ASKS["leave"].page(request, f"{back}/leave", back, name=campaign.name)
    await service.leave(session, user, campaign_id)
    return redirect(request, "/campaigns")


def _settings_context(
    campaign: Campaign, errors: dict[str, str], values: Mapping[str, object]
) -> dict[str, object]:
    system = RuleSystem(campaign.system)
    return {
        "campaign": campaign,
        "options": rule_settings.OPTIONS[system],
        "values": values,
        "errors": errors,
        "system_name": RULE_SYSTEMS[system].label,
        "conflict": False,
    }


def _saved_values(campaign: Campaign) -> dict[str, object]:
    """The settings form's values as saved: the name and the rule system's settings."""
    system = RuleSystem(campaign.system)
    return {"name": campaign.name, **rule_settings.current(system, campaign.settings)}


def _settings_answer(
    request: Request,
    campaign: Campaign,
    status_code: int,
    *,
    errors: dict[str, str] | None = None,
    values: Mapping[str, object] | None = None,
    **flags: bool,
) -> Response:
    """A saved or refused settings form: the form alone for HTMX, else the page; ``values``
    as typed (a refusal) or as saved; ``flags``: ``conflict`` or ``saved``."""
    typed = _saved_values(campaign) if values is None else values
    context = {**_settings_context(campaign, errors or {}, typed), **flags}
    return page(
        request, "campaigns/settings.html", context, block="settings_form", status_code=status_code
    )


@router.get("/campaigns/{campaign_id}/settings", response_class=HTMLResponse)
async def settings_form(call: CampaignAt) -> Response:
    request, session, user, campaign_id = call.parts()
    campaign, viewer = await service.open_campaign(session, user, campaign_id, Action.edit_settings)
    context = _settings_context(campaign, {}, _saved_values(campaign))
    context["can_export"] = allowed(viewer.role, Action.export_campaign)
    return page(request, "campaigns/settings.html", context)


@router.post("/campaigns/{campaign_id}/settings")
async def save_settings(call: CampaignAt) -> Response:
    request, session, user, campaign_id = call.parts()
    form = await request.form()
    data = {k: str(v) for k, v in form.items()}
    try:
        version = int(data.pop("version", "0"))
    except ValueError:
        version = 0
    try:
        await service.update_settings(session, user, campaign_id, version, data)
    except ValidationFailed as exc:
        campaign, _viewer = await service.open_campaign(session, user, campaign_id)
        return _settings_answer(request, campaign, 422, errors=exc.fields, values=data)
    except Conflict:
        campaign, _viewer = await service.open_campaign(session, user, campaign_id)
        await session.refresh(campaign)
        return _settings_answer(request, campaign, 409, conflict=True)
    if is_htmx(request):
        campaign, _viewer = await service.open_campaign(session, user, campaign_id)
        return _settings_answer(request, campaign, 200, saved=True)
    return redirect(request, f"/campaigns/{campaign_id}/settings")


@router.get("/join", response_class=HTMLResponse)
async def join_form(request: Request, user: CurrentUser, code: str = "") -> Response:
    if code:
        return redirect(request, f"/join/{code}")
    return page(request, "campaigns/join.html", {"invite": None, "campaign": None, "error": None})


@router.get("/join/{code}", response_class=HTMLResponse)
async def join_page(request: Request, code: str, session: Session, user: OptionalUser) -> Response:
    if user is None:
        return RedirectResponse(f"/login?next=/join/{code}", status_code=303)
    try:
        invite, campaign = await service.invite_by_code(session, code)
    except (NotFound, ValidationFailed) as exc:
        error = " ".join(exc.fields.values()) if isinstance(exc, ValidationFailed) else exc.message
        return page(
            request,
            "campaigns/join.html",
            {"invite": None, "campaign": None, "error": error, "code": code},
            status_code=exc.status_code,
        )
    return page(
        request,
        "campaigns/join.html",
        {
            "invite": invite,
            "campaign": campaign,
            "error": None,
            "code": code,
            "system_name": RULE_SYSTEMS[RuleSystem(campaign.system)].label,
            # A member opening the link again is led to the campaign, not offered "Join".
            "member_role": await service.member_role(session, campaign.id, user.id),
        },
    )


@router.post("/join/{code}", dependencies=[IDEMPOTENT])
async def join(request: Request, code: str, session: Session, user: CurrentUser) -> Response:
    campaign, _role = await service.join(session, user, code)
    return redirect(request, f"/campaigns/{campaign.id}")
