"""The system fields an item may carry, how they are validated, and starter items.

Each system module (:mod:`app.characters.systems`) declares its item fields and its starter
list with these types.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from app.i18n import N_, gettext, number

ItemFieldKind = Literal["int", "text", "bool", "choice", "float", "list"]


@dataclass(frozen=True, slots=True)
class ItemField:
    key: str
    label: str
    kind: ItemFieldKind = "int"
    choices: tuple[tuple[str, str], ...] = ()
    minimum: float = -99
    maximum: float = 999


#: Weapon, armour or something else: the item field the systems that equip by kind share
#: (DS4, PF2e); an item's slot follows from it.
KIND_FIELD = ItemField(
    "kind",
    N_("Kind"),
    "choice",
    (("weapon", N_("weapon")), ("armour", N_("armour")), ("other", N_("other"))),
)


def field_value_text(spec: ItemField, value: object) -> str:
    """One item field's value as a user reads it (choices and flags translated)."""
    names = dict(spec.choices)
    if spec.kind == "bool":
        return gettext("yes") if value else gettext("no")
    if value is None or value == "" or value == []:
        return "—"
    if spec.kind == "choice":
        return gettext(names.get(str(value), str(value)))
    if spec.kind == "list" and isinstance(value, list):
        return ", ".join(gettext(names.get(str(v), str(v))) for v in value)
    if spec.kind == "float" and isinstance(value, int | float):
        return number(value, digits=2)
    return str(value)


def field_texts(specs: Sequence[ItemField], fields: Mapping[str, object] | None) -> list[str]:
    """An item's fields as a user reads them: translated labels and values in the order of
    the system's fields. A set flag shows its label alone, an unset one nothing; keys the
    system does not know are left out (never a raw key or a Python value on screen)."""
    values = fields or {}
    out: list[str] = []
    for spec in specs:
        value = values.get(spec.key)
        if value is None or value == "" or value == [] or value is False:
            continue
        label = gettext(spec.label)
        out.append(label if spec.kind == "bool" else f"{label}: {field_value_text(spec, value)}")
    return out


class _Refused(Exception):
    def __init__(self, message: str) -> None:
        self.message = message


def _parse_bool(spec: ItemField, value: object) -> bool:
    return value if isinstance(value, bool) else str(value).lower() in ("1", "true", "on", "yes")


def _parse_number(spec: ItemField, value: object) -> float:
    try:
        number = float(str(value).replace(",", ".")) if spec.kind == "float" else int(str(value))
    except ValueError:
        raise _Refused(gettext("Enter a number.")) from None
    if not spec.minimum <= number <= spec.maximum:
        raise _Refused(gettext("Between %(min)s and %(max)s.", min=spec.minimum, max=spec.maximum))
    return number


def _parse_choice(spec: ItemField, value: object) -> str:
    if str(value) not in {c[0] for c in spec.choices}:
        raise _Refused(gettext("Choose one of the listed values."))
    return str(value)


def _parse_list(spec: ItemField, value: object) -> list[str]:
    items = (
        [str(v).strip() for v in value]
        if isinstance(value, list)
        else [v.strip() for v in str(value).split(",")]
    )
    # A value is typed as the form shows it (the label in the user's language) or as its key.
    keys = {c[0]: c[0] for c in spec.choices} | {
        gettext(label).casefold(): key for key, label in spec.choices
    }
    bad = [v for v in items if v and v not in keys and v.casefold() not in keys]
    if bad:
        raise _Refused(
            gettext(
                "Unknown: %(bad)s. Allowed: %(allowed)s.",
                bad=", ".join(bad),
                allowed=list_labels(spec),
            )
        )
    return [keys[v] if v in keys else keys[v.casefold()] for v in items if v]


def list_labels(spec: ItemField, keys: Sequence[str] | None = None) -> str:
    """The labels of ``keys`` (all choices if ``None``) in the user's language, as a list
    field's input shows and takes them."""
    names = dict(spec.choices)
    chosen = [k for k, _label in spec.choices] if keys is None else keys
    return ", ".join(gettext(names.get(str(k), str(k))) for k in chosen)


def _parse_text(spec: ItemField, value: object) -> str:
    text = str(value).strip()
    if len(text) > 200:
        raise _Refused(gettext("At most %(max)d characters.", max=200))
    return text


_PARSERS: dict[str, Callable[[ItemField, object], object]] = {
    "bool": _parse_bool,
    "int": _parse_number,
    "float": _parse_number,
    "choice": _parse_choice,
    "list": _parse_list,
}


def parse_item_fields(
    specs: Sequence[ItemField], raw: Mapping[str, object]
) -> tuple[dict[str, object], dict[str, str]]:
    """Validate submitted system fields; returns (fields, errors by ``fields.<key>``)."""
    out: dict[str, object] = {}
    errors: dict[str, str] = {}
    for spec in specs:
        value = raw.get(spec.key)
        if value is None or (value == "" and spec.kind not in ("bool", "text")):
            continue
        try:
            out[spec.key] = _PARSERS.get(spec.kind, _parse_text)(spec, value)
        except _Refused as exc:
            errors[f"fields.{spec.key}"] = exc.message
    return out, errors


# --- starter items --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StarterItem:
    key: str
    name: str
    fields: dict[str, object] = field(default_factory=dict)
    quantity: int = 1
    price: int | None = None
    sample: bool = False


def find_starter(starters: Sequence[StarterItem], key: str) -> StarterItem | None:
    return next((s for s in starters if s.key == key), None)
