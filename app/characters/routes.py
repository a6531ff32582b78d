"""HTML pages of characters: list, sheet (saves per field, works without JS), roll dialog,
inventory, library, history, export/import, and the sheet's live stream."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Header, Query, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import UploadFile

from app.accounts.models import User
from app.campaigns.models import Campaign
from app.campaigns.permissions import Action, allowed
from app.characters import merge, rolling, service, sheets, views
from app.characters.live import HISTORY_PAGE, SHEET_PAGE
from app.characters.models import Item
from app.characters.systems.protocol import ItemDraft
from app.characters.systems.registry import character_system, inventory, sheet_rolls
from app.characters.views import base_url as _base
from app.core.viewer import Viewer
from app.errors import Conflict, NotFound, ValidationFailed
from app.i18n import _
from app.web.calls import CampaignAt, CampaignCall
from app.web.confirm import confirm_page, confirmed
from app.web.deps import Ctx, CurrentUser, Session, attempt
from app.web.idempotency import IDEMPOTENT, IdempotentRoute
from app.web.ids import MAX_ROW_ID, PathId
from app.web.pages import FormPage, page_route
from app.web.routers import Router
from app.web.sse import LiveStream
from app.web.streams import LiveStreams
from app.web.templating import is_htmx, page, redirect

router = Router(include_in_schema=False, route_class=IdempotentRoute)

SHEET = "characters/sheet.html"
TAB_RE = re.compile(r"^[0-9a-f]{8,32}$")
IMPORT_MAX_BYTES = 1_000_000


def _tab(request: Request) -> str:
    """The sheet tab a request comes from (``X-Sheet-Tab``), remembered for its events."""
    tab = request.headers.get("x-sheet-tab", "")
    return tab if TAB_RE.match(tab) else ""


async def _form_values(request: Request) -> dict[str, str]:
    """The posted form's text fields (files left out); a repeated name gives its last value."""
    return {k: str(v) for k, v in (await request.form()).items() if isinstance(v, str)}


@dataclass(frozen=True, slots=True)
class SheetAt(CampaignCall):
    """A request about one character's sheet, which the sheet's routes all work on."""

    character_id: int

    @property
    def url(self) -> str:
        return _base(self.campaign_id, self.character_id)

    async def open(self, *, edit: bool = False, to_roll: bool = False) -> service.Opened:
        return await service.open_character(
            self.session, self.user, self.campaign_id, self.character_id, edit=edit, to_roll=to_roll
        )

    def mark_origin(self) -> None:
        """Remember the sheet tab the request comes from for the events it causes."""
        tab = _tab(self.request)
        if tab:
            self.session.info[service.ORIGIN_KEY] = tab

    async def response(
        self, *, status_code: int = 200, block: str = "sheet", **kw: Any
    ) -> Response:
        """The sheet rendered afresh (HTMX: swapped in whole for the ``sheet`` block)."""
        opened = await self.open()
        if kw.pop("refresh", False):
            await self.session.refresh(opened.character)
        context = await views.sheet_page(self.session, opened, **kw)
        context["tab"] = _tab(self.request) or context["tab"]
        response = page(self.request, SHEET, context, block=block, status_code=status_code)
        if is_htmx(self.request) and block == "sheet":
            response.headers["HX-Retarget"] = "#sheet"
            response.headers["HX-Reswap"] = "outerHTML"
        return response

    async def action(
        self, work: Callable[[], Awaitable[object]], edit: dict[str, Any] | None = None
    ) -> Response:
        """Run an inventory/lifecycle action; answer with the re-rendered sheet (or a redirect).

        ``edit`` (``editing``: item id, ``edit_values``: the submitted form) keeps an item's
        edit form open with the input and the messages at its fields when the action is
        refused."""
        self.mark_origin()
        try:
            async with attempt(self.session):
                await work()
        except ValidationFailed as exc:
            return await self.response(status_code=422, item_errors=exc.fields, **(edit or {}))
        except Conflict as exc:
            if edit and "editing" in edit:
                return await self.response(
                    status_code=409,
                    item_errors={"version": exc.message},
                    editing=edit["editing"],
                )
            return await self.response(status_code=409, conflict=True)
        if not is_htmx(self.request):
            return redirect(self.request, self.url)
        return await self.response()


async def _sheet_at(
    request: Request, campaign_id: PathId, character_id: PathId, session: Session, user: CurrentUser
) -> SheetAt:
    return SheetAt(request, session, user, campaign_id, character_id)


Sheet = Annotated[SheetAt, Depends(_sheet_at)]


# --- list, create, import -------------------------------------------------------------------


async def _list_page(
    call: CampaignCall,
    *,
    errors: dict[str, str] | None = None,
    values: dict[str, str] | None = None,
    status_code: int = 200,
    block: str | None = None,
) -> Response:
    request, session, user, campaign_id = call.parts()
    campaign, viewer, rows = await service.list_characters(session, user, campaign_id)
    owners = await service.owner_names(session, campaign_id)
    return page(
        request,
        "characters/list.html",
        {
            "campaign": campaign,
            "viewer": viewer,
            "active": [c for c in rows if c.archived_at is None],
            "archived": [c for c in rows if c.archived_at is not None],
            "owners": owners,
            "players": await service.player_members(session, campaign_id),
            "can_create": allowed(viewer.role, Action.create_character),
            "can_manage": allowed(viewer.role, Action.manage_characters),
            "errors": errors or {},
            "values": values or {},
        },
        block=block,
        status_code=status_code,
    )


index = page_route(router, "/campaigns/{campaign_id}/characters", "index", _list_page)


async def _refused(
    call: CampaignCall,
    exc: ValidationFailed,
    block: str,
    values: dict[str, str] | None = None,
) -> Response:
    """The list's form ``block`` refused (422): its messages, and what was typed if given."""
    return await _list_page(
        call,
        errors=exc.fields,
        values=values,
        status_code=422,
        block=block,
    )


@router.post("/campaigns/{campaign_id}/characters", dependencies=[IDEMPOTENT])
async def create(call: CampaignAt) -> Response:
    request, session, user, campaign_id = call.parts()
    form = await _form_values(request)
    owner = form.get("owner_id", "")
    try:
        character = await service.create_character(
            session,
            user,
            campaign_id,
            form.get("name", ""),
            kind=form.get("kind", "pc"),
            owner_id=int(owner) if owner.isdigit() else None,
            hidden_from_players=form.get("hidden_from_players") == "on",
        )
    except ValidationFailed as exc:
        return await _refused(call, exc, "create_form", form)
    return redirect(request, _base(campaign_id, character.id))


@router.post("/campaigns/{campaign_id}/characters/import", dependencies=[IDEMPOTENT])
async def import_file(call: CampaignAt) -> Response:
    request, session, user, campaign_id = call.parts()
    form = await request.form()
    upload = form.get("file")
    document: Any = None
    try:
        if not isinstance(upload, UploadFile):
            raise ValidationFailed({"file": _("Choose a file.")})
        raw = await upload.read(IMPORT_MAX_BYTES + 1)
        if len(raw) > IMPORT_MAX_BYTES:
            raise ValidationFailed({"file": _("The file is too large.")})
        try:
            document = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValidationFailed(
                {"file": _("The file is not valid JSON: %(e)s", e=str(exc))}
            ) from None
        character, report = await service.import_file(session, user, campaign_id, document)
    except ValidationFailed as exc:
        return await _refused(call, exc, "import_form")
    if report is None:
        return redirect(request, _base(campaign_id, character.id))
    context = {"campaign_id": campaign_id, "character": character, "report": report,
               "sheet_url": _base(campaign_id, character.id)}  # fmt: skip
    return page(request, "characters/imported.html", context, status_code=201)


# --- sheet ----------------------------------------------------------------------------------


def _roll_request(params: dict[str, str]) -> rolling.RollRequest:
    def to_int(key: str, default: int | None) -> int | None:
        raw = params.get(key, "").strip().replace("−", "-")
        if not raw:
            return default
        try:
            return int(raw)
        except ValueError:
            raise ValidationFailed({key: _("Enter a whole number.")}) from None

    return rolling.RollRequest(
        target=params.get("target", ""),
        modifier=to_int("modifier", 0) or 0,
        difficulty=params.get("difficulty", ""),
        luck=params.get("luck", ""),
        dc=to_int("dc", None),
        fortune=params.get("fortune") == "on",
        misfortune=params.get("misfortune") == "on",
        attack_number=to_int("attack_number", 1) or 1,
        visibility=params.get("visibility", "public"),
        helper_id=to_int("helper_id", None),
    )


async def _roll_context(
    session: Any, user: User, opened: service.Opened, params: dict[str, str]
) -> dict[str, Any]:
    c = opened.character
    system = sheet_rolls(c.system)
    roll: dict[str, Any] = {
        "params": params,
        "targets": system.roll_targets(c.data, opened.items),
        "errors": {},
        "odds": None,
        "result": None,
        "difficulties": system.roll_difficulties,
        "luck_options": system.luck_options,
        "helpers": [(h.id, h.name) for h in await service.helpers_for(session, opened)],
    }
    try:
        req = _roll_request(params)
        roll["odds"] = system.odds(c.data, opened.items, req)
    except ValidationFailed as exc:
        roll["errors"] = exc.fields
    return roll


@router.get("/campaigns/{campaign_id}/characters/{character_id}", response_class=HTMLResponse)
async def sheet_page(at: Sheet, roll: str = "") -> Response:
    opened = await at.open()
    roll_ctx = (
        await _roll_context(at.session, at.user, opened, {"target": roll})
        if roll and opened.can_roll
        else None
    )
    context = await views.sheet_page(at.session, opened, roll=roll_ctx)
    key = views.CharacterPage(at.campaign_id, at.character_id)
    await SHEET_PAGE.contribute(at.session, opened.viewer, key, context)
    return page(at.request, SHEET, context)


@router.post("/campaigns/{campaign_id}/characters/{character_id}")
async def save(at: Sheet, hx_trigger_name: str | None = Header(default=None)) -> Response:
    """Save the sheet: HTMX names the one changed field (``_field``, else ``HX-Trigger-Name``); the
    plain form sends all of them (only changed ones are applied).

    A field the post leaves out stays as it is. An unticked checkbox is not posted at all,
    so the form puts an empty hidden field of the same name before each checkbox: a ticked
    box comes after it and wins (the last value of a name counts), an unticked one leaves
    the empty value, which means "no"."""
    form = await at.request.form()
    posted = {k: str(v) for k, v in form.items() if isinstance(v, str)}
    base = {k[6:]: v for k, v in posted.items() if k.startswith("_base.")}
    values = {k: v for k, v in posted.items() if not k.startswith("_")}
    version_raw = values.pop("version", "")
    trigger = posted.get("_field", "") or hx_trigger_name
    version = int(version_raw) if version_raw.isdigit() else None
    opened = await at.open(edit=True)
    at.mark_origin()
    conflicts: list[merge.FieldConflict] = []
    if base:
        # The sheet form: merged per field against what it was built from (app/characters/
        # merge.py); "take theirs" (``_take``) drops the user's value of that field.
        for key in form.getlist("_take"):
            values.pop(str(key), None)
        changes, conflicts = merge.merge_edits(opened, values, base, trigger)
        version = None
    else:
        changes = _changes_without_base(opened, values, trigger)
    try:
        await service.update_fields(
            at.session, at.user, at.campaign_id, at.character_id, version, changes
        )
    except ValidationFailed as exc:
        return await at.response(status_code=422, errors=exc.fields, values=values)
    except Conflict:
        return await at.response(status_code=409, conflict=True, refresh=True)
    if conflicts:
        # 200, not 409: the other fields were saved (an answer >= 400 would roll them back).
        return await at.response(
            refresh=True, field_conflicts=conflicts, values={c.key: c.mine for c in conflicts}
        )
    if not is_htmx(at.request):
        return redirect(at.request, at.url)
    if posted.get("_stale") or len(changes) > 1:
        # Messages of an earlier refusal are stale now: the whole sheet, without them.
        return await at.response()
    context = await views.sheet_page(at.session, await at.open())
    context["oob_version"] = True
    context["saved_keys"] = list(changes)
    return page(at.request, SHEET, context, block="derived")


def _changes_without_base(
    opened: service.Opened, values: dict[str, str], trigger: str | None
) -> dict[str, Any]:
    """A post without the form's base values: the one named field, or every known one."""
    specs = sheets.by_key(character_system(opened.character.system).fields(opened.character.kind))
    if trigger and (trigger in specs or trigger in service.META_FIELDS):
        return {trigger: values.get(trigger, "")}
    return {k: v for k, v in values.items() if k in specs or k in service.META_FIELDS}


@router.get("/campaigns/{campaign_id}/characters/{character_id}/live")
async def live(at: Sheet, stream: LiveStreams, tab: str = "") -> LiveStream:
    """The sheet as it changes, for other open views of it (HTMX SSE extension)."""
    opened = await at.open()
    key = views.CharacterPage(at.campaign_id, at.character_id, tab if TAB_RE.match(tab) else "")
    return stream(at.campaign_id, opened.viewer, SHEET_PAGE.stream(key))


@router.get("/campaigns/{campaign_id}/characters/{character_id}/roll", response_class=HTMLResponse)
async def roll_dialog(at: Sheet) -> Response:
    """The roll dialog with the success chance for the chosen options (before rolling)."""
    opened = await at.open(to_roll=True)
    params = dict(at.request.query_params)
    roll_ctx = await _roll_context(at.session, at.user, opened, params)
    context = await views.sheet_page(at.session, opened, roll=roll_ctx)
    return page(at.request, SHEET, context, block="roll_dialog")


@router.post("/campaigns/{campaign_id}/characters/{character_id}/roll", dependencies=[IDEMPOTENT])
async def roll(at: Sheet, ctx: Ctx) -> Response:
    params = await _form_values(at.request)
    opened = await at.open(to_roll=True)
    status = 200
    event = None
    try:
        event = await service.roll(
            at.session, ctx.roller, at.user, at.campaign_id, at.character_id, _roll_request(params)
        )
    except ValidationFailed as exc:
        status = 422
        errors = exc.fields
    roll_ctx = await _roll_context(at.session, at.user, opened, params)
    if event is not None and service.hidden_from_roller(event, opened.viewer):
        roll_ctx["result"] = {"summary": _("Verdeckter Wurf: only the GM sees the result.")}
    elif event is not None:
        roll_ctx["result"] = event.payload
    else:
        roll_ctx["errors"] = errors
    await at.session.refresh(opened.character)
    context = await views.sheet_page(at.session, opened, roll=roll_ctx)
    return page(at.request, SHEET, context, block="roll_dialog", status_code=status)


def _int(value: str, default: int | None = None, field: str = "quantity") -> int | None:
    value = value.strip()
    try:
        return int(value) if value else default
    except ValueError:
        raise ValidationFailed({field: _("Enter a whole number.")}) from None


def _system_fields(values: dict[str, str]) -> dict[str, Any]:
    """The item's system fields of a submitted form (``fields.<key>``)."""
    return {k[7:]: v for k, v in values.items() if k.startswith("fields.")}


def _new_item_draft(values: dict[str, str]) -> ItemDraft:
    """A submitted "new item" form (on a sheet or in the library); left-out numbers are
    one of it and no price."""
    return ItemDraft(
        name=values.get("name", ""),
        quantity=_int(values.get("quantity", ""), 1) or 1,
        price=_int(values.get("price", ""), field="price"),
        fields=_system_fields(values),
        description=values.get("description", ""),
    )


def _version(values: dict[str, str]) -> int | None:
    """The ``version`` an edit form was built from (``None``: none sent)."""
    version = values.get("version", "")
    return int(version) if version.isdigit() else None


def _edited_item_draft(system: str, values: dict[str, str]) -> ItemDraft:
    """A submitted item edit form (all fields are sent; an unticked checkbox is ``False``);
    every number it gets wrong is refused at its field."""
    fields = _system_fields(values)
    for spec in inventory(system).item_fields:
        if spec.kind == "bool":
            fields.setdefault(spec.key, "")
    errors: dict[str, str] = {}
    numbers: dict[str, int | None] = {}
    for key in ("quantity", "price"):
        try:
            numbers[key] = _int(values.get(key, ""))
        except ValidationFailed:
            errors[key] = _("Enter a whole number.")
    if numbers.get("quantity") is None and "quantity" not in errors:
        errors["quantity"] = _("Between %(min)d and %(max)d.", min=1, max=9999)
    if errors:
        raise ValidationFailed(errors)
    return ItemDraft(
        name=values.get("name", ""),
        quantity=numbers["quantity"] or 0,
        price=numbers["price"],
        fields=fields,
        description=values.get("description", ""),
    )


@router.post("/campaigns/{campaign_id}/characters/{character_id}/rest")
async def rest(at: Sheet, ctx: Ctx) -> Response:
    """A rest from the sheet (DS4: Verschnaufen, H&H: Kurze/Lange Rast); refusals show at
    the rest buttons."""
    form = await _form_values(at.request)

    async def work() -> None:
        await service.take_rest(
            at.session, ctx.roller, at.user, at.campaign_id, at.character_id,
            _int(form.get("version", "")), form.get("rest", ""), form,
        )  # fmt: skip

    return await at.action(work)


@router.post("/campaigns/{campaign_id}/characters/{character_id}/check", dependencies=[IDEMPOTENT])
async def check(at: Sheet, ctx: Ctx) -> Response:
    """A guided check from the sheet (H&H: Beschaffung, Herstellung): the sheet comes back
    with the result (breakdown and faces) at the check's form, or its input and the
    messages at its fields."""
    form = await _form_values(at.request)
    key = form.get("check", "")
    at.mark_origin()
    try:
        async with attempt(at.session):
            _opened, event = await service.sheet_check(
                at.session, ctx.roller, at.user, at.campaign_id, at.character_id,
                _int(form.get("version", ""), field="version"), key, form,
            )  # fmt: skip
    except ValidationFailed as exc:
        answer = {"key": key, "values": form, "errors": exc.fields}
        return await at.response(status_code=422, check=answer)
    except Conflict:
        return await at.response(status_code=409, conflict=True)
    answer = {"key": key, "values": {}, "result": event.payload}
    return await at.response(check=answer)


@router.post(
    "/campaigns/{campaign_id}/characters/{character_id}/companions", dependencies=[IDEMPOTENT]
)
async def create_companion(at: Sheet) -> Response:
    """A Gefährte of its own for this hero; its new sheet opens (refusals at the name)."""
    form = await _form_values(at.request)
    try:
        async with attempt(at.session):
            companion = await service.create_companion(
                at.session, at.user, at.campaign_id, at.character_id, form.get("name", "")
            )
    except ValidationFailed as exc:
        return await at.response(status_code=422, item_errors=exc.fields)
    return redirect(at.request, _base(at.campaign_id, companion.id))


@router.post("/campaigns/{campaign_id}/characters/{character_id}/xp")
async def gain_xp(at: Sheet) -> Response:
    """XP for the hero, shared with a Gefährte («Band der Erfahrung»)."""
    form = await _form_values(at.request)

    async def work() -> None:
        await service.gain_xp(
            at.session, at.user, at.campaign_id, at.character_id, _int(form.get("version", "")),
            _int(form.get("amount", ""), 0, field="xp_gain") or 0,
            _int(form.get("companion_id", ""), field="companion_id"),
        )  # fmt: skip

    return await at.action(work)


@router.post("/campaigns/{campaign_id}/characters/{character_id}/advance")
async def advance(at: Sheet) -> Response:
    """A Gefährte's next Monsterstufe for its XP."""
    form = await _form_values(at.request)

    async def work() -> None:
        await service.advance_companion(
            at.session, at.user, at.campaign_id, at.character_id, _int(form.get("version", ""))
        )

    return await at.action(work)


@router.post("/campaigns/{campaign_id}/characters/{character_id}/archive")
async def archive(at: Sheet) -> Response:
    await service.set_archived(at.session, at.user, at.campaign_id, at.character_id, True)
    return redirect(at.request, at.url)


@router.post("/campaigns/{campaign_id}/characters/{character_id}/restore")
async def restore(at: Sheet) -> Response:
    await service.set_archived(at.session, at.user, at.campaign_id, at.character_id, False)
    return redirect(at.request, at.url)


@router.post("/campaigns/{campaign_id}/characters/{character_id}/delete")
async def delete(at: Sheet) -> Response:
    form = await at.request.form()
    try:
        await service.delete_character(
            at.session,
            at.user,
            at.campaign_id,
            at.character_id,
            confirm=form.get("confirm") == "on",
        )
    except ValidationFailed as exc:
        return await at.response(status_code=422, item_errors=exc.fields)
    return redirect(at.request, f"/campaigns/{at.campaign_id}/characters")


@router.get("/campaigns/{campaign_id}/characters/{character_id}/export")
async def export(at: Sheet) -> Response:
    opened = await at.open()
    body = json.dumps(service.export(opened), ensure_ascii=False, indent=2)
    filename = f"character-{at.character_id}.json"
    return Response(
        body,
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@router.get(
    "/campaigns/{campaign_id}/characters/{character_id}/history", response_class=HTMLResponse
)
async def history(
    at: Sheet, before: int | None = Query(default=None, ge=1, le=MAX_ROW_ID)
) -> Response:
    """The sheet's history, newest first, one page at a time ("older entries" pages back;
    HTMX appends the next page in place)."""
    opened, events, next_before = await service.history_page(
        at.session, at.user, at.campaign_id, at.character_id, before=before
    )
    owners = await service.owner_names(at.session, at.campaign_id)
    context = views.history_context(opened, events, owners, next_before=next_before, before=before)
    return page(
        at.request,
        "characters/history.html",
        context,
        block="history_page" if is_htmx(at.request) and before is not None else None,
    )


@router.get("/campaigns/{campaign_id}/characters/{character_id}/history/live")
async def history_live(at: Sheet, stream: LiveStreams) -> LiveStream:
    """New history entries of the sheet as they happen (event ``history``, newest first)."""
    opened = await at.open()
    return stream(
        at.campaign_id,
        opened.viewer,
        HISTORY_PAGE.stream(views.CharacterPage(at.campaign_id, at.character_id)),
    )


@router.post("/campaigns/{campaign_id}/characters/{character_id}/items", dependencies=[IDEMPOTENT])
async def add_item(at: Sheet) -> Response:
    values = await _form_values(at.request)

    async def work() -> None:
        library_id = values.get("library_item_id", "")
        await service.add_item(
            at.session,
            at.user,
            at.campaign_id,
            at.character_id,
            _new_item_draft(values),
            starter=values.get("starter", ""),
            library_item_id=int(library_id) if library_id.isdigit() else None,
        )

    # A refused "New item" form comes back open, as typed (not the starter or library ones).
    typed = "name" in values and not values.get("starter") and not values.get("library_item_id")
    new = {"new_item": values} if typed else None
    return await at.action(work, edit=new)


def _removal_question(
    at: SheetAt | LibraryAt, question: str, consequence: str, item_url: str
) -> Response:
    """The server's question before an item of a sheet or of the library is removed; "back"
    returns to that sheet or library."""
    return confirm_page(
        at.request,
        question=question,
        consequence=consequence,
        button=_("Remove"),
        action=f"{item_url}/remove",
        back=at.url,
    )


async def _confirm_item_removal(at: SheetAt, item_id: int) -> Response:
    """The server's question before an item is removed (the sheet's editors only)."""
    opened = await at.open(edit=True)
    item = next((i for i in opened.items if i.id == item_id), None)
    if item is None:
        raise NotFound(_("Item not found."))
    return _removal_question(
        at,
        _("Remove %(name)s?", name=item.name),
        _("The item is gone from the sheet; the sheet's history keeps a line of it."),
        f"{at.url}/items/{item_id}",
    )


@router.post("/campaigns/{campaign_id}/characters/{character_id}/items/{item_id}/{verb}")
async def item_action(at: Sheet, item_id: PathId, verb: str) -> Response:
    values = await _form_values(at.request)
    if verb == "remove" and not confirmed(values):
        return await _confirm_item_removal(at, item_id)
    item = (at.session, at.user, at.campaign_id, at.character_id, item_id)

    async def work() -> None:
        if verb == "equip":
            await service.equip_item(*item, values.get("slot", ""))
        elif verb == "unequip":
            await service.unequip_item(*item, values.get("container", "default"))
        elif verb == "stow":
            await service.unequip_item(*item, values.get("container", ""))
        elif verb == "remove":
            await service.remove_item(*item)
        elif verb == "move":
            target = values.get("to_character_id", "")
            await service.move_item(
                *item, int(target) if target.isdigit() else 0, _int(values.get("quantity", ""))
            )
        elif verb == "edit":
            system = (await at.open()).character.system
            await service.update_item(
                *item,
                _edited_item_draft(system, values),
                version=_version(values),
                replace_fields=True,
            )
        else:
            raise ValidationFailed({"item": _("Unknown action.")})

    edit = {"editing": item_id, "edit_values": values} if verb == "edit" else None
    return await at.action(work, edit)


# --- library --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Shelf:
    """A campaign with its item library."""

    campaign: Campaign
    items: list[Item]


async def _open_library(
    session: AsyncSession, user: User, campaign_id: int
) -> tuple[Shelf, Viewer]:
    campaign, viewer, items = await service.library(session, user, campaign_id)
    return Shelf(campaign, items), viewer


async def _library(session: AsyncSession, viewer: Viewer, shelf: Shelf) -> dict[str, object]:
    """The library page: its items, the starter items and the item form's fields."""
    system = shelf.campaign.system
    return {
        "campaign": shelf.campaign,
        "viewer": viewer,
        "items": shelf.items,
        "can_manage": allowed(viewer.role, Action.manage_item_library),
        "starters": inventory(system).starter_items(),
        "item_fields": inventory(system).item_fields,
    }


#: The item library; a refused new item shows at the form (``errors``), a refused edit at
#: the item (``editing``: its id, ``edit_values``: as typed, ``item_errors``).
_LIBRARY = FormPage(
    "characters/library.html", _open_library, _library,
    {"errors": {}, "editing": None, "edit_values": {}, "item_errors": {}},
)  # fmt: skip
library = page_route(router, "/campaigns/{campaign_id}/items", "library", _LIBRARY.render)


@dataclass(frozen=True, slots=True)
class LibraryAt(CampaignCall):
    """A request about a campaign's item library."""

    @property
    def url(self) -> str:
        return f"/campaigns/{self.campaign_id}/items"

    async def refused(self, extra: dict[str, object], status_code: int) -> Response:
        """The library again with what a refused form adds (see ``_LIBRARY``)."""
        return await _LIBRARY.render(self, extra, status_code)


async def _library_at(
    request: Request, campaign_id: PathId, session: Session, user: CurrentUser
) -> LibraryAt:
    return LibraryAt(request, session, user, campaign_id)


Library = Annotated[LibraryAt, Depends(_library_at)]


@router.post("/campaigns/{campaign_id}/items", dependencies=[IDEMPOTENT])
async def add_library_item(at: Library) -> Response:
    values = await _form_values(at.request)
    try:
        await service.add_library_item(
            at.session, at.user, at.campaign_id, _new_item_draft(values),
            starter=values.get("starter", ""),
        )  # fmt: skip
    except ValidationFailed as exc:
        return await at.refused({"errors": exc.fields}, 422)
    return redirect(at.request, at.url)


@router.post("/campaigns/{campaign_id}/items/{item_id}/edit")
async def edit_library_item(at: Library, item_id: PathId) -> Response:
    values = await _form_values(at.request)
    campaign, _viewer, _items = await service.library(at.session, at.user, at.campaign_id)
    try:
        draft = _edited_item_draft(campaign.system, values)
        async with attempt(at.session):
            await service.update_library_item(
                at.session,
                at.user,
                at.campaign_id,
                item_id,
                draft,
                version=_version(values),
                replace_fields=True,
            )
    except (ValidationFailed, Conflict) as exc:
        conflict = isinstance(exc, Conflict)
        errors = exc.fields if isinstance(exc, ValidationFailed) else {"version": exc.message}
        refused = {
            "editing": item_id,
            "edit_values": {} if conflict else values,
            "item_errors": errors,
        }
        return await at.refused(refused, 409 if conflict else 422)
    return redirect(at.request, at.url)


@router.post("/campaigns/{campaign_id}/items/{item_id}/remove")
async def remove_library_item(at: Library, item_id: PathId) -> Response:
    if not confirmed(await at.request.form()):
        item = await service.library_item(at.session, at.user, at.campaign_id, item_id)
        return _removal_question(
            at,
            _("Remove %(name)s from the library?", name=item.name),
            _("Items already on sheets stay there; only the library's copy goes."),
            f"{at.url}/{item_id}",
        )
    await service.remove_library_item(at.session, at.user, at.campaign_id, item_id)
    return redirect(at.request, at.url)
