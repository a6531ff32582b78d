"""Campaign rule options for Helden & Halunken (hh.md, every decision marked (V)).

``"full"`` follows the full rules (seed 003), ``"summary"`` the summary (seed 000). The web
app stores the options under exactly these field names (see :meth:`RuleOptions.as_dict`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal, cast, get_args

Movement = Literal["full", "half"]
ConditionEscalation = Literal["full", "summary"]
LongRestLp = Literal["full", "summary"]
FocusQs = Literal["per_spell", "per_focus"]

_ALLOWED: dict[str, tuple[str, ...]] = {
    "movement": get_args(Movement),
    "condition_escalation": get_args(ConditionEscalation),
    "long_rest_lp": get_args(LongRestLp),
    "focus_qs": get_args(FocusQs),
}


@dataclass(frozen=True, slots=True)
class RuleOptions:
    """The per-campaign rule variants.

    - ``movement`` (§5): ``"full"`` = full Bewegung freely split around the Handlung (003);
      ``"half"`` = half Bewegung, at least 2 Schritt (000).
    - ``condition_escalation`` (§8): effect of a condition applied again while active,
      ``"full"`` = table of 003, ``"summary"`` = table of 000.
    - ``long_rest_lp`` (§10): LP regained on a long rest, ``"full"`` = 1W10 (003),
      ``"summary"`` = (QS)W10 (000).
    - ``focus_qs`` (§9.4): ``"per_spell"`` = a focused spell gets +1 QS on success,
      ``"per_focus"`` = +1 QS per focus point.
    """

    movement: Movement = "full"
    condition_escalation: ConditionEscalation = "full"
    long_rest_lp: LongRestLp = "full"
    focus_qs: FocusQs = "per_spell"

    def __post_init__(self) -> None:
        for name, allowed in _ALLOWED.items():
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(f"RuleOptions.{name} must be one of {allowed}, not {value!r}")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | None) -> RuleOptions:
        """Build from stored settings; missing keys and ``None`` take the default (003).

        Unknown keys are ignored (settings of other systems may share the mapping); a known
        key with a value outside its variants raises :class:`ValueError`.
        """
        if not data:
            return cls()
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known and v is not None}
        return cls(**kwargs)

    def as_dict(self) -> dict[str, str]:
        """JSON-ready form under the field names the web app stores."""
        return cast(dict[str, str], asdict(self))


DEFAULT_OPTIONS = RuleOptions()
