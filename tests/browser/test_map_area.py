"""Areas on the map (issue 27): the GM places an area on a linked fight from the combat
page's form, and a player's combat page shows its log lines live, one per figure in it."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.flows import wait_live
from tests.browser.test_map import until_turn
from tests.browser.test_map_attack import Setup, setup
from tests.browser.world import ok

__all__ = ["setup"]


def test_the_gm_places_an_area_and_the_player_sees_its_lines_live(setup: Setup) -> None:
    s = setup
    # The fight is linked to the scene: Brida at (0, 2), the goblins at (5, 2) and (9, 2).
    ok(s.gm.request.patch(s.scene_api, data={"encounter_id": int(s.encounter_api.split("/")[-1])}))
    where = {"Brida": (0, 2), "Goblin 1": (9, 2), "Goblin 2": (5, 2)}
    for name, (x, y) in where.items():
        ok(s.gm.request.post(
            f"{s.scene_api}/tokens", data={"x": x, "y": y, "participant_id": s.pids[name]}
        ))  # fmt: skip
    until_turn(s.gm.request, s.encounter_api, "Goblin 1")
    page_url = s.encounter_api.replace("/api/v1", "")
    bob = s.bob.new_page()
    bob.goto(page_url)
    wait_live(bob)
    gm = s.gm.new_page()
    gm.goto(page_url)
    gm.get_by_text("Fläche auf dem Plan").click()
    gm.get_by_label("Quelle", exact=True).select_option("free")
    gm.get_by_label("Form", exact=True).select_option("line")
    gm.get_by_label("Ursprung (Spalte,Zeile)").fill("6,2")
    gm.get_by_label("Radius oder Länge (Schritt)").fill("6")
    gm.get_by_label("Richtung (Spalte,Zeile; Kegel und Linie)").fill("0,2")
    gm.get_by_role("button", name="Fläche legen").click()
    # Brida and Goblin 2 stand on the line westwards; Goblin 1 behind its origin does not.
    log = bob.locator("#combat-log")
    expect(log).to_contain_text("Eine Linie wird gelegt: 2 Figuren darin.")
    expect(log).to_contain_text("Brida ist in der Fläche.")
    expect(log).to_contain_text("Goblin 2 ist in der Fläche.")
    expect(log).not_to_contain_text("Goblin 1 ist in der Fläche.")
    area = ok(s.gm.request.get(s.encounter_api))["area"]
    assert {t["name"] for t in area["targets"]} == {"Brida", "Goblin 2"}, area
