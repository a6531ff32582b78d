"""Handouts: texts the GMs prepare and show to everyone or to chosen players when they choose.

A prepared handout is the GMs' secret (``handout_created`` is ``gm``); showing it is a
``handout_shown`` event to its audience only (``public`` for everyone, ``listed`` with the
players in ``to``). Showing again adds readers; nobody loses a handout once shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import BindParameter, ColumnElement, bindparam, exists, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.accounts.models import User
from app.campaigns import service as campaigns
from app.campaigns.permissions import Action, authorize_viewer
from app.core.viewer import Viewer
from app.errors import NotFound, ValidationFailed
from app.events.audience import gm_only, listed, public
from app.events.service import append_event
from app.i18n import _
from app.media.images import StoredImage
from app.talk.events import HandoutCreated, HandoutImageSet, HandoutShown
from app.talk.models import Handout, HandoutImage, HandoutReader
from app.talk.readers import listed_users

TITLE_MAX = 200
BODY_MAX = 20_000
#: Handouts listed per campaign (the newest shown first).
LIST_MAX = 200

Audience = list[int] | Literal["all"]


@dataclass(frozen=True, slots=True)
class ImageInfo:
    """What a page needs to show a handout's image (the bytes are served on their own)."""

    width: int
    height: int
    etag: str


@dataclass(frozen=True, slots=True)
class HandoutView:
    handout: Handout
    #: Whom it was shown to (GMs only; empty for players).
    readers: list[int]
    image: ImageInfo | None = None


async def create(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    title: str,
    body: str,
    shown_to: Audience | None = None,
) -> Handout:
    """Prepare a handout (GMs); with ``shown_to`` show it at once."""
    await authorize_viewer(session, campaign_id, user.id, user.username, Action.manage_talk)
    title, body = title.strip(), body.strip()
    errors: dict[str, str] = {}
    if not title:
        errors["title"] = _("Give the handout a title.")
    elif problem := limits.name_problem(title, TITLE_MAX):
        errors["title"] = problem
    if problem := limits.text_problem(body, BODY_MAX):
        errors["body"] = problem
    if shown_to is not None:
        errors.update(await _audience_errors(session, campaign_id, shown_to))
    if errors:
        raise ValidationFailed(errors)
    handout = Handout(campaign_id=campaign_id, title=title, body=body)
    session.add(handout)
    await session.flush()
    await append_event(
        session,
        campaign_id,
        HandoutCreated(actor_name=user.username, handout_id=handout.id, title=title),
        actor_id=user.id,
        audience=gm_only(),
    )
    if shown_to is not None:
        await _show(session, user, handout, shown_to)
    return handout


async def show(
    session: AsyncSession, user: User, campaign_id: int, handout_id: int, to: Audience
) -> Handout:
    """Show a prepared handout to everyone or to chosen members (GMs)."""
    await authorize_viewer(session, campaign_id, user.id, user.username, Action.manage_talk)
    handout = await session.get(Handout, handout_id)
    if handout is None or handout.campaign_id != campaign_id:
        raise NotFound(_("Handout not found."))
    errors = await _audience_errors(session, campaign_id, to)
    if errors:
        raise ValidationFailed(errors)
    await _show(session, user, handout, to)
    return handout


async def _audience_errors(session: AsyncSession, campaign_id: int, to: Audience) -> dict[str, str]:
    if to == "all":
        return {}
    if not to:
        return {"to": _("Choose whom to show it to.")}
    if not await campaigns.all_members(session, campaign_id, to):
        return {"to": _("Show it only to members of this campaign.")}
    return {}


async def _show(session: AsyncSession, user: User, handout: Handout, to: Audience) -> None:
    readers: list[int] = []
    if to == "all":
        handout.shown_to_all = True
    else:
        known = set(
            (
                await session.scalars(
                    select(HandoutReader.user_id).where(HandoutReader.handout_id == handout.id)
                )
            ).all()
        )
        readers = sorted(set(to))
        session.add_all(
            HandoutReader(handout_id=handout.id, user_id=uid) for uid in readers if uid not in known
        )
    event = await append_event(
        session,
        handout.campaign_id,
        HandoutShown(
            actor_name=user.username, handout_id=handout.id, title=handout.title, to=readers
        ),
        actor_id=user.id,
        audience=public() if to == "all" else listed(readers),
    )
    handout.shown_seq = event.seq
    await session.flush()


def _readable_by(viewer: Viewer | BindParameter[int]) -> ColumnElement[bool]:
    """The handouts a non-GM may read: shown to everyone or to them (a viewer, or the user
    id a statement is given)."""
    user_id = viewer if isinstance(viewer, BindParameter) else viewer.user_id
    return or_(
        Handout.shown_to_all.is_(True),
        exists().where(HandoutReader.handout_id == Handout.id, HandoutReader.user_id == user_id),
    )


#: A campaign's handouts, the latest shown first: every one (the GMs), or those a user
#: may read.
_EVERY_HANDOUT = (
    select(Handout)
    .where(Handout.campaign_id == bindparam("campaign_id"))
    .order_by(Handout.shown_seq.desc(), Handout.id.desc())
    .limit(LIST_MAX)
)
_READABLE_HANDOUTS = _EVERY_HANDOUT.where(_readable_by(bindparam("user_id")))


async def visible(session: AsyncSession, viewer: Viewer, campaign_id: int) -> list[HandoutView]:
    """The handouts ``viewer`` may read: for the GMs every one (with its readers), for the
    others those shown to everyone or to them; the latest shown first."""
    query = _EVERY_HANDOUT if viewer.is_gm else _READABLE_HANDOUTS
    values = {"campaign_id": campaign_id, "user_id": viewer.user_id}
    rows = (await session.scalars(query, values)).all()
    readers = await _readers(session, [h.id for h in rows]) if viewer.is_gm else {}
    images = await _images(session, [h.id for h in rows])
    return [HandoutView(h, readers.get(h.id, []), images.get(h.id)) for h in rows]


async def readable(
    session: AsyncSession, viewer: Viewer, campaign_id: int, handout_id: int
) -> HandoutView:
    """One handout for a member who may read it (404 otherwise), as :func:`visible` lists it."""
    query = select(Handout).where(Handout.id == handout_id, Handout.campaign_id == campaign_id)
    if not viewer.is_gm:
        query = query.where(_readable_by(viewer))
    handout = await session.scalar(query)
    if handout is None:
        raise NotFound(_("Handout not found."))
    readers = await _readers(session, [handout.id]) if viewer.is_gm else {}
    images = await _images(session, [handout.id])
    return HandoutView(handout, readers.get(handout.id, []), images.get(handout.id))


async def _images(session: AsyncSession, ids: Sequence[int]) -> dict[int, ImageInfo]:
    if not ids:
        return {}
    rows = await session.execute(
        select(
            HandoutImage.handout_id, HandoutImage.width, HandoutImage.height, HandoutImage.etag
        ).where(HandoutImage.handout_id.in_(ids))
    )
    return {hid: ImageInfo(w, h, tag) for hid, w, h, tag in rows}


async def set_image(
    session: AsyncSession, user: User, campaign_id: int, handout_id: int, image: StoredImage
) -> Handout:
    """Give a handout its picture (GMs), already checked and re-encoded
    (``app.media.images``); a new upload replaces the old one. Its readers see it with the
    handout; the upload itself is the GMs' business (``handout_image_set``, ``gm``)."""
    await authorize_viewer(session, campaign_id, user.id, user.username, Action.manage_talk)
    handout = await session.get(Handout, handout_id)
    if handout is None or handout.campaign_id != campaign_id:
        raise NotFound(_("Handout not found."))
    stored = await session.get(HandoutImage, handout_id)
    if stored is None:
        stored = HandoutImage(handout_id=handout_id)
        session.add(stored)
    stored.data, stored.mime, stored.etag = image.data, image.mime, image.etag
    stored.width, stored.height = image.width, image.height
    await session.flush()
    await append_event(
        session,
        campaign_id,
        HandoutImageSet(
            actor_name=user.username,
            handout_id=handout_id,
            width=image.width,
            height=image.height,
            etag=image.etag,
        ),
        actor_id=user.id,
        audience=gm_only(),
    )
    return handout


async def image_for(
    session: AsyncSession, viewer: Viewer, campaign_id: int, handout_id: int
) -> HandoutImage:
    """A handout's picture for a member who may read the handout (else 404)."""
    query = (
        select(HandoutImage)
        .join(Handout, Handout.id == HandoutImage.handout_id)
        .where(Handout.id == handout_id, Handout.campaign_id == campaign_id)
    )
    if not viewer.is_gm:
        query = query.where(_readable_by(viewer))
    image = await session.scalar(query)
    if image is None:
        raise NotFound(_("Image not found."))
    return image


async def _readers(session: AsyncSession, ids: Sequence[int]) -> dict[int, list[int]]:
    return await listed_users(session, HandoutReader.handout_id, HandoutReader.user_id, ids)
