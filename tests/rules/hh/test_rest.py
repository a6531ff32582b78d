"""Rasten (hh.md §10): limits on the in-game clock, regeneration, camp Probe, healers."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules.dice import ScriptedRoller
from app.rules.hh.options import RuleOptions
from app.rules.hh.rest import (
    Healing,
    RestRecord,
    check_rest,
    day_of,
    long_rest,
    short_rest,
)
from app.rules.hh.state import Figure, Zustand

H = 60
DAY = 24 * H


def hero(
    fid: str = "arjun",
    *,
    unbeugsamkeit: int = 12,
    lp: int = 10,
    wp: int = 5,
    gp: int = 1,
    conditions: tuple[Zustand, ...] = (),
) -> Figure:
    return Figure(
        fid,
        skills={"Unbeugsamkeit": unbeugsamkeit, "Heilkunde": 13, "Reisekunde": 11},
        lp=lp,
        lp_max=30,
        wp=wp,
        wp_max=20,
        gp=gp,
        gp_max=3,
        conditions=conditions,
    )


# --- limits -----------------------------------------------------------------------------


def test_day_of() -> None:
    assert day_of(0) == 0 and day_of(DAY - 1) == 0 and day_of(DAY) == 1
    assert day_of(5 * H, day_start=6 * H) == -1


def test_first_rest_is_allowed() -> None:
    assert check_rest("kurz", 10 * H, []).ok
    assert check_rest("lang", 22 * H, []).ok


def test_short_rest_needs_two_hours_after_last_rest_end() -> None:
    history = [RestRecord("kurz", 8 * H)]  # ends 8:30
    early = check_rest("kurz", 10 * H, history)
    assert not early.ok and early.error == "short_rest_too_soon"
    assert dict(early.params) == {"earliest": 10 * H + 30}
    assert check_rest("kurz", 10 * H + 30, history).ok


def test_short_rest_two_hours_after_camp() -> None:
    history = [RestRecord("lang", DAY - 2 * H)]  # 22:00 → 06:00
    assert check_rest("kurz", DAY + 7 * H, history).error == "short_rest_too_soon"
    assert check_rest("kurz", DAY + 8 * H, history).ok


def test_two_short_rests_a_day() -> None:
    history = [RestRecord("kurz", 8 * H), RestRecord("kurz", 11 * H)]
    third = check_rest("kurz", 15 * H, history)
    assert not third.ok and third.error == "daily_limit"
    assert dict(third.params) == {"kind": "kurz", "limit": 2, "day": 0}
    assert check_rest("kurz", DAY + 8 * H, history).ok


def test_one_long_rest_a_day_and_camp_site() -> None:
    history = [RestRecord("lang", 0)]
    again = check_rest("lang", 12 * H, history)
    assert again.error == "daily_limit" and dict(again.params)["limit"] == 1
    assert check_rest("lang", DAY + 22 * H, history).ok
    assert check_rest("lang", 22 * H, [], camp_site=False).error == "no_camp_site"


def test_rest_in_progress() -> None:
    history = [RestRecord("lang", 22 * H)]
    busy = check_rest("kurz", 23 * H, history)
    assert busy.error == "rest_in_progress" and dict(busy.params) == {"until": DAY + 6 * H}


def test_future_records_are_ignored_and_kind_checked() -> None:
    assert check_rest("kurz", 8 * H, [RestRecord("kurz", 9 * H)]).ok
    with pytest.raises(ValueError):
        check_rest("mittel", 0, [])  # type: ignore[arg-type]


@settings(deadline=None)
@given(st.lists(st.integers(0, 3 * DAY), max_size=6), st.integers(0, 3 * DAY))
def test_accepting_rests_never_exceeds_daily_limits(starts: list[int], now: int) -> None:
    history: list[RestRecord] = []
    for start in sorted([*starts, now]):
        if check_rest("kurz", start, history).ok:
            history.append(RestRecord("kurz", start))
    for day in {day_of(r.start) for r in history}:
        assert sum(1 for r in history if day_of(r.start) == day) <= 2
    for a, b in itertools.pairwise(history):
        assert b.start >= a.end + 2 * H


# --- Kurze Rast -------------------------------------------------------------------------


def test_short_rest_regeneration_success() -> None:
    shaken = hero(
        conditions=(
            Zustand("angeschlagen"),
            Zustand("zehrend", "WP", "Mana"),
            Zustand("zehrend", "LP", "Blutung"),
        )
    )
    # Unbeugsamkeit 12: roll 3 + 4 = 7 → success; 1W10 = 6 WP
    result = short_rest(ScriptedRoller([3, 4, 6]), [shaken], now=10 * H)
    assert result.ok and result.record == RestRecord("kurz", 10 * H)
    p = result.participant("arjun")
    assert p.regeneration is not None and p.regeneration.success
    assert p.wp_roll is not None and p.wp_roll.faces == (6,)
    assert p.wp_healed == 6 and p.after.wp == 11
    assert p.lp_healed == 0 and p.gp_gained == 0
    assert p.conditions_removed == ("angeschlagen", "zehrend (WP, Mana)")
    assert [z.key for z in p.after.conditions] == ["zehrend"]
    assert p.after.conditions[0].resource == "LP"
    kinds = [(c.kind, c.amount, c.condition) for c in result.changes]
    assert kinds == [
        ("wp", 6, ""),
        ("condition_removed", 0, "angeschlagen"),
        ("condition_removed", 0, "zehrend"),
    ]
    assert [r.faces for r in result.rolls] == [(3, 4), (6,)]


def test_short_rest_failure_heals_nothing() -> None:
    result = short_rest(ScriptedRoller([9, 8]), [hero()], now=0)
    p = result.participant("arjun")
    assert p.regeneration is not None and not p.regeneration.success
    assert p.wp_healed == 0 and p.after == hero() and result.changes == ()


def test_short_rest_healer_qs_times_two() -> None:
    healer = hero("lea")
    wounded = hero("arjun", lp=5)
    # regeneration: lea 9+8 fail, arjun 9+8 fail; healing arjun: Heilkunde 13, 6+5 = 11 → QS 3
    result = short_rest(
        ScriptedRoller([9, 8, 9, 8, 6, 5]),
        [healer, wounded],
        now=0,
        healing=[Healing(healer, "arjun")],
    )
    p = result.participant("arjun")
    assert p.healer == "lea" and p.healing_probe is not None and p.healing_probe.qs == 3
    assert p.healing_lp == 6 and p.after.lp == 11 and p.healing_roll is None
    assert result.changes[-1].as_dict() == {
        "figure": "arjun",
        "kind": "lp",
        "amount": 6,
        "condition": "",
        "detail": "heilkunde",
    }


def test_healing_capped_at_maximum() -> None:
    healer = hero("lea")
    nearly = hero("arjun", lp=29)
    result = short_rest(
        ScriptedRoller([9, 8, 9, 8, 6, 5]),
        [healer, nearly],
        now=0,
        healing=[Healing(healer, "arjun")],
    )
    assert result.participant("arjun").healing_lp == 1
    assert result.participant("arjun").after.lp == 30


def test_short_rest_refused_rolls_nothing() -> None:
    result = short_rest(ScriptedRoller([]), [hero()], now=H, history=[RestRecord("kurz", 0)])
    assert not result.ok and result.error == "short_rest_too_soon" and result.rolls == ()
    assert result.record is None and result.participants == ()


def test_healing_validation() -> None:
    healer = hero("lea")
    spirit = hero("geist")
    bad = short_rest(ScriptedRoller([]), [healer], now=0, healing=[Healing(healer, "bob")])
    assert bad.error == "unknown_target" and dict(bad.params) == {"target": "bob"}
    companion = short_rest(
        ScriptedRoller([]),
        [healer, spirit],
        now=0,
        healing=[Healing(healer, "geist")],
        companions=["geist"],
    )
    assert companion.error == "companion_not_healable"
    twice = short_rest(
        ScriptedRoller([]),
        [healer],
        now=0,
        healing=[Healing(healer, "lea"), Healing(healer, "lea")],
    )
    assert twice.error == "already_healed"
    with pytest.raises(ValueError):
        short_rest(ScriptedRoller([]), [healer, healer], now=0)


def test_short_rest_modifiers_per_figure() -> None:
    result = short_rest(ScriptedRoller([6, 7, 2]), [hero()], now=0, modifiers={"arjun": 1})
    p = result.participant("arjun")
    assert p.regeneration is not None and p.regeneration.target == 13
    with pytest.raises(KeyError):
        result.participant("nobody")


# --- Lange Rast -------------------------------------------------------------------------


def test_long_rest_without_camp_probe_full_rules() -> None:
    # Unbeugsamkeit 12: 3 + 4 = 7 → QS 2 → 2W10 WP (5, 6); LP 1W10 (4) (003); +1 GP
    result = long_rest(
        ScriptedRoller([3, 4, 5, 6, 4]),
        [hero(conditions=(Zustand("angeschlagen"),))],
        now=22 * H,
    )
    assert result.ok and result.camp_probe is None and result.regeneration_modifier == 0
    p = result.participant("arjun")
    assert (p.wp_healed, p.lp_healed, p.gp_gained) == (11, 4, 1)
    assert p.after.wp == 16 and p.after.lp == 14 and p.after.gp == 2
    assert p.conditions_removed == ("angeschlagen",) and p.after.conditions == ()
    assert p.lp_roll is not None and p.lp_roll.faces == (4,)


def test_long_rest_summary_variant_lp_per_qs() -> None:
    result = long_rest(
        ScriptedRoller([3, 4, 5, 6, 4, 2]),
        [hero()],
        RuleOptions(long_rest_lp="summary"),
        now=22 * H,
    )
    p = result.participant("arjun")
    assert p.lp_roll is not None and p.lp_roll.faces == (4, 2) and p.lp_healed == 6


def test_long_rest_gp_capped() -> None:
    result = long_rest(ScriptedRoller([3, 4, 1, 1, 1]), [hero(gp=3)], now=0)
    assert result.participant("arjun").gp_gained == 0
    assert all(c.kind != "gp" for c in result.changes)


def test_camp_success_adds_lagermeister_qs() -> None:
    # camp: Reisekunde 11, 5 + 6 = 11 → QS 3 → +3 on regeneration (target 15)
    result = long_rest(ScriptedRoller([5, 6, 7, 7, 1, 1, 1, 1, 2]), [hero()], now=0, camp_value=11)
    assert result.camp_probe is not None and result.camp_probe.qs == 3
    assert result.regeneration_modifier == 3
    p = result.participant("arjun")
    assert p.regeneration is not None and p.regeneration.target == 15
    # 7 + 7 = 14: Volltreffer on 15 → QS of 15 = 3 → 3W10 WP
    assert p.regeneration.volltreffer and p.wp_roll is not None and p.wp_roll.faces == (1, 1, 1)


def test_camp_failure_minus_four() -> None:
    result = long_rest(ScriptedRoller([6, 7, 4, 5]), [hero()], now=0, camp_value=11)
    assert result.regeneration_modifier == -4
    p = result.participant("arjun")
    assert p.regeneration is not None and p.regeneration.target == 8
    assert not p.regeneration.success and p.wp_healed == 0


def test_camp_patzer_no_regeneration_morning_probe() -> None:
    # camp Patzer 10 + 10; morning Unbeugsamkeit: arjun 9 + 8 fails, lea 2 + 3 succeeds
    already = hero("bo", unbeugsamkeit=2, conditions=(Zustand("angeschlagen"),))
    result = long_rest(
        ScriptedRoller([10, 10, 9, 8, 2, 3, 9, 9]),
        [hero("arjun"), hero("lea"), already],
        now=0,
        camp_value=11,
    )
    assert result.camp_probe is not None and result.camp_probe.patzer
    arjun, lea, bo = result.participants
    assert arjun.regeneration is None and arjun.morning_probe is not None
    assert arjun.conditions_gained == ("angeschlagen",)
    assert arjun.after.has("angeschlagen") and arjun.wp_healed == 0
    assert lea.conditions_gained == () and not lea.after.has("angeschlagen")
    # already «angeschlagen»: reported, not added twice (escalation is the caller's call)
    assert bo.conditions_gained == ("angeschlagen",) and len(bo.after.conditions) == 1
    assert [c.figure for c in result.changes] == ["arjun"]


def test_long_rest_healer_qs_w10() -> None:
    healer = hero("lea")
    # regeneration both fail (9+8); healing arjun: 3 + 4 = 7 → QS 2 → 2W10 = 6 + 2
    result = long_rest(
        ScriptedRoller([9, 8, 9, 8, 3, 4, 6, 2]),
        [healer, hero("arjun")],
        now=0,
        healing=[Healing(healer, "arjun")],
    )
    p = result.participant("arjun")
    assert p.healing_roll is not None and p.healing_roll.faces == (6, 2)
    assert p.healing_lp == 8 and p.after.lp == 18


def test_long_rest_healer_failure_and_patzer_camp_still_heals() -> None:
    healer = hero("lea")
    result = long_rest(
        ScriptedRoller([10, 10, 2, 3, 2, 3, 9, 8]),
        [healer, hero("arjun")],
        now=0,
        camp_value=11,
        healing=[Healing(healer, "arjun")],
    )
    p = result.participant("arjun")
    assert p.healing_probe is not None and not p.healing_probe.success
    assert p.healing_roll is None and p.healing_lp == 0


def test_long_rest_refusals() -> None:
    assert long_rest(ScriptedRoller([]), [hero()], now=0, camp_site=False).error == "no_camp_site"
    again = long_rest(ScriptedRoller([]), [hero()], now=12 * H, history=[RestRecord("lang", 0)])
    assert again.error == "daily_limit"
    healer = hero("lea")
    bad = long_rest(ScriptedRoller([]), [healer], now=0, healing=[Healing(healer, "x")])
    assert bad.error == "unknown_target"


@settings(deadline=None)
@given(
    st.integers(-10, 30),
    st.integers(0, 20),
    st.lists(st.integers(1, 10), min_size=30, max_size=30),
    st.sampled_from(["full", "summary"]),
)
def test_long_rest_never_exceeds_maxima(lp: int, wp: int, faces: list[int], variant: str) -> None:
    fig = hero(lp=lp, wp=wp)
    result = long_rest(
        ScriptedRoller(faces),
        [fig],
        RuleOptions(long_rest_lp=variant),  # type: ignore[arg-type]
        now=0,
        healing=[Healing(fig, "arjun")],
    )
    after = result.participant("arjun").after
    assert after.lp <= max(lp, fig.lp_max) and after.wp <= fig.wp_max and after.gp <= fig.gp_max
    assert after.lp >= lp and after.wp >= wp
