"""The GM's rule options per system, with their allowed values and defaults.

H&H options are the rules marked (V) in the binding interpretation: "full" follows the full
rules text, "summary" (for movement: "half") the rules summary. Keys and values match
``app.rules.hh.RuleOptions``; ``npc_drop_at_zero`` is the default for new encounters.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.core.systems import RuleSystem
from app.i18n import N_, _


@dataclass(frozen=True, slots=True)
class Choice:
    value: str
    label: str  # msgid


@dataclass(frozen=True, slots=True)
class RuleOption:
    key: str
    label: str  # msgid
    help: str  # msgid
    choices: tuple[Choice, ...]
    default: str


_FULL = "full"
_SUMMARY = "summary"

#: Every system: to whom a knowledge check from a sheet reveals facts (``app/knowledge/``).
KNOWLEDGE_TO = RuleOption(
    "knowledge_to",
    N_("What a knowledge check reveals"),
    N_("Facts about a creature learned by a check from the sheet."),
    (
        Choice("party", N_("To the whole group")),
        Choice("self", N_("To that player alone")),
    ),
    "party",
)

#: H&H's options: the rules marked (V).
HH_OPTIONS = (
    RuleOption(
        "movement",
        N_("Movement per initiative step"),
        N_("Bewegung alongside the Handlung."),
        (
            Choice(_FULL, N_("Full Bewegung, split freely (full rules)")),
            Choice("half", N_("Half Bewegung, at least 2 Schritt (summary)")),
        ),
        _FULL,
    ),
    RuleOption(
        "condition_escalation",
        N_("A condition applied again"),
        N_("What happens when a Zustand is applied while it is already active."),
        (
            Choice(_FULL, N_("Escalates to the next Zustand (full rules)")),
            Choice(_SUMMARY, N_("Damage or the summary's effect (summary)")),
        ),
        _FULL,
    ),
    RuleOption(
        "long_rest_lp",
        N_("LP from a Lange Rast"),
        N_("Regeneration of Lebenspunkte on a successful Unbeugsamkeit Probe."),
        (
            Choice(_FULL, N_("1W10 LP (full rules)")),
            Choice(_SUMMARY, N_("QS × W10 LP (summary)")),
        ),
        _FULL,
    ),
    RuleOption(
        "focus_qs",
        N_("QS bonus for a focused spell"),
        N_("Extra QS a focused spell gets on success."),
        (
            Choice("per_spell", N_("+1 QS per focused spell")),
            Choice("per_focus", N_("+1 QS per Fokus point")),
        ),
        "per_spell",
    ),
    RuleOption(
        "npc_drop_at_zero",
        N_("NSCs at 0 LP"),
        N_("Default for new encounters."),
        (
            Choice("dying", N_("Follow the Sterben rules")),
            Choice("drop", N_("Drop out at once")),
        ),
        "dying",
    ),
    KNOWLEDGE_TO,
)
DS4_OPTIONS = (KNOWLEDGE_TO,)
PF2E_OPTIONS = (
    RuleOption(
        "secret_checks",
        N_("Verdeckte Würfe"),
        N_("Checks the rules make secret (e.g. Recall Knowledge)."),
        (
            Choice("secret", N_("The GM rolls them secretly")),
            Choice("open", N_("Players roll them openly")),
        ),
        "secret",
    ),
    KNOWLEDGE_TO,
)

#: Every system's options, by system (filled by ``app.wiring``).
OPTIONS: dict[RuleSystem, tuple[RuleOption, ...]] = {}


def defaults(system: RuleSystem) -> dict[str, str]:
    return {o.key: o.default for o in OPTIONS[system]}


def current(system: RuleSystem, stored: Mapping[str, object]) -> dict[str, str]:
    """Stored options completed with defaults (options added later get their default)."""
    values = defaults(system)
    for option in OPTIONS[system]:
        value = stored.get(option.key)
        if isinstance(value, str) and value in {c.value for c in option.choices}:
            values[option.key] = value
    return values


def validate_settings(
    system: RuleSystem, data: Mapping[str, object]
) -> tuple[dict[str, str], dict[str, str]]:
    values: dict[str, str] = {}
    errors: dict[str, str] = {}
    for option in OPTIONS[system]:
        value = data.get(option.key, option.default)
        if value not in {c.value for c in option.choices}:
            errors[option.key] = _("Choose one of the listed options.")
        else:
            values[option.key] = str(value)
    return values, errors
