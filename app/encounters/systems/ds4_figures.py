"""DS4 combat figures typed (issue 26): the runtime values a DS4 figure keeps in the fight's
state (``CombatState.figures``, JSON objects of each system's own keys).

:func:`ds4_data` is the one place the adapter (:mod:`app.encounters.systems.ds4`) reads a
state's figure as :class:`DS4FigureData`; the figure was written by the adapter's
``new_figure`` (and its LK by the sheet), so no other shape reaches it.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict, cast

from app.encounters.combat import State, figure
from app.encounters.state import FigureData


class DS4FigureData(TypedDict):
    """A DS4 figure in the fight: its Kampfwerte, LK, weapons (``weapon_dropped``: the kind
    of attack whose weapon was dropped on a Patzer, or false), ``prone``; the stat block's
    Attribute and Eigenschaften it holds are kept for the GM's checks."""

    id: str
    name: str
    side: str
    #: The player's user id (``None`` for an NSC); set by the service.
    owner: NotRequired[int | None]
    lk: int
    lk_max: int
    koerper: int
    abwehr: int
    initiative: int
    schlagen: int
    schiessen: int
    zielzauber: int
    waffe: str
    ga: int
    fernwaffe: str
    fern_ga: int
    prone: bool
    weapon_dropped: bool | str
    conditions: list[str]
    zaubern: NotRequired[int]
    agilitaet: NotRequired[int]
    geist: NotRequired[int]
    staerke: NotRequired[int]
    haerte: NotRequired[int]
    bewegung: NotRequired[int]
    geschick: NotRequired[int]
    verstand: NotRequired[int]
    aura: NotRequired[int]


class DS4SheetState(TypedDict):
    """What a DS4 fight writes back to the sheet (:meth:`SheetSync.sheet_state`): the LK."""

    lk: int


def ds4_data(data: FigureData) -> DS4FigureData:
    """A DS4 figure's values from the state (the same object, typed)."""
    return cast(DS4FigureData, data)


def ds4_figure(state: State, pid: str) -> DS4FigureData:
    """The figure ``pid`` of a DS4 fight (``combat.figure``'s refusal if it is not in it)."""
    return ds4_data(figure(state, pid))


def check_value(data: DS4FigureData, key: str) -> int | None:
    """The value ``key`` (an Attribut, Eigenschaft or Kampfwert) the figure holds, if any."""
    value = data.get(key)
    return int(value) if isinstance(value, int) else None
