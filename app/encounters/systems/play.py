"""What the combat's capabilities take as one value (``app.encounters.systems.protocol``): a
step of play (:class:`Play`), an attack as posted (:class:`AttackOrder`) and how a simulation
plays (:class:`Trials`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.encounters.combat import Report
from app.rules.dice import Roller

if TYPE_CHECKING:
    from app.encounters.systems.protocol import Settings


@dataclass(frozen=True, slots=True)
class Play:
    """What a step of play hands the rules that resolve it: the dice (``roller``), the
    ``report`` they write (log lines, changed figures) and the encounter's ``settings``."""

    roller: Roller
    report: Report
    settings: Settings


@dataclass(frozen=True, slots=True)
class AttackOrder:
    """An attack as posted: ``attacker_id`` on ``target_id`` with the attack form's
    ``params`` (weapon or Strike, modifier, cover, ...). :meth:`CombatCore.attack` resolves
    it; :meth:`Foresight.forecast` gives its odds with the same inputs."""

    attacker_id: str
    target_id: str
    params: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Trials:
    """How :meth:`Foresight.simulate` plays a fight: with ``roller``, ``count`` times, ended
    early when ``should_stop`` says so (a time budget)."""

    roller: Roller
    count: int
    should_stop: Callable[[], bool]
