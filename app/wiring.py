"""Who listens, in one place: every registration the packages' modules do not do themselves.

Importing a module registers nothing; :func:`wire`, which ``app.main`` calls, does it all:

- the event types: each package's ``events.py`` lists its payload classes in ``EVENTS``
  (:data:`EVENT_MODULES` names every such module; ``tests/test_wiring.py`` checks it against
  the ``app/*/events.py`` files on disk and ``docs/events.md``);
- the live pages' regions: each package's ``live.py`` puts its regions on their pages in its
  ``register_regions`` (:data:`LIVE_MODULES`, in the order a page shows its slots: the
  campaign page's dice log, members, sessions, chat; the combat page's own regions, the
  map, the chat);
- the fight's hooks that a package above ``app.encounters`` fills: the battle map moves the
  tokens a combat operation's rules moved and puts them back on its undo
  (``app.maps.displace``), and gives the fight the board of its linked scene
  (``app.maps.tactics``).
"""

from __future__ import annotations

from types import ModuleType

from app.campaigns import events as campaign_events
from app.campaigns import live as campaign_live
from app.characters import events as character_events
from app.characters import live as character_live
from app.encounters import board as fight_board
from app.encounters import events as encounter_events
from app.encounters import live as encounter_live
from app.encounters import service as encounters
from app.events import events as log_events
from app.events import payload
from app.knowledge import events as knowledge_events
from app.maps import displace, tactics
from app.maps import events as map_events
from app.maps import live as map_live
from app.rolls import live as roll_live
from app.sessions import events as session_events
from app.sessions import live as session_live
from app.talk import events as talk_events
from app.talk import live as talk_live

#: Every package's ``events.py``: their ``EVENTS`` are the log's event types.
EVENT_MODULES: tuple[ModuleType, ...] = (
    log_events,
    campaign_events,
    character_events,
    encounter_events,
    knowledge_events,
    map_events,
    session_events,
    talk_events,
)

#: Every package's ``live.py``, in the order their regions go onto a page they share.
LIVE_MODULES: tuple[ModuleType, ...] = (
    roll_live,
    campaign_live,
    character_live,
    session_live,
    encounter_live,
    map_live,
    talk_live,
)

_wired = False


def wire() -> None:
    """Register the event types, the live regions and the fight's hooks; once (a second call
    changes nothing)."""
    global _wired
    if _wired:
        return
    for module in EVENT_MODULES:
        payload.register(module.EVENTS)
    for module in LIVE_MODULES:
        module.register_regions()
    encounters.AFTER_OPERATION.append(displace.move_displaced)
    encounters.AFTER_UNDO.append(displace.move_back)
    fight_board.SOURCES.append(tactics.fight_board)
    _wired = True
