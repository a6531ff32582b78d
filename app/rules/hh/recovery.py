"""What a figure does with its Handlung to get back into the fight (hh.md §5, §6.5, §8):
which conditions it can shake off itself, and freeing a weapon the attack Patzer table's
«Waffe blockiert» jammed.

The seeds say only that freeing the weapon takes an action and a successful Probe on
Unbeugsamkeit (melee) or Handwerk (ranged); ``docs/rules/hh.md`` («Waffe blockiert»)
decides what the jam forbids meanwhile.
"""

from __future__ import annotations

from collections.abc import Collection

from app.rules.dice import Roller
from app.rules.hh.conditions import condition_def
from app.rules.hh.life import Outcome, probe_modifier
from app.rules.hh.options import DEFAULT_OPTIONS, RuleOptions
from app.rules.hh.probe import roll_probe
from app.rules.hh.state import Change, Figure

#: The skill that frees a jammed weapon: melee, ranged.
FREE_WEAPON_SKILLS = ("Unbeugsamkeit", "Handwerk")


def shakeable(
    figure: Figure, options: RuleOptions = DEFAULT_OPTIONS, chosen: Collection[str] = ()
) -> tuple[str, ...]:
    """The conditions ``figure`` can shake off with its own action (§8), in its order:
    not those another figure ends («sterbend») or the round's end («zehrend»), and a
    «passende Probe» only for the keys in ``chosen``
    (those the caller has a skill for)."""
    keys = dict.fromkeys(c.key for c in figure.conditions)
    out = []
    for key in keys:
        cdef = condition_def(key)
        if cdef.shake_off_by_other or key == "zehrend":
            continue
        if cdef.shake_off_skill_for(options.condition_escalation) == "passend" and (
            key not in chosen
        ):
            continue
        out.append(key)
    return tuple(out)


def free_weapon(roller: Roller, figure: Figure, *, ranged: bool, modifier: int = 0) -> Outcome:
    """The Handlung that frees a jammed weapon: a Probe on Unbeugsamkeit (melee) or Handwerk
    (ranged), with the conditions' modifiers; on success the weapon is free again."""
    if not figure.jammed_weapon:
        raise ValueError(f"{figure.id}'s weapon is not jammed")
    skill = FREE_WEAPON_SKILLS[1 if ranged else 0]
    probe = roll_probe(
        roller, figure.skill(skill), modifier + probe_modifier(figure, skill, "action")
    )
    if not probe.success:
        return Outcome(figure, (), (), probe)
    freed = Change(figure.id, "weapon_freed", detail=f"{skill}-Probe")
    return Outcome(figure.evolve(jammed_weapon=False), (freed,), (), probe)
