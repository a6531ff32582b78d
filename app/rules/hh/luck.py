"""Glück (hh.md §4): spending and burning Glückspunkte, with their constraints.

Spending (1 GP) is impossible while «entmutigt»; burning (1 GP and the skill Glück −1
permanently) stays possible. Options declared before the roll are checked with
``before_roll``. A Kontrollverlust table roll can never be rerolled.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Literal, TypedDict, Unpack, get_args

from app.rules.dice import Roller
from app.rules.hh.life import Outcome, remove_condition
from app.rules.hh.probe import ProbeResult, automatic_volltreffer, roll_probe
from app.rules.hh.state import Change, Figure

SpendOption = Literal[
    "bonus",
    "cancel_penalty",
    "reroll",
    "negate_patzer",
    "extra_action",
    "extra_reaction",
    "halve_damage",
    "remove_condition",
    "stay_on_feet",
]
BurnOption = Literal["auto_volltreffer", "avoid_death"]

SPEND_OPTIONS: tuple[SpendOption, ...] = get_args(SpendOption)
BURN_OPTIONS: tuple[BurnOption, ...] = get_args(BurnOption)
#: Options that must be declared before the Probe is rolled.
BEFORE_ROLL: frozenset[str] = frozenset({"bonus", "cancel_penalty", "auto_volltreffer"})
#: German names for display.
LUCK_NAMES: Mapping[str, str] = MappingProxyType(
    {
        "bonus": "Probe anpassen (+4)",
        "cancel_penalty": "Probe anpassen (Erschwernis negieren)",
        "reroll": "Probe wiederholen",
        "negate_patzer": "Einen Patzer negieren",
        "extra_action": "Zusätzliche Aktion",
        "extra_reaction": "Zusätzliche Reaktion",
        "halve_damage": "Treffer entgehen",
        "remove_condition": "Zustand aufheben",
        "stay_on_feet": "Auf den Beinen bleiben",
        "auto_volltreffer": "Automatischer Erfolg (verbrennen)",
        "avoid_death": "Tod abwenden (verbrennen)",
    }
)
LUCK_BONUS = 4


class LuckError(ValueError):
    """A Glück option is not allowed in the current situation."""


def can_spend(figure: Figure) -> bool:
    """At least 1 GP and not «entmutigt»."""
    return figure.gp >= 1 and not figure.has("entmutigt")


def can_burn(figure: Figure) -> bool:
    """At least 1 GP (burning uses one up) — also while «entmutigt»."""
    return figure.gp >= 1


def luck_problems(
    figure: Figure,
    option: str,
    *,
    before_roll: bool = False,
    probe: ProbeResult | None = None,
    table_roll: str = "",
) -> list[str]:
    """Reasons why ``option`` is not allowed now (empty list = allowed).

    ``before_roll``: the Probe has not been rolled yet; ``probe``: the Probe concerned (for
    reroll / negate_patzer); ``table_roll``: name of a table roll to be rerolled.
    """
    problems = _points_problems(figure, option)
    if option not in SPEND_OPTIONS and option not in BURN_OPTIONS:
        return problems
    if option in BEFORE_ROLL and not before_roll:
        problems.append("muss vor dem Wurf angesagt werden")
    if option == "reroll":
        problems += _reroll_problems(probe, table_roll)
    if option == "negate_patzer" and (probe is None or not probe.patzer):
        problems.append("kein Patzer")
    if option == "stay_on_feet" and (figure.lp > 0 or figure.dead):
        problems.append("nur bei 0 oder weniger LP und lebend")
    if option == "avoid_death" and not figure.dead:
        problems.append("die Figur ist nicht tot")
    return problems


def _points_problems(figure: Figure, option: str) -> list[str]:
    """Whether the figure has a point to spend (or burn) on ``option``, and may spend it."""
    if option in SPEND_OPTIONS:
        problems = [] if figure.gp >= 1 else ["keine Glückspunkte"]
        if figure.has("entmutigt"):
            problems.append("«entmutigt»: keine Glückspunkte einsetzen")
        return problems
    if option in BURN_OPTIONS:
        return [] if figure.gp >= 1 else ["keine Glückspunkte zum Verbrennen"]
    return [f"unbekannte Glücksoption {option!r}"]


def _reroll_problems(probe: ProbeResult | None, table_roll: str) -> list[str]:
    """Other table rolls may be rerolled; a Probe only if it was not a Patzer."""
    if table_roll == "kontrollverlust":
        return ["Kontrollverlust kann nie mit Glück wiederholt werden"]
    if table_roll:
        return []
    if probe is None:
        return ["kein Wurf zum Wiederholen"]
    return ["ein Patzer kann nicht wiederholt werden"] if probe.patzer else []


class LuckSituation(TypedDict, total=False):
    """The keywords of :func:`luck_problems` that the checks built on it pass on."""

    before_roll: bool
    probe: ProbeResult | None
    table_roll: str


def check_luck(figure: Figure, option: str, **situation: Unpack[LuckSituation]) -> None:
    """Raise :class:`LuckError` with all reasons if ``option`` is not allowed (the keywords
    are :func:`luck_problems`')."""
    problems = luck_problems(figure, option, **situation)
    if problems:
        raise LuckError("; ".join(problems))


def _spend(
    figure: Figure, option: str, *, before_roll: bool = False, probe: ProbeResult | None = None
) -> tuple[Figure, list[Change]]:
    check_luck(figure, option, before_roll=before_roll, probe=probe)
    changes = [Change(figure.id, "gp", -1, detail=LUCK_NAMES[option])]
    return figure.evolve(gp=figure.gp - 1), changes


def _burn(figure: Figure, option: str) -> tuple[Figure, list[Change]]:
    check_luck(figure, option, before_roll=True)
    glueck = figure.glueck
    skills = dict(figure.skills)
    skills["Glück"] = glueck - 1
    changes = [
        Change(figure.id, "gp", -1, detail=LUCK_NAMES[option]),
        Change(figure.id, "glueck", -1, detail="Glück permanent gesenkt"),
    ]
    return figure.evolve(gp=figure.gp - 1, skills=MappingProxyType(skills)), changes


@dataclass(frozen=True, slots=True)
class LuckProbe:
    """A Probe influenced by Glück: the new figure state, changes and the Probe(s)."""

    figure: Figure
    changes: tuple[Change, ...]
    result: ProbeResult
    alternatives: tuple[ProbeResult, ...] = ()


def luck_modifier(modifier: int, option: Literal["bonus", "cancel_penalty"]) -> int:
    """The Probe modifier after +4 or after cancelling its difficulty penalty (→ ≥ 0)."""
    return modifier + LUCK_BONUS if option == "bonus" else max(0, modifier)


def roll_with_luck(
    roller: Roller,
    figure: Figure,
    value: int,
    modifier: int,
    option: Literal["bonus", "cancel_penalty"],
) -> LuckProbe:
    """Spend 1 GP before rolling: +4 or cancel the penalty, then roll."""
    figure, changes = _spend(figure, option, before_roll=True)
    probe = roll_probe(roller, value, luck_modifier(modifier, option))
    return LuckProbe(figure, tuple(changes), probe)


def burn_for_volltreffer(
    figure: Figure, value: int, modifier: int = 0, *, extra_qs: int = 0
) -> LuckProbe:
    """Burn 1 GP before rolling: an automatic Volltreffer without dice."""
    figure, changes = _burn(figure, "auto_volltreffer")
    return LuckProbe(
        figure, tuple(changes), automatic_volltreffer(value, modifier, extra_qs=extra_qs)
    )


def better_probe(a: ProbeResult, b: ProbeResult) -> ProbeResult:
    """The better of two Probes: success over failure, then QS, then non-Patzer; ties → a."""

    def rank(p: ProbeResult) -> tuple[int, int, int]:
        return (int(p.success), p.qs, int(not p.patzer))

    return b if rank(b) > rank(a) else a


def reroll(
    roller: Roller,
    figure: Figure,
    probe: ProbeResult,
    keep: Literal["better", "first", "second"] = "better",
) -> LuckProbe:
    """Spend 1 GP to roll a non-Patzer Probe again and keep either result."""
    figure, changes = _spend(figure, "reroll", probe=probe)
    second = roll_probe(roller, probe.value, probe.modifier, extra_qs=probe.extra_qs)
    chosen = {"first": probe, "second": second, "better": better_probe(probe, second)}[keep]
    return LuckProbe(figure, tuple(changes), chosen, (probe, second))


def negate_patzer(figure: Figure, probe: ProbeResult) -> LuckProbe:
    """Spend 1 GP to turn a Patzer into a plain failure."""
    figure, changes = _spend(figure, "negate_patzer", probe=probe)
    return LuckProbe(figure, tuple(changes), replace(probe, patzer=False))


def extra_action(figure: Figure) -> Outcome:
    """Spend 1 GP for one extra action in the figure's own initiative step."""
    figure, changes = _spend(figure, "extra_action")
    changes.append(Change(figure.id, "extra_action", 1))
    return Outcome(figure.evolve(extra_actions=figure.extra_actions + 1), tuple(changes))


def extra_reaction(figure: Figure) -> Outcome:
    """Spend 1 GP for one extra reaction (usable at any time)."""
    figure, changes = _spend(figure, "extra_reaction")
    changes.append(Change(figure.id, "reactions", 1, detail="Glück"))
    return Outcome(figure.evolve(reactions_left=figure.reactions_left + 1), tuple(changes))


def halved_damage(amount: int) -> int:
    """Damage left after «Treffer entgehen»: half, rounded down."""
    return max(0, amount) // 2


def spend_to_halve_damage(figure: Figure, amount: int) -> tuple[Figure, tuple[Change, ...], int]:
    """Spend 1 GP to halve damage just taken; returns (figure, changes, damage to book).

    Call it on the state *before* the damage was booked, then book the returned amount
    (e.g. with :func:`app.rules.hh.life.apply_damage`) — so thresholds are judged on the
    halved damage (project decision).
    """
    figure, changes = _spend(figure, "halve_damage")
    return figure, tuple(changes), halved_damage(amount)


def spend_to_remove_condition(figure: Figure, key: str) -> Outcome:
    """Spend 1 GP to remove one condition at once."""
    if not figure.has(key):
        raise LuckError(f"{figure.id} is not «{key}»")
    figure, changes = _spend(figure, "remove_condition")
    out = remove_condition(figure, key, detail="Glück")
    return Outcome(out.figure, (*changes, *out.changes))


def stay_on_feet(figure: Figure) -> Outcome:
    """Spend 1 GP: a figure at 0 LP or less stays able to act for the current scene.

    Project decision: «sterbend» is lifted for the scene (no Sterbend Probes) and the
    figure is conscious; at the scene's end :func:`end_scene` makes it die unless it burns
    a GP (:func:`avoid_death`).
    """
    figure, changes = _spend(figure, "stay_on_feet")
    out = remove_condition(figure, "sterbend", detail="Auf den Beinen bleiben")
    changes.extend(out.changes)
    changes.append(Change(figure.id, "on_feet"))
    return Outcome(out.figure.evolve(on_feet=True, unconscious=False), tuple(changes))


def end_scene(figure: Figure) -> Outcome:
    """End of the scene for a figure kept on its feet by Glück: it dies if LP ≤ 0."""
    if not figure.on_feet:
        return Outcome(figure)
    figure = figure.evolve(on_feet=False)
    if figure.lp > 0 or figure.dead:
        return Outcome(figure)
    return Outcome(
        figure.evolve(dead=True),
        (Change(figure.id, "dead", detail="Szenenende nach «Auf den Beinen bleiben»"),),
    )


def avoid_death(figure: Figure) -> Outcome:
    """Burn 1 GP so a figure that would die lives: 0 LP, unconscious, no longer dying."""
    figure, changes = _burn(figure, "avoid_death")
    out = remove_condition(figure, "sterbend", detail="Tod abgewendet")
    changes.extend(out.changes)
    changes.append(Change(figure.id, "revived", detail="Glück verbrannt"))
    if figure.lp != 0:
        changes.append(Change(figure.id, "lp", -figure.lp, detail="bleibt auf 0 LP"))
    return Outcome(
        out.figure.evolve(dead=False, lp=0, unconscious=True, on_feet=False), tuple(changes)
    )


def refill_luck(figure: Figure) -> Outcome:
    """Start of a play session: GP back to their maximum."""
    if figure.gp >= figure.gp_max:
        return Outcome(figure)
    return Outcome(
        figure.evolve(gp=figure.gp_max),
        (Change(figure.id, "gp", figure.gp_max - figure.gp, detail="Spielsitzung"),),
    )
