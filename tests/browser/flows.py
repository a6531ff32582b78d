"""What a person does in the browser, step by step, for the browser tests."""

from __future__ import annotations

import re
import uuid

from playwright.sync_api import Locator, Page, expect

from tests.conftest import PASSWORD


def unique(name: str) -> str:
    """A username no other test (or an earlier run on the same database) has taken."""
    return f"{name}{uuid.uuid4().hex[:8]}"


def register(page: Page, name: str) -> str:
    """Register through the form; the new account is logged in on ``page``'s context."""
    username = unique(name)
    page.goto("/register")
    page.locator("#username").fill(username)
    page.locator("#password").fill(PASSWORD)
    page.locator("#register-form button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/campaigns$"))
    return username


def create_campaign(page: Page, name: str, system: str = "hh") -> str:
    """Create a campaign from "My campaigns"; returns its page's path."""
    page.goto("/campaigns")
    form = page.locator("#create-campaign")
    form.locator("#campaign-name").fill(name)
    form.locator(f"input[name=system][value={system}]").check()
    form.locator("button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/campaigns/\d+$"))
    expect(page.locator("h1")).to_have_text(name)
    return "/" + page.url.split("/", 3)[3]


def invite_link(page: Page) -> str:
    """The first active invite link shown to the GM on the campaign page."""
    link = page.locator("#invites a.invite-link").first
    expect(link).to_be_visible()
    href = link.get_attribute("href")
    assert href and href.startswith("/join/"), href
    text = link.inner_text().strip()
    assert text.endswith(href), (text, href)
    return text


def join(page: Page, link: str) -> None:
    """Open an invite link while logged in and accept it."""
    page.goto(link)
    page.locator("main form button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/campaigns/\d+$"))


def wait_live(page: Page) -> None:
    """Wait until the page's event stream is open."""
    expect(page.locator("#live-status")).to_have_attribute("data-state", "online")


def roll(page: Page, expression: str, label: str = "", visibility: str = "public") -> None:
    """Submit the roll form (HTMX) and wait until the form comes back without an error."""
    form = page.locator("#roll-form")
    form.locator("#roll-expression").fill(expression)
    form.locator("#roll-label").fill(label)
    form.locator("#roll-visibility").select_option(visibility)
    with page.expect_response(lambda r: r.request.method == "POST" and "/rolls" in r.url) as info:
        form.locator("button[type=submit]").click()
    assert info.value.status in (200, 204, 422), info.value.status


def log_entries(page: Page) -> Locator:
    return page.locator("#dice-log > li.roll")


def entry_with(page: Page, text: str) -> Locator:
    return log_entries(page).filter(has_text=text)


def assert_seqs_unique(page: Page) -> None:
    """No log entry is shown twice (a replay after reconnect must not repeat)."""
    seqs = log_entries(page).evaluate_all("els => els.map(e => e.dataset.seq)")
    assert len(seqs) == len(set(seqs)), seqs
