""" "Risiko abschätzen" on the encounter prep page: the GM's form, with and without HTMX."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, add_character, make_fight

HERO: dict[str, dict[str, Any]] = {
    "hh": {"lp": 20, "rs": 1, "initiative": 10, "angriff": 12, "verteidigung": 11},
    "pf2e": {"wahrnehmung": 6, "rk": 18, "tp": 20, "reflex": 5, "wille": 3, "zaehigkeit": 7,
             "angriffe": [{"name": "Langschwert", "bonus": 9, "schaden": "1W8+4"}]},
}  # fmt: skip
SAMPLE = {"hh": "Goblin", "pf2e": "Goblin-Krieger"}


async def _prepared(make_client: ClientFactory, app: FastAPI, system: str) -> Fight:
    fight = await make_fight(make_client, app, system, prefix=f"riskpage{system}")
    await add_character(app, fight, "p0", "Alrik", HERO[system], system)
    gm = fight.gm
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/bestiary/samples")
    entry = next(e for e in r.json() if e["name"] == SAMPLE[system])
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/encounters", json={"name": "R"})
    fight.encounter_id = r.json()["id"]
    await gm.post(f"{fight.base}/participants", json={"character_id": fight.characters["Alrik"]})
    await gm.post(f"{fight.base}/participants", json={"entry_id": entry["id"], "count": 2})
    return fight


def _page(fight: Fight) -> str:
    return f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"


async def test_gm_estimates_the_risk_without_and_with_htmx(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await _prepared(make_client, app, "hh")
    gm, player = fight.gm, fight.players[0]
    page = await gm.get(_page(fight))
    assert 'id="risk-button"' in page.text and "Risiko abschätzen" in page.text
    assert 'id="risk-button"' not in (await player.get(_page(fight))).text
    form: dict[str, Any] = {"trials": "300", "seed": "9"}
    full = await gm.post(f"{_page(fight)}/risk", data=form)  # without JavaScript
    assert full.status_code == 200 and "<html" in full.text
    assert 'data-risk="wipe"' in full.text and "300 simulierte Kämpfe" in full.text
    assert full.text.count("data-risk-pid=") == 3 and "±" in full.text
    fragment = await gm.post(f"{_page(fight)}/risk", data=form, headers={"HX-Request": "true"})
    assert fragment.status_code == 200 and "<html" not in fragment.text
    assert fragment.text.strip().startswith('<section id="risk"')
    # The same seed, the same figures; the fragment is the page's block.
    assert _between(fragment.text, 'id="risk-result"', "</section>") in full.text
    assert (await player.post(f"{_page(fight)}/risk", data=form)).status_code in (403, 404)


async def test_bad_numbers_are_refused_at_the_field(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await _prepared(make_client, app, "hh")
    url = f"{_page(fight)}/risk"
    for data, field in (({"trials": "viele"}, "trials"), ({"trials": "0"}, "trials"),
                        ({"trials": "1"}, "trials"), ({"trials": "20001"}, "trials"),
                        ({"seed": "x"}, "seed"), ({"seed": "-1"}, "seed")):  # fmt: skip
        r = await fight.gm.post(url, data=data, headers={"HX-Request": "true"})
        assert r.status_code == 422, data
        assert f'id="risk-{field}-error"' in r.text and 'aria-invalid="true"' in r.text


async def test_pf2e_shows_the_xp_budget_beside_the_risk(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight = await _prepared(make_client, app, "pf2e")
    r = await fight.gm.post(f"{_page(fight)}/risk", data={"trials": "200", "seed": "1"})
    assert r.status_code == 200
    assert 'data-risk="xp"' in r.text and "40 EP: Extrem" in r.text
    assert "Gruppenstufe 1, Gruppengröße 1" in r.text


def _between(text: str, start: str, end: str) -> str:
    i = text.index(start)
    return text[i : text.index(end, i)]
