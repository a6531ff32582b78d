"""Combat state of a figure and the change records every higher-level function returns.

A :class:`Figure` is an immutable snapshot; rules functions return a new snapshot together
with :class:`Change` records (what happened, in order) and the :class:`DieRoll` values used,
so the service layer can persist, show and replay them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Literal

Side = Literal["abenteurer", "gegner", "neutral"]
Resource = Literal["LP", "WP"]
Resistance = Literal["none", "resistant", "vulnerable", "immune"]

#: Size categories, smallest first (index = size rank).
SIZES: tuple[str, ...] = ("winzig", "klein", "mittel", "gross", "riesig", "gigantisch")

#: Probe category of each named Fertigkeit (project decision, see docs/rules/hh.md).
SKILL_CATEGORY: Mapping[str, str] = MappingProxyType(
    {
        "Kampfkunst": "physical",
        "Unbeugsamkeit": "physical",
        "Geschick": "physical",
        "Heilkunde": "physical",
        "Handwerk": "physical",
        "Reisekunde": "physical",
        "Spürsinn": "mental",
        "Willenskraft": "mental",
        "Interaktion": "mental",
        "Gassenwissen": "mental",
        "Magiekunde": "magical",
        "Glück": "none",
    }
)


def parent_skill(skill: str) -> str:
    """``"Kampfkunst (waffenlos)"`` → ``"Kampfkunst"``; a plain name is returned unchanged."""
    return skill.split("(", 1)[0].strip()


def skill_category(skill: str) -> str:
    """Category of a skill or specialisation; unknown skills count as physical."""
    return SKILL_CATEGORY.get(parent_skill(skill), "physical")


def size_rank(size: str) -> int:
    try:
        return SIZES.index(size)
    except ValueError:
        raise ValueError(f"unknown size {size!r}; expected one of {SIZES}") from None


@dataclass(frozen=True, slots=True)
class Zustand:
    """An active condition. ``resource``/``cause``/``probe_skill`` matter for «zehrend».

    For «zehrend», ``probe_skill`` is the Probe that ends it at the end of the round
    (default: Unbeugsamkeit for LP, Willenskraft for WP — project decision).
    """

    key: str
    resource: Resource | None = None
    cause: str = ""
    probe_skill: str = ""

    @property
    def label(self) -> str:
        if self.key == "zehrend":
            if self.cause:
                return f"zehrend ({self.resource}, {self.cause})"
            # «zehrend» alone is LP (``zustand_from_label``): WP must say so to round-trip.
            return "zehrend (WP)" if self.resource == "WP" else "zehrend"
        return self.key

    def same_kind(self, other: Zustand) -> bool:
        """Same condition; for «zehrend» also the same resource and cause."""
        if self.key != other.key:
            return False
        return self.key != "zehrend" or (self.resource, self.cause) == (
            other.resource,
            other.cause,
        )


def _empty() -> Mapping[str, int]:
    return MappingProxyType({})


def _empty_res() -> Mapping[str, Resistance]:
    return MappingProxyType({})


@dataclass(frozen=True)
class Figure:
    """What the rules need to know about a figure in play (hero, NSC or monster).

    ``skills`` maps Fertigkeit or Spezialisierung names to values; a specialisation falls
    back to its parent, an unlisted skill to ``monsterstufe`` (NSCs) or 0.
    """

    id: str
    name: str = ""
    side: Side = "abenteurer"
    skills: Mapping[str, int] = field(default_factory=_empty)
    monsterstufe: int | None = None
    lp: int = 20
    lp_max: int = 20
    wp: int = 10
    wp_max: int = 10
    gp: int = 0
    gp_max: int = 0
    rs: int = 0
    be: int = 0
    bewegung: int = 8
    size: str = "mittel"
    initiative_value: int | None = None
    resistances: Mapping[str, Resistance] = field(default_factory=_empty_res)
    conditions: tuple[Zustand, ...] = ()
    reactions_left: int = 0
    unconscious: bool = False
    dead: bool = False
    on_feet: bool = False
    drops_at_zero: bool = False
    lose_next_action: bool = False
    jammed_weapon: bool = False
    extra_actions: int = 0
    aim: int = 0
    #: (attacker id, bonus) pairs: defence bonus against that attacker until next round.
    defence_bonuses: tuple[tuple[str, int], ...] = ()

    def skill(self, name: str) -> int:
        if name in self.skills:
            return self.skills[name]
        parent = parent_skill(name)
        if parent in self.skills:
            return self.skills[parent]
        return self.monsterstufe if self.monsterstufe is not None else 0

    @property
    def initiative(self) -> int:
        """Initiative = Spürsinn − BE, minimum 1 (hh.md §5); NSCs may have a fixed value."""
        if self.initiative_value is not None:
            return max(1, self.initiative_value)
        return max(1, self.skill("Spürsinn") - self.be)

    @property
    def glueck(self) -> int:
        return self.skill("Glück")

    def has(self, key: str) -> bool:
        return any(z.key == key for z in self.conditions)

    @property
    def condition_keys(self) -> frozenset[str]:
        return frozenset(z.key for z in self.conditions)

    @property
    def can_act(self) -> bool:
        return not (self.dead or self.unconscious or self.has("benommen")) and (
            not self.has("sterbend") or self.on_feet
        )

    @property
    def can_react(self) -> bool:
        return self.can_act and self.reactions_left > 0

    def defence_bonus_against(self, attacker_id: str) -> int:
        return sum(b for a, b in self.defence_bonuses if a == attacker_id)

    def evolve(self, **changes: Any) -> Figure:
        """A copy with ``changes`` applied (fast path: no re-validation, no __init__)."""
        unknown = changes.keys() - _FIGURE_FIELDS
        if unknown:
            raise TypeError(f"Figure has no field(s) {sorted(unknown)}")
        new = object.__new__(Figure)
        state = new.__dict__
        state.update(self.__dict__)
        state.update(changes)
        return new


_FIGURE_FIELDS = frozenset(f.name for f in fields(Figure))


ChangeKind = Literal[
    "lp",
    "wp",
    "gp",
    "glueck",
    "condition_added",
    "condition_removed",
    "reactions",
    "extra_action",
    "unconscious",
    "conscious",
    "stabilised",
    "dead",
    "revived",
    "out",
    "on_feet",
    "lose_next_action",
    "jammed_weapon",
    "weapon_freed",
    "free_move",
    "slide",
    "defence_bonus",
    "counter_attack",
    "attack_negated",
    "aim",
    "moved",
    "disarmed",
    "grappled",
    "complication",
]


@dataclass(frozen=True, slots=True)
class Change:
    """One state change: ``figure`` id, ``kind``, signed ``amount`` and details."""

    figure: str
    kind: ChangeKind
    amount: int = 0
    condition: str = ""
    detail: str = ""

    def as_dict(self) -> dict[str, object]:
        return {
            "figure": self.figure,
            "kind": self.kind,
            "amount": self.amount,
            "condition": self.condition,
            "detail": self.detail,
        }
