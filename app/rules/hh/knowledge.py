"""What a knowledge Probe reveals about a creature (project rule, ``docs/rules/hh.md``,
"Wissen über Kreaturen"): one fact per QS of a successful Probe on the Fertigkeit the
GM names; a failed Probe (Patzer included) reveals nothing."""

from __future__ import annotations


def facts_learned(*, success: bool, qs: int) -> int:
    """Facts a Probe with this outcome reveals: its QS on success (Volltreffer's QS
    included), none on failure."""
    return max(qs, 0) if success else 0
