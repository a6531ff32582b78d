"""The PF2e turn (shared/rules/pf2e.md §9): three actions, Betäubt and Verlangsamt, costs."""

from __future__ import annotations

import pytest

from app.rules.pf2e.turn import ActionBudget, NotEnoughActions, start_of_turn


@pytest.mark.parametrize(
    ("stunned", "slowed", "left", "stunned_after"),
    [(0, 0, 3, 0), (1, 0, 2, 0), (0, 1, 2, 0), (1, 2, 1, 0), (2, 1, 1, 0), (4, 0, 0, 1),
     (0, 3, 0, 0), (1, 1, 2, 0)],
)  # fmt: skip
def test_betaeubt_overrides_verlangsamt(
    stunned: int, slowed: int, left: int, stunned_after: int
) -> None:
    start = start_of_turn(stunned=stunned, slowed=slowed)
    assert start.budget.actions == left and start.stunned_after == stunned_after
    assert start.budget.reaction


def test_an_unconscious_creature_has_no_actions() -> None:
    assert start_of_turn(unconscious=True).budget.actions == 0


def test_an_action_that_does_not_fit_is_refused() -> None:
    budget = ActionBudget().spend(1, "Strike").spend(1, "Strike").spend(1, "Strike")
    assert budget.actions == 0 and budget.symbols == "◇◇◇"
    with pytest.raises(NotEnoughActions) as refused:
        budget.spend(1, "Strike")
    assert refused.value.params == {"action": "Strike", "cost": 1, "left": 0}
    assert ActionBudget.from_json(ActionBudget(2, 3).as_json()) == ActionBudget(2, 3)
    assert ActionBudget.from_json(None) == ActionBudget()


def test_one_reaction_until_the_next_turn() -> None:
    from app.rules.pf2e.turn import ReactionSpent, use_reaction

    assert use_reaction(True, "Schild blocken") is False
    with pytest.raises(ReactionSpent) as refused:
        use_reaction(False, "Gelegenheitsangriff")
    assert refused.value.params == {"action": "Gelegenheitsangriff"}
    assert ActionBudget().without_reaction().as_json() == {
        "actions": 3, "total": 3, "reaction": False
    }  # fmt: skip
    assert start_of_turn(stunned=1).budget.reaction
