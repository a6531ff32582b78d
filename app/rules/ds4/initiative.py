"""DS4 initiative order with a Stechen kept for the whole combat (seed "Initiative").

Everyone acts from the highest Initiative to the lowest. The surprising side gets +10 in
round 1 only. Ties are broken by a W20 Stechen, rolled once per combatant per combat and
stored on the encounter: the caller passes the stored Stechen rolls in and stores the
returned ones. If Stechen rolls are equal too, the still-tied combatants roll again and the
new face is appended (the stored value is a tuple, compared element by element).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from app.rules.dice import DieRoll, Roller, roll_dice

SURPRISE_BONUS = 10
STECHEN_DIE = 20


@dataclass(frozen=True, slots=True)
class InitiativeCombatant:
    id: str
    initiative: int
    side: str


@dataclass(frozen=True, slots=True)
class InitiativeEntry:
    id: str
    side: str
    initiative: int  # effective value used for the order
    base: int
    surprise_bonus: int
    stechen: tuple[int, ...]  # the Stechen faces that placed it (empty: no tie)


@dataclass(frozen=True, slots=True)
class StechenRoll:
    combatant_id: str
    roll: DieRoll


@dataclass(frozen=True, slots=True)
class InitiativeOrder:
    """The acting order, all Stechen rolls to store, and the rolls made by this call."""

    order: tuple[InitiativeEntry, ...]
    tiebreaks: dict[str, tuple[int, ...]]
    rolls: tuple[StechenRoll, ...]

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(e.id for e in self.order)


def _undecided(keys: list[tuple[int, ...]], i: int, j: int) -> bool:
    """Two Stechen sequences do not yet order the pair: one is a prefix of the other."""
    a, b = keys[i], keys[j]
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def roll_initiative(
    roller: Roller,
    combatants: Iterable[InitiativeCombatant],
    stored_tiebreaks: Mapping[str, tuple[int, ...]],
    surprising_side: str | None = None,
    round: int = 1,
) -> InitiativeOrder:
    """Order ``combatants`` for ``round``, rolling a Stechen only where one is missing."""
    people = list(combatants)
    if len({p.id for p in people}) != len(people):
        raise ValueError("combatant ids must be unique")
    tiebreaks = {k: tuple(v) for k, v in stored_tiebreaks.items()}
    rolls: list[StechenRoll] = []

    def bonus(p: InitiativeCombatant) -> int:
        return SURPRISE_BONUS if round == 1 and p.side == surprising_side else 0

    effective = {p.id: p.initiative + bonus(p) for p in people}
    groups: dict[int, list[InitiativeCombatant]] = {}
    for p in people:
        groups.setdefault(effective[p.id], []).append(p)

    tied: set[str] = set()
    for group in groups.values():
        if len(group) < 2:
            continue
        ids = [p.id for p in group]
        tied.update(ids)
        while True:
            keys = [tiebreaks.get(i, ()) for i in ids]
            need = sorted(
                {
                    k
                    for a in range(len(ids))
                    for b in range(a + 1, len(ids))
                    if _undecided(keys, a, b)
                    for k in (a, b)
                    if len(keys[k]) == min(len(keys[a]), len(keys[b]))
                }
            )
            if not need:
                break
            for k in need:
                die = roll_dice(roller, 1, STECHEN_DIE)
                rolls.append(StechenRoll(ids[k], die))
                tiebreaks[ids[k]] = keys[k] + die.faces

    entries = [
        InitiativeEntry(
            p.id,
            p.side,
            effective[p.id],
            p.initiative,
            bonus(p),
            tiebreaks.get(p.id, ()) if p.id in tied else (),
        )
        for p in people
    ]
    entries.sort(key=lambda e: (e.initiative, e.stechen), reverse=True)
    return InitiativeOrder(tuple(entries), tiebreaks, tuple(rolls))
