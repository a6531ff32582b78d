"""Zustände (hh.md §8) as data: modifiers by Probe category, shaking off, escalation.

Probe categories are ``physical``, ``mental`` and ``magical`` (``none`` is never modified);
kinds are ``action``, ``attack``, ``defence``, ``reaction`` and ``other``. An attack is an
action and a defence is a reaction, so effects on actions also hit attacks and effects on
reactions also hit defences. Probes that are neither (``other``: end-of-round Probes, rest
Probes) are not modified by conditions (project decision).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from app.rules.hh.options import ConditionEscalation
from app.rules.hh.state import Zustand
from app.rules.keyed import by_key

Category = Literal["physical", "mental", "magical", "none"]
Kind = Literal["action", "attack", "defence", "reaction", "other"]

_KIND_COVERS: dict[str, frozenset[str]] = {
    "action": frozenset({"action"}),
    "attack": frozenset({"action", "attack"}),
    "reaction": frozenset({"reaction"}),
    "defence": frozenset({"reaction", "defence"}),
    "other": frozenset(),
}


@dataclass(frozen=True, slots=True)
class Modifier:
    """``value`` applies to Probes of any of ``categories`` whose kind matches ``kinds``."""

    value: int
    categories: frozenset[str]
    kinds: frozenset[str]


EscalationKind = Literal["condition", "damage", "lose_next_action", "choice"]


@dataclass(frozen=True, slots=True)
class Escalation:
    """What happens when the condition is suffered again while active.

    ``kind``: ``condition`` (apply ``condition`` instead), ``damage`` (``dice`` W10 to
    ``resource``; ``damage_kind`` ``"direkt"`` or ``"cause"`` = the cause's damage kind),
    ``lose_next_action``, or ``choice`` = «niedergeworfen», or 1W10 LP if that is active too.
    """

    kind: EscalationKind
    condition: str = ""
    dice: int = 0
    resource: Literal["LP", "WP"] = "LP"
    damage_kind: Literal["direkt", "cause"] = "direkt"
    text: str = ""


@dataclass(frozen=True, slots=True)
class ConditionDef:
    key: str
    name: str
    text: str
    modifiers: tuple[Modifier, ...]
    shake_off: str
    #: Skill of the shake-off Probe per variant ("" = no Probe, "passend" = GM picks).
    shake_off_skill: tuple[str, str]
    shake_off_by_other: bool
    escalation: tuple[Escalation, Escalation]
    blocks_actions: bool = False
    blocks_reactions: bool = False
    halves_movement: bool = False
    blocks_luck_spending: bool = False

    def escalation_for(self, variant: ConditionEscalation) -> Escalation:
        return self.escalation[0 if variant == "full" else 1]

    def shake_off_skill_for(self, variant: ConditionEscalation) -> str:
        return self.shake_off_skill[0 if variant == "full" else 1]


_ALL_CATS = frozenset({"physical", "mental", "magical"})
_PHYS = frozenset({"physical"})
_MENT_MAG = frozenset({"mental", "magical"})
_ALL_KINDS = frozenset({"action", "reaction"})


def _to(cond: str) -> Escalation:
    return Escalation("condition", condition=cond, text=f"stattdessen «{cond}»")


CONDITIONS: dict[str, ConditionDef] = by_key(
    ConditionDef(
        "angeschlagen",
        "Angeschlagen",
        "−2 auf alle körperlichen Aktionen und Reaktionen.",
        (Modifier(-2, _PHYS, _ALL_KINDS),),
        "Aktion + Unbeugsamkeit-Probe",
        ("Unbeugsamkeit", "Unbeugsamkeit"),
        False,
        (
            _to("benommen"),
            Escalation("damage", dice=1, damage_kind="cause", text="1W10 Schaden nach Ursache"),
        ),
    ),
    ConditionDef(
        "benommen",
        "Benommen",
        "Keine Aktionen und keine Reaktionen; erhält zu Rundenbeginn keine Reaktionen.",
        (),
        "Aktion → Glück-Probe (003) / passende Probe gegen die Ursache (000)",
        ("Glück", "passend"),
        False,
        (
            _to("verwirrt"),
            Escalation("damage", dice=1, text="1W10 direkter Schaden nach Ursache"),
        ),
        blocks_actions=True,
        blocks_reactions=True,
    ),
    ConditionDef(
        "eingeschränkt",
        "Eingeschränkt",
        "Bewegung halbiert, −2 auf alle Reaktionen.",
        (Modifier(-2, _ALL_CATS, frozenset({"reaction"})),),
        "Aktion + passende Probe",
        ("passend", "passend"),
        False,
        (
            _to("benommen"),
            Escalation("choice", text="«niedergeworfen» oder 1W10 LP-Schaden"),
        ),
        halves_movement=True,
    ),
    ConditionDef(
        "entmutigt",
        "Entmutigt",
        "−2 auf alle Angriffe; keine Glückspunkte einsetzen (verbrennen bleibt möglich).",
        (Modifier(-2, _ALL_CATS, frozenset({"attack"})),),
        "Aktion + Willenskraft-Probe",
        ("Willenskraft", "Willenskraft"),
        False,
        (
            _to("benommen"),
            Escalation("damage", dice=1, resource="WP", text="1W10 WP-Schaden"),
        ),
        blocks_luck_spending=True,
    ),
    ConditionDef(
        "niedergeworfen",
        "Niedergeworfen",
        "−2 auf alle Verteidigungen.",
        (Modifier(-2, _ALL_CATS, frozenset({"defence"})),),
        "Aktion (Aufstehen)",
        ("", ""),
        False,
        (_to("eingeschränkt"), _to("eingeschränkt")),
    ),
    ConditionDef(
        "sterbend",
        "Sterbend",
        "Am Rundenende Unbeugsamkeit-Probe gegen den Tod (siehe Sterben).",
        (),
        "Aktion + Heilkunde-Probe einer anderen Figur",
        ("Heilkunde", "Heilkunde"),
        True,
        (
            Escalation("damage", dice=1, text="1W10 direkter LP-Schaden"),
            Escalation("damage", dice=1, text="1W10 direkter LP-Schaden"),
        ),
        blocks_actions=True,
        blocks_reactions=True,
    ),
    ConditionDef(
        "verwirrt",
        "Verwirrt",
        "−2 auf alle geistigen und magischen Aktionen und Reaktionen.",
        (Modifier(-2, _MENT_MAG, _ALL_KINDS),),
        "Aktion + Spürsinn-Probe",
        ("Spürsinn", "Spürsinn"),
        False,
        (
            _to("benommen"),
            Escalation("lose_next_action", text="nächste Aktion verloren"),
        ),
    ),
    ConditionDef(
        "zehrend",
        "Zehrend",
        "Am Rundenende 1W10 LP- oder WP-Schaden (Rüstung, Resistenzen wirken), danach "
        "passende Probe zum Beenden.",
        (),
        "Probe am Rundenende",
        ("passend", "passend"),
        False,
        (
            Escalation("damage", dice=1, damage_kind="cause", text="sofort 1W10 Schaden"),
            Escalation("damage", dice=1, damage_kind="cause", text="sofort 1W10 Schaden"),
        ),
    ),
)


def condition_def(key: str) -> ConditionDef:
    try:
        return CONDITIONS[key]
    except KeyError:
        raise ValueError(f"unknown condition {key!r}") from None


def _keys(conditions: Iterable[Zustand | str]) -> set[str]:
    return {c if isinstance(c, str) else c.key for c in conditions}


def modifier_for(conditions: Iterable[Zustand | str], category: str, kind: str) -> int:
    """Sum of the condition modifiers on a Probe of ``category`` and ``kind``.

    Each condition counts once (a condition cannot be active twice; «zehrend» has no
    modifier). Example: «angeschlagen» + «niedergeworfen» on a physical defence → −4.
    """
    covered = _KIND_COVERS.get(kind)
    if covered is None:
        raise ValueError(f"unknown Probe kind {kind!r}")
    if not conditions:
        return 0
    total = 0
    for key in _keys(conditions):
        for mod in condition_def(key).modifiers:
            if category in mod.categories and mod.kinds & covered:
                total += mod.value
    return total


def movement_factor_halved(conditions: Iterable[Zustand | str]) -> bool:
    return any(condition_def(k).halves_movement for k in _keys(conditions))


def zehrend(cause: str) -> Zustand:
    """«zehrend» from what a user types as its cause: ``"LP, Blutung"``, ``"WP, Gift"``,
    ``"Blutung"`` (LP by default) or ``"WP"``. A leading ``LP``/``WP`` (or ``MP``, which is
    WP, hh.md §8) names the resource and is not part of the cause."""
    head, sep, rest = cause.partition(",")
    word = head.strip().upper()
    if word in ("LP", "WP", "MP"):
        resource: Literal["LP", "WP"] = "LP" if word == "LP" else "WP"
        return Zustand("zehrend", resource, rest.strip() if sep else "")
    return Zustand("zehrend", "LP", cause.strip())


def zustand_from_label(label: str) -> Zustand:
    """A condition from its label (``"angeschlagen"``, ``"zehrend (LP, Blutung)"``);
    :class:`ValueError` for a name that is not a condition of §8."""
    text = label.strip()
    key, _, inner = text.partition("(")
    key = key.strip().lower()
    condition_def(key)
    if key == "zehrend":
        return zehrend(inner.rstrip(")").strip())
    if inner:
        raise ValueError(f"«{key}» takes no cause")
    return Zustand(key)
