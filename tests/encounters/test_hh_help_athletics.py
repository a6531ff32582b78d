"""H&H in play (issue 13): Helfen in a fight (a GM check and an attack; the helper's QS is
a part of the breakdown and changes the result), and Sprünge/Stürze as GM checks whose
damage reaches the hero's sheet."""

from __future__ import annotations

from fastapi import FastAPI

from tests.api.helpers import make_table
from tests.conftest import ClientFactory
from tests.encounters.helpers import script
from tests.encounters.test_hh import hh_fight
from tests.encounters.test_hh_one_figure import wounded_hero


async def _log(fight_base: str, client: object) -> str:
    r = await client.get(f"{fight_base}/log")  # type: ignore[attr-defined]
    assert r.status_code == 200, r.text
    return str(r.text)


async def test_helfen_turns_a_failed_gm_check_into_a_success(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await hh_fight(make_client, app)
    gm = fight.gm
    # Without help: Willenskraft 9 against 5 + 6 = 11 fails.
    script(app, 5, 6)
    await fight.act(gm, "check", participant=pids["Alrik"], skill="Willenskraft")
    assert "Willenskraft-Probe – Misserfolg" in await _log(fight.base, gm)
    # Brida helps: 3 + 4 = 7 ≤ 9 → QS 2; Alrik's 5 + 6 = 11 ≤ 9 + 2 succeeds.
    script(app, 3, 4, 5, 6)
    view = await fight.act(
        gm, "check", participant=pids["Alrik"], skill="Willenskraft", helpers=[pids["Brida"]]
    )
    log = await _log(fight.base, gm)
    assert "Willenskraft 9 + SL 0" not in log
    assert "Willenskraft 9 + Helfen 2 (Brida QS 2) = 11; 2W10: 5 + 6 = 11 ≤ 11" in log
    assert "Helfen: Brida (Willenskraft): 2W10: 3 + 4" in log
    brida = next(p for p in view["participants"] if p["name"] == "Brida")
    assert "Reaktionen 1/2" in brida["extra"]  # helping cost her a Reaktion


async def test_who_cannot_help(make_client: ClientFactory, app: FastAPI) -> None:
    fight, pids = await hh_fight(make_client, app)
    gm = fight.gm
    script(app)
    r = await fight.act(
        gm, "check", 422, participant=pids["Alrik"], skill="Willenskraft",
        helpers=[pids["Goblin 1"]],
    )  # fmt: skip
    assert "nicht auf derselben Seite" in str(r)
    r = await fight.act(
        gm, "check", 422, participant=pids["Alrik"], skill="Willenskraft", helpers=[pids["Alrik"]]
    )
    assert "niemand hilft sich selbst" in str(r)
    # Two helps spend both of Brida's Reaktionen; the third is refused.
    script(app, 1, 2, 1, 2, 1, 2, 1, 2)
    for _ in range(2):
        await fight.act(
            gm, "check", participant=pids["Alrik"], skill="Willenskraft", helpers=[pids["Brida"]]
        )
    r = await fight.act(
        gm, "check", 422, participant=pids["Alrik"], skill="Willenskraft", helpers=[pids["Brida"]]
    )
    assert "keine Reaktion mehr" in str(r)


async def test_helfen_on_an_attack_makes_it_hit(make_client: ClientFactory, app: FastAPI) -> None:
    fight, pids = await hh_fight(make_client, app)
    alrik = fight.players[0]
    # Brida helps with Kampfkunst (Angriff) 12: 2 + 3 = 5 → QS 1. Alrik rolls 7 + 6 = 13:
    # a miss at 12, a hit at 12 + Helfen 1 = 13: the goblin is asked to defend.
    script(app, 2, 3, 7, 6)
    view = await fight.act(alrik, "attack", target=pids["Goblin 1"], helpers=[pids["Brida"]])
    assert view["pending"]["target"] == "Goblin 1"
    log = await _log(fight.base, fight.gm)
    assert "+ Helfen 1 (Brida QS 1) = 13; 2W10: 7 + 6 = 13 ≤ 13" in log


async def test_a_fall_does_damage_that_reaches_the_sheet(
    make_client: ClientFactory, app: FastAPI
) -> None:
    hero = await wounded_hero(make_client, app)
    gm = hero.table.gm
    # Arjun's own step: 6 Schritt → 2W10 brechend; the catching Probe 9 + 8 = 17 fails;
    # 6 + 5 − RS 0 (Lederrüstung 1, halved) = 11: LP 10 → −1, «sterbend».
    script(app, 9, 8, 6, 5)
    await hero.act(gm, "fall", participant=hero.pids["Arjun"], distance=6)
    log = await hero.log()
    assert "2W10: 6 + 5 − RS 0 je Würfel = 11 Schaden" in log
    assert "Sturz abfangen: Geschick (Akrobatik) 5" in log
    row = await hero.row()
    assert row["points"] == "-1/21 LP" and "sterbend" in row["conditions"]
    sheet = await hero.sheet()
    assert sheet["data"]["lp"] == -1 and "sterbend" in sheet["conditions"]


async def test_a_jump_check_reaches_qs_times_two(make_client: ClientFactory, app: FastAPI) -> None:
    hero = await wounded_hero(make_client, app)
    gm = hero.table.gm
    # 8 Schritt far needs QS 4: Geschick 5 − angeschlagen 2 + SL 13 = 16; 9 + 7 = 16 → QS 4.
    script(app, 9, 7)
    await hero.act(gm, "jump", participant=hero.pids["Arjun"], distance=8, modifier=13)
    log = await hero.log()
    assert "Sprung 8 Schritt weit: Geschick (Akrobatik) 5 − angeschlagen 2 + SL 13 = 16" in log
    assert "→ 8 Schritt, geschafft" in log
    # 2 Schritt high is within half the Bewegung: no Probe, no dice.
    script(app)
    await hero.act(gm, "jump", participant=hero.pids["Arjun"], distance=2, direction="vertical")
    assert "Sprung 2 Schritt hoch: ohne Probe" in await hero.log()
    await hero.act(gm, "jump", 422, participant=hero.pids["Arjun"], distance=500)
    # Players do not roll the GM's checks.
    await hero.act(hero.table.player, "jump", 403, participant=hero.pids["Arjun"], distance=2)


async def test_a_sheet_roll_helped_by_another_character(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """The sheet's roll dialog names a helper: its value comes from its own sheet."""
    t = await make_table(make_client, app, "hh")
    api = f"/api/v1/campaigns/{t.campaign_id}"
    ids = {}
    for name, value in (("Arjun", 10), ("Brida", 14)):
        r = await t.player.post(f"{api}/characters", json={"name": name})
        ids[name] = r.json()["id"]
        r = await t.player.patch(
            f"{api}/characters/{ids[name]}",
            json={"version": r.json()["version"], "changes": {"skills.Spürsinn": value}},
        )
        assert r.status_code == 200, r.text
    url = f"{api}/characters/{ids['Arjun']}/roll"
    # Brida's Spürsinn 14 − SL 2 = 12: 6 + 6 = 12 → Volltreffer, QS 3. Arjun 10 − 2 + 3 = 11.
    script(app, 6, 6, 5, 6)
    r = await t.player.post(
        url, json={"target": "skill:Spürsinn", "modifier": -2, "helper_id": ids["Brida"]}
    )
    assert r.status_code == 201, r.text
    summary = r.json()["summary"]
    assert summary.startswith("Helfen: Brida (Spürsinn): Spürsinn 14 − Modifikator 2 = 12; ")
    assert "Spürsinn 10 − Modifikator 2 + Helfen 3 (Brida QS 3) = 11: 2W10: 5 + 6 = 11" in summary
    assert [d["faces"] for d in r.json()["dice"]] == [[6, 6], [5, 6]]
    r = await t.player.post(url, json={"target": "skill:Spürsinn", "helper_id": ids["Arjun"]})
    assert r.status_code == 422 and "helper_id" in r.text
    # The HTML dialog lists the helper.
    page = await t.player.get(
        f"/campaigns/{t.campaign_id}/characters/{ids['Arjun']}/roll?target=skill:Spürsinn"
    )
    assert 'name="helper_id"' in page.text and ">Brida</option>" in page.text


async def test_the_gm_forms_post_helpers_a_jump_and_a_fall(
    make_client: ClientFactory, app: FastAPI
) -> None:
    """The HTML forms (no JavaScript): the helpers' checkboxes, the jump and fall buttons."""
    fight, pids = await hh_fight(make_client, app)
    gm = fight.gm
    page_url = f"/campaigns/{fight.campaign_id}/encounters/{fight.encounter_id}"
    page = (await gm.get(page_url)).text
    assert f'name="helpers" value="{pids["Brida"]}"' in page
    assert f'formaction="{page_url}/fall"' in page
    script(app, 3, 4, 5, 6)
    form = {"participant": pids["Alrik"], "skill": "Willenskraft", "modifier": "0",
            "helpers": [pids["Brida"]]}  # fmt: skip
    r = await gm.post(f"{page_url}/check", data=form)
    assert r.status_code in (200, 303), r.text
    assert "Helfen 2 (Brida QS 2)" in await _log(fight.base, gm)
    script(app, 5, 5)  # Alrik (Bewegung 8): 5 Schritt far, Geschick (Akrobatik) from nothing
    r = await gm.post(
        f"{page_url}/jump", data={"participant": pids["Alrik"], "distance": "5", "modifier": "0"}
    )
    assert r.status_code in (200, 303), r.text
    assert "Alrik springt 5 Schritt und springt zu kurz." in await _log(fight.base, gm)
    r = await gm.post(f"{page_url}/fall", data={"participant": pids["Alrik"], "distance": "x"})
    assert r.status_code == 422 or "Enter a number." in r.text
