"""Generic checks, Verdeckter Wurf, breakdowns on results."""

from __future__ import annotations

from app.rules.dice import ScriptedRoller
from app.rules.pf2e import Degree, Modifier, roll_check, saving_throw

WILL = saving_throw("will", level=2, rank="expert", attribute_modifier=3)  # 3 + 6 = +9


def test_check_result_carries_dice_breakdown_and_degree() -> None:
    result = roll_check(
        ScriptedRoller([9]),
        WILL,
        19,
        dc_label="Zauber-SG",
        extra=[Modifier("Heldenmut", "status", 1), Modifier("Segen", "status", 1)],
    )
    assert result.total == 9 + 9 + 1
    assert result.degree is Degree.SUCCESS
    assert result.dice[0].faces == (9,)
    assert [i.modifier.source for i in result.breakdown.ignored] == ["Segen"]
    assert result.describe() == "Wille: 1W20: 9 +10 = 19 gegen Zauber-SG 19 – Erfolg"
    data = result.as_dict()
    assert data["degree"] == 2 and data["degree_label"] == "Erfolg"
    assert data["dice"] == [{"sides": 20, "faces": [9], "kept": [True]}]
    assert data["natural"] == 9 and data["total"] == 19 and data["dc"] == 19
    assert data["fortune_state"] == "normal" and data["adjustment"] is None


def test_check_without_dc() -> None:
    result = roll_check(ScriptedRoller([4]), WILL)
    assert result.dc is None and result.dc_label is None and result.degree is None
    assert result.describe() == "Wille: 1W20: 4 +9 = 13"
    assert result.as_dict()["degree_label"] is None


def test_secret_check_shows_players_only_that_it_happened() -> None:
    result = roll_check(ScriptedRoller([17]), WILL, 20, secret=True)
    assert result.secret and result.degree is Degree.SUCCESS
    hidden = result.as_dict(reveal=False)
    assert hidden == {"label": "Wille", "secret": True, "secret_label": "Verdeckter Wurf"}
    assert "17" not in repr(hidden) and "Erfolg" not in repr(hidden)
    shown = result.as_dict(reveal=True)
    assert shown["secret"] is True and shown["natural"] == 17


def test_open_check_is_shown_even_without_reveal() -> None:
    result = roll_check(ScriptedRoller([17]), WILL, 20)
    assert result.as_dict(reveal=False)["natural"] == 17


def test_adjustment_label_in_dict() -> None:
    from app.rules.pf2e import DegreeAdjustment

    result = roll_check(
        ScriptedRoller([10]),
        WILL,
        19,
        adjustments=[DegreeAdjustment("Eiserner Wille", Degree.SUCCESS, Degree.CRITICAL_SUCCESS)],
    )
    assert result.degree is Degree.CRITICAL_SUCCESS
    assert result.as_dict()["adjustment"] == ("Eiserner Wille: Erfolg wird zu Kritischer Erfolg")
