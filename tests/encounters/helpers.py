"""A campaign with a GM and two players, characters and an encounter, for combat tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx
from fastapi import FastAPI

from app.characters.models import Character
from app.rules.dice import ScriptedRoller
from tests.conftest import ClientFactory, register


@dataclass
class Fight:
    campaign_id: int
    gm: httpx.AsyncClient
    players: list[httpx.AsyncClient]
    ids: dict[str, int]
    characters: dict[str, int] = field(default_factory=dict)
    encounter_id: int = 0

    @property
    def base(self) -> str:
        return f"/api/v1/campaigns/{self.campaign_id}/encounters/{self.encounter_id}"

    async def act(
        self, client: httpx.AsyncClient, action: str, status: int = 200, **body: Any
    ) -> dict[str, Any]:
        r = await client.post(f"{self.base}/actions/{action}", json=body)
        assert r.status_code == status, r.text
        return r.json()  # type: ignore[no-any-return]

    async def view(self, client: httpx.AsyncClient) -> dict[str, Any]:
        r = await client.get(self.base)
        assert r.status_code == 200, r.text
        return r.json()  # type: ignore[no-any-return]

    def pid(self, view: dict[str, Any], name: str) -> str:
        return next(str(p["pid"]) for p in view["participants"] if p["name"] == name)


async def make_fight(
    make_client: ClientFactory, app: FastAPI, system: str, players: int = 1, prefix: str = ""
) -> Fight:
    gm = make_client()
    body = await register(gm, f"{prefix}gm{system}")
    ids = {"gm": int(body["user"]["id"])}  # type: ignore[index]
    r = await gm.post("/api/v1/campaigns", json={"name": "Kampf", "system": system})
    assert r.status_code == 201, r.text
    campaign_id, code = r.json()["id"], r.json()["invite_code"]
    clients = []
    for i in range(players):
        c = make_client()
        b = await register(c, f"{prefix}p{i}{system}")
        ids[f"p{i}"] = int(b["user"]["id"])  # type: ignore[index]
        r = await c.post("/api/v1/campaigns/join", json={"invite_code": code})
        assert r.status_code == 200, r.text
        clients.append(c)
    return Fight(campaign_id, gm, clients, ids)


async def add_character(
    app: FastAPI, fight: Fight, owner: str, name: str, statblock: dict[str, Any], system: str
) -> int:
    async with app.state.ctx.sessionmaker() as session:
        character = Character(
            campaign_id=fight.campaign_id,
            owner_id=fight.ids[owner],
            system=system,
            name=name,
            kind="pc",
            hidden_from_players=False,
            data={"statblock": statblock},
        )
        session.add(character)
        await session.commit()
        fight.characters[name] = character.id
        return character.id


def script(app: FastAPI, *faces: int) -> ScriptedRoller:
    roller = ScriptedRoller(faces)
    app.state.ctx.roller = roller
    return roller
