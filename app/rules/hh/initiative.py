"""Kampfrunde (hh.md §5): Initiative, steps, turn order, Reaktionen, Handlungen, Bewegung."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.rules.hh.conditions import movement_factor_halved
from app.rules.hh.options import DEFAULT_OPTIONS, RuleOptions
from app.rules.hh.state import Change, Figure

STEP = 4
SIDE_ORDER: Mapping[str, int] = {"abenteurer": 0, "gegner": 1, "neutral": 2}


def initiative(spuersinn: int, be: int = 0) -> int:
    """Initiative = Spürsinn − Behinderung, minimum 1."""
    return max(1, spuersinn - be)


def initiative_steps(initiative: int) -> list[int]:
    """Steps at which a figure acts: I, I−4, I−8, … while ≥ 1 (15 → [15, 11, 7, 3])."""
    return list(range(initiative, 0, -STEP))


def reactions(initiative: int) -> int:
    """Reaktionen per round = Initiative ÷ 4, rounded down."""
    return max(0, initiative) // STEP


@dataclass(frozen=True, slots=True)
class Turn:
    step: int
    figure: str
    initiative: int
    side: str


def round_order(figures: Sequence[Figure], gm_order: Sequence[str] = ()) -> list[Turn]:
    """Every turn of a round, in order (§5).

    Steps count down from the highest initiative. Within a step: higher initiative first,
    then Abenteurer, Gegner, Neutrale; remaining ties follow ``gm_order`` (figure ids as the
    GM arranged them), then the order of ``figures``. Dead figures get no turns; figures
    that cannot act still appear (their turn is spent shaking off «benommen» etc.).
    """
    gm_rank = {fid: i for i, fid in enumerate(gm_order)}
    pos = {f.id: i for i, f in enumerate(figures)}
    turns = [
        Turn(step, f.id, f.initiative, f.side)
        for f in figures
        if not f.dead
        for step in initiative_steps(f.initiative)
    ]
    turns.sort(
        key=lambda t: (
            -t.step,
            -t.initiative,
            SIDE_ORDER[t.side],
            gm_rank.get(t.figure, len(gm_rank)),
            pos[t.figure],
        )
    )
    return turns


def start_of_round(figures: Sequence[Figure]) -> tuple[list[Figure], list[Change]]:
    """Grant Reaktionen (Initiative ÷ 4) to every figure that is not «benommen»; defence
    bonuses «bis zum Beginn der nächsten Runde» and unused extra actions expire."""
    out: list[Figure] = []
    changes: list[Change] = []
    for f in figures:
        granted = 0 if (f.has("benommen") or f.dead) else reactions(f.initiative)
        if granted != f.reactions_left:
            changes.append(
                Change(f.id, "reactions", granted - f.reactions_left, detail="Rundenbeginn")
            )
        out.append(f.evolve(reactions_left=granted, defence_bonuses=(), extra_actions=0))
    return out, changes


def movement_per_action(
    bewegung: int, options: RuleOptions = DEFAULT_OPTIONS, *, eingeschraenkt: bool = False
) -> int:
    """Schritt a figure may move with one Handlung (§5 (V)).

    ``"full"``: full Bewegung; ``"half"``: half Bewegung, at least 2 Schritt. «eingeschränkt»
    halves the result (rounded down, at least 1 — project decision).
    """
    base = bewegung if options.movement == "full" else max(2, bewegung // 2)
    return max(1, base // 2) if eingeschraenkt else base


def figure_movement(figure: Figure, options: RuleOptions = DEFAULT_OPTIONS) -> int:
    return movement_per_action(
        figure.bewegung, options, eingeschraenkt=movement_factor_halved(figure.conditions)
    )


def sprint_distance(figure: Figure) -> int:
    """«Sprinten»: move again by the (possibly halved) Bewegung."""
    b = figure.bewegung
    return max(1, b // 2) if movement_factor_halved(figure.conditions) else b


@dataclass(frozen=True, slots=True)
class Handlung:
    key: str
    name: str
    text: str


HANDLUNGEN: tuple[Handlung, ...] = (
    Handlung("angreifen", "Angreifen", "Greife einen Gegner in Reichweite an."),
    Handlung("aufstehen", "Aufstehen", "Beende «niedergeworfen»."),
    Handlung("fokussieren", "Fokussieren", "Sammle 1 Fokus für einen Zauber."),
    Handlung(
        "interagieren",
        "Interagieren",
        "Tür öffnen, Gegenstand nehmen, Waffe ziehen, Trank trinken.",
    ),
    Handlung("nachladen", "Nachladen", "Eine Fernkampfwaffe nachladen."),
    Handlung(
        "rucksack_durchsuchen",
        "Rucksack durchsuchen",
        "Reisekunde (Inventar)-Probe, danach herausnehmen (zweite Handlung).",
    ),
    Handlung("schwierige_bewegung", "Schwierige Bewegung", "Bewegung mit Probe (Klettern, …)."),
    Handlung("sprinten", "Sprinten", "Bewege dich erneut um deine Bewegung."),
    Handlung("talent_einsetzen", "Talent einsetzen", "Setze ein aktives Talent ein."),
    Handlung("zauber_wirken", "Zauber wirken", "Löse einen Zauber aus."),
    Handlung("zielen", "Zielen", "+2 auf den Angriff und +1 QS bei einem Treffer, je Zielen."),
    Handlung("kampfmanoever", "Kampfmanöver", "Entwaffnen, Festsetzen, Mitzerren, Umreissen, …"),
    Handlung("zustand_abschuetteln", "Zustand abschütteln", "Probe gegen einen Zustand."),
    Handlung("stabilisieren", "Stabilisieren", "Heilkunde-Probe an einer sterbenden Figur."),
    Handlung("moral_heben", "Moral heben", "Interaktion −1 je 2 Verbündete; hebt «entmutigt» auf."),
)

REAKTIONEN: tuple[Handlung, ...] = (
    Handlung("verteidigen", "Verteidigen", "Verteidige dich gegen einen Angriff (Kampfkunst)."),
    Handlung("magieabwehr", "Magieabwehr", "Wehre einen Zauber ab (Magiekunde)."),
    Handlung("talent_einsetzen", "Talent einsetzen", "Setze ein reaktives Talent ein."),
    Handlung("blockadeangriff", "Blockadeangriff", "Greife einen vorbeiziehenden Gegner an."),
    Handlung("sturz_abfangen", "Sturz abfangen", "Fange einen Sturz mit einer Probe ab."),
    Handlung("niederwerfen", "Niederwerfen", "Wirf dich zu Boden, um Deckung zu nutzen."),
)


#: Handlungen per Initiativeschritt (hh.md §5); more only through Glück («Zusätzliche
#: Aktion») or an explicit GM override.
HANDLUNGEN_PER_STEP = 1


def handlung_left(used: int, granted: int = 0) -> bool:
    """Whether a figure that has taken ``used`` Handlungen in this step may take another
    (``granted``: extra ones from Glück or the GM)."""
    return used < HANDLUNGEN_PER_STEP + max(0, granted)
