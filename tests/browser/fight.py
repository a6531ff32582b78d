"""What the people at a fight's board do on the combat page (issue 28), shared by the board
tests: the GM places an area through the page's form, and each prompt the server waits for
is answered on the device of the figure's player (a monster's on the GM's)."""

from __future__ import annotations

from collections.abc import Mapping

from playwright.sync_api import APIRequestContext, Locator, Page, Response, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.browser.world import ok

Cell = tuple[int, int]


def on_phone(page: Page) -> bool:
    size = page.viewport_size
    return size is not None and size["width"] < 600


def press(page: Page, control: Locator) -> None:
    """A tap on a phone, a click on a desktop."""
    if on_phone(page):
        control.tap()
    else:
        control.click()


def place_area(gm: Page, origin: Cell, radius: int = 1, *, tap: bool = False) -> None:
    """The acting figure's Flächenangriff, a circle around ``origin``, through the «Fläche
    auf dem Plan» form of the GM's combat page; ``tap``: the origin by a click on the board
    (the field then shows it), else typed."""
    if gm.locator("#area-details").get_attribute("open") is None:
        gm.get_by_text("Fläche auf dem Plan").click()
    gm.get_by_label("Quelle", exact=True).select_option("attack")
    gm.get_by_label("Form", exact=True).select_option("circle")
    field = gm.get_by_label("Ursprung (Spalte,Zeile)")
    if tap:
        board = gm.locator("#map-board .map-svg")
        board.scroll_into_view_if_needed()
        box = board.bounding_box()
        assert box is not None
        _x, _y, cols, rows = (int(n) for n in (board.get_attribute("viewBox") or "").split())
        # Where a tap lands on the board's cell (the token standing there included).
        board.click(
            position={
                "x": (origin[0] + 0.5) * box["width"] / cols,
                "y": (origin[1] + 0.5) * box["height"] / rows,
            }
        )
        expect(field).to_have_value(f"{origin[0]},{origin[1]}")
    else:
        field.fill(f"{origin[0]},{origin[1]}")
    gm.get_by_label("Radius oder Länge (Schritt)").fill(str(radius))
    with gm.expect_response(lambda r: r.url.endswith("/area")) as placed:
        gm.get_by_role("button", name="Fläche legen").click()
    assert placed.value.status == 200, placed.value.text()


def answer_prompts(
    gm_api: APIRequestContext, encounter_api: str, players: Mapping[str, Page], gm: Page
) -> list[tuple[str, str]]:
    """Answer what the server waits for, one prompt after the other, until nothing waits: a
    hero's on their player's device (``players``: the hero's name → that page), a monster's
    on the GM's page. A defence is taken (or, without a Reaktion left, declined); a failed
    defence's Glück prompt is answered by taking the hit. No other player's page shows a
    prompt meanwhile; at the end no page shows one. Returns (figure, kind) of each prompt
    answered, in order."""
    answered: list[tuple[str, str]] = []
    for _prompt in range(8):
        view = ok(gm_api.get(encounter_api))
        pending = view.get("pending")
        if not pending:
            # Every page has dropped the prompt's card (the page below it moves up).
            for page in (gm, *players.values()):
                expect(page.locator("#pending .pending-card")).to_have_count(0)
            return answered
        target, kind = str(pending["target"]), str(pending["kind"])
        page = players.get(target, gm)
        for other in players.values():
            if other is not page:
                expect(other.locator("#pending form button")).to_have_count(0)
        form = page.locator("#pending form")
        expect(form.locator("input[name=version]")).to_have_value(str(view["version"]))
        if kind == "hit":
            button = form.locator("button[value=accept]")
        else:
            button = form.locator("button[value=defend]")
            if not pending["reactions"]:
                button = form.locator("button[value=none]")
        expect(button).to_be_enabled()
        responded = send(page, button, "/respond")
        assert responded.status == 200, responded.text()
        answered.append((target, kind))
    raise AssertionError(f"Still waiting after {len(answered)} answers: {answered}")


def send(page: Page, button: Locator, path_end: str) -> Response:
    """Press ``button`` and wait for the request it sends (its URL ends with ``path_end``)
    and its answer. A press that sends nothing within 5 s is made again, at most twice: it
    landed while a live update moved the button (a card above it came or went, a token's
    words below the board changed length), as a player taps again. A request that was sent
    is never sent twice, however long its answer takes."""
    for _attempt in range(3):
        try:
            with page.expect_request(lambda r: r.url.endswith(path_end), timeout=5_000) as sent:
                press(page, button)
        except PlaywrightTimeoutError:
            continue
        answer = sent.value.response()
        assert answer is not None, f"{path_end}: no answer"
        return answer
    raise AssertionError(f"{path_end}: pressed three times, nothing sent")
