"""H&H combat figures: JSON state <-> engine :class:`Figure`, and the engine's changes as
log lines. Shared by the adapter (:mod:`app.encounters.systems.hh`) and its checks
(:mod:`app.encounters.systems.hh_checks`)."""

from __future__ import annotations

from dataclasses import asdict
from types import MappingProxyType
from typing import Any

from app.encounters.combat import Report, State, figure
from app.rules import hh
from app.rules.hh.modifiers import Breakdown
from app.rules.hh.probe import ProbeResult
from app.rules.hh.state import Change, Figure, Zustand

# --- JSON <-> Figure -----------------------------------------------------------------------


def to_figure(data: dict[str, Any]) -> Figure:
    values = {k: v for k, v in data.items() if k in Figure.__dataclass_fields__}
    values["skills"] = MappingProxyType(dict(values.get("skills", {})))
    values["resistances"] = MappingProxyType(dict(values.get("resistances", {})))
    values["conditions"] = tuple(Zustand(**z) for z in values.get("conditions", ()))
    values["defence_bonuses"] = tuple(
        (str(a), int(b)) for a, b in values.get("defence_bonuses", ())
    )
    return Figure(**values)


def from_figure(fig: Figure, base: dict[str, Any]) -> dict[str, Any]:
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


def options(settings: dict[str, Any]) -> hh.RuleOptions:
    return hh.RuleOptions.from_mapping(
        {k: settings.get(k) for k in ("movement", "condition_escalation", "focus_qs")}
    )


# --- changes -> log --------------------------------------------------------------------------


def names_of(state: State) -> dict[str, str]:
    return {pid: str(f.get("name", pid)) for pid, f in state["figures"].items()}


#: The log's German words for the changes without an amount (never the internal kind).
CHANGE_WORDS = {
    "extra_action": "zusätzliche Handlung", "unconscious": "bewusstlos",
    "conscious": "bei Bewusstsein", "stabilised": "stabilisiert", "dead": "tot",
    "revived": "wiederbelebt", "out": "kampfunfähig", "on_feet": "steht auf",
    "lose_next_action": "verliert die nächste Handlung", "jammed_weapon": "Waffe blockiert",
    "free_move": "freie Bewegung", "slide": "rutscht weg", "defence_bonus": "Verteidigungsbonus",
    "counter_attack": "Gegenangriff", "attack_negated": "Angriff abgewendet", "moved": "bewegt",
    "disarmed": "entwaffnet", "grappled": "gepackt", "complication": "Komplikation",
    "heilkunde": "Heilkunde", "rast": "Rast", "sterbend": "sterbend",
}  # fmt: skip


def describe_changes(state: State, changes: tuple[Change, ...] | list[Change]) -> list[str]:
    names = names_of(state)
    out: list[str] = []
    for c in changes:
        who = names.get(c.figure, c.figure)
        if c.kind in ("lp", "wp", "gp", "reactions", "aim", "glueck"):
            label = {"lp": "LP", "wp": "WP", "gp": "GP", "reactions": "Reaktionen",
                     "aim": "Zielen", "glueck": "Glück"}[c.kind]  # fmt: skip
            sign = "+" if c.amount > 0 else "−"
            text = f"{who}: {label} {sign}{abs(c.amount)}"
        elif c.kind == "condition_added":
            text = f"{who}: «{c.condition}»"
        elif c.kind == "condition_removed":
            text = f"{who}: «{c.condition}» endet"
        else:
            text = f"{who}: {CHANGE_WORDS.get(c.kind, c.kind)}"
        if c.detail and c.kind not in ("defence_bonus", "counter_attack") and c.detail not in text:
            text += f" ({c.detail})"
        out.append(text)
    return out
