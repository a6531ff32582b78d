"""PF2e combat figures typed (issue 26): the runtime values a PF2e figure keeps in the
fight's state (``CombatState.figures``, JSON objects of each system's own keys).

:func:`pf2e_data` is the one place the adapter (:mod:`app.encounters.systems.pf2e`) reads a
state's figure as :class:`PF2eFigureData`; the figure was written by the adapter's
``new_figure`` (its TP and lasting conditions also by the sheet), so no other shape reaches
it.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict, cast

from app.encounters.combat import State, figure
from app.encounters.state import FigureData


class PersistentDamage(TypedDict):
    """Anhaltender Schaden: a dice expression (``schaden``) and its damage type (``art``)."""

    schaden: str
    art: str


class PF2eStrikeData(TypedDict):
    """A Strike of the figure (``angriffe``), as the stat block (``app.encounters.statblocks.pf2e``)
    or the sheet holds it: its attack ``bonus``, damage (``schaden``, a dice expression),
    ``agil``, ``fernkampf`` with its range increment (``entfernung`` in m), ``merkmale``; a
    sheet's Strike adds the Stärke on its damage (``staerke``, ``lieferung``); a melee Strike
    may have a ``reichweite`` (m)."""

    name: str
    bonus: int
    schaden: str
    agil: bool
    fernkampf: bool
    entfernung: float
    merkmale: str
    staerke: NotRequired[int]
    lieferung: NotRequired[str]
    reichweite: NotRequired[float]


class PF2eSheetState(TypedDict):
    """What a PF2e fight writes back to the sheet (:meth:`SheetSync.sheet_state`): TP,
    Verwundet (``wounded``), Todgeweiht (``doomed``), death."""

    hp: int
    wounded: int
    doomed: int
    dead: bool


class PF2eFigureData(TypedDict):
    """A PF2e figure in the fight: TP, AC, Perception and saves, its Strikes (``angriffe``,
    the stat block's), conditions with their values (``sterbend 2``), Anhaltender Schaden,
    the reaction of the round and the initiative rolled (``init_result``)."""

    id: str
    name: str
    side: str
    #: The player's user id (``None`` for an NSC); set by the service.
    owner: NotRequired[int | None]
    npc: bool
    stufe: int
    hp: int
    hp_max: int
    rk: int
    wahrnehmung: int
    reflex: int
    wille: int
    zaehigkeit: int
    angriffe: list[PF2eStrikeData]
    conditions: dict[str, int]
    persistent: list[PersistentDamage]
    zauberangriff: NotRequired[int]
    dead: NotRequired[bool]
    init_result: NotRequired[int]
    reaction: NotRequired[bool]
    #: The DC a condition given with one ends on (``kränkelnd``: its save's DC).
    condition_dc: NotRequired[dict[str, int]]


def pf2e_data(data: FigureData) -> PF2eFigureData:
    """A PF2e figure's values from the state (the same object, typed)."""
    return cast(PF2eFigureData, data)


def pf2e_figure(state: State, pid: str) -> PF2eFigureData:
    """The figure ``pid`` of a PF2e fight (``combat.figure``'s refusal if it is not in it)."""
    return pf2e_data(figure(state, pid))


def stat_value(data: PF2eFigureData, key: str) -> int:
    """The modifier ``key`` of the figure: ``wahrnehmung`` or a save (``reflex``, ``wille``,
    ``zaehigkeit``); a key it has no number for is a ``KeyError``, as the JSON's was."""
    value = data.get(key)
    if not isinstance(value, int):
        raise KeyError(key)
    return value
