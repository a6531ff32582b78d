"""The battle map's live regions (``app.web.regions``).

- ``SCENE_PAGE`` (``/campaigns/{id}/scenes/{sid}``) with its regions ``board`` (the map and
  the token list, re-rendered for the viewer on the map events that change more than one
  token's place; when what some tokens tell changed — a figure's health or the turn in the
  linked fight, a fighting character's sheet — just those tokens, :func:`retold`),
  ``moves`` (a ``token_moved``: that token's place in the list, from the event alone, no
  session; ``map.js`` moves the token on the board from it, and changes the viewer's fog
  of sight with it), ``sighted`` (a token that came into or went out of the viewer's sight
  with a move, from the event alone) and ``pointer`` (rulers and pings, from the event
  alone).
- The region ``map`` on the combat page (``COMBAT_PAGE``, slot ``board``: the page then
  puts the board first and its other parts around it, issue 28): the scene linked to the
  encounter, the same board, tokens, moves and pointer, as out-of-band swaps in the page's
  bundle (read only for a fight on a scene).

The board is rendered from the scene as the viewer may see it (``app.maps.views``), so a
token a player may not see is never in what they receive; a move reaches a viewer only in
the form the projection gives them (a move out of their sight is a ``token_removed``, a
move into it a ``token_added``). What a move changes of a viewer's sight — the cells that
came into or went out of it, the tokens with them (``token_sighted``) — is rendered from the
events alone, like the move, and applied by ``map.js``; the board is drawn anew only where
that does not suffice (the map they know changed, a figure of the fight came into sight).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app import i18n
from app.characters import events as character_events
from app.core.viewer import Viewer
from app.db import json_text
from app.encounters import events as encounter_events
from app.encounters.live import COMBAT_PAGE, STATE, CombatPage
from app.events.service import VisibleEvent
from app.events.stream import Outgoing
from app.maps import events as map_events
from app.maps import views
from app.maps.views import MapContext
from app.web.regions import Batch, Page, Region, shared_load
from app.web.templating import render

#: The events that re-render the whole board (what is seen changes, not one token's place).
BOARD_EVENTS = frozenset(
    {
        map_events.SceneUpdated.TYPE,
        map_events.TokenAdded.TYPE,
        map_events.TokenRemoved.TYPE,
        map_events.TokenChanged.TYPE,
        map_events.FogChanged.TYPE,
        map_events.LightChanged.TYPE,
        # An area of the linked fight is drawn while it resolves (issue 27).
        encounter_events.AreaPlaced.TYPE,
        encounter_events.AreaResolved.TYPE,
    }
)
MOVED = map_events.TokenMoved.TYPE
SIGHTED = map_events.TokenSighted.TYPE
ADDED = map_events.TokenAdded.TYPE
REMOVED = map_events.TokenRemoved.TYPE


def sighted(event: VisibleEvent) -> bool:
    """Whether the event is a token that came into or went out of the viewer's sight with a
    move (``token_added`` / ``token_removed`` as their form of a ``token_moved`` or
    ``token_sighted``), which the page puts on or takes off the board from the event alone
    (:func:`sight_html`) — but a figure of the fight coming into sight: its health and turn
    are the board's, which draws it anew."""
    if event.event.type not in (MOVED, SIGHTED):
        return False
    if event.type == REMOVED:
        return True
    token = event.payload.get("token")
    return event.type == ADDED and isinstance(token, dict) and token.get("participant_id") is None


def redraws(event: VisibleEvent) -> bool:
    """Whether the event re-renders the board: it changes what is seen (but a token coming
    into or going out of sight with a move, :func:`sighted`), or it is the move of a token
    whose player's sight it changed (``sight`` in their form of the move) without the cells
    that changed (``visible_added``: then ``map.js`` applies those, :func:`moved_html`)."""
    if event.type == MOVED:
        p = event.payload
        return bool(p.get("sight")) and "visible_added" not in p
    return event.type in BOARD_EVENTS and not sighted(event)


POINTER = map_events.MapPointer.TYPE
MAP = frozenset({"map"})
COMBAT = encounter_events.Combat.TYPE
#: Sheet changes that can change a fighting character's health on the board (an edit, a
#: rest, a level); the fight's own write-backs come with their ``combat`` step.
SHEET_HEALTH = frozenset(
    {
        character_events.CharacterUpdated.TYPE,
        character_events.CharacterRested.TYPE,
        character_events.CharacterAdvanced.TYPE,
    }
)


def fight_marks(event: VisibleEvent) -> int | None:
    """The fight whose step changed what its figures' tokens tell — a figure's health or
    who is on the move (``shown_changed``), who takes part, whether it runs — else ``None``
    (a step that only spent movement: the move itself moved the token)."""
    if event.type != COMBAT or event.redacted:
        return None
    p = event.payload
    told = p.get("shown_changed") or p.get("roster_changed") or p.get("status_changed")
    fight = p.get("encounter_id")
    return fight if isinstance(fight, int) and told else None


def sheet_health(event: VisibleEvent) -> int | None:
    """The character whose sheet changed in a way that can change its health, else ``None``."""
    if event.type not in SHEET_HEALTH or event.redacted:
        return None
    value = event.payload.get("character_id")
    return value if isinstance(value, int) else None


@dataclass(frozen=True, slots=True)
class Retold:
    """What a batch changed of what the tokens of one board tell (:func:`retold`)."""

    #: The last event that did (``None``: none did).
    seq: int | None = None
    #: The whole board: the fight's roster changed, or it started or ended.
    whole: bool = False
    #: Else just these tokens.
    token_ids: frozenset[int] = frozenset()


def retold(events: Sequence[VisibleEvent], shown: MapContext) -> Retold:
    """What ``events`` changed of what the tokens of the board ``shown`` tell (health, who
    is on the move): the steps of its linked fight, the sheet changes of its fighters."""
    fight = shown["scene"]["encounter_id"]
    tokens = [t for t in shown["scene"]["tokens"] if t.get("health")]
    fighters = {t["id"] for t in tokens}
    seqs, whole, ids = [], False, set()
    for e in events:
        healed = [i for i in shown["characters"].get(sheet_health(e) or 0, []) if i in fighters]
        if fight is not None and fight_marks(e) == fight:
            p = e.payload
            whole = whole or bool(p.get("roster_changed") or p.get("status_changed"))
            pids = {int(pid) for pid in p.get("shown_changed") or []}
            ids |= {t["id"] for t in tokens if t["participant_id"] in pids}
        elif healed:  # a fighting character's sheet changed: its tokens
            ids |= set(healed)
        else:
            continue
        seqs.append(e.seq)
    return Retold(max(seqs, default=None), whole, frozenset(ids))


def retold_html(told: Retold, context: Mapping[str, Any]) -> str:
    """The viewer's board anew (``whole``), or the tokens that tell something else on the
    board and in the list, for ``map.js`` to put in place of theirs (``maps/_marks.html``)."""
    if told.whole:
        return board_html(context)
    shown = context["map"]
    marks = [t for t in shown["scene"]["tokens"] if t["id"] in told.token_ids]
    items = [t for t in shown["listing"] if t["id"] in told.token_ids]
    return render("maps/_marks.html", **shown, marks=marks, items=items, oob=True)


@dataclass(frozen=True, slots=True)
class ScenePage:
    """What a scene page is about (the key of its live stream)."""

    campaign_id: int
    scene_id: int


def scene_of(event: VisibleEvent) -> int | None:
    value = event.payload.get("scene_id")
    return int(value) if isinstance(value, int) else None


async def scene_live_context(
    session: AsyncSession, viewer: Viewer, key: ScenePage, parts: frozenset[str]
) -> dict[str, object] | None:
    """The scene page's context (the same builder as the page); ``None``: it is gone."""
    read = await _scene_read(session, key.campaign_id, key.scene_id)
    context = await views.context_of(session, viewer, read)
    return None if context is None else {"map": context}


async def _scene_read(
    session: AsyncSession, campaign_id: int, scene_id: int
) -> views.SceneRead | None:
    """The scene as every viewer's page reads it alike, once per live step for all of them."""
    return await shared_load(
        ("scene read", campaign_id, scene_id),
        lambda: views.read_scene(session, campaign_id, scene_id),
    )


SCENE_PAGE: Page[ScenePage] = Page("scene", load=scene_live_context, gone="gone")


def board_html(context: Mapping[str, Any]) -> str:
    """The board and token list as the viewer may see them."""
    return render("maps/_board.html", **context["map"], oob=True)


def moved_html(event: VisibleEvent) -> str:
    """A ``token_moved`` from the event alone: the token's place in the list (the same
    block as the page's), the reactions it offered the viewer and, when it moved their
    sight, the cells that came into and went out of it (``visible_added`` /
    ``visible_removed``, applied by ``map.js``)."""
    p = event.payload
    offered = json.dumps(p.get("reactions") or [], sort_keys=True)
    cells = (
        json_text([p["visible_added"], p["visible_removed"]])
        if p.get("sight") and "visible_added" in p
        else ""
    )
    return _moved_html(p["token_id"], p["x"], p["y"], offered, cells, i18n.get_locale())


@functools.lru_cache(maxsize=1024)
def _moved_html(token_id: int, x: int, y: int, offered: str, cells: str, locale: str) -> str:
    """Rendered once per move, form and language, whoever watches (``locale`` is the key:
    the render uses the current one)."""
    at = {"token_id": token_id, "x": x, "y": y}
    out = render("maps/_at.html", at=at, oob=True) + render(
        "maps/_reactions.html", reactions=json.loads(offered), oob=True
    )
    if cells:
        added, removed = json.loads(cells)
        out += render("maps/_sight.html", change={"added": added, "removed": removed}, oob=True)
    return out


def sight_html(events: Sequence[VisibleEvent]) -> str:
    """The tokens that came into or went out of the viewer's sight (:func:`sighted`) with a
    batch, from its events alone, in one box (a move can bring twenty; one message, one
    change of the page): each token that came into sight as the board and the list draw it,
    the id of each that went out of it. A token's last event in the batch decides."""
    last: dict[int, object] = {}
    for event in events:
        p = event.payload
        token = p.get("token") if event.type == ADDED else None
        token_id = int(token["id"]) if isinstance(token, dict) else int(p["token_id"])
        last.pop(token_id, None)
        last[token_id] = token if token is not None else token_id
    return _sight_html(json.dumps(list(last.values()), sort_keys=True), i18n.get_locale())


@functools.lru_cache(maxsize=1024)
def _sight_html(data: str, locale: str) -> str:
    """Rendered once per change, form and language, whoever watches."""
    changes = json.loads(data)
    change = {
        "tokens": [c for c in changes if isinstance(c, dict)],
        "removed_tokens": [c for c in changes if not isinstance(c, dict)],
    }
    return render("maps/_sight.html", change=change, oob=True)


def pointer_html(event: VisibleEvent) -> str:
    return render("maps/_pointer.html", pointer=event.payload, oob=True)


def _scene_board_reacts(key: ScenePage, event: VisibleEvent) -> bool:
    """A map event that redraws this scene's board, or an event that may change what its
    tokens tell (:func:`_scene_board_concerned` checks against the scene as read)."""
    if scene_of(event) == key.scene_id:
        return redraws(event)
    return fight_marks(event) is not None or sheet_health(event) is not None


async def _scene_board_concerned(
    session: AsyncSession, key: ScenePage, events: Sequence[VisibleEvent]
) -> bool:
    """Whether a batch the board reacts to is about this scene: an event of its own, a step
    of the fight linked to it, a sheet of a character with a token on it. Read once for every
    viewer of the step (and again by nobody: the page's context takes the same read); a fight
    or a sheet elsewhere builds no viewer's board. :func:`retold` still decides per viewer."""
    if any(scene_of(e) == key.scene_id for e in events):
        return True
    read = await _scene_read(session, key.campaign_id, key.scene_id)
    return read is None or _tells_of(read, events)  # gone: the page's context says so


def _tells_of(read: views.SceneRead, events: Sequence[VisibleEvent]) -> bool:
    """Whether one of ``events`` may change what the tokens of the scene as ``read`` tell: a
    step of the fight linked to it, a sheet change of a character with a token on it."""
    _campaign, scene, board = read
    characters = board.character_ids()
    fight = scene.encounter_id
    return any(
        (fight is not None and fight_marks(e) == fight) or sheet_health(e) in characters
        for e in events
    )


async def _push_board(batch: Batch[ScenePage]) -> list[Outgoing]:
    drawn = [e.seq for e in batch.events if scene_of(e) == batch.key.scene_id]
    told = retold(batch.events, batch.context["map"])
    if drawn:
        return [Outgoing(max([*drawn, told.seq or 0]), "map", board_html(batch.context))]
    if told.seq is None:
        return []
    return [Outgoing(told.seq, "map", retold_html(told, batch.context))]


async def _push_moves(batch: Batch[Any]) -> list[Outgoing]:
    return [Outgoing(e.seq, "map", moved_html(e)) for e in batch.events]


async def _push_sighted(batch: Batch[Any]) -> list[Outgoing]:
    return [Outgoing(batch.events[-1].seq, "map", sight_html(batch.events))]


async def _push_pointer(batch: Batch[Any]) -> list[Outgoing]:
    return [Outgoing(e.seq, "map", pointer_html(e)) for e in batch.events]


# --- on the combat page ---------------------------------------------------------------------


async def _load_combat_map(
    session: AsyncSession, viewer: Viewer, key: CombatPage
) -> dict[str, object]:
    return {"map": await _combat_map(session, viewer, key)}


async def _combat_map(session: AsyncSession, viewer: Viewer, key: CombatPage) -> MapContext | None:
    """The board of the scene linked to the fight as ``viewer`` may see it; the scene and
    its board read once per push for all viewers."""
    scene_id = await _fight_scene(session, key)
    if scene_id is None:
        return None
    return await views.context_of(
        session, viewer, await _scene_read(session, key.campaign_id, scene_id)
    )


async def _fight_scene(session: AsyncSession, key: CombatPage) -> int | None:
    """The scene linked to the fight, read once per live step for every viewer."""
    return await shared_load(
        ("fight scene", key),
        lambda: views.scene_for_encounter(session, key.campaign_id, key.encounter_id),
    )


async def _combat_map_concerned(
    session: AsyncSession, key: CombatPage, events: Sequence[VisibleEvent]
) -> bool:
    """Whether a batch the fight's board reacts to is about its scene (:func:`_tells_of`,
    an event on that scene): a move or an edit on another scene, a sheet of a character
    elsewhere builds no viewer's combat page for the board."""
    if any(fight_marks(e) == key.encounter_id for e in events):
        return True
    scene_id = await _fight_scene(session, key)
    if scene_id is None:
        return False  # a fight without a board: its board region has nothing to show
    if any(scene_of(e) == scene_id for e in events):
        return True
    read = await _scene_read(session, key.campaign_id, scene_id)
    return read is not None and _tells_of(read, events)


def _combat_map_html(context: Mapping[str, Any]) -> str:
    if context.get("map") is None:
        return ""
    return render("maps/_region.html", **context["map"], on_combat_page=True)


def _combat_reacts(key: CombatPage, event: VisibleEvent) -> bool:
    if event.type in BOARD_EVENTS or event.type in (MOVED, POINTER):
        return True
    return fight_marks(event) == key.encounter_id or sheet_health(event) is not None


async def _push_combat_map(batch: Batch[CombatPage]) -> list[Outgoing]:
    """Out-of-band swaps for the events about the encounter's scene (others add nothing).
    The scene is read only for a fight on one (the page's ``on_board``): a fight in the
    theatre of the mind costs its steps nothing here."""
    if not batch.context.get("on_board") or batch.session is None:
        return []
    shown = await _combat_map(batch.session, batch.viewer, batch.key)
    scene_id = shown["scene"]["id"] if shown else None
    mine: Sequence[VisibleEvent] = [e for e in batch.events if scene_of(e) == scene_id]
    out = [Outgoing(e.seq, "map", pointer_html(e)) for e in mine if e.type == POINTER]
    out += [Outgoing(e.seq, "map", moved_html(e)) for e in mine if e.type == MOVED]
    came_or_went = [e for e in mine if sighted(e)]
    if came_or_went:
        out.append(Outgoing(came_or_went[-1].seq, "map", sight_html(came_or_went)))
    boards = [e for e in mine if redraws(e)]
    told = retold(batch.events, shown) if shown is not None else Retold()
    if boards and shown is not None:
        last = max(boards[-1].seq, told.seq or 0)
        out.append(Outgoing(last, "map", board_html({"map": shown})))
    elif told.seq is not None:
        out.append(Outgoing(told.seq, "map", retold_html(told, {"map": shown})))
    return sorted(out, key=lambda m: m.seq)


def register_regions() -> None:
    """Put this module's regions on their pages (``app.wiring`` calls it once)."""
    SCENE_PAGE.register(
        Region(
            "board",
            _scene_board_reacts,
            _push_board,
            parts=MAP,
            confirm=_scene_board_concerned,
        )
    )
    SCENE_PAGE.register(
        Region("moves", lambda key, e: e.type == MOVED and scene_of(e) == key.scene_id, _push_moves)
    )
    SCENE_PAGE.register(
        Region("sighted", lambda key, e: sighted(e) and scene_of(e) == key.scene_id,
               _push_sighted)
    )  # fmt: skip
    SCENE_PAGE.register(
        Region("pointer", lambda key, e: e.type == POINTER and scene_of(e) == key.scene_id,
               _push_pointer)
    )  # fmt: skip
    COMBAT_PAGE.register(
        Region(
            "map",
            _combat_reacts,
            _push_combat_map,
            parts=STATE,
            confirm=_combat_map_concerned,
            load=_load_combat_map,
            slot="board",
            html=_combat_map_html,
        )
    )
