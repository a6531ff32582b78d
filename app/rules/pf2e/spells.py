"""PF2e spells in a fight, without a catalogue: the caster names the spell and what it costs
(shared/rules/pf2e.md §3, §4, §9; docs/rules/pf2e.md §12).

- A spell costs the actions it names, 1 to 3 (§9), spent from the turn's budget.
- A **spell attack** is an attack roll with the caster's spell attack modifier (Zauberangriff)
  against the target's RK: it has the attack trait, so the multiple attack penalty counts it
  like a Strike (§3: per attack-trait check in the roller's own turn; never agile), and it
  counts toward the next attack's penalty. A Kritischer Treffer doubles the damage.
- A **save spell** on one target: the target rolls the named save against the spell's DC
  (the caster's Zauber-SG = 10 + spell attack modifier, §3, unless the caster names one).
  A basic save (einfacher Rettungswurf) takes the rolled damage by the degree (§4); a save
  that is not basic deals no damage here (its degree is logged, the GM applies the spell's
  text).
"""

from __future__ import annotations

from collections.abc import Iterable

from app.rules.dice import Roller
from app.rules.expression import Expression
from app.rules.pf2e.attacks import StrikeResult, strike
from app.rules.pf2e.errors import Pf2eError
from app.rules.pf2e.modifiers import UNTYPED, Modifier
from app.rules.pf2e.statistics import Statistic

#: The actions a spell may name (§9).
SPELL_ACTIONS = (1, 2, 3)


class BadSpellCost(Pf2eError):
    """A spell names no action count of 1 to 3."""


def spell_cost(actions: int) -> int:
    """The actions a spell costs; :class:`BadSpellCost` outside 1–3."""
    if actions not in SPELL_ACTIONS:
        raise BadSpellCost(
            "Ein Zauber kostet 1 bis 3 Aktionen, nicht %(actions)d.", actions=actions
        )
    return actions


def spell_dc(attack_modifier: int) -> int:
    """The Zauber-SG that goes with a spell attack modifier (§3: 10 + the same total)."""
    return 10 + attack_modifier


def spell_attack_statistic(attack_modifier: int, extra: Iterable[Modifier] = ()) -> Statistic:
    return Statistic(
        "Zauberangriff", (Modifier("Zauberangriff", UNTYPED, attack_modifier), *extra), "Zauber-SG"
    )


def spell_attack(
    roller: Roller,
    attack_modifier: int,
    target_ac: int,
    damage: str | Expression,
    *,
    attack_number: int = 1,
    own_turn: bool = True,
    extra: Iterable[Modifier] = (),
    secret: bool = False,
) -> StrikeResult:
    """The spell's attack roll against ``target_ac`` (with the multiple attack penalty of
    ``attack_number`` in the caster's own turn), then its damage on a hit (doubled on a
    Kritischer Treffer), as a Strike's (:func:`app.rules.pf2e.attacks.strike`)."""
    return strike(
        roller,
        spell_attack_statistic(attack_modifier),
        target_ac,
        damage,
        attack_number=attack_number,
        agile=False,
        own_turn=own_turn,
        extra=extra,
        secret=secret,
    )
