"""A board reads its tokens as plain rows (``app.maps.models.TokenRow``), and the token a
request changes is taken as the session's object (``app.maps.service.held``): the row
holds every column of a token, and the write of a token read before another request moved
it is refused by its version, as a token read by the ORM would be."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from sqlalchemy.orm.exc import StaleDataError

from app.maps import service
from app.maps.models import TOKEN_ROW_COLUMNS, Scene, Token, TokenRow
from tests.conftest import ClientFactory, register


def test_a_token_row_has_every_column_of_a_token() -> None:
    assert list(TokenRow._fields) == [c.name for c in TOKEN_ROW_COLUMNS]
    assert set(TokenRow._fields) == {c.name for c in Token.__table__.columns}


async def test_a_token_held_from_a_stale_board_is_not_written_over_a_newer_move(
    app: FastAPI, make_client: ClientFactory
) -> None:
    gm = make_client()
    await register(gm, "meisterin")
    r = await gm.post("/api/v1/campaigns", json={"name": "Runde", "system": "hh"})
    cid = r.json()["id"]
    r = await gm.post(f"/api/v1/campaigns/{cid}/scenes", json={"name": "S", "cols": 8, "rows": 8})
    url = f"/api/v1/campaigns/{cid}/scenes/{r.json()['id']}"
    r = await gm.post(f"{url}/tokens", json={"x": 1, "y": 1, "label": "Fass"})
    token_id = int(r.json()["id"])

    sessions = app.state.ctx.sessionmaker
    async with sessions() as stale:
        scene = await stale.get(Scene, int(url.rsplit("/", 1)[1]))
        assert scene is not None
        board = await service.board_of(stale, scene)
        assert all(isinstance(t, TokenRow) for t in board.tokens)
        held = service.held(stale, board, token_id)
        assert isinstance(held, Token) and board.tokens == [held]
        assert service.held(stale, board, token_id) is held
        await stale.commit()  # the read's transaction ends; the token stays as read

        r = await gm.post(f"{url}/tokens/{token_id}/move", json={"to": [5, 5]})
        assert r.status_code == 200, r.text

        held.x, held.y = 2, 2
        with pytest.raises(StaleDataError):
            await stale.flush()
    r = await gm.get(url)
    assert [(t["x"], t["y"]) for t in r.json()["tokens"]] == [(5, 5)]
