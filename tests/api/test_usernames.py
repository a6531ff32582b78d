"""User names: Unicode letters and spaces in the name shown ("Jürgen", "Meisterin Mara"), one
normalised login key per name (NFKC, case-folded), unique."""

from __future__ import annotations

import httpx
import pytest

from app.accounts.service import display_name, login_key
from tests.conftest import PASSWORD, ClientFactory


@pytest.mark.parametrize(
    "name",
    ["Jürgen", "Meisterin Mara", "Ærwyn", "Zoë-Lou", "O'Brien", "Łukasz_2", "Фёдор", "渡辺 健"],
)
async def test_unicode_names_register_and_log_in(make_client: ClientFactory, name: str) -> None:
    client = make_client()
    r = await client.post("/api/v1/auth/register", json={"username": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    assert r.json()["username"] == name
    other = make_client()
    typed = f"  {name.upper()}  ".replace(" ", "  ") if " " in name else name.upper()
    r = await other.post("/api/v1/auth/login", json={"username": typed, "password": PASSWORD})
    assert r.status_code == 200, (typed, r.text)
    assert r.json()["user"]["username"] == name


@pytest.mark.parametrize(
    "name",
    ["ab", " -Mara", "Mara!", "x" * 33, "Ma\u200bra", "Ma\u202era", "<b>Mara</b>", "Mara\x00"],
)
async def test_other_characters_are_refused_at_the_field(
    client: httpx.AsyncClient, name: str
) -> None:
    r = await client.post("/register", data={"username": name, "password": PASSWORD})
    assert r.status_code == 422, (name, r.text)
    assert 'id="username-error"' in r.text and "Leerzeichen" in r.text


async def test_one_account_per_normalised_name(make_client: ClientFactory) -> None:
    first, second = make_client(), make_client()
    r = await first.post("/api/v1/auth/register", json={"username": "Jürgen", "password": PASSWORD})
    assert r.status_code == 201
    # The same name, decomposed (u + combining diaeresis), in capitals, or full-width.
    for same in ("Ju\u0308rgen", "JÜRGEN", "Ｊürgen"):
        r = await second.post(
            "/api/v1/auth/register", json={"username": same, "password": PASSWORD}
        )
        assert r.status_code == 422, (same, r.text)
    assert login_key("Meisterin   Mara") == login_key("meisterin mara") == "meisterin mara"
    assert display_name("  Meisterin   Mara ") == "Meisterin Mara"
    assert login_key("Straße") == "strasse"
