import pytest

from app.rules.dice import ScriptedRoller
from app.rules.hh import (
    Figure,
    LuckError,
    Zustand,
    automatic_volltreffer,
    avoid_death,
    burn_for_volltreffer,
    can_burn,
    can_spend,
    end_scene,
    evaluate_help,
    evaluate_opposed,
    evaluate_probe,
    extra_action,
    extra_reaction,
    luck_problems,
    negate_patzer,
    refill_luck,
    reroll,
    roll_opposed,
    roll_with_help,
    roll_with_luck,
    spend_to_halve_damage,
    spend_to_remove_condition,
    stay_on_feet,
)
from app.rules.hh.luck import better_probe, luck_modifier


def test_wachmann_example() -> None:
    arjun = evaluate_probe((3, 5), 13)  # Geschick 13, rolls 8
    wache = evaluate_probe((5, 6), 11)  # Spürsinn 11, rolls 11
    r = evaluate_opposed(arjun, wache)
    assert (r.winner, r.qs) == ("defender", 1)
    assert "Verteidiger gewinnt, QS 1" in r.describe()


def test_opposed_cases() -> None:
    ok, fail = evaluate_probe((2, 3), 10), evaluate_probe((6, 6), 10)
    assert evaluate_opposed(ok, fail).winner == "attacker"
    assert evaluate_opposed(ok, fail).qs == 1
    assert evaluate_opposed(fail, ok).winner == "defender"
    r = evaluate_opposed(fail, evaluate_probe((9, 9), 10))
    assert (r.winner, r.qs) == ("none", 0)
    assert r.describe().endswith("niemand gewinnt")
    tie = evaluate_opposed(evaluate_probe((4, 5), 12), evaluate_probe((3, 6), 12))
    assert (tie.winner, tie.qs) == ("defender", 0)
    high = evaluate_opposed(evaluate_probe((6, 8), 15), evaluate_probe((1, 2), 15))
    assert (high.winner, high.qs) == ("attacker", 3)
    vt = evaluate_opposed(evaluate_probe((5, 5), 16), evaluate_probe((2, 7), 16))
    assert (vt.winner, vt.qs) == ("attacker", 4)  # Volltreffer: best QS 4 > qs(1)
    assert len(vt.rolls) == 2


def test_automatic_volltreffer_in_comparison() -> None:
    r = evaluate_opposed(automatic_volltreffer(12), evaluate_probe((5, 6), 14))
    assert r.winner == "attacker" and r.qs == 3


def test_roll_opposed() -> None:
    r = roll_opposed(ScriptedRoller([3, 5, 5, 6]), 13, 11)
    assert r.winner == "defender"


def test_help() -> None:
    h = evaluate_help(
        [evaluate_probe((1, 2), 10), evaluate_probe((4, 5), 10), evaluate_probe((7, 7), 10)]
    )
    assert h.bonus == 2 and h.complications == (2,)
    assert evaluate_help([]).bonus == 0
    helped = roll_with_help(ScriptedRoller([2, 3, 9, 9, 6, 6]), 10, -2, [12, 12])
    assert helped.help.bonus == 1
    assert helped.main.target == 9 and not helped.main.success
    assert len(helped.rolls) == 3


HERO = Figure("h", gp=2, gp_max=3, skills={"Glück": 8, "Unbeugsamkeit": 10})


def test_spending_blocked_by_entmutigt_but_burning_possible() -> None:
    sad = HERO.evolve(conditions=(Zustand("entmutigt"),))
    assert not can_spend(sad) and can_burn(sad)
    assert "«entmutigt»: keine Glückspunkte einsetzen" in luck_problems(sad, "extra_reaction")
    with pytest.raises(LuckError):
        extra_reaction(sad)
    res = burn_for_volltreffer(sad, 10)
    assert res.result.volltreffer and res.figure.gp == 1 and res.figure.glueck == 7
    broke = HERO.evolve(gp=0)
    assert luck_problems(broke, "avoid_death") == [
        "keine Glückspunkte zum Verbrennen",
        "die Figur ist nicht tot",
    ]
    assert luck_problems(HERO, "fly") == ["unbekannte Glücksoption 'fly'"]


def test_declared_before_roll() -> None:
    assert "muss vor dem Wurf angesagt werden" in luck_problems(HERO, "bonus")
    assert luck_problems(HERO, "bonus", before_roll=True) == []
    r = roll_with_luck(ScriptedRoller([5, 6]), HERO, 8, 0, "bonus")
    assert r.result.target == 12 and r.result.success and r.figure.gp == 1
    c = roll_with_luck(ScriptedRoller([5, 6]), HERO, 12, -4, "cancel_penalty")
    assert c.result.target == 12
    assert luck_modifier(3, "cancel_penalty") == 3


def test_reroll_rules() -> None:
    patzer = evaluate_probe((8, 8), 10)
    assert "ein Patzer kann nicht wiederholt werden" in luck_problems(HERO, "reroll", probe=patzer)
    assert "Kontrollverlust kann nie mit Glück wiederholt werden" in luck_problems(
        HERO, "reroll", table_roll="kontrollverlust"
    )
    assert luck_problems(HERO, "reroll", table_roll="angriff_patzer") == []
    assert "kein Wurf zum Wiederholen" in luck_problems(HERO, "reroll")
    first = evaluate_probe((6, 7), 10)
    r = reroll(ScriptedRoller([1, 2]), HERO, first)
    assert r.result.success and r.alternatives[0] is first and r.figure.gp == 1
    keep_first = reroll(ScriptedRoller([1, 2]), HERO, first, keep="first")
    assert keep_first.result is first
    with pytest.raises(LuckError):
        reroll(ScriptedRoller([]), HERO, patzer)
    assert better_probe(evaluate_probe((1, 2), 10), evaluate_probe((4, 5), 10)).qs == 2


def test_negate_patzer() -> None:
    res = negate_patzer(HERO, evaluate_probe((8, 8), 10))
    assert not res.result.patzer and not res.result.success
    with pytest.raises(LuckError):
        negate_patzer(HERO, evaluate_probe((1, 2), 10))


def test_actions_reactions_damage_condition() -> None:
    assert extra_action(HERO).figure.extra_actions == 1
    assert extra_reaction(HERO).figure.reactions_left == 1
    fig, changes, amount = spend_to_halve_damage(HERO, 9)
    assert amount == 4 and fig.gp == 1 and changes[0].kind == "gp"
    hurt = HERO.evolve(conditions=(Zustand("verwirrt"),))
    out = spend_to_remove_condition(hurt, "verwirrt")
    assert out.figure.conditions == () and out.figure.gp == 1
    with pytest.raises(LuckError):
        spend_to_remove_condition(HERO, "verwirrt")


def test_stay_on_feet_and_end_of_scene() -> None:
    with pytest.raises(LuckError):
        stay_on_feet(HERO)
    down = HERO.evolve(lp=-2, conditions=(Zustand("sterbend"),))
    up = stay_on_feet(down).figure
    assert up.on_feet and not up.has("sterbend") and up.can_act
    dead = end_scene(up).figure
    assert dead.dead and not dead.on_feet
    assert end_scene(HERO).figure == HERO
    healed = end_scene(up.evolve(lp=3)).figure
    assert not healed.dead
    saved = avoid_death(dead).figure
    assert (saved.dead, saved.lp, saved.unconscious, saved.glueck) == (False, 0, True, 7)


def test_refill() -> None:
    assert refill_luck(HERO).figure.gp == 3
    assert refill_luck(HERO.evolve(gp=3)).changes == ()
