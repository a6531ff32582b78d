"""H&H combat figures: JSON state <-> engine :class:`Figure`, and the engine's changes as
log lines. Shared by the adapter (:mod:`app.encounters.systems.hh`) and its checks
(:mod:`app.encounters.systems.hh_checks`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from types import MappingProxyType
from typing import Any, TypedDict, cast

from app.characters.systems.hh import HHPoints
from app.encounters.combat import Detail, Report, State, detail, figure
from app.encounters.state import FigureData
from app.encounters.systems.protocol import Settings
from app.i18n import N_
from app.rules import hh
from app.rules.hh.damage import DamageKind
from app.rules.hh.magic import Grade
from app.rules.hh.modifiers import Breakdown
from app.rules.hh.probe import ProbeResult
from app.rules.hh.state import Change, Figure, Resource, Zustand

# --- the figure's JSON ------------------------------------------------------------------------


class HHWeaponData(TypedDict):
    """The figure's weapon (from its stat block): ``die`` and ``bonus`` of its damage,
    ``range`` in Schritt of a ranged one (``None``: the stat block gives none)."""

    name: str
    die: int
    bonus: int
    kind: DamageKind
    ranged: bool
    range: int | None


class HHFocus(TypedDict):
    """Fokus the figure holds on ``spell`` (hh.md §9)."""

    spell: str
    points: int


class HHZustandData(TypedDict):
    """A Zustand of the figure (:class:`~app.rules.hh.state.Zustand` as an object)."""

    key: str
    resource: Resource | None
    cause: str
    probe_skill: str


class HHSpellData(TypedDict):
    """A spell of the figure's list, as the stat block holds it (``app.encounters.statblocks.hh``):
    ``grade`` its Güteklasse, ``focus`` the minimum Fokus, ``range`` in Schritt (0: Berührung),
    its damage (``schaden_w`` die, 0: none), ``zustand`` a condition on success,
    ``verteidigung`` (the target may defend with Magiekunde), ``flaeche`` (a Flächenzauber)."""

    key: str
    name: str
    grade: Grade
    focus: int
    range: int
    schaden_w: int
    schaden_bonus: int
    schadensart: str
    zustand: str
    verteidigung: bool
    flaeche: bool


class HHSheetState(TypedDict, total=False):
    """What an H&H fight writes back to the sheet (:meth:`SheetSync.sheet_state`)."""

    lp: int
    wp: int
    gp: int
    unconscious: bool
    dead: bool
    glueck: int
    conditions: list[HHZustandData]


class HHFigureData(HHPoints, total=False):
    """An H&H figure in the fight: the engine's :class:`Figure` as JSON (its fields; the
    mappings as objects, the tuples as lists) and the adapter's own: ``weapon``, ``spells``
    (the stat block's entries), ``focus``; ``owner`` (the player's user id) set by the
    service. The adapter reads the Figure's values through :func:`to_figure`."""

    id: str
    name: str
    side: str
    owner: int | None
    skills: dict[str, int]
    monsterstufe: int | None
    size: str
    initiative_value: int | None
    resistances: dict[str, str]
    #: The Zustände (``app.rules.hh.state.Zustand`` as objects).
    conditions: list[HHZustandData]
    reactions_left: int
    unconscious: bool
    dead: bool
    on_feet: bool
    drops_at_zero: bool
    lose_next_action: bool
    jammed_weapon: bool
    extra_actions: int
    aim: int
    #: (attacker id, bonus) pairs.
    defence_bonuses: list[list[str | int]]
    weapon: HHWeaponData
    spells: list[HHSpellData]
    focus: HHFocus | None


def hh_data(data: FigureData) -> HHFigureData:
    """An H&H figure's values from the state (the same object, typed)."""
    return cast(HHFigureData, data)


def hh_figure(state: State, pid: str) -> HHFigureData:
    """The figure ``pid`` of an H&H fight (``combat.figure``'s refusal if it is not in it)."""
    return hh_data(figure(state, pid))


# --- JSON <-> Figure -----------------------------------------------------------------------


def to_figure(data: Mapping[str, Any]) -> Figure:
    values = {k: v for k, v in data.items() if k in Figure.__dataclass_fields__}
    values["skills"] = MappingProxyType(dict(values.get("skills", {})))
    values["resistances"] = MappingProxyType(dict(values.get("resistances", {})))
    values["conditions"] = tuple(Zustand(**z) for z in values.get("conditions", ()))
    values["defence_bonuses"] = tuple(
        (str(a), int(b)) for a, b in values.get("defence_bonuses", ())
    )
    return Figure(**values)


def from_figure(fig: Figure, base: FigureData) -> FigureData:
    out = dict(base)
    for name in Figure.__dataclass_fields__:
        value = getattr(fig, name)
        if name in ("skills", "resistances"):
            value = dict(value)
        elif name == "conditions":
            value = [asdict(z) for z in value]
        elif name == "defence_bonuses":
            value = [list(p) for p in value]
        out[name] = value
    return out


def with_breakdown(target: Breakdown, probe: ProbeResult) -> str:
    """The Probe, after its target's breakdown when modifiers made it (one modifier path)."""
    return f"{target.describe()}; {probe.describe()}" if target.parts else probe.describe()


def get(state: State, pid: str) -> Figure:
    return to_figure(figure(state, pid))


def put(state: State, fig: Figure, report: Report | None = None) -> None:
    state["figures"][fig.id] = from_figure(fig, state["figures"][fig.id])
    if report is not None:
        report.changed.add(fig.id)


def options(settings: Settings) -> hh.RuleOptions:
    return hh.RuleOptions.from_mapping(
        {k: settings.get(k) for k in ("movement", "condition_escalation", "focus_qs")}
    )


# --- changes -> log --------------------------------------------------------------------------


def names_of(state: State) -> dict[str, str]:
    return {pid: str(f.get("name", pid)) for pid, f in state["figures"].items()}


#: The rule terms the log names a resource by (they stay German in every language).
AMOUNT_LABELS = {
    "lp": "LP", "wp": "WP", "gp": "GP", "reactions": "Reaktionen", "aim": "Zielen",
    "glueck": "Glück",
}  # fmt: skip

#: The log's words for the changes without an amount (msgids; never the internal kind).
CHANGE_WORDS = {
    "extra_action": N_("extra Handlung"), "unconscious": N_("unconscious"),
    "conscious": N_("conscious again"), "stabilised": N_("stabilised"), "dead": N_("dead"),
    "revived": N_("revived"), "out": N_("out of the fight"), "on_feet": N_("stands up"),
    "lose_next_action": N_("loses the next Handlung"), "jammed_weapon": N_("weapon jammed"),
    "weapon_freed": N_("weapon freed"),
    "defence_bonus": N_("Verteidigung bonus"), "counter_attack": N_("counter-attack"),
    "attack_negated": N_("attack averted"), "moved": N_("moved"), "disarmed": N_("disarmed"),
    "grappled": N_("grappled"), "complication": N_("complication"),
}  # fmt: skip

#: The changes with an amount of Schritt.
STEP_WORDS = {
    "free_move": N_("%(who)s: free move of %(steps)s Schritt"),
    "slide": N_("%(who)s: slides away %(steps)s Schritt"),
}

#: The engine's keys (and older German words) of a change's reason, as msgids; any other
#: reason is rule notation (a rule term, a source the GM typed) and stays as it is.
DETAIL_WORDS = {
    "non_lethal": N_("non-lethal damage"), "ground_gained": N_("ground gained"),
    "rast": N_("rest"), "heilkunde": "Heilkunde", "Rundenbeginn": N_("start of round"),
    "Glück permanent gesenkt": N_("Glück lowered for good"),
    "Glück verbrannt": N_("Glück burnt"), "bleibt auf 0 LP": N_("stays at 0 LP"),
    "Spielsitzung": N_("game session"), "NSC scheidet bei 0 LP aus": N_("an NPC drops out at 0 LP"),
    "Sterbend-Probe: Volltreffer": N_("Sterbend Probe: Volltreffer"),
    "Sterbend-Probe: Patzer": N_("Sterbend Probe: Patzer"),
    "Tabelle": N_("table"), "Tod abgewendet": N_("death averted"),
}  # fmt: skip

#: Reasons the line leaves out: a figure's id, or the change's own word again.
_NO_DETAIL = frozenset({"defence_bonus", "counter_attack", "jammed_weapon"})


def _change_line(who: str, c: Change) -> Detail:
    if c.kind in AMOUNT_LABELS:
        sign = "+" if c.amount > 0 else "−"
        return detail(N_("%(who)s: %(label)s %(amount)s"), who=who,
                      label=AMOUNT_LABELS[c.kind], amount=f"{sign}{abs(c.amount)}")  # fmt: skip
    if c.kind == "condition_added":
        return detail(N_("%(who)s: «%(condition)s»"), who=who, condition=c.condition)
    if c.kind == "condition_removed":
        return detail(N_("%(who)s: «%(condition)s» ends"), who=who, condition=c.condition)
    if c.kind in STEP_WORDS:
        return detail(STEP_WORDS[c.kind], who=who, steps=c.amount)
    word = CHANGE_WORDS.get(c.kind)
    what: Detail | str = detail(word) if word else c.kind.replace("_", " ")
    return detail(N_("%(who)s: %(what)s"), who=who, what=what)


def _reason(c: Change, names: dict[str, str]) -> Detail | str | None:
    """Why ``c`` happened: a msgid, another figure (by its name), or rule notation."""
    if not c.detail or c.kind in _NO_DETAIL:
        return None
    if c.kind == "condition_removed" and c.detail == c.condition:
        return None
    if c.detail in names and c.detail != c.figure:
        return detail(N_("by %(name)s"), name=names[c.detail])
    word = DETAIL_WORDS.get(c.detail)
    return detail(word) if word else c.detail


def describe_changes(state: State, changes: tuple[Change, ...] | list[Change]) -> list[Detail]:
    """The log's lines of ``changes``, written in the reader's language by the log view."""
    names = names_of(state)
    out: list[Detail] = []
    for c in changes:
        line = _change_line(names.get(c.figure, c.figure), c)
        reason = _reason(c, names)
        out.append(line if reason is None else detail(N_("%(line)s (%(reason)s)"), line=line,
                                                       reason=reason))  # fmt: skip
    return out
