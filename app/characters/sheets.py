"""What every system's sheet is made of: field specs, derived values, warnings, and the
generic parsing of one field. The systems themselves live in :mod:`app.characters.systems`.

Every derived number comes from the rules engines (``app/rules/<system>``); the system
modules only translate between the stored sheet (``Character.data``, ``Item`` rows) and the
engines' types, and label the results for display. Rule terms stay German in every language.

A sheet field is addressed by a dotted key: ``be``, ``skills.Spürsinn``,
``attributes.koerper``. Text fields hold lists (Talente) or ``Name: Wert`` lines
(Spezialisierungen); a field with its own line format brings its ``parse`` and ``show``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, Protocol

from app import i18n
from app.i18n import N_, gettext

FieldKind = Literal["int", "choice", "text", "bool", "line"]
#: Where an item goes when it is not equipped and the sheet carries a Rucksack (H&H).
RUCKSACK = "rucksack"
#: The data key of a companion's sheet that holds its hero's character id (H&H Gefährten).
COMPANION_KEY = "companion_of"
LINE_MAX = 100
TEXT_MAX = 5000


class ItemLike(Protocol):
    """What the sheet needs of an item row (``app.characters.models.Item``)."""

    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def quantity(self) -> int: ...
    @property
    def fields(self) -> dict[str, Any]: ...
    @property
    def slot(self) -> str | None: ...
    @property
    def equipped(self) -> bool: ...
    @property
    def container(self) -> str | None: ...


class FieldError(ValueError):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class FieldSpec:
    key: str
    label: str
    kind: FieldKind = "int"
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[tuple[str, str], ...] = ()
    group: str = "main"
    hint: str = ""
    #: Rollable target this field stands for (a click opens the roll dialog).
    roll: str | None = None
    #: An ``int`` field that may be left empty (stored as ``None``).
    optional: bool = False

    #: A ``text`` field stored as a mapping: its ``Name: Wert`` lines → the stored mapping
    #: (raises :class:`FieldError`) and back.
    parse: Callable[[str], Mapping[str, object]] | None = None
    show: Callable[[Mapping[str, Any]], str] | None = None


@dataclass(frozen=True, slots=True)
class Derived:
    """One derived value with the parts it is made of (``(label, value)`` pairs)."""

    key: str
    label: str
    value: str
    breakdown: tuple[tuple[str, str], ...] = ()
    roll: str | None = None
    dc: str | None = None


@dataclass(frozen=True, slots=True)
class Warning:
    message: str
    severity: Literal["error", "warning", "info"] = "warning"
    field: str | None = None


@dataclass(frozen=True, slots=True)
class SheetView:
    """Everything the sheet page shows besides the raw fields."""

    derived: tuple[Derived, ...]
    warnings: tuple[Warning, ...] = ()
    conditions: tuple[str, ...] = ()
    load: Mapping[str, object] | None = None


GROUP_LABELS: dict[str, str] = {
    "main": N_("Basics"),
    "skills": "Fertigkeiten",
    "resources": N_("Resources"),
    "attributes": "Attribute",
    "traits": "Eigenschaften",
    "ranks": "Kompetenzgrade",
    "pf2e_skills": N_("Skills"),
    "npc": N_("NPC"),
}


def signed(value: int) -> str:
    return f"+{value}" if value >= 0 else f"−{abs(value)}"


def number(value: float) -> str:
    """The user's decimal sign for fractional values (Laufen 4,5 m; 4.5 m in English)."""
    return i18n.number(value)


def percent(p: Fraction) -> str:
    return i18n.percent(float(p))


# --- access by dotted key --------------------------------------------------------------------


def whole(value: object) -> int:
    """A whole number stored in sheet JSON, as ``int()`` reads it (a number or its text);
    anything else is a ``TypeError``, as ``int(None)`` is."""
    if isinstance(value, int | float | str):
        return int(value)
    raise TypeError(f"not a number: {value!r}")


def section(data: Mapping[str, object], key: str) -> Mapping[str, object]:
    """A mapping the sheet keeps under ``key`` (``{}`` when it has none)."""
    value = data.get(key) or {}
    if not isinstance(value, Mapping):
        raise TypeError(f"{key} is not a mapping: {value!r}")
    return value


def listing(data: Mapping[str, object], key: str) -> list[object]:
    """A list the sheet keeps under ``key`` (``[]`` when it has none)."""
    value = data.get(key) or []
    if not isinstance(value, list):
        raise TypeError(f"{key} is not a list: {value!r}")
    return value


def get_value(data: Mapping[str, Any], key: str) -> Any:
    head, _, rest = key.partition(".")
    if rest:
        inner = data.get(head)
        return inner.get(rest) if isinstance(inner, Mapping) else None
    return data.get(head)


def set_value(data: dict[str, object], key: str, value: object) -> None:
    head, _, rest = key.partition(".")
    if rest:
        current = data.get(head) or {}
        if not isinstance(current, Mapping):
            raise TypeError(f"{head} is not a mapping: {current!r}")
        inner = dict(current)
        inner[rest] = value
        data[head] = inner
    else:
        data[head] = value


def by_key(specs: Sequence[FieldSpec]) -> dict[str, FieldSpec]:
    return {spec.key: spec for spec in specs}


def item_names(items: Sequence[ItemLike]) -> dict[str, str]:
    """The names of items as the engines' problems refer to them (``item<id>``)."""
    return {f"item{i.id}": i.name for i in items}


# --- parsing and validating one field --------------------------------------------------------


def format_value(spec: FieldSpec, value: object) -> str:
    """The stored value as the form shows it."""
    if spec.show is not None and isinstance(value, Mapping):
        return spec.show(value)
    if spec.kind == "text" and isinstance(value, list):
        return "\n".join(str(v) for v in value)
    if value is None:
        return ""
    return str(value)


def name_value_lines(value: Mapping[str, object]) -> str:
    """A mapping as ``Name: Wert`` lines (the form of a mapping-valued text field)."""
    return "\n".join(f"{k}: {v}" for k, v in value.items())


def parse_field(spec: FieldSpec, raw: Any) -> Any:
    """Turn submitted input (form string or JSON value) into the stored value."""
    if spec.kind == "bool":
        if isinstance(raw, bool):
            return raw
        return str(raw).strip().lower() in ("1", "true", "on", "yes")
    if spec.kind == "int" and spec.optional and (raw is None or str(raw).strip() == ""):
        return None
    if spec.kind == "line":
        line = str(raw if raw is not None else "").strip()
        if len(line) > LINE_MAX:
            raise FieldError(gettext("At most %(max)d characters.", max=LINE_MAX))
        return line
    if spec.kind == "int":
        return _parse_int(spec, raw)
    if spec.kind == "choice":
        value_s = str(raw)
        if value_s not in {c[0] for c in spec.choices}:
            raise FieldError(gettext("Choose one of the listed values."))
        return value_s
    return _parse_text(spec, raw)


def _parse_int(spec: FieldSpec, raw: object) -> int:
    if isinstance(raw, bool):
        raise FieldError(gettext("Enter a whole number."))
    try:
        value = int(str(raw).strip().replace("−", "-"))
    except ValueError:
        raise FieldError(gettext("Enter a whole number.")) from None
    if (
        spec.minimum is not None
        and spec.maximum is not None
        and not (spec.minimum <= value <= spec.maximum)
    ):
        raise FieldError(
            gettext("Between %(min)d and %(max)d.", min=spec.minimum, max=spec.maximum)
        )
    return value


def _as_text(spec: FieldSpec, value: Mapping[str, Any]) -> str:
    """A stored mapping (a sheet as exported) in the text form its field reads: the field's
    own ``show`` (conditions are labels, not ``Name: Wert`` lines), else ``Name: Wert``."""
    return spec.show(value) if spec.show is not None else name_value_lines(value)


def _parse_text(spec: FieldSpec, raw: Any) -> Any:
    text = raw if isinstance(raw, str) else "\n".join(str(x) for x in raw or [])
    if len(text) > TEXT_MAX:
        raise FieldError(gettext("At most %(max)d characters.", max=TEXT_MAX))
    if spec.parse is not None:
        return spec.parse(_as_text(spec, raw) if isinstance(raw, Mapping) else text)
    return [line.strip() for line in text.splitlines() if line.strip()]


def normalise_data(
    specs: Sequence[FieldSpec], default: dict[str, object], data: Mapping[str, object]
) -> tuple[dict[str, object], dict[str, str]]:
    """A whole sheet (import): every known field parsed onto ``default``, unknown keys
    dropped; errors by field."""
    out = default
    errors: dict[str, str] = {}
    for spec in specs:
        raw = get_value(data, spec.key)
        if raw is None:
            continue
        try:
            set_value(out, spec.key, parse_field(spec, raw))
        except FieldError as exc:
            errors[spec.key] = exc.message
    return out, errors


def equipped_in(items: Sequence[ItemLike], *slots: str) -> ItemLike | None:
    """The first equipped item in one of ``slots`` (any slot if none is given)."""
    return next((i for i in items if i.equipped and (i.slot in slots or not slots)), None)
