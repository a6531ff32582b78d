"""Roll a dice expression on the server and record it in the campaign log."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.accounts.models import User
from app.campaigns.permissions import Action, authorize_viewer
from app.core.viewer import Viewer
from app.errors import ValidationFailed
from app.events.models import CampaignEvent
from app.events.service import VisibleEvent, append_event, events_before, project
from app.events.types import Roll
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
    """Roll ``expression`` for a member who may roll; the result is a ``roll`` event."""
    await authorize_viewer(session, campaign_id, user.id, user.username, Action.roll)
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
    dice = await roller_for(session, campaign_id, user.id, roller)
    result = dice_expression.roll(parsed, dice)
    payload = Roll.build(
        actor_name=user.username,
        expression=parsed.notation(),
        label=label,
        dice=result.dice,
        signs=result.signs,
        modifier=result.modifier,
        total=result.total,
    )
    return await append_event(
        session,
        campaign_id,
        payload,
        actor_id=user.id,
        visibility=visibility,
        audience_user_id=user.id if visibility == "self" else None,
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
