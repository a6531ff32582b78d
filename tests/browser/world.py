"""A table with something on every main page, built through the JSON API for the layout,
accessibility and phone tests: a GM and a player, one campaign per rule system with a
character carrying items, and a running H&H fight."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import APIRequestContext, Browser, BrowserContext

from tests.browser.conftest import DESKTOP
from tests.browser.flows import unique
from tests.conftest import PASSWORD

SYSTEMS = ("hh", "ds4", "pf2e")


@dataclass
class World:
    gm: BrowserContext
    player: BrowserContext
    campaigns: dict[str, int] = field(default_factory=dict)
    sheets: dict[str, str] = field(default_factory=dict)
    encounter: str = ""
    encounter_api: str = ""
    scene: str = ""

    @property
    def hh(self) -> int:
        return self.campaigns["hh"]

    def gm_pages(self) -> dict[str, str]:
        """Name → path of every main page the GM opens."""
        c = f"/campaigns/{self.hh}"
        return {
            "campaigns": "/campaigns",
            "campaign": c,
            "characters": f"{c}/characters",
            "library": f"{c}/items",
            "bestiary": f"{c}/bestiary",
            "encounters": f"{c}/encounters",
            "combat-gm": self.encounter,
            "settings": f"{c}/settings",
            "sessions": f"{c}/sessions",
            "scenes": f"{c}/scenes",
            "scene-gm": self.scene,
        }

    def player_pages(self) -> dict[str, str]:
        """Name → path of every main page the player opens (the sheets carry the inventory)."""
        pages = {f"sheet-{system}": path for system, path in self.sheets.items()}
        pages["history-hh"] = self.sheets["hh"] + "/history"
        pages["combat-player"] = self.encounter
        pages["sessions-player"] = f"/campaigns/{self.hh}/sessions"
        pages["scene-player"] = self.scene
        return pages


def ok(response: Any, *statuses: int) -> Any:
    assert response.status in (statuses or (200, 201)), (response.status, response.text())
    return response.json() if response.status != 204 else None


def _undo_own_fumble(gm: APIRequestContext, api: str, pid: str) -> None:
    """A fumbled attack hurts the attacker (hh.md §6: the attack Patzer table), and a second
    «angeschlagen» escalates to «benommen», which forbids the next try. The GM takes the
    figure's conditions and wounds back (logged overrides), so the retries test the hit."""
    view = ok(gm.get(api))
    figure = next(p for p in view["participants"] if str(p["pid"]) == pid)
    for condition in figure["conditions"]:
        ok(gm.post(f"{api}/actions/uncondition", data={"participant": pid, "condition": condition}))
    now, most = (int(n) for n in figure["points"].split()[0].split("/"))
    if now < most:
        body = {"participant": pid, "delta": most - now, "reason": "Patzer zurück"}
        ok(gm.post(f"{api}/actions/adjust", data=body))


def _free_jammed_weapon(gm: APIRequestContext, api: str, pid: str) -> None:
    """A fumble can jam the weapon («Waffe blockiert»): the figure frees it with its Handlung
    and a Probe, the GM granting each try."""
    for _ in range(40):
        view = ok(gm.get(api))
        figure = next(p for p in view["participants"] if str(p["pid"]) == pid)
        if "Waffe blockiert" not in figure["extra"]:
            return
        ok(gm.post(f"{api}/actions/grant_action", data={"participant": pid}))
        ok(gm.post(f"{api}/actions/free_weapon", data={}))
    raise AssertionError("the weapon stayed jammed")


def attack_until_hit(gm: APIRequestContext, api: str, target: str) -> dict[str, Any]:
    """The H&H figure whose turn it is attacks ``target`` until its attack roll succeeds (the
    GM grants each retry, logged as an override); the fight's view with the open prompt."""
    for _ in range(40):
        view: dict[str, Any] = ok(gm.post(f"{api}/actions/attack", data={"target": target}))
        if view.get("pending"):
            return view
        attacker = str(view["turn"]["pid"])
        _undo_own_fumble(gm, api, attacker)
        _free_jammed_weapon(gm, api, attacker)
        ok(gm.post(f"{api}/actions/grant_action", data={"participant": attacker}))
    raise AssertionError("the attacker never hit")


def account(browser: Browser, base_url: str, name: str) -> BrowserContext:
    """A browser context logged in as a fresh user (cookie from the API login)."""
    context = browser.new_context(base_url=base_url, viewport=DESKTOP)
    username = unique(name)
    body = {"username": username, "password": PASSWORD}
    ok(context.request.post("/api/v1/auth/register", data=body))
    ok(context.request.post("/api/v1/auth/login", data=body))
    return context


def gm_and_player(
    browser: Browser, base_url: str, prefix: str, system: str
) -> tuple[BrowserContext, BrowserContext, int]:
    """A GM and a player, logged in, in a new campaign of ``system`` (its id)."""
    gm, player = account(browser, base_url, f"{prefix}_sl"), account(browser, base_url, prefix)
    return gm, player, _campaign(gm.request, player.request, system)


def _campaign(gm: APIRequestContext, player: APIRequestContext, system: str) -> int:
    created = ok(gm.post("/api/v1/campaigns", data={"name": f"Runde {system}", "system": system}))
    ok(player.post("/api/v1/campaigns/join", data={"invite_code": created["invite_code"]}))
    return int(created["id"])


def _character(player: APIRequestContext, campaign_id: int, name: str) -> int:
    base = f"/api/v1/campaigns/{campaign_id}"
    character = ok(player.post(f"{base}/characters", data={"name": name}))
    starters = ok(player.get(f"{base}/starter-items"))
    items = f"{base}/characters/{character['id']}/items"
    for starter in starters[:3]:
        ok(player.post(items, data={"starter": starter["key"]}))
    return int(character["id"])


def _running_fight(gm: APIRequestContext, campaign_id: int, character_id: int) -> str:
    base = f"/api/v1/campaigns/{campaign_id}"
    goblin = next(e for e in ok(gm.post(f"{base}/bestiary/samples")) if e["name"] == "Goblin")
    encounter = ok(gm.post(f"{base}/encounters", data={"name": "Am Pass"}))
    api = f"{base}/encounters/{encounter['id']}"
    ok(gm.post(f"{api}/participants", data={"character_id": character_id}))
    ok(gm.post(f"{api}/participants", data={"entry_id": goblin["id"], "count": 2}))
    ok(gm.post(f"{api}/actions/start", data={}))
    return api


def build_world(browser: Browser, base_url: str) -> World:
    world = World(account(browser, base_url, "sl"), account(browser, base_url, "held"))
    gm, player = world.gm.request, world.player.request
    for system in SYSTEMS:
        campaign_id = _campaign(gm, player, system)
        world.campaigns[system] = campaign_id
        character_id = _character(player, campaign_id, f"Alrik {system}")
        _character(player, campaign_id, f"Brida {system}")  # someone to give items to
        world.sheets[system] = f"/campaigns/{campaign_id}/characters/{character_id}"
    hh_character = int(world.sheets["hh"].rsplit("/", 1)[1])
    world.encounter_api = _running_fight(gm, world.hh, hh_character)
    world.encounter = world.encounter_api.removeprefix("/api/v1")
    world.scene = _scene(gm, world.hh)
    return world


def _scene(gm: APIRequestContext, campaign_id: int) -> str:
    """A battle map with walls, terrain and two tokens (not linked to the fight)."""
    api = f"/api/v1/campaigns/{campaign_id}/scenes"
    scene = ok(gm.post(api, data={"name": "Lager", "cols": 14, "rows": 9, "shown": True}))
    walls = {
        "segments": [[4, 0, 4, 5]],
        "doors": [{"segment": [4, 5, 4, 6]}],
        "difficult": [[1, 1]],
    }
    ok(gm.put(f"{api}/{scene['id']}/walls", data=walls))
    for x, y, label in ((1, 2, "Wache"), (6, 3, "Fass")):
        ok(gm.post(f"{api}/{scene['id']}/tokens", data={"x": x, "y": y, "label": label}))
    return f"/campaigns/{campaign_id}/scenes/{scene['id']}"
