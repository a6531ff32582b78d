"""The HTML pages as a browser without JavaScript uses them: forms post and redirect."""

from __future__ import annotations

import httpx

from tests.conftest import PASSWORD, ClientFactory


async def test_register_form_answers_at_the_field(client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/register",
        data={"username": "a", "password": "kurz", "email": "kein-mail"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 422
    for field in ("username", "password", "email"):
        assert f'id="{field}-error"' in r.text
    assert 'value="a"' in r.text and "kurz" not in r.text  # a refused password is not echoed
    assert "<html" not in r.text


async def test_register_log_out_and_log_in_with_forms(make_client: ClientFactory) -> None:
    browser = make_client()
    r = await browser.post("/register", data={"username": "alrik", "password": PASSWORD})
    assert r.status_code == 303 and r.headers["location"] == "/campaigns"
    assert "Meine Kampagnen" in (await browser.get("/campaigns")).text
    r = await browser.post("/logout")
    assert r.status_code == 303
    r = await browser.get("/campaigns")
    assert r.status_code == 303 and r.headers["location"] == "/login?next=/campaigns"
    r = await browser.post(
        "/login", data={"username": "alrik", "password": "falsch-falsch", "next": "/campaigns"}
    )
    assert r.status_code == 401 and "Unbekannter Name oder falsches Passwort" in r.text
    r = await browser.post(
        "/login", data={"username": "alrik", "password": PASSWORD, "next": "//evil.example"}
    )
    assert r.status_code == 303 and r.headers["location"] == "/campaigns"
    r = await browser.post(
        "/login",
        data={"username": "alrik", "password": PASSWORD, "next": "/join/abc"},
        headers={"HX-Request": "true"},
    )
    assert r.status_code == 204 and r.headers["hx-redirect"] == "/join/abc"


async def test_create_and_join_a_campaign_with_forms(make_client: ClientFactory) -> None:
    gm, player = make_client(), make_client()
    await gm.post("/register", data={"username": "meisterin", "password": PASSWORD})
    await player.post("/register", data={"username": "alrik", "password": PASSWORD})
    r = await gm.post(
        "/campaigns", data={"name": "", "system": "hh"}, headers={"HX-Request": "true"}
    )
    assert r.status_code == 422 and 'id="name-error"' in r.text
    r = await gm.post("/campaigns", data={"name": "Die Nordmark", "system": "pf2e"})
    assert r.status_code == 303
    page = await gm.get(r.headers["location"])
    assert "Die Nordmark" in page.text and "Pathfinder 2e" in page.text
    link = page.text.split('class="invite-link">')[1].split("<")[0]
    code = link.rsplit("/", 1)[1]
    # A player who is not logged in is sent to log in and comes back to the invite.
    anonymous = make_client()
    r = await anonymous.get(f"/join/{code}")
    assert r.headers["location"] == f"/login?next=/join/{code}"
    invite = await player.get(f"/join/{code}")
    assert "Die Nordmark" in invite.text and "Spieler" in invite.text
    r = await player.post(f"/join/{code}")
    assert r.status_code == 303
    page = await player.get(r.headers["location"])
    assert "alrik" in page.text and "Du bist Spieler" in page.text.replace("\n", " ").replace(
        "  ", " "
    )
    # The GM's page lists the new member.
    assert "alrik" in (await gm.get(r.headers["location"])).text
    assert (await player.get("/join/nonsense")).status_code == 404


async def test_campaign_list_shows_roles(make_client: ClientFactory) -> None:
    gm = make_client()
    await gm.post("/register", data={"username": "meisterin", "password": PASSWORD})
    await gm.post("/campaigns", data={"name": "Erste", "system": "ds4"})
    page = (await gm.get("/campaigns")).text
    assert "Erste" in page and "Dungeonslayers 4" in page and "Spielleitung" in page


async def test_api_docs_are_served_from_the_app(client: httpx.AsyncClient) -> None:
    """L5: no CDN and no inline script, which the CSP would block."""
    r = await client.get("/api/docs")
    assert r.status_code == 200
    assert "cdn" not in r.text.lower()
    assert "<script>" not in r.text
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css"):
        assert asset in r.text
        path = r.text.split('href="' if asset.endswith(".css") else 'src="')
        url = next(part.split('"')[0] for part in path if part.split('"')[0].endswith(asset))
        assert (await client.get(url)).status_code == 200
    assert (await client.get("/static/js/api-docs.js")).status_code == 200
