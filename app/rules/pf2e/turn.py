"""PF2e's turn: three actions and a reaction (shared/rules/pf2e.md §9, binding).

At the start of its turn a creature gets 3 actions and its reaction back. Betäubt X
(stunned) takes X actions at the start of the turn and drops by the actions it took;
Verlangsamt X (slowed) takes X actions every turn; together, the actions lost to Betäubt
count toward those lost to Verlangsamt (Betäubt 1 and Verlangsamt 2: 1 action left). A
creature that is unconscious (Sterbend, at 0 TP) has no actions. An action costs what it
names (Strike, Stride, Step, Interact, Würgen: 1; a spell its 1–3 actions; a free action
none); one that does not fit into what is left is refused, and the turn does not end by
itself. A reaction is the creature's own, also outside its turn: one until the start of its
next turn (:func:`use_reaction`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from app.rules.pf2e.errors import Pf2eError


class ActionBudgetJSON(TypedDict):
    """An :class:`ActionBudget` as JSON (a fight's state keeps it, ``action_budget``)."""

    actions: int
    total: int
    reaction: bool


ACTIONS_PER_TURN = 3
#: What an action costs (spells: the actions they name, 1–3).
STRIKE = STRIDE = STEP = INTERACT = RETCH = 1
SYMBOL_LEFT, SYMBOL_SPENT = "◆", "◇"


class NotEnoughActions(Pf2eError):
    """An action costs more than the actions left this turn."""


class ReactionSpent(Pf2eError):
    """The creature has used its reaction since the start of its last turn."""


def use_reaction(available: bool, what: str) -> bool:
    """A reaction (Gelegenheitsangriff, Schild blocken, …) spends the creature's one
    reaction until the start of its next turn (§9): ``False``, what is left after it;
    :class:`ReactionSpent` if it is already spent."""
    if not available:
        raise ReactionSpent(
            "%(action)s: die Reaktion ist bis zum Beginn des nächsten Zuges verbraucht.",
            action=what,
        )
    return False


@dataclass(frozen=True, slots=True)
class ActionBudget:
    """What the creature whose turn it is may still spend: actions and its reaction; a
    small typed value the combat state keeps as ``{"actions": 2, "total": 3, "reaction":
    true}`` (:meth:`as_json`, :meth:`from_json`)."""

    actions: int = ACTIONS_PER_TURN
    total: int = ACTIONS_PER_TURN
    reaction: bool = True

    def spend(self, cost: int, what: str) -> ActionBudget:
        """The budget after an action of ``cost``; :class:`NotEnoughActions` if it does not
        fit (``what`` names the action in the message)."""
        if cost > self.actions:
            raise NotEnoughActions(
                "%(action)s kostet %(cost)d Aktion(en); in diesem Zug bleiben %(left)d.",
                action=what, cost=cost, left=self.actions,
            )  # fmt: skip
        return ActionBudget(self.actions - cost, self.total, self.reaction)

    def without_reaction(self) -> ActionBudget:
        """The budget after its creature used its reaction."""
        return ActionBudget(self.actions, self.total, False)

    def fits(self, cost: int) -> bool:
        return cost <= self.actions

    @property
    def symbols(self) -> str:
        """«◆◆◇»: the actions left, then those spent or lost."""
        return SYMBOL_LEFT * self.actions + SYMBOL_SPENT * max(0, ACTIONS_PER_TURN - self.actions)

    def as_json(self) -> ActionBudgetJSON:
        return {"actions": self.actions, "total": self.total, "reaction": self.reaction}

    @classmethod
    def from_json(cls, raw: object) -> ActionBudget:
        if not isinstance(raw, dict):
            return cls()
        actions = int(raw.get("actions", ACTIONS_PER_TURN))
        return cls(actions, int(raw.get("total", actions)), bool(raw.get("reaction", True)))


@dataclass(frozen=True, slots=True)
class TurnStart:
    """The budget a turn starts with, and Betäubt after it took its actions."""

    budget: ActionBudget
    stunned_after: int
    lost_to_stunned: int
    lost_to_slowed: int


def start_of_turn(*, stunned: int = 0, slowed: int = 0, unconscious: bool = False) -> TurnStart:
    """The actions of a turn under Betäubt ``stunned`` and Verlangsamt ``slowed`` (§9)."""
    if unconscious:
        return TurnStart(ActionBudget(0, 0, False), stunned, 0, 0)
    by_stun = min(max(0, stunned), ACTIONS_PER_TURN)
    by_slow = max(0, min(max(0, slowed), ACTIONS_PER_TURN) - by_stun)
    actions = ACTIONS_PER_TURN - by_stun - by_slow
    return TurnStart(ActionBudget(actions, actions, True), stunned - by_stun, by_stun, by_slow)
