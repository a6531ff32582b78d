"""Helden & Halunken (H&H) rules engine — pure functions, dice only through a Roller.

Binding interpretation: ``shared/rules/hh.md``; mapping to code: ``docs/rules/hh.md``.

Public API (core):

- Options: :class:`RuleOptions` (fields ``movement``, ``condition_escalation``,
  ``long_rest_lp``, ``focus_qs``; ``from_mapping``, ``as_dict``).
- Probe (§1): :func:`evaluate_probe`, :func:`roll_probe`, :func:`automatic_volltreffer`,
  :class:`ProbeResult`, :func:`qs`, :func:`best_qs`, :data:`DIFFICULTIES`,
  :func:`difficulty_modifier`, :func:`success_probability`, :func:`qs_distribution`,
  :func:`probe_odds`, :func:`probability_table`.
"""

from app.rules.hh.options import DEFAULT_OPTIONS, RuleOptions
from app.rules.hh.probe import (
    DIFFICULTIES,
    Difficulty,
    ProbeOdds,
    ProbeResult,
    automatic_volltreffer,
    best_qs,
    difficulty_modifier,
    evaluate_probe,
    probability_table,
    probe_odds,
    qs,
    qs_distribution,
    roll_probe,
    success_probability,
)

__all__ = [
    "DEFAULT_OPTIONS",
    "DIFFICULTIES",
    "Difficulty",
    "ProbeOdds",
    "ProbeResult",
    "RuleOptions",
    "automatic_volltreffer",
    "best_qs",
    "difficulty_modifier",
    "evaluate_probe",
    "probability_table",
    "probe_odds",
    "qs",
    "qs_distribution",
    "roll_probe",
    "success_probability",
]
