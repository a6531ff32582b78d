"""Light on a scene (issue 27, docs/map.md «Light»): light sources the GMs place on cells.

The darkness itself is a switch of the scene (``service.SceneChange.dark``) and the light a
token carries a field of the token (``service.TokenChange.light``); what is lit is decided
by :meth:`app.maps.sight.Board.lit`. Each change is a ``light_changed`` in the log, and —
as with the fog — a ``token_sighted`` per token that comes into or leaves a player's view.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.accounts.models import User
from app.campaigns.permissions import Action
from app.errors import ValidationFailed
from app.events.audience import Audience
from app.i18n import _
from app.maps import events as map_events
from app.maps import service
from app.maps.models import Scene


def _cell(scene: Scene, x: int, y: int) -> tuple[int, int]:
    if not 0 <= x < scene.cols:
        raise ValidationFailed({"x": _("A column from 0 to %(max)d.", max=scene.cols - 1)})
    if not 0 <= y < scene.rows:
        raise ValidationFailed({"y": _("A row from 0 to %(max)d.", max=scene.rows - 1)})
    return x, y


async def _changed(
    session: AsyncSession,
    opened: service.Opened,
    user: User,
    change: str,
    light: list[int],
) -> None:
    """The ``light_changed`` of a light placed or taken away: players get it without the
    light (where it stands is the GMs')."""
    scene = opened.scene
    payload = map_events.LightChanged(
        actor_name=user.username, scene_id=scene.id, change=change, dark=scene.dark, light=light
    )
    party: dict[str, object] = {"type": payload.TYPE, "scene_id": scene.id, "change": change}
    party["dark"] = scene.dark
    party["light"] = None
    audience = Audience(scene_id=scene.id, party_form=party)
    await service.scene_event(session, opened, user, payload, audience)


async def add_light(
    session: AsyncSession, user: User, campaign_id: int, scene_id: int, x: int, y: int, radius: int
) -> Scene:
    """Place a light of ``radius`` cells on the cell ``(x, y)`` (a light already there takes
    the new radius). 422 at ``x``, ``y`` or ``radius``."""
    opened = await service.open_for(session, user, campaign_id, scene_id, Action.manage_maps)
    scene = opened.scene
    cell = _cell(scene, x, y)
    radius = service.light_radius(radius, "radius")
    others = [list(map(int, lt)) for lt in scene.lights if (lt[0], lt[1]) != cell]
    if len(others) >= limits.LIGHTS_PER_SCENE:
        raise ValidationFailed(
            {"x": _("At most %(max)d lights on a scene.", max=limits.LIGHTS_PER_SCENE)}
        )
    b = await service.board(session, opened)
    before = b.seen()
    scene.lights = sorted([*others, [x, y, radius]])
    await service.flush_scene(session)
    await _changed(session, opened, user, "light_added", [x, y, radius])
    await service.sight_followup(session, opened, user, b, before)
    return scene


async def remove_light(
    session: AsyncSession, user: User, campaign_id: int, scene_id: int, x: int, y: int
) -> Scene:
    """Take away the light on the cell ``(x, y)``; 422 at ``x`` when there is none."""
    opened = await service.open_for(session, user, campaign_id, scene_id, Action.manage_maps)
    scene = opened.scene
    cell = _cell(scene, x, y)
    found = [list(map(int, lt)) for lt in scene.lights if (lt[0], lt[1]) == cell]
    if not found:
        raise ValidationFailed({"x": _("There is no light on that cell.")})
    b = await service.board(session, opened)
    before = b.seen()
    scene.lights = [list(map(int, lt)) for lt in scene.lights if (lt[0], lt[1]) != cell]
    await service.flush_scene(session)
    await _changed(session, opened, user, "light_removed", found[0])
    await service.sight_followup(session, opened, user, b, before)
    return scene
