"""The DS4 stat block: Stufe, LK, KÖR and the Kampfwerte, starter monsters."""

from __future__ import annotations

from app.encounters.statblocks import Field, StatBlockRules, sample
from app.i18n import N_

#: The DS4 Attribute and Eigenschaften a stat block may hold beside KÖR (key, rule term).
DS4_VALUES = (
    ("agilitaet", "AGI"), ("geist", "GEI"), ("staerke", "ST"), ("haerte", "HÄ"),
    ("bewegung", "BE"), ("geschick", "GE"), ("verstand", "VE"), ("aura", "AU"),
)  # fmt: skip

SCHEMA = (
    Field("stufe", "Stufe", "int", 1, 0, 30),
    Field("lk", "LK", "int", 10, 1, 999),
    Field("koerper", "KÖR", "int", 6, 0, 30),
    Field("abwehr", "Abwehr", "int", 6, 0, 60),
    Field("initiative", "Initiative", "int", 6, 0, 60),
    Field("laufen", "Laufen", "float", 4.0, 0, 40),
    Field("schlagen", "Schlagen", "int", 6, 0, 60),
    Field("schiessen", "Schießen", "int", 0, 0, 60),
    Field("zielzauber", "Zielzauber", "int", 0, 0, 60),
    # Optional (None: the block does not hold it): the other Kampfwert, Attribute and
    # Eigenschaften, for the GM's checks on «GEI + VE» and the like (issue 31).
    Field("zaubern", "Zaubern", "int", None, 0, 60),
    *(Field(key, label, "int", None, 0, 30) for key, label in DS4_VALUES),
    Field("waffe", N_("Weapon"), "text", "Waffe"),
    Field("ga", "GA", "int", 0, -10, 10),
    Field("fernwaffe", N_("Ranged weapon"), "text", ""),
    Field("fern_ga", N_("GA (ranged)"), "int", 0, -10, 10),
    Field("beute", N_("Loot"), "text", ""),
)

RULES = StatBlockRules(SCHEMA).with_samples(
    sample(
        "Goblin", stufe=1, lk=7, koerper=3, abwehr=4, initiative=7, laufen=3.5,
        schlagen=6, schiessen=6, waffe="Keule", fernwaffe="Schleuder", beute="2 Silber",
    ),
    sample(
        "Ork", stufe=3, lk=15, koerper=8, abwehr=9, initiative=4, laufen=4.0,
        schlagen=12, waffe="Streitaxt", beute="Streitaxt, 10 Silber",
    ),
    sample(
        "Riesenratte", stufe=1, lk=4, koerper=2, abwehr=2, initiative=6, laufen=4.0,
        schlagen=5, waffe="Biss", ga=0,
    ),
)  # fmt: skip
