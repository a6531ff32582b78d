"""Roll a dice expression on the server and record it in the campaign log."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.accounts.models import User
from app.campaigns.permissions import Action, authorize
from app.core.viewer import Viewer
from app.errors import ValidationFailed
from app.events.audience import chosen
from app.events.events import Roll
from app.events.models import CampaignEvent
from app.events.places import Place, places_before
from app.events.service import (
    FairPlayOpened,
    VisibleEvent,
    append_event,
    events_before,
    project,
)
from app.i18n import _
from app.rules import expression as dice_expression
from app.rules.dice import Roller
from app.sessions.dice import roller_for

LABEL_MAX = limits.LABEL_MAX
PAGE_SIZE = limits.LOG_PAGE


async def roll(
    session: AsyncSession,
    roller: Roller,
    user: User,
    campaign_id: int,
    expression: str,
    label: str | None,
    visibility: str,
) -> CampaignEvent:
    """Roll ``expression`` for a member who may roll; the result is a ``roll`` event.

    Outside a fair-play session (as the campaign row read with the sign-in says) the dice
    are rolled without taking the log lock first, one statement less on the hottest path;
    should a session have opened meanwhile, the event is refused unwritten and the dice are
    rolled again with the session's roller.
    """
    campaign, _viewer = await authorize(session, campaign_id, user.id, user.username, Action.roll)
    errors: dict[str, str] = {}
    label = (label or "").strip()
    parsed = None
    try:
        parsed = dice_expression.parse(expression)
    except dice_expression.ExpressionError as exc:
        errors["expression"] = _(exc.message, **exc.params)
    # A label shows in everyone's dice log next to a name: the name rule, but it may be empty.
    if label and (
        label_problem := limits.text_problem(label, LABEL_MAX)
        or limits.name_problem(label, LABEL_MAX)
    ):
        errors["label"] = label_problem
    if visibility not in Roll.VISIBILITIES:
        errors["visibility"] = _("Choose public, GM only or GM and me.")
    if errors or parsed is None:
        raise ValidationFailed(errors)
    roll = _RollRequest(campaign_id, user, parsed, label, visibility)
    if campaign.fairplay_session_id is None:
        with contextlib.suppress(FairPlayOpened):
            return await roll.append(session, roller, outside_fairplay=True)
    dice = await roller_for(session, campaign_id, user.id, roller)
    return await roll.append(session, dice, outside_fairplay=False)


@dataclass(frozen=True, slots=True)
class _RollRequest:
    """A checked roll request, to be rolled and logged."""

    campaign_id: int
    user: User
    parsed: dice_expression.Expression
    label: str
    visibility: str

    async def append(
        self, session: AsyncSession, dice: Roller, *, outside_fairplay: bool
    ) -> CampaignEvent:
        result = dice_expression.roll(self.parsed, dice)
        payload = Roll.build(
            actor_name=self.user.username,
            expression=self.parsed.notation(),
            label=self.label,
            dice=result.dice,
            signs=result.signs,
            modifier=result.modifier,
            total=result.total,
        )
        return await append_event(
            session,
            self.campaign_id,
            payload,
            actor_id=self.user.id,
            audience=chosen(self.visibility, self.user.id),
            outside_fairplay=outside_fairplay,
        )


async def log_page(
    session: AsyncSession, viewer: Viewer, campaign_id: int, before: int | None
) -> tuple[list[VisibleEvent], int | None]:
    """One page of the dice log, newest first, and the ``before`` cursor of the next page."""
    events: Sequence[CampaignEvent] = await events_before(
        session, campaign_id, before, PAGE_SIZE + 1, types=(Roll.TYPE,)
    )
    more = len(events) > PAGE_SIZE
    page = project(events[:PAGE_SIZE], viewer)
    return page, (events[PAGE_SIZE - 1].seq if more else None)


@dataclass(frozen=True, slots=True)
class LogPlaces:
    """One page of the dice log as places (``app.events.places``): each entry with the form
    the viewer gets it in, newest first, and the ``before`` cursor of the next page."""

    entries: list[tuple[Place, str]]
    next_before: int | None


async def log_places(
    session: AsyncSession, viewer: Viewer, campaign_id: int, before: int | None
) -> LogPlaces:
    """:func:`log_page` without the payloads: for a page whose entries were mostly rendered
    before."""
    places = await places_before(session, campaign_id, before, PAGE_SIZE + 1, (Roll.TYPE,))
    more = len(places) > PAGE_SIZE
    shown = [(p, form) for p in places[:PAGE_SIZE] if (form := p.form(viewer)) is not None]
    return LogPlaces(shown, places[PAGE_SIZE - 1].seq if more else None)
