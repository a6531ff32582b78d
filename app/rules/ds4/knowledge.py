"""What a GEI+VE check reveals about a creature (project rule, ``docs/rules/ds4.md``,
"Wissen über Kreaturen"): one fact on a success, two on an Immersieg, none on a failure
or Patzer."""

from __future__ import annotations


def facts_learned(*, success: bool, immersieg: bool) -> int:
    """Facts a GEI+VE check with this outcome reveals."""
    if immersieg:
        return 2
    return 1 if success else 0
