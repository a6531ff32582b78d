"""DS4 checks by name: every Probe the rules know — an Attribut plus an Eigenschaft («GEI +
VE», «Geist + Verstand») or a rollable Kampfwert («Abwehr», «Schlagen») — from what a GM
types (issue 31). The name is read without regard to case, spaces, umlauts or order; the
value of the check is the sum of the named values of the figure.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Attribut key → (name, abbreviation).
ATTRIBUTES = {
    "koerper": ("Körper", "KÖR"),
    "agilitaet": ("Agilität", "AGI"),
    "geist": ("Geist", "GEI"),
}
#: Eigenschaft key → (name, abbreviation).
TRAITS = {
    "staerke": ("Stärke", "ST"),
    "haerte": ("Härte", "HÄ"),
    "bewegung": ("Bewegung", "BE"),
    "geschick": ("Geschick", "GE"),
    "verstand": ("Verstand", "VE"),
    "aura": ("Aura", "AU"),
}
#: The Kampfwerte one rolls a Probe on (Lebenskraft and Laufen are none).
KAMPFWERTE = {
    "abwehr": "Abwehr",
    "initiative": "Initiative",
    "schlagen": "Schlagen",
    "schiessen": "Schießen",
    "zaubern": "Zaubern",
    "zielzauber": "Zielzauber",
}


@dataclass(frozen=True, slots=True)
class NamedCheck:
    """A check the rules know: its label («GEI + VE») and the keys of the values it sums."""

    label: str
    parts: tuple[str, ...]


def _plain(text: str) -> str:
    """Lower case without spaces, umlauts spelt out: «KÖR» → «koer», «Schießen» → «schiessen»."""
    out = text.strip().lower().replace(" ", "")
    for umlaut, spelt in (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("ß", "ss")):
        out = out.replace(umlaut, spelt)
    return out


def _names(table: dict[str, tuple[str, str]]) -> dict[str, str]:
    """Every way to write a value (key, name, abbreviation) → its key."""
    out: dict[str, str] = {}
    for key, (name, short) in table.items():
        out.update({key: key, _plain(name): key, _plain(short): key})
    return out


_ATTRIBUTE_NAMES = _names(ATTRIBUTES)
_TRAIT_NAMES = _names(TRAITS)
_KAMPFWERT_NAMES = {**{_plain(v): k for k, v in KAMPFWERTE.items()}, **{k: k for k in KAMPFWERTE}}


def probe_label(attribute: str, trait: str) -> str:
    return f"{ATTRIBUTES[attribute][1]} + {TRAITS[trait][1]}"


def named_check(text: str) -> NamedCheck | None:
    """The check ``text`` names, or None when the rules know no such check."""
    plain = _plain(text)
    if plain in _KAMPFWERT_NAMES:
        key = _KAMPFWERT_NAMES[plain]
        return NamedCheck(KAMPFWERTE[key], (key,))
    first, plus, second = plain.partition("+")
    if not plus:
        return None
    for a, t in ((first, second), (second, first)):
        if a in _ATTRIBUTE_NAMES and t in _TRAIT_NAMES:
            attribute, trait = _ATTRIBUTE_NAMES[a], _TRAIT_NAMES[t]
            return NamedCheck(probe_label(attribute, trait), (attribute, trait))
    return None


def check_names() -> tuple[str, ...]:
    """Every check by its label: the Kampfwerte, then each Attribut + Eigenschaft."""
    probes = tuple(probe_label(a, t) for a in ATTRIBUTES for t in TRAITS)
    return (*KAMPFWERTE.values(), *probes)
