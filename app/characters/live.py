"""The live regions of a character: the sheet (:data:`SHEET_PAGE`) and its history
(:data:`HISTORY_PAGE`), both rendered from the page's own context builder
(``app.characters.views``)."""

from __future__ import annotations

from app.characters.history import entries as history_entries
from app.characters.views import CharacterPage, history_live_context, sheet_live_context
from app.events.service import VisibleEvent
from app.events.stream import Outgoing
from app.web.regions import Batch, Page, Region
from app.web.templating import render

SHEET = "characters/sheet.html"
HISTORY = "characters/history.html"

#: The sheet page; ``gone`` when the character is deleted or hidden from the viewer.
SHEET_PAGE: Page[CharacterPage] = Page("sheet", load=sheet_live_context, gone="gone")
HISTORY_PAGE: Page[CharacterPage] = Page("history", load=history_live_context)


def _about_character(key: CharacterPage, event: VisibleEvent) -> bool:
    return (
        event.type.startswith("character")
        and event.event.payload.get("character_id") == key.character_id
    )


def _changes_sheet(key: CharacterPage, event: VisibleEvent) -> bool:
    """A change of the character, unless it came from this very tab (which has it already)."""
    return _about_character(key, event) and not (
        key.tab and event.event.payload.get("origin_tab") == key.tab
    )


async def _push_sheet(batch: Batch[CharacterPage]) -> list[Outgoing]:
    elsewhere = any(e.event.actor_id != batch.viewer.user_id for e in batch.events)
    html = render(SHEET, "sheet", **{**batch.context, "live_notice": elsewhere})
    return [Outgoing(batch.last_seq, "sheet", html)]


async def _push_history(batch: Batch[CharacterPage]) -> list[Outgoing]:
    """New entries, newest first, to prepend to the list."""
    character = batch.context["character"]
    newest_first = list(reversed(batch.events))
    entries = history_entries(character.system, newest_first, batch.context["owners"])
    html = render(HISTORY, "history_entries", **{**batch.context, "entries": entries})
    return [Outgoing(batch.last_seq, "history", html)]


def register_regions() -> None:
    """Put this module's regions on their pages (``app.wiring`` calls it once)."""
    SHEET_PAGE.register(Region("sheet", _changes_sheet, _push_sheet, parts=frozenset({"sheet"})))
    HISTORY_PAGE.register(
        Region("history", _about_character, _push_history, parts=frozenset({"history"}))
    )
