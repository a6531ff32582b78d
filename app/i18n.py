"""Translations: English msgids, German by default, chosen per request through a ContextVar.

Catalogs are the ``.po`` files under ``app/locale/<locale>/LC_MESSAGES/``: one per domain
package (``messages.po`` for the core, ``characters.po``, ...), merged and compiled in memory
at start-up, so no build step is needed.
"""

from __future__ import annotations

import io
from contextvars import ContextVar
from functools import cache
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

LOCALES = ("de", "en")
DEFAULT_LOCALE = "de"
LOCALE_DIR = Path(__file__).parent / "locale"

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
