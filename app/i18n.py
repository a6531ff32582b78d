"""Translations: English msgids, German by default, chosen per request through a ContextVar.

Catalogs are the ``.po`` files under ``app/locale/<locale>/LC_MESSAGES/``: one per domain
package (``messages.po`` for the core, ``characters.po``, ...), merged and compiled in memory
at start-up, so no build step is needed.
"""

from __future__ import annotations

import io
import re
from contextvars import ContextVar
from datetime import datetime
from functools import cache
from pathlib import Path

from babel.dates import format_datetime, get_timezone, get_timezone_name
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal, format_percent
from babel.support import NullTranslations, Translations

LOCALES = ("de", "en")
DEFAULT_LOCALE = "de"
LOCALE_DIR = Path(__file__).parent / "locale"

#: The time zone every page shows times in (and the session record, which names it).
TIME_ZONE_NAME = "Europe/Berlin"
TIME_ZONE = get_timezone(TIME_ZONE_NAME)

_current: ContextVar[str] = ContextVar("locale", default=DEFAULT_LOCALE)


def catalog(locale: str) -> Catalog:
    """All of a locale's ``.po`` files merged into one catalog."""
    merged = Catalog(locale=locale)
    for po in sorted((LOCALE_DIR / locale / "LC_MESSAGES").glob("*.po")):
        with po.open("rb") as fh:
            for message in read_po(fh, locale=locale):
                if message.id and message.string and not message.fuzzy:
                    merged[message.id] = message
    return merged


@cache
def translations(locale: str) -> NullTranslations:
    merged = catalog(locale)
    if not len(merged):
        return NullTranslations()
    buffer = io.BytesIO()
    write_mo(buffer, merged)
    buffer.seek(0)
    return Translations(fp=buffer)


def set_locale(locale: str) -> None:
    _current.set(locale if locale in LOCALES else DEFAULT_LOCALE)


def get_locale() -> str:
    return _current.get()


def gettext(message: str, **params: object) -> str:
    text = translations(get_locale()).gettext(message)
    return text % params if params else text


def ngettext(singular: str, plural: str, n: int, **params: object) -> str:
    text = translations(get_locale()).ngettext(singular, plural, n)
    return text % {"num": n, **params}


_ = gettext


def N_(message: str) -> str:
    """Mark a msgid for extraction where it is translated later (e.g. option labels)."""
    return message


def number(value: float, *, digits: int = 1, fixed: bool = False) -> str:
    """A number as the user's language writes it (``4,5`` in German, ``4.5`` in English):
    up to ``digits`` decimals, or exactly ``digits`` when ``fixed``; no grouping."""
    decimals = ("0" if fixed else "#") * digits
    pattern = f"0.{decimals}" if digits else "0"
    return format_decimal(value, format=pattern, locale=get_locale())


def percent(value: float) -> str:
    """A share (0.45) as the user's language writes a whole percentage (``45 %``, ``45%``)."""
    return format_percent(value, locale=get_locale())


_DICE = {"en": re.compile(r"\b(\d*)W(\d+)\b"), "de": re.compile(r"\b(\d*)d(\d+)\b")}
_DIE_LETTER = {"en": "d", "de": "W"}


def dice_notation(text: str) -> str:
    """``text`` with its dice in the user's notation: ``1W8`` in German, ``1d8`` in English.
    Rule texts and stored dice are written either way; the reader sees one."""
    letter = _DIE_LETTER[get_locale()]
    return _DICE[get_locale()].sub(lambda m: f"{m.group(1)}{letter}{m.group(2)}", text)


def zone_name() -> str:
    """The name of :data:`TIME_ZONE` in the user's language (Central European Time)."""
    return f"{get_timezone_name(TIME_ZONE, locale=get_locale())} ({TIME_ZONE_NAME})"


def local_datetime(value: datetime, fmt: str = "medium") -> str:
    """A moment in :data:`TIME_ZONE`, written as the user's language writes it."""
    return format_datetime(value, format=fmt, tzinfo=TIME_ZONE, locale=get_locale())


def local_time(iso: str) -> str:
    """``HH:MM:SS`` in :data:`TIME_ZONE` of an ISO timestamp."""
    return datetime.fromisoformat(iso).astimezone(TIME_ZONE).strftime("%H:%M:%S")


#: The few German words of the engines' rule notation that are not rule terms
#: (``2W20: 8 +5 = 13 gegen SG 15``), with their English msgids; the rest of a notation line
#: is numbers, dice and rule terms (``docs/glossary.json``).
NOTATION_WORDS = {
    "gegen": N_("against"),
    "Ergebnis": N_("result"),
    "je": N_("per"),
    "Würfel": N_("die"),
    "bleibt": N_("stays"),
    "Schaden": N_("damage"),
}
#: A word of the table, unless it is part of a rule term (PF2e's anhaltender Schaden).
_NOTATION = re.compile(r"(?<!anhaltender )\b(" + "|".join(NOTATION_WORDS) + r")\b")


def rule_text(text: str) -> str:
    """An engine's rule notation for the reader: dice in their notation and, in English, the
    notation's plain words translated (rule terms stay German)."""
    text = dice_notation(text)
    if get_locale() == DEFAULT_LOCALE:
        return text
    return _NOTATION.sub(lambda m: gettext(NOTATION_WORDS[m.group(1)]), text)
