"""Stat blocks per rule system: schema, validation, starter monsters, values of a character.

A stat block is a JSON object. Every system has a flat set of numeric/text fields and
structured parts (H&H: resistances and spells; PF2e: Strikes), its :class:`StatBlockRules`
in ``app/encounters/statblocks/<system>.py``, registered in :data:`STATBLOCKS` by
``app.wiring``. :func:`validate` checks a block and returns it completed with defaults, or
raises :class:`ValidationFailed` with per-field messages. Player characters get a block of
the same shape from their sheet (:func:`for_character`), so the combat code treats every
participant alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from app.errors import ValidationFailed
from app.i18n import _


@dataclass(frozen=True, slots=True)
class Field:
    key: str
    label: str  # an English msgid, or a rule term (German in both locales)
    kind: str  # "int", "float", "text", "choice"
    default: Any
    low: float = 0
    high: float = 999
    choices: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Extra:
    """A structured part of a system's block beyond the flat fields (the bestiary form shows
    it as rows: ``app/encounters/bestiary_form.py``)."""

    key: str
    check: Callable[[Any, dict[str, str]], Any]
    empty: Callable[[], Any]


@dataclass(frozen=True, slots=True)
class StatBlockRules:
    """What one system's stat block holds: its flat fields, its structured parts (in the
    order of the bestiary form) and its starter monsters (sample data the GM may change)."""

    schema: tuple[Field, ...]
    extras: tuple[Extra, ...] = ()
    samples: tuple[tuple[str, dict[str, Any]], ...] = ()

    def defaults(self) -> dict[str, Any]:
        block = {f.key: f.default for f in self.schema}
        block.update({extra.key: extra.empty() for extra in self.extras})
        return block

    def with_samples(self, *samples: tuple[str, Mapping[str, Any]]) -> StatBlockRules:
        """These rules with starter monsters: each a name and the values beside the
        defaults."""
        made = tuple((name, {**self.defaults(), **values}) for name, values in samples)
        return StatBlockRules(self.schema, self.extras, made)


def sample(name: str, **values: Any) -> tuple[str, dict[str, Any]]:
    """A starter monster: its name and the values it has beside the defaults."""
    return name, values


def rows(
    raw: Any, errors: dict[str, str], part: str, most: int, too_many: str, not_a_row: str
) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """The rows of the structured part ``part`` (a list of at most ``most`` objects), each
    with its error key (``part.i``); the refusals are put in ``errors``: ``too_many`` at
    ``part`` for a list too long or no list (then no row), ``not_a_row`` at a row that is
    no object (skipped). Nothing for an empty part."""
    if raw in (None, ""):
        return
    if not isinstance(raw, list) or len(raw) > most:
        errors[part] = too_many
        return
    for i, item in enumerate(raw):
        key = f"{part}.{i}"
        if not isinstance(item, Mapping):
            errors[key] = not_a_row
            continue
        yield key, item


#: Every system's stat block rules, by system key (filled by ``app.wiring``).
STATBLOCKS: dict[str, StatBlockRules] = {}


def rules(system: str) -> StatBlockRules:
    return STATBLOCKS[system]


def _number(field: Field, raw: Any, errors: dict[str, str]) -> Any:
    try:
        if isinstance(raw, bool):
            raise ValueError
        value: float = float(raw) if field.kind == "float" else int(str(raw).strip())
    except (TypeError, ValueError):
        errors[field.key] = _("Enter a number.")
        return field.default
    if not field.low <= value <= field.high:
        errors[field.key] = _(
            "Between %(low)s and %(high)s.", low=_fmt(field.low), high=_fmt(field.high)
        )
    return value


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def validate(system: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """The stat block completed with defaults, or :class:`ValidationFailed`."""
    if system not in STATBLOCKS:
        raise ValidationFailed({"system": _("Unknown rule system.")})
    errors: dict[str, str] = {}
    out: dict[str, Any] = {}
    for field in STATBLOCKS[system].schema:
        raw = data.get(field.key, field.default)
        if raw in (None, "") and field.kind in ("int", "float"):
            raw = field.default
        if raw is None:  # an optional value the block does not hold
            out[field.key] = None
        elif field.kind in ("int", "float"):
            out[field.key] = _number(field, raw, errors)
        elif field.kind == "choice":
            if raw not in field.choices:
                errors[field.key] = _("Choose one of the listed options.")
            out[field.key] = raw if raw in field.choices else field.default
        else:
            text = str(raw).strip()
            if len(text) > 200:
                errors[field.key] = _("At most %(max)d characters.", max=200)
            out[field.key] = text[:200]
    for extra in STATBLOCKS[system].extras:
        out[extra.key] = extra.check(data.get(extra.key), errors)
    if errors:
        raise ValidationFailed(errors)
    return out


def defaults(system: str) -> dict[str, Any]:
    return STATBLOCKS[system].defaults()


def for_character(
    system: str, computed: Mapping[str, Any], data: Mapping[str, Any]
) -> dict[str, Any]:
    """A player character's block: the defaults, then the values the engines computed from
    the sheet (``app.characters.combat``), then any ``statblock`` the GM set on the sheet."""
    block = {**defaults(system), **computed}
    override = data.get("statblock")
    if isinstance(override, Mapping):
        block.update(override)
    return block
