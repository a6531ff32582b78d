"""Who listens, in one place: every registration the packages' modules do not do themselves.

Importing a module registers nothing; :func:`wire`, which ``app.main`` calls, does it all:

- the event types: each package's ``events.py`` lists its payload classes in ``EVENTS``
  (:data:`EVENT_MODULES` names every such module; ``tests/test_wiring.py`` checks it against
  the ``app/*/events.py`` files on disk and ``docs/events.md``);
- the live pages' regions: each package's ``live.py`` puts its regions on their pages in its
  ``register_regions`` (:data:`LIVE_MODULES`, in the order a page shows its slots: the
  campaign page's dice log, members, sessions, chat; the combat page's own regions, the
  map, the chat);
- the rule systems: what each package needs of one system (:data:`SYSTEMS`, the one place
  beside ``app.core.systems`` naming every system) goes into the package's registry;
- the campaign document's parts: each package's ``transfer.py`` exports and imports its
  own tables as one ``PART`` (:data:`TRANSFER_PARTS`, in the document's order;
  :data:`TRANSFER_IMPORT_ORDER`, the order an import writes them);
- the fight's hooks that a package above ``app.encounters`` fills: the battle map moves the
  tokens a combat operation's rules moved and puts them back on its undo
  (``app.maps.displace``), and gives the fight the board of its linked scene
  (``app.maps.tactics``).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from app.campaigns import events as campaign_events
from app.campaigns import live as campaign_live
from app.campaigns import settings
from app.characters import events as character_events
from app.characters import live as character_live
from app.characters import transfer as character_transfer
from app.characters.systems import ds4 as ds4_sheet
from app.characters.systems import hh as hh_sheet
from app.characters.systems import pf2e as pf2e_sheet
from app.characters.systems import registry as sheets
from app.characters.systems.protocol import CharacterCore
from app.core.systems import RuleSystem
from app.core.transfer import TransferPart
from app.encounters import board as fight_board
from app.encounters import events as encounter_events
from app.encounters import live as encounter_live
from app.encounters import service as encounters
from app.encounters import statblocks
from app.encounters import systems as combat
from app.encounters import transfer as encounter_transfer
from app.encounters.statblocks import ds4 as ds4_statblock
from app.encounters.statblocks import hh as hh_statblock
from app.encounters.statblocks import pf2e as pf2e_statblock
from app.encounters.systems import ds4 as ds4_combat
from app.encounters.systems import hh as hh_combat
from app.encounters.systems import pf2e as pf2e_combat
from app.encounters.systems.protocol import CombatCore
from app.events import events as log_events
from app.events import payload
from app.events import transfer as log_transfer
from app.knowledge import events as knowledge_events
from app.knowledge import systems as knowledge
from app.knowledge.systems import ds4 as ds4_knowledge
from app.knowledge.systems import hh as hh_knowledge
from app.knowledge.systems import pf2e as pf2e_knowledge
from app.knowledge.systems.protocol import KnowledgeRules
from app.maps import displace, tactics
from app.maps import events as map_events
from app.maps import live as map_live
from app.maps import transfer as map_transfer
from app.rolls import live as roll_live
from app.sessions import events as session_events
from app.sessions import live as session_live
from app.sessions import transfer as session_transfer
from app.talk import events as talk_events
from app.talk import live as talk_live
from app.talk import transfer as talk_transfer
from app.transfer import service as campaign_transfer

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

#: Every package's part of the campaign document (``app/<package>/transfer.py``), in the
#: document's order (docs/transfer.md) …
TRANSFER_PARTS: tuple[TransferPart, ...] = (
    character_transfer.PART,
    encounter_transfer.PART,
    log_transfer.PART,
    talk_transfer.PART,
    map_transfer.PART,
    session_transfer.PART,
)
#: … and in the order an import writes them: a part after those whose rows its JSON names
#: (the log names the talk's and the maps' rows; the sessions end at the log's last seq).
TRANSFER_IMPORT_ORDER: tuple[TransferPart, ...] = (
    character_transfer.PART,
    encounter_transfer.PART,
    talk_transfer.PART,
    map_transfer.PART,
    log_transfer.PART,
    session_transfer.PART,
)


@dataclass(frozen=True, slots=True)
class SystemParts:
    """What the packages need of one rule system, each part in its package's registry."""

    options: tuple[settings.RuleOption, ...]
    sheet: CharacterCore
    combat: CombatCore
    statblock: statblocks.StatBlockRules
    knowledge: KnowledgeRules


#: Every rule system's parts: with ``app.core.systems``, the only place naming every system
#: (``tests/test_system_seams.py``); a new system adds its line here.
SYSTEMS: dict[RuleSystem, SystemParts] = {
    RuleSystem.hh: SystemParts(
        settings.HH_OPTIONS, hh_sheet.SYSTEM, hh_combat.RULES, hh_statblock.RULES,
        hh_knowledge.RULES,
    ),
    RuleSystem.ds4: SystemParts(
        settings.DS4_OPTIONS, ds4_sheet.SYSTEM, ds4_combat.RULES, ds4_statblock.RULES,
        ds4_knowledge.RULES,
    ),
    RuleSystem.pf2e: SystemParts(
        settings.PF2E_OPTIONS, pf2e_sheet.SYSTEM, pf2e_combat.RULES, pf2e_statblock.RULES,
        pf2e_knowledge.RULES,
    ),
}  # fmt: skip


def _register_systems() -> None:
    for key, parts in SYSTEMS.items():
        settings.OPTIONS[key] = parts.options
        sheets.SYSTEMS[key] = parts.sheet
        combat.SYSTEMS[key] = parts.combat
        statblocks.STATBLOCKS[key] = parts.statblock
        knowledge.SYSTEMS[key] = parts.knowledge


_wired = False


def wire() -> None:
    """Register the rule systems, the event types, the live regions, the campaign
    document's parts and the fight's hooks; once (a second call changes nothing)."""
    global _wired
    if _wired:
        return
    _register_systems()
    for module in EVENT_MODULES:
        payload.register(module.EVENTS)
    for module in LIVE_MODULES:
        module.register_regions()
    campaign_transfer.register(TRANSFER_PARTS, TRANSFER_IMPORT_ORDER)
    encounters.AFTER_OPERATION.append(displace.move_displaced)
    encounters.AFTER_UNDO.append(displace.move_back)
    fight_board.SOURCES.append(tactics.fight_board)
    fight_board.LINKS.append(tactics.scene_linked)
    _wired = True
