"""The system fields an item may carry, how they are validated, and starter items.

Each system module (:mod:`app.characters.systems`) declares its item fields and its starter
list with these types.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from app.i18n import gettext

ItemFieldKind = Literal["int", "text", "bool", "choice", "float", "list"]


@dataclass(frozen=True, slots=True)
class ItemField:
    key: str
    label: str
    kind: ItemFieldKind = "int"
    choices: tuple[tuple[str, str], ...] = ()
    minimum: float = -99
    maximum: float = 999


def parse_item_fields(
    specs: Sequence[ItemField], raw: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, str]]:
    """Validate submitted system fields; returns (fields, errors by ``fields.<key>``)."""
    out: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for spec in specs:
        if spec.key not in raw:
            continue
        value = raw[spec.key]
        name = f"fields.{spec.key}"
        if value is None or (value == "" and spec.kind not in ("bool", "text")):
            continue
        try:
            if spec.kind == "bool":
                out[spec.key] = (
                    value
                    if isinstance(value, bool)
                    else str(value).lower() in ("1", "true", "on", "yes")
                )
            elif spec.kind in ("int", "float"):
                number = (
                    float(str(value).replace(",", ".")) if spec.kind == "float" else int(str(value))
                )
                if not spec.minimum <= number <= spec.maximum:
                    errors[name] = gettext(
                        "Between %(min)s and %(max)s.", min=spec.minimum, max=spec.maximum
                    )
                    continue
                out[spec.key] = number
            elif spec.kind == "choice":
                if str(value) not in {c[0] for c in spec.choices}:
                    errors[name] = gettext("Choose one of the listed values.")
                    continue
                if value:
                    out[spec.key] = str(value)
            elif spec.kind == "list":
                items = (
                    [str(v).strip() for v in value]
                    if isinstance(value, list)
                    else [v.strip() for v in str(value).split(",")]
                )
                allowed = {c[0] for c in spec.choices}
                bad = [v for v in items if v and v not in allowed]
                if bad:
                    errors[name] = gettext(
                        "Unknown: %(bad)s. Allowed: %(allowed)s.",
                        bad=", ".join(bad),
                        allowed=", ".join(sorted(allowed)),
                    )
                    continue
                out[spec.key] = [v for v in items if v]
            else:
                text = str(value).strip()
                if len(text) > 200:
                    errors[name] = gettext("At most %(max)d characters.", max=200)
                    continue
                out[spec.key] = text
        except ValueError:
            errors[name] = gettext("Enter a number.")
    return out, errors


# --- starter items --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StarterItem:
    key: str
    name: str
    fields: dict[str, Any] = field(default_factory=dict)
    quantity: int = 1
    price: int | None = None
    sample: bool = False


def find_starter(starters: Sequence[StarterItem], key: str) -> StarterItem | None:
    return next((s for s in starters if s.key == key), None)
