"""HTML pages of the bestiary, encounters and the live combat view."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Query, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts.models import User
from app.campaigns import service as campaigns
from app.campaigns.models import Campaign
from app.campaigns.permissions import Action
from app.characters.models import Character
from app.core.viewer import Viewer
from app.encounters import (
    actions,
    bestiary_form,
    foresight,
    notices,
    service,
    statblocks,
    views,
)
from app.encounters.live import (
    COMBAT_PAGE,
    ENCOUNTER_LIST,
    NOTICE_TEMPLATE,
    NOTICES,
    CombatPage,
    EncounterList,
    NoticePage,
)
from app.errors import Conflict, NotFound, ValidationFailed
from app.i18n import N_, _
from app.web.calls import CampaignAt, CampaignCall
from app.web.confirm import confirm_page, confirmed
from app.web.deps import LOOKUP, Ctx, CurrentUser, Session, attempt
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import MAX_ROW_ID, PathId
from app.web.pages import FormPage, page_route
from app.web.routers import Router
from app.web.sse import LiveStream
from app.web.streams import LiveStreams, MemberStream
from app.web.templating import is_htmx, page, redirect

router = Router(include_in_schema=False, route_class=IdempotentRoute)
TEMPLATE = "encounters/combat.html"


async def _form(request: Request) -> dict[str, Any]:
    form = await request.form()
    data: dict[str, Any] = {}
    for key in form:
        values = form.getlist(key)
        data[key] = [str(v) for v in values] if key in ("targets", "helpers") else str(values[-1])
    return data


def _url(campaign_id: int, encounter_id: int | None = None) -> str:
    base = f"/campaigns/{campaign_id}/encounters"
    return f"{base}/{encounter_id}" if encounter_id else base


async def _encounters(
    session: AsyncSession, viewer: Viewer, campaign: Campaign
) -> dict[str, object]:
    """The encounters the viewer may see (the GMs: every one)."""
    return {
        "campaign": campaign,
        "campaign_id": campaign.id,
        "viewer": viewer,
        "encounters": await service.encounters_for(session, campaign.id, viewer),
        "status_labels": views.STATUS_LABELS,
    }


_INDEX = FormPage("encounters/index.html", campaigns.open_campaign, _encounters, {"errors": {}})
index = page_route(router, "/campaigns/{campaign_id}/encounters", "index", _INDEX.render)


@router.get("/campaigns/{campaign_id}/encounters/live")
async def list_live(stream: MemberStream) -> LiveStream:
    """The list of encounters as HTML, when a fight starts or ends."""
    return stream(ENCOUNTER_LIST.stream(EncounterList(stream.campaign_id)))


@router.post("/campaigns/{campaign_id}/encounters", dependencies=[IDEMPOTENT])
async def create(
    request: Request, campaign_id: PathId, session: Session, user: CurrentUser
) -> Response:
    data = await _form(request)
    try:
        async with attempt(session):
            encounter = await service.create_encounter(
                session, user, campaign_id, data.get("name", ""), data.get("notes", "")
            )
    except ValidationFailed as exc:
        call = CampaignCall(request, session, user, campaign_id)
        return await _INDEX.render(call, {"errors": exc.fields}, 422)
    return redirect(request, _url(campaign_id, encounter.id))


async def _context(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    encounter_id: int,
    loaded: service.Loaded | None = None,
) -> dict[str, object]:
    """The combat page's context; ``loaded``: the fight as a combat action just left it (its
    answer reads no row of the fight again), else it is loaded here."""
    if loaded is None:
        loaded = await service.load(session, user, campaign_id, encounter_id)
    log = await service.log_window(session, loaded, views.LOG_SHOWN)
    context = views.page_context(loaded, log)
    if loaded.viewer.is_gm and loaded.encounter.status == "prepared":
        # Heroes already in the fight are not offered again.
        joined = {p.character_id for p in loaded.participants if p.character_id is not None}
        context["characters"] = (
            await session.scalars(
                select(Character)
                .where(
                    Character.campaign_id == campaign_id,
                    Character.archived_at.is_(None),
                    Character.id.not_in(joined),
                )
                .order_by(Character.name)
            )
        ).all()
        context["bestiary"] = await service.bestiary(session, user, campaign_id)
    return context


def _viewer(context: Mapping[str, object]) -> Viewer:
    """The viewer the combat page's context was built for."""
    viewer = context["viewer"]
    assert isinstance(viewer, Viewer)
    return viewer


@router.get("/campaigns/{campaign_id}/encounters/{encounter_id}", response_class=HTMLResponse)
async def detail(
    request: Request, campaign_id: PathId, encounter_id: PathId, session: Session, user: CurrentUser
) -> Response:
    context = await _context(session, user, campaign_id, encounter_id)
    key = CombatPage(campaign_id, encounter_id)
    await COMBAT_PAGE.contribute(session, _viewer(context), key, context)
    return page(request, TEMPLATE, context)


@router.get("/campaigns/{campaign_id}/encounters/{encounter_id}/log", response_class=HTMLResponse)
async def older_log(
    request: Request,
    campaign_id: PathId,
    encounter_id: PathId,
    session: Session,
    user: CurrentUser,
    before: int = Query(ge=1, le=MAX_ROW_ID),
) -> Response:
    """The combat log entries before the seq ``before``: appended to the page's log by HTMX
    (with the next "Older entries" link), a page of their own without JavaScript."""
    loaded = await service.load(session, user, campaign_id, encounter_id)
    log = await service.log_window(session, loaded, views.LOG_SHOWN, before=before)
    context = {
        "campaign": loaded.campaign,
        "campaign_id": campaign_id,
        "encounter": loaded.encounter,
        "viewer": loaded.viewer,
        "inline": is_htmx(request),
        "older": True,
        **views.log_window(loaded, log),
    }
    return page(request, "encounters/log.html", context, block="older")


@router.post("/campaigns/{campaign_id}/encounters/{encounter_id}")
async def update(
    request: Request, campaign_id: PathId, encounter_id: PathId, session: Session, user: CurrentUser
) -> Response:
    data = await _form(request)
    try:
        async with attempt(session):
            await service.update_encounter(
                session,
                user,
                campaign_id,
                encounter_id,
                actions._version(data),
                data.get("name", ""),
                data.get("notes", ""),
                {k: data[k] for k in ("surprise", "defence_timeout") if k in data},
            )
    except ValidationFailed as exc:
        prep = ("encounter", data)
        return await _refused(request, session, user, campaign_id, encounter_id, exc, prep)
    return redirect(request, _url(campaign_id, encounter_id))


async def _refused(
    request: Request,
    session: AsyncSession,
    user: User,
    campaign_id: int,
    encounter_id: int,
    exc: ValidationFailed,
    prep: tuple[str, Mapping[str, object]] | None = None,
    typed_check: str = "",
    aimed: str = "",
) -> Response:
    """The encounter page again (422: nothing is saved): the messages with the controls, or
    with a preparation form (``prep``: which one and its values as typed) at its fields; a
    refused attack (``aimed``: its target) keeps its target, the message at that field."""
    context = await _context(session, user, campaign_id, encounter_id)
    context["typed_check"] = typed_check
    context["aimed"] = aimed
    await COMBAT_PAGE.contribute(
        session, _viewer(context), CombatPage(campaign_id, encounter_id), context
    )
    if prep is None:
        context["errors"] = exc.fields
    else:
        context["prep_form"], context["prep_values"] = prep
        context["prep_errors"] = exc.fields
    return page(request, TEMPLATE, context, status_code=422)


@router.post(
    "/campaigns/{campaign_id}/encounters/{encounter_id}/duplicate", dependencies=[IDEMPOTENT]
)
async def duplicate(
    request: Request, campaign_id: PathId, encounter_id: PathId, session: Session, user: CurrentUser
) -> Response:
    copy_ = await service.duplicate(session, user, campaign_id, encounter_id)
    return redirect(request, _url(campaign_id, copy_.id))


@router.post("/campaigns/{campaign_id}/encounters/{encounter_id}/delete")
async def delete(
    request: Request, campaign_id: PathId, encounter_id: PathId, session: Session, user: CurrentUser
) -> Response:
    if not confirmed(await _form(request)):
        loaded = await service.load(session, user, campaign_id, encounter_id, Action.run_encounters)
        return confirm_page(
            request,
            question=_("Delete the encounter “%(name)s”?", name=loaded.encounter.name),
            consequence=_("Its participants and its combat log are deleted too."),
            button=_("Delete the encounter"),
            action=f"{_url(campaign_id, encounter_id)}/delete",
            back=_url(campaign_id, encounter_id),
        )
    await service.delete_encounter(session, user, campaign_id, encounter_id)
    return redirect(request, _url(campaign_id))


@router.post(
    "/campaigns/{campaign_id}/encounters/{encounter_id}/participants", dependencies=[IDEMPOTENT]
)
async def add_participant(
    request: Request,
    campaign_id: PathId,
    encounter_id: PathId,
    session: Session,
    user: CurrentUser,
    ctx: Ctx,
) -> Response:
    data = await _form(request)
    hidden = data.get("hidden") == "1"
    try:
        async with attempt(session):
            if data.get("character_id"):
                await service.add_character(
                    session, user, ctx.roller, campaign_id, encounter_id,
                    actions._int(data, "character_id"), data.get("side", "abenteurer"), hidden,
                )  # fmt: skip
            else:
                await service.add_monsters(
                    session, user, ctx.roller, campaign_id, encounter_id,
                    actions._int(data, "entry_id"), actions._int(data, "count", 1),
                    data.get("side", "gegner"), hidden,
                )  # fmt: skip
    except ValidationFailed as exc:
        prep = ("character" if data.get("character_id") else "monsters", data)
        return await _refused(request, session, user, campaign_id, encounter_id, exc, prep)
    return redirect(request, _url(campaign_id, encounter_id))


@dataclass(frozen=True, slots=True)
class ParticipantAt:
    """The path of a participant's GM routes: the campaign, the encounter, the participant."""

    campaign_id: int
    encounter_id: int
    participant_id: int

    @property
    def encounter_url(self) -> str:
        return _url(self.campaign_id, self.encounter_id)

    async def load(self, session: AsyncSession, user: User) -> service.Loaded:
        """The fight, for its GMs only (403 for anyone else)."""
        return await service.load(
            session, user, self.campaign_id, self.encounter_id, Action.run_encounters
        )


async def _participant_at(
    campaign_id: PathId, encounter_id: PathId, participant_id: PathId
) -> ParticipantAt:
    return ParticipantAt(campaign_id, encounter_id, participant_id)


Participant = Annotated[ParticipantAt, Depends(_participant_at)]
_NOT_IN_COMBAT = N_("This participant is not in the combat.")


@router.post("/campaigns/{campaign_id}/encounters/{encounter_id}/participants/{participant_id}")
async def update_participant(
    request: Request, at: Participant, session: Session, user: CurrentUser
) -> Response:
    data = await _form(request)
    await service.update_participant(
        session,
        user,
        at.campaign_id,
        at.encounter_id,
        at.participant_id,
        side=data.get("side"),
        hidden=data.get("hidden") == "1",
    )
    return redirect(request, at.encounter_url)


@router.post(
    "/campaigns/{campaign_id}/encounters/{encounter_id}/participants/{participant_id}/remove"
)
async def remove_participant(
    request: Request, at: Participant, session: Session, user: CurrentUser
) -> Response:
    if not confirmed(await _form(request)):
        participant = (await at.load(session, user)).by_id.get(str(at.participant_id))
        if participant is None:
            raise NotFound(_(_NOT_IN_COMBAT))
        return confirm_page(
            request,
            question=_("Remove %(name)s?", name=participant.name),
            consequence=_("%(name)s leaves the encounter.", name=participant.name),
            button=_("Remove"),
            action=f"{at.encounter_url}/participants/{at.participant_id}/remove",
            back=at.encounter_url,
        )
    await service.remove_participant(
        session, user, at.campaign_id, at.encounter_id, at.participant_id
    )
    return redirect(request, at.encounter_url)


@router.get(
    "/campaigns/{campaign_id}/encounters/{encounter_id}/participants/{participant_id}/manage",
    response_class=HTMLResponse,
)
async def manage(
    request: Request, at: Participant, session: Session, user: CurrentUser
) -> Response:
    """A participant's GM forms: fetched into the roster row when the GM opens it, or a
    page of their own without JavaScript."""
    context = views.manage_context(await at.load(session, user), at.participant_id)
    if context is None:
        raise NotFound(_(_NOT_IN_COMBAT))
    context["inline"] = is_htmx(request)
    return page(request, "encounters/manage.html", dict(context), block="manage")


@router.get("/campaigns/{campaign_id}/encounters/{encounter_id}/live")
async def live(
    campaign_id: PathId,
    encounter_id: PathId,
    session: Session,
    user: CurrentUser,
    stream: LiveStreams,
) -> LiveStream:
    """The combat page's live regions as HTML fragments, for the HTMX SSE extension."""
    loaded = await service.load(session, user, campaign_id, encounter_id)
    return stream(
        campaign_id, loaded.viewer, COMBAT_PAGE.stream(CombatPage(campaign_id, encounter_id))
    )


@router.post(
    "/campaigns/{campaign_id}/encounters/{encounter_id}/forecast",
    response_class=HTMLResponse,
    dependencies=[LOOKUP],
)
async def forecast(
    request: Request, campaign_id: PathId, encounter_id: PathId, session: Session, user: CurrentUser
) -> Response:
    """The attack form's odds as filled in now: a fragment for HTMX, a page without it."""
    req = foresight.request_from_form(await _form(request))
    context: dict[str, object] = {"back": _url(campaign_id, encounter_id), "forecast": None}
    status = 200
    try:
        result = await foresight.forecast(session, user, campaign_id, encounter_id, req)
        context["forecast"] = foresight.display(result)
    except ValidationFailed as exc:
        context["error"], status = next(iter(exc.fields.values()), ""), 422
    return page(request, "encounters/forecast.html", context, block="forecast", status_code=status)


@router.post(
    "/campaigns/{campaign_id}/encounters/{encounter_id}/risk",
    response_class=HTMLResponse,
    dependencies=[LOOKUP],
)
async def risk(
    request: Request, campaign_id: PathId, encounter_id: PathId, session: Session, user: CurrentUser
) -> Response:
    """ "Risiko abschätzen" on the prep page: the page with the estimate (the result region
    alone for HTMX). It changes nothing; the GM runs it again after changing the encounter."""
    data = await _form(request)
    context = await _context(session, user, campaign_id, encounter_id)
    context["risk_form"] = {"trials": data.get("trials", ""), "seed": data.get("seed", "")}
    status = 200
    try:
        trials, seed = foresight.risk_form(data)
        report = await foresight.risk(session, user, campaign_id, encounter_id, trials, seed)
        context["risk"] = foresight.risk_display(report)
    except ValidationFailed as exc:
        context["risk_errors"], status = exc.fields, 422
    return page(request, TEMPLATE, context, block="risk", status_code=status)


@router.post(
    "/campaigns/{campaign_id}/encounters/{encounter_id}/{action}", dependencies=[IDEMPOTENT]
)
async def act(
    request: Request,
    campaign_id: PathId,
    encounter_id: PathId,
    action: str,
    session: Session,
    user: CurrentUser,
    ctx: Ctx,
) -> Response:
    """Every combat action; HTMX gets the controls back (the rest arrives live). Ending the
    fight asks first (a confirmation page without JavaScript)."""
    data = await _form(request)
    if action == "end" and not confirmed(data):
        await service.load(session, user, campaign_id, encounter_id, Action.run_encounters)
        return confirm_page(
            request,
            question=_("End the fight?"),
            consequence=_("The fight ends for everyone; it cannot be resumed."),
            button=_("End the fight"),
            action=f"{_url(campaign_id, encounter_id)}/end",
            back=_url(campaign_id, encounter_id),
            fields=data,
        )
    status = 200
    errors: dict[str, str] = {}
    context_check = aimed = ""
    fought: service.Loaded | None = None  # the fight as the action left it, once it stands
    try:
        async with attempt(session):
            done = await actions.perform(
                session, user, ctx.roller, campaign_id, encounter_id, action, data
            )
        fought = done
    except ValidationFailed as exc:
        typed = str(data.get("skill", "")) if action == "check" else ""
        aimed = str(data.get("target", "")) if action == "attack" else ""
        if not is_htmx(request):
            return await _refused(
                request, session, user, campaign_id, encounter_id, exc, typed_check=typed,
                aimed=aimed,
            )  # fmt: skip
        errors, status = exc.fields, 422
        context_check = typed
    except Conflict as exc:
        if not is_htmx(request):
            raise
        errors, status = {"combat": exc.message}, 409
    if action in ("start", "end") or not is_htmx(request):
        return redirect(request, _url(campaign_id, encounter_id))
    context = await _context(session, user, campaign_id, encounter_id, fought)
    context["errors"] = errors
    context["typed_check"] = context_check  # a refused check keeps what the GM typed
    context["aimed"] = aimed if errors and action == "attack" else ""  # and an attack its target
    return page(request, TEMPLATE, context, block="controls", status_code=status)


# --- bestiary --------------------------------------------------------------------------------


def _bestiary_url(campaign_id: int) -> str:
    return f"/campaigns/{campaign_id}/bestiary"


async def _bestiary_page(
    call: CampaignCall,
    errors: dict[str, str] | None = None,
    status_code: int = 200,
    state: bestiary_form.Posted | None = None,
) -> Response:
    """The bestiary; a refused or growing form (``state``) shows what was typed."""
    session, user, campaign_id = call.session, call.user, call.campaign_id
    errors = errors or {}
    entries = await service.bestiary(session, user, campaign_id)
    campaign, viewer = await campaigns.open_campaign(
        session, user, campaign_id, Action.run_encounters
    )
    system = campaign.system
    forms = [
        (b, bestiary_form.form_view(system, str(b.id), b.name, b.data, state, errors))
        for b in entries
    ]
    new = bestiary_form.form_view(system, "new", "", statblocks.defaults(system), state, errors)
    return page(
        call.request,
        "encounters/bestiary.html",
        {
            "campaign": campaign,
            "viewer": viewer,
            "entries": forms,
            "new": new,
            "schema": statblocks.rules(system).schema,
        },
        status_code=status_code,
    )


@router.get("/campaigns/{campaign_id}/bestiary", response_class=HTMLResponse)
async def bestiary(call: CampaignAt) -> Response:
    return await _bestiary_page(call)


@router.post("/campaigns/{campaign_id}/bestiary", dependencies=[IDEMPOTENT])
async def create_entry(call: CampaignAt) -> Response:
    """A new entry; "one more row" (``_more``) shows the form again and saves nothing."""
    session, user, campaign_id = call.session, call.user, call.campaign_id
    data = await _form(call.request)
    campaign, _viewer = await campaigns.open_campaign(
        session, user, campaign_id, Action.run_encounters
    )
    state, block = bestiary_form.posted(campaign.system, "new", data)
    return await _save_entry(
        call, state,
        lambda: service.create_entry(session, user, campaign_id, data.get("name", ""), block),
    )  # fmt: skip


async def _save_entry(
    call: CampaignCall, state: bestiary_form.Posted, save: Callable[[], Awaitable[object]]
) -> Response:
    """What creating and updating an entry share: "one more row" (``_more``) shows the form
    again and saves nothing; a refused entry shows the form with what was typed."""
    if state.more:
        return await _bestiary_page(call, {}, 200, state)
    try:
        async with attempt(call.session):
            await save()
    except ValidationFailed as exc:
        return await _bestiary_page(call, exc.fields, 422, state)
    return redirect(call.request, _bestiary_url(call.campaign_id))


@router.post("/campaigns/{campaign_id}/bestiary/samples", dependencies=[IDEMPOTENT])
async def samples(call: CampaignAt) -> Response:
    await service.add_samples(call.session, call.user, call.campaign_id)
    return redirect(call.request, _bestiary_url(call.campaign_id))


@router.post("/campaigns/{campaign_id}/bestiary/{entry_id}")
async def update_entry(call: CampaignAt, entry_id: PathId) -> Response:
    session, user, campaign_id = call.session, call.user, call.campaign_id
    data = await _form(call.request)
    entry = await service.bestiary_entry(session, user, campaign_id, entry_id)
    state, block = bestiary_form.posted(entry.system, str(entry_id), data)
    return await _save_entry(
        call, state,
        lambda: service.update_entry(
            session, user, campaign_id, entry_id, actions._version(data),
            data.get("name", ""), block,
        ),
    )  # fmt: skip


@router.post("/campaigns/{campaign_id}/bestiary/{entry_id}/delete")
async def delete_entry(call: CampaignAt, entry_id: PathId) -> Response:
    if not confirmed(await _form(call.request)):
        entry = await service.bestiary_entry(call.session, call.user, call.campaign_id, entry_id)
        return confirm_page(
            call.request,
            question=_("Delete “%(name)s” from the bestiary?", name=entry.name),
            consequence=_("Participants already added from it stay in their encounters."),
            button=_("Delete"),
            action=f"{_bestiary_url(call.campaign_id)}/{entry_id}/delete",
            back=_bestiary_url(call.campaign_id),
        )
    await service.delete_entry(call.session, call.user, call.campaign_id, entry_id)
    return redirect(call.request, _bestiary_url(call.campaign_id))


# --- notices on every page of the campaign ---------------------------------------------------


@router.get("/campaigns/{campaign_id}/notices", response_class=HTMLResponse)
async def notice_fragment(
    request: Request, campaign_id: PathId, session: Session, user: CurrentUser
) -> Response:
    """The current notice and the stream of the next ones (``base.html`` loads it)."""
    campaign, viewer = await campaigns.open_campaign(session, user, campaign_id)
    context = {
        "campaign_id": campaign_id,
        "last_seq": campaign.last_seq,
        "notice": await notices.standing(session, viewer, campaign_id),
    }
    return page(request, NOTICE_TEMPLATE, context, block="notices")


@router.get("/campaigns/{campaign_id}/notices/live")
async def notice_stream(stream: MemberStream) -> LiveStream:
    """The viewer's notices as HTML fragments, for the HTMX SSE extension."""
    return stream(NOTICES.stream(NoticePage(stream.campaign_id)))
