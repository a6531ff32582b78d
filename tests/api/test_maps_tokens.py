"""Tokens told apart (issue 28): every viewer of the board learns each token's side and
duplicate number and whose turn it is; its health only as they may know it — the GM all of
it, a player the exact points of the group's characters and of a monster only the status
word (never its LP); a hidden monster's token reaches no player at all."""

from __future__ import annotations

import io
from typing import Any

from fastapi import FastAPI
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from tests.api.test_maps import ALRIK, base, get, new_scene
from tests.conftest import ClientFactory
from tests.encounters.helpers import Fight, add_character, make_fight, script


async def _goblin_fight(make_client: ClientFactory, app: FastAPI) -> tuple[Fight, str]:
    """Alrik (the player's) against two Goblins and a hidden third, placed on a linked
    scene; the second Goblin has lost 3 LP, Alrik 5."""
    fight = await make_fight(make_client, app, "hh", players=1, prefix="marks")
    gm = fight.gm
    await add_character(app, fight, "p0", "Alrik", ALRIK, "hh")
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/bestiary/samples")
    goblin = next(e for e in r.json() if e["name"] == "Goblin")
    r = await gm.post(f"/api/v1/campaigns/{fight.campaign_id}/encounters", json={"name": "Gang"})
    fight.encounter_id = r.json()["id"]
    for body in (
        {"character_id": fight.characters["Alrik"]},
        {"entry_id": goblin["id"], "count": 2},
        {"entry_id": goblin["id"], "hidden": True},
    ):
        r = await gm.post(f"{fight.base}/participants", json=body)
        assert r.status_code == 201, r.text
    script(app)
    view = await fight.act(gm, "start")
    for name, delta in (("Goblin 2", -3), ("Alrik", -5)):
        pid = fight.pid(view, name)
        await fight.act(gm, "adjust", participant=pid, delta=delta, reason="Falle")
    scene = await new_scene(gm, fight.campaign_id, 12, 6, encounter_id=fight.encounter_id)
    url = f"{base(fight.campaign_id)}/{scene['id']}"
    r = await gm.post(f"{url}/place", json={})
    assert r.status_code == 200, r.text
    return fight, url


def _tagged_png() -> bytes:
    """A PNG with a text chunk (metadata the re-encoding strips)."""
    info = PngInfo()
    info.add_text("Author", "Gobbo")
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (120, 30, 30)).save(out, format="PNG", pnginfo=info)
    assert b"Gobbo" in out.getvalue()
    return out.getvalue()


def _by_label(scene: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["label"]: t for t in scene["tokens"]}


async def test_the_scene_tells_sides_and_numbers_and_health_as_each_may_know_it(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, url = await _goblin_fight(make_client, app)
    gm, player = fight.gm, fight.players[0]
    acting = str((await fight.view(gm))["turn"]["pid"])

    seen = _by_label(await get(gm, url))
    assert set(seen) == {"Alrik", "Goblin 1", "Goblin 2", "Goblin 3"}
    assert [seen[n]["side"] for n in ("Alrik", "Goblin 1", "Goblin 2")] == [
        "abenteurer", "gegner", "gegner",
    ]  # fmt: skip
    assert [seen[n]["number"] for n in ("Alrik", "Goblin 1", "Goblin 2")] == [None, 1, 2]
    hurt = seen["Goblin 2"]["health"]
    lp_max = int(hurt["points"].split("/")[1].split()[0])
    assert hurt["points"] == f"{lp_max - 3}/{lp_max} LP"
    assert 0 < hurt["share"] < 1
    assert [t["label"] for t in seen.values() if t["active"]] == [
        next(t["label"] for t in seen.values() if str(t["participant_id"]) == acting)
    ]

    r = await player.get(url)
    assert r.status_code == 200, r.text
    mine = _by_label(r.json())
    assert set(mine) == {"Alrik", "Goblin 1", "Goblin 2"}  # the hidden third is not sent
    for name in ("Goblin 1", "Goblin 2"):
        known = mine[name]["health"]
        assert mine[name]["side"] == "gegner" and known["label"]
        assert known["points"] is None and known["share"] is None
    assert mine["Goblin 2"]["number"] == 2
    assert mine["Goblin 2"]["health"]["status"] == seen["Goblin 2"]["health"]["status"]
    assert f"/{lp_max} LP" not in r.text  # no Goblin's LP anywhere in the answer
    assert mine["Alrik"]["health"]["points"] == "15/20 LP"
    assert {t["label"] for t in mine.values() if t["active"]} <= {
        t["label"] for t in seen.values() if t["active"]
    }


async def test_the_token_list_names_side_number_and_status_for_a_player(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, url = await _goblin_fight(make_client, app)
    player = fight.players[0]
    page_url = url.replace("/api/v1", "")
    r = await player.get(page_url)
    assert r.status_code == 200, r.text
    page = r.text
    assert 'data-side="gegner" data-number="2"' in page
    assert 'data-side="abenteurer"' in page
    assert "Goblin 3" not in page
    items = page[page.index('id="map-list"') :]
    assert 'Goblin 2</strong> <span class="map-side-word">(Gegner)</span>' in items
    assert (
        "15/20 LP" in items and " LP" not in items.split("Goblin 1</strong>")[1].split("</li>")[0]
    )


async def test_a_portrait_is_reencoded_and_served_only_to_who_sees_the_token(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, url = await _goblin_fight(make_client, app)
    gm, player = fight.gm, fight.players[0]
    tokens = _by_label(await get(gm, url))
    second, hidden = tokens["Goblin 2"]["id"], tokens["Goblin 3"]["id"]
    face = _tagged_png()
    for tid in (second, hidden):
        r = await gm.put(
            f"{url}/tokens/{tid}/portrait", files={"file": ("g.png", face, "image/png")}
        )
        assert r.status_code == 200, r.text
    r = await gm.put(
        f"{url}/tokens/{second}/portrait", files={"file": ("g.png", b"no image", "image/png")}
    )
    assert r.status_code == 422 and "file" in r.json()["errors"], r.text
    r = await player.put(
        f"{url}/tokens/{second}/portrait", files={"file": ("g.png", face, "image/png")}
    )
    assert r.status_code == 403, r.text

    shown = _by_label(await get(player, url))["Goblin 2"]["portrait_url"]
    assert shown and shown == _by_label(await get(gm, url))["Goblin 2"]["portrait_url"]
    served = await player.get(shown)
    assert served.status_code == 200 and served.headers["content-type"] == "image/png"
    assert b"Gobbo" not in served.content  # re-encoded: the metadata is gone
    again = await player.get(shown, headers={"If-None-Match": served.headers["etag"]})
    assert again.status_code == 304
    # The hidden Goblin's portrait: the GM's, a 404 for the player (as the token).
    assert (await gm.get(f"{url}/tokens/{hidden}/portrait")).status_code == 200
    assert (await player.get(f"{url}/tokens/{hidden}/portrait")).status_code == 404
    page = (await player.get(url.replace("/api/v1", ""))).text
    assert f'href="{shown}"' in page.replace("&amp;", "&")

    r = await gm.delete(f"{url}/tokens/{second}/portrait")
    assert r.status_code == 200 and r.json()["portrait_url"] is None, r.text
    assert (await player.get(f"{url}/tokens/{second}/portrait")).status_code == 404
    # The scene page's form (without JavaScript): a refusal at its field, then a portrait.
    form = url.replace("/api/v1", "") + "/portrait"
    junk = await gm.post(form, data={"token_id": str(second)}, files={"file": ("g.png", b"xx")})
    assert junk.status_code == 422 and "portrait-error" in junk.text
    up = await gm.post(form, data={"token_id": str(second)}, files={"file": ("g.png", face)})
    assert up.status_code == 303, up.text
    assert _by_label(await get(player, url))["Goblin 2"]["portrait_url"]
