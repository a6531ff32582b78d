"""POST …/encounters/{eid}/forecast: the odds before acting, and only what the caller may know."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select

from app.encounters.models import Encounter
from app.encounters.systems.hh_figures import to_figure
from app.events.models import CampaignEvent
from app.rules.hh.attack import AttackSpec, Weapon
from app.rules.hh.forecast import forecast_attack
from app.rules.hh.probe import evaluate_probe
from tests.conftest import ClientFactory, register
from tests.encounters.helpers import Fight, add_character, make_fight, script
from tests.encounters.test_hh import hh_fight


async def _forecast(
    client: httpx.AsyncClient, fight: Fight, status: int = 200, **body: Any
) -> dict[str, Any]:
    r = await client.post(f"{fight.base}/forecast", json=body)
    assert r.status_code == status, r.text
    return r.json()  # type: ignore[no-any-return]


async def _event_count(app: FastAPI) -> int:
    async with app.state.ctx.sessionmaker() as session:
        return int(await session.scalar(select(func.count()).select_from(CampaignEvent)) or 0)


async def test_gm_sees_the_whole_chain_and_nothing_changes(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await hh_fight(make_client, app)
    before = await fight.view(fight.gm)
    events = await _event_count(app)
    out = await _forecast(fight.gm, fight, actor_id=pids["Alrik"], target_id=pids["Goblin 1"])
    assert out["unknown"] == [] and out["assumptions"] == {"defender": "defends"}
    assert abs(sum(out["damage"].values()) - 1) < 1e-12
    assert 0 < out["p_target_dead"] <= out["p_target_down"] <= out["p_hit"] <= out["p_attack"]
    down = sum(p for v, p in out["damage"].items() if int(v) >= _goblin_lp(before))
    assert abs(out["p_target_down"] - down) < 1e-12
    # Nothing rolled, nothing written: same version, no event.
    assert (await fight.view(fight.gm))["version"] == before["version"]
    assert await _event_count(app) == events


def _goblin_lp(view: dict[str, Any]) -> int:
    row = next(p for p in view["participants"] if p["name"] == "Goblin 1")
    return int(str(row["points"]).split("/")[0])


async def test_forecast_equals_the_engine_on_the_fight_state(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """The API's numbers are the engine's forecast of the very figures in the fight."""
    fight, pids = await hh_fight(make_client, app)
    out = await _forecast(
        fight.gm, fight, actor_id=pids["Alrik"], target_id=pids["Goblin 1"],
        options={"modifier": -2}, assume="no_reaction",
    )  # fmt: skip
    async with app.state.ctx.sessionmaker() as session:
        encounter = await session.get(Encounter, fight.encounter_id)
    assert encounter is not None
    figures = encounter.state["figures"]
    alrik, goblin = to_figure(figures[pids["Alrik"]]), to_figure(figures[pids["Goblin 1"]])
    weapon = Weapon("Waffe", die=10, bonus=1)  # Alrik's W10+1 from his stat block
    spec = AttackSpec(weapon=weapon, modifier=-2, defend=False)
    exact = forecast_attack(alrik, goblin, spec)
    assert out["p_hit"] == float(exact.p_hit) and out["p_crit"] == float(exact.p_crit)
    assert out["damage"] == {str(v): float(p) for v, p in exact.damage.items()}
    # Undefended, a hit is the attack Probe alone: Angriff 12 − 2 with 2W10.
    faces = [(a, b) for a in range(1, 11) for b in range(1, 11)]
    wins = sum(evaluate_probe(f, 12, -2).success for f in faces)
    assert out["p_hit"] == out["p_attack"] == float(Fraction(wins, 100))


async def test_player_learns_no_monster_value_through_a_probability(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await hh_fight(make_client, app)
    alrik = fight.players[0]
    body: dict[str, Any] = {"actor_id": pids["Alrik"], "target_id": pids["Goblin 1"]}
    out = await _forecast(alrik, fight, **body)
    assert out["unknown"] and "RS" in out["unknown"] and "LP" in out["unknown"]
    hidden_keys = ("p_hit", "p_crit", "p_fumble", "damage", "expected_damage",
                   "p_target_down", "p_target_dead")  # fmt: skip
    assert all(out[k] is None for k in hidden_keys), out
    assert 0 < out["p_attack"] < 1
    # The GM changes the goblin's LP: the player's forecast stays the same to the byte.
    script(app)
    await fight.act(fight.gm, "adjust", participant=pids["Goblin 1"], delta=-3, reason="Falle")
    assert await _forecast(alrik, fight, **body) == out
    # Against a player character (an open sheet), the player sees the whole chain.
    party = await _forecast(alrik, fight, actor_id=pids["Alrik"], target_id=pids["Brida"])
    assert party["unknown"] == [] and party["p_hit"] is not None


async def test_who_may_ask(make_client: ClientFactory, app: FastAPI) -> None:
    fight, pids = await hh_fight(make_client, app)
    alrik, brida = fight.players
    # Only with one's own figure (the GM with any).
    await _forecast(brida, fight, 403, actor_id=pids["Alrik"], target_id=pids["Goblin 1"])
    await _forecast(fight.gm, fight, actor_id=pids["Goblin 1"], target_id=pids["Alrik"])
    # A hidden participant is not in the combat for a player.
    hidden = await fight.view(fight.gm)
    goblin2 = next(str(p["pid"]) for p in hidden["participants"] if p["name"] == "Goblin 2")
    r = await alrik.post(
        f"{fight.base}/forecast", json={"actor_id": pids["Alrik"], "target_id": goblin2}
    )
    assert r.status_code == 422 and "target_id" in r.text
    # Bad input is a 422, never a 500; a non-member learns nothing (404).
    await _forecast(alrik, fight, 422, actor_id=pids["Alrik"], target_id=pids["Alrik"])
    await _forecast(alrik, fight, 422, actor_id=pids["Alrik"])
    outsider = make_client()
    await register(outsider, "aussenseiter")
    r = await outsider.post(
        f"{fight.base}/forecast", json={"actor_id": pids["Alrik"], "target_id": pids["Brida"]}
    )
    assert r.status_code == 404


async def test_defender_assumption_changes_the_odds(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await hh_fight(make_client, app)
    body: dict[str, Any] = {"actor_id": pids["Goblin 1"], "target_id": pids["Alrik"]}
    defended = await _forecast(fight.gm, fight, **body)
    undefended = await _forecast(fight.gm, fight, **body, assume="no_reaction")
    assert defended["assumptions"]["defender"] == "defends"
    assert undefended["assumptions"]["defender"] == "no_reaction"
    assert undefended["p_hit"] > defended["p_hit"]


async def test_ds4_and_pf2e_forecasts(make_client: ClientFactory, app: FastAPI) -> None:
    for system, stats, sample in (
        ("ds4", {"lk": 20, "koerper": 8, "abwehr": 8, "initiative": 8, "schlagen": 12,
                 "ga": 0}, "Goblin"),
        ("pf2e", {"wahrnehmung": 6, "rk": 18, "tp": 20, "reflex": 5, "wille": 3,
                  "zaehigkeit": 7, "angriffe": [{"name": "Langschwert", "bonus": 9,
                                                 "schaden": "1W8+4"}]}, "Goblin-Krieger"),
    ):  # fmt: skip
        fight = await make_fight(make_client, app, system, prefix=system)
        await add_character(app, fight, "p0", "Held", stats, system)
        gm, player = fight.gm, fight.players[0]
        r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/bestiary/samples")
        entry = next(e for e in r.json() if e["name"] == sample)
        r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/encounters", json={"name": "K"})
        fight.encounter_id = r.json()["id"]
        await gm.post(f"{fight.base}/participants", json={"character_id": fight.characters["Held"]})
        await gm.post(f"{fight.base}/participants", json={"entry_id": entry["id"]})
        script(app, 10, 10, 10, 10)
        view = await fight.act(gm, "start")
        held, monster = fight.pid(view, "Held"), fight.pid(view, f"{sample} 1")
        gm_out = await _forecast(gm, fight, actor_id=held, target_id=monster)
        assert abs(sum(gm_out["damage"].values()) - 1) < 1e-12
        assert 0 < gm_out["p_target_down"] <= gm_out["p_hit"] < 1
        player_out = await _forecast(player, fight, actor_id=held, target_id=monster)
        assert player_out["p_hit"] is None and player_out["unknown"]
        if system == "pf2e":  # an attack roll against an unknown RK: not even its chance
            assert player_out["p_attack"] is None
        else:
            assert player_out["p_attack"] == gm_out["p_attack"]


async def test_attack_form_odds_with_and_without_javascript(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await hh_fight(make_client, app)
    url = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}/forecast"
    form = {"attacker": pids["Alrik"], "target": pids["Brida"], "modifier": "0", "version": "1"}
    alrik = fight.players[0]
    fragment = await alrik.post(url, data=form, headers={"HX-Request": "true"})
    assert fragment.status_code == 200 and "<html" not in fragment.text
    assert 'data-odds="hit"' in fragment.text
    full = await alrik.post(url, data=form)  # the "Show the odds" button without JavaScript
    assert full.status_code == 200 and "<html" in full.text and 'data-odds="hit"' in full.text
    refused = await alrik.post(url, data={**form, "attacker": pids["Brida"], "target": "x"})
    assert refused.status_code == 422 and 'role="alert"' in refused.text


async def test_gm_risk_estimate_of_a_prepared_and_a_running_encounter(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await make_fight(make_client, app, "hh", players=1, prefix="risk")
    gm, player = fight.gm, fight.players[0]
    await add_character(app, fight, "p0", "Alrik", ALRIK_STATS, "hh")
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/bestiary/samples")
    goblin = next(e for e in r.json() if e["name"] == "Goblin")
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/encounters", json={"name": "R"})
    fight.encounter_id = r.json()["id"]
    url = f"{fight.base}/risk"
    # One side only: nothing to simulate.
    await gm.post(f"{fight.base}/participants", json={"character_id": fight.characters["Alrik"]})
    r = await gm.post(url, json={"trials": 50})
    assert r.status_code == 422 and "trials" in r.json()["errors"]
    await gm.post(f"{fight.base}/participants", json={"entry_id": goblin["id"], "count": 2})
    first = await gm.post(url, json={"trials": 400, "seed": 11})
    assert first.status_code == 200, first.text
    out = first.json()
    assert out["trials"] == 400 and len(out["participants"]) == 3
    assert 0 <= out["p_wipe"] <= out["p_any_down"] <= 1 and out["rounds"]["mean"] >= 1
    assert 0 < out["stderr"]["p_any_down"] < 0.05 or out["p_any_down"] in (0, 1)
    # The same seed, the same answer; nothing written.
    again = await gm.post(url, json={"trials": 400, "seed": 11})
    assert again.json() == out
    # Players may not ask; limits are explicit.
    assert (await player.post(url, json={"trials": 10})).status_code in (403, 404)
    assert (await gm.post(url, json={"trials": 20_001})).status_code == 422
    # A running fight is simulated from its current state.
    script(app)
    await fight.act(gm, "start")
    running = await gm.post(url, json={"trials": 100, "seed": 3})
    assert running.status_code == 200 and running.json()["trials"] == 100


ALRIK_STATS = {
    "lp": 20, "rs": 1, "initiative": 10, "angriff": 12, "verteidigung": 11,
    "unbeugsamkeit": 10, "willenskraft": 9, "schaden_w": 10, "schaden_bonus": 1,
}  # fmt: skip


async def test_ds4_and_pf2e_risk_estimates(make_client: ClientFactory, app: FastAPI) -> None:
    """POST …/risk for DS4 and PF2e: the same shape, a seed repeats, PF2e adds its XP budget."""
    for system, stats, sample in (
        ("ds4", {"lk": 20, "koerper": 8, "abwehr": 8, "initiative": 8, "schlagen": 12,
                 "ga": 0}, "Goblin"),
        ("pf2e", {"wahrnehmung": 6, "rk": 18, "tp": 20, "reflex": 5, "wille": 3,
                  "zaehigkeit": 7, "angriffe": [{"name": "Langschwert", "bonus": 9,
                                                 "schaden": "1W8+4"}]}, "Goblin-Krieger"),
    ):  # fmt: skip
        fight = await make_fight(make_client, app, system, prefix=f"risk{system}")
        await add_character(app, fight, "p0", "Held", stats, system)
        gm, player = fight.gm, fight.players[0]
        r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/bestiary/samples")
        entry = next(e for e in r.json() if e["name"] == sample)
        r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/encounters", json={"name": "K"})
        fight.encounter_id = r.json()["id"]
        await gm.post(f"{fight.base}/participants", json={"character_id": fight.characters["Held"]})
        await gm.post(f"{fight.base}/participants", json={"entry_id": entry["id"], "count": 2})
        url = f"{fight.base}/risk"
        first = await gm.post(url, json={"trials": 300, "seed": 5})
        assert first.status_code == 200, first.text
        out = first.json()
        assert out["trials"] == 300 and len(out["participants"]) == 3
        assert 0 <= out["p_wipe"] <= out["p_any_down"] <= 1 and out["rounds"]["mean"] >= 1
        assert set(out["stderr"]["participants"]) == set(out["participants"])
        assert (await gm.post(url, json={"trials": 300, "seed": 5})).json() == out
        assert (await player.post(url, json={"trials": 10})).status_code in (403, 404)
        if system == "pf2e":  # two level −1 goblins against one level 1 hero: 2 × 20 XP
            assert out["xp_budget"]["xp"] == 40 and out["xp_budget"]["rating"] == "extreme"
            assert out["xp_budget"]["party_level"] == 1 and out["xp_budget"]["party_size"] == 1
        else:
            assert "xp_budget" not in out
        script(app, 3, 17, 9, 12, 5, 14, 8, 2)
        await fight.act(gm, "start")
        running = await gm.post(url, json={"trials": 50, "seed": 3})
        assert running.status_code == 200 and running.json()["trials"] == 50


async def test_pf2e_risk_counts_dying_and_the_sheets_todgeweiht(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """A PF2e hero at 0 TP is Sterbend in the estimate: its Genesungswürfe can kill it, and
    with Todgeweiht 3 on its sheet every fall kills it (dead at Sterbend 1)."""
    fight = await make_fight(make_client, app, "pf2e", prefix="dying")
    gm, player = fight.gm, fight.players[0]
    api = f"/api/v1/campaigns/{fight.campaign_id}"
    goblin = next(e for e in (await gm.post(f"{api}/bestiary/samples")).json())
    risks: dict[str, dict[str, float]] = {}
    for name, doomed in (("Kyra", 0), ("Merisiel", 3)):
        r = await player.post(f"{api}/characters", json={"name": name, "data": {"doomed": doomed}})
        assert r.status_code == 201, r.text
        character = r.json()["id"]
        r = await gm.post(f"{api}/encounters", json={"name": f"Gasse {name}"})
        fight.encounter_id = r.json()["id"]
        await gm.post(f"{fight.base}/participants", json={"character_id": character})
        await gm.post(f"{fight.base}/participants", json={"entry_id": goblin["id"], "count": 6})
        out = (await gm.post(f"{fight.base}/risk", json={"trials": 400, "seed": 2})).json()
        hero = out["participants"][str(fight.pid(await fight.view(gm), name))]
        risks[name] = hero
        assert out["p_any_dead"] == hero["p_dead"]
    assert 0 < risks["Kyra"]["p_dead"] < risks["Kyra"]["p_down"], risks
    assert risks["Merisiel"]["p_dead"] == risks["Merisiel"]["p_down"] > 0.5
