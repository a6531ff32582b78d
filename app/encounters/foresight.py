"""The odds of an attack before anyone rolls, for the member who asks (issue 18).

A read-only use case: it loads the running encounter, checks that the caller may act with
the attacker, and asks the rule system for the forecast with what the caller may know. A
player may know the values of player characters (their sheets are open to the group), not
those of an NSC or monster until they were revealed to them (``app.knowledge``): for those
the forecast names the unknown values and shows only what the known ones decide (at least
the chance of the attack roll itself), so no probability can leak a hidden value.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Any, Literal, NotRequired, TypedDict

from babel.numbers import format_decimal
from sqlalchemy.ext.asyncio import AsyncSession

from app import i18n, limits
from app.accounts.models import User
from app.campaigns.permissions import Action
from app.encounters.combat import CombatError
from app.encounters.service import Loaded, combat_error, load, owns, participant_figure
from app.encounters.state import read_state
from app.encounters.systems import system
from app.encounters.systems.play import AttackOrder, Trials
from app.encounters.systems.protocol import Forecast, Foresight, Unknown, need
from app.errors import Conflict, Forbidden, ValidationFailed
from app.i18n import N_, _, get_locale
from app.knowledge import service as knowledge
from app.rules.dice import SecureRoller
from app.rules.odds import BudgetRating, Estimate, RiskResult
from app.sessions.dice import SeededRoller

Assumption = Literal["defends", "no_reaction"]
ASSUMPTIONS: tuple[str, ...] = ("defends", "no_reaction")


@dataclass(frozen=True, slots=True)
class ForecastRequest:
    actor_id: str
    target_id: str
    options: Mapping[str, Any]
    #: How the defender answers; ``None``: as it would (with a reaction if one is left).
    assume: Assumption | None = None


async def _unknown(session: AsyncSession, loaded: Loaded, target_id: str) -> Unknown:
    """The GM knows every value; others those of player characters (open sheets) and of a
    bestiary creature those revealed to them (``app.knowledge``: e.g. H&H Verteidigung, RS,
    LP, Unbeugsamkeit and its resistances; each one counts as soon as it is known)."""
    figure = loaded.encounter.state["figures"][target_id]
    if loaded.viewer.is_gm or figure.get("owner") is not None:
        return Unknown()
    p = loaded.by_id.get(target_id)
    if p is None or p.bestiary_entry_id is None:
        return Unknown(everything=True)
    missing = await knowledge.forecast_unknown(
        session, loaded.viewer, loaded.campaign.id, p.bestiary_entry_id
    )
    return Unknown(missing)


async def forecast(
    session: AsyncSession, user: User, campaign_id: int, encounter_id: int, req: ForecastRequest
) -> Forecast:
    loaded = await load(session, user, campaign_id, encounter_id, Action.act_in_combat)
    state = read_state(loaded.encounter.state)
    if loaded.encounter.status != "running":
        raise Conflict(_("This encounter is not running."))
    figures = state.get("figures", {})
    hidden = set() if loaded.viewer.is_gm else loaded.hidden
    for field, pid in (("actor_id", req.actor_id), ("target_id", req.target_id)):
        if pid not in figures or pid in hidden:
            raise ValidationFailed({field: _("This participant is not in the combat.")})
    if not loaded.viewer.is_gm and not owns(loaded, req.actor_id):
        raise Forbidden(_("You can only act with your own character."))
    defends = None if req.assume is None else req.assume == "defends"
    unknown = await _unknown(session, loaded, req.target_id)
    try:
        return need(system(loaded.campaign.system), Foresight).forecast(
            state, AttackOrder(req.actor_id, req.target_id, req.options), loaded.settings,
            unknown=unknown, defends=defends,
        )  # fmt: skip
    except CombatError as exc:
        raise combat_error(exc) from None


def _past(deadline: float) -> bool:
    return time.monotonic() > deadline


def _number(p: Fraction | None) -> float | None:
    return None if p is None else float(p)


class AssumptionsJSON(TypedDict):
    defender: str | None


class ForecastJSON(TypedDict):
    """``POST …/forecast``'s answer (:func:`as_json`)."""

    p_attack: float | None
    p_hit: float | None
    p_crit: float | None
    p_fumble: float | None
    damage: dict[str, float] | None
    expected_damage: float | None
    p_target_down: float | None
    p_target_dead: float | None
    unknown: list[str]
    assumptions: AssumptionsJSON


def as_json(result: Forecast, assume: Assumption | None) -> ForecastJSON:
    """The stable JSON shape of ``POST …/forecast`` (probabilities as floats)."""
    out = result.outcome
    defends = out.defends if out is not None else None
    return {
        "p_attack": _number(result.p_attack),
        "p_hit": _number(out.p_hit if out else None),
        "p_crit": _number(out.p_crit if out else None),
        "p_fumble": _number(out.p_fumble if out else None),
        "damage": {str(v): float(p) for v, p in out.damage.items()} if out else None,
        "expected_damage": _number(out.expected_damage if out else None),
        "p_target_down": _number(out.p_down if out else None),
        "p_target_dead": _number(out.p_dead if out else None),
        "unknown": list(result.unknown),
        "assumptions": {
            "defender": assume
            or (None if defends is None else ("defends" if defends else "no_reaction"))
        },
    }


def _percent(p: Fraction) -> str:
    return i18n.percent(float(p))


#: Form fields of the attack form that are not the attack's options.
NOT_OPTIONS = frozenset({"version", "attacker", "target", "secret", "idempotency_key"})


def request_from_form(data: Mapping[str, Any]) -> ForecastRequest:
    """The forecast of the attack form as it is filled in now."""
    options = {k: v for k, v in data.items() if k not in NOT_OPTIONS}
    return ForecastRequest(str(data.get("attacker", "")), str(data.get("target", "")), options)


class OutcomeDisplay(TypedDict):
    """The odds of a roll that hits (:func:`display`), as percentages."""

    p_hit: str
    p_crit: str
    p_fumble: str
    expected: str
    likely: list[tuple[int, str]]
    p_down: str
    p_dead: str
    defends: bool


class ForecastDisplay(TypedDict):
    """What the attack form shows of a forecast (:func:`display`)."""

    p_attack: str | None
    unknown: str
    outcome: OutcomeDisplay | None


def display(result: Forecast) -> ForecastDisplay:
    """What the attack form shows: percentages, the likeliest damage, the unknown values."""
    out = result.outcome
    view: ForecastDisplay = {
        "p_attack": None if result.p_attack is None else _percent(result.p_attack),
        "unknown": ", ".join(result.unknown),
        "outcome": None,
    }
    if out is not None:
        likely = sorted(out.damage.items(), key=lambda kv: -kv[1])[:3]
        view["outcome"] = {
            "p_hit": _percent(out.p_hit),
            "p_crit": _percent(out.p_crit),
            "p_fumble": _percent(out.p_fumble),
            "expected": i18n.number(float(out.expected_damage), fixed=True),
            "likely": [(v, _percent(p)) for v, p in sorted(likely)],
            "p_down": _percent(out.p_down),
            "p_dead": _percent(out.p_dead),
            "defends": out.defends,
        }
    return view


#: Fights a risk estimate plays unless asked for another number (the limits: app.limits).
DEFAULT_TRIALS = 2000
MAX_TRIALS = limits.RISK_TRIALS_MAX


@dataclass(frozen=True, slots=True)
class RiskReport:
    """A risk estimate with what the page shows beside it: the rule system's own rating
    (PF2e's XP budget, else ``None``), the participants' names and sides."""

    result: RiskResult
    rating: BudgetRating | None
    names: dict[str, str]
    sides: dict[str, str]


async def risk(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    encounter_id: int,
    trials: int = DEFAULT_TRIALS,
    seed: int | None = None,
) -> RiskReport:
    """The GM's risk estimate of an encounter (prepared or running), off the event loop."""
    if not 2 <= trials <= MAX_TRIALS:
        raise ValidationFailed({"trials": _("Between %(min)d and %(max)d.", min=2, max=MAX_TRIALS)})
    loaded = await load(session, user, campaign_id, encounter_id, Action.run_encounters)
    enc = loaded.encounter
    if enc.status == "running":
        figures = list(enc.state.get("figures", {}).values())
    else:
        figures = [
            participant_figure(loaded.campaign.system, p, loaded.settings)
            for p in loaded.participants
        ]
    if len({f["side"] for f in figures}) < 2:
        raise ValidationFailed({"trials": _("The encounter needs two sides to simulate.")})
    roller = SeededRoller(seed) if seed is not None else SecureRoller()
    deadline = time.monotonic() + limits.RISK_SECONDS
    try:
        rules = need(system(loaded.campaign.system), Foresight)
        run = partial(
            rules.simulate,
            figures,
            loaded.settings,
            Trials(roller, trials, partial(_past, deadline)),
        )
        result = await asyncio.to_thread(run)
    except CombatError as exc:
        raise combat_error(exc) from None
    names = {str(f["id"]): str(f["name"]) for f in figures}
    sides = {str(f["id"]): str(f["side"]) for f in figures}
    return RiskReport(result, rules.rating(figures), names, sides)


def _estimate(e: Estimate) -> float:
    return round(e.value, 6)


class FigureRiskJSON(TypedDict):
    p_down: float
    p_dead: float
    expected_damage: float


class RoundsJSON(TypedDict):
    mean: float
    p90: int


class StderrJSON(TypedDict):
    p_any_down: float
    p_any_dead: float
    p_wipe: float
    rounds_mean: float
    participants: dict[str, FigureRiskJSON]


class XPBudgetJSON(TypedDict):
    xp: int
    rating: str
    party_level: int
    party_size: int
    budgets: dict[str, int]


class RiskJSON(TypedDict):
    """``POST …/risk``'s answer (:func:`risk_json`)."""

    trials: int
    p_any_down: float
    p_any_dead: float
    p_wipe: float
    rounds: RoundsJSON
    participants: dict[str, FigureRiskJSON]
    stderr: StderrJSON
    xp_budget: NotRequired[XPBudgetJSON]


def risk_json(report: RiskReport) -> RiskJSON:
    """The stable JSON shape of ``POST …/risk``; ``xp_budget`` only where the rule system
    has one (PF2e)."""
    result = report.result
    out: RiskJSON = {
        "trials": result.trials,
        "p_any_down": _estimate(result.p_any_down),
        "p_any_dead": _estimate(result.p_any_dead),
        "p_wipe": _estimate(result.p_wipe),
        "rounds": {"mean": _estimate(result.rounds_mean), "p90": result.rounds_p90},
        "participants": {
            pid: {
                "p_down": _estimate(r.p_down),
                "p_dead": _estimate(r.p_dead),
                "expected_damage": _estimate(r.expected_damage),
            }
            for pid, r in result.figures.items()
        },
        "stderr": {
            "p_any_down": _estimate(Estimate(result.p_any_down.stderr, 0)),
            "p_any_dead": _estimate(Estimate(result.p_any_dead.stderr, 0)),
            "p_wipe": _estimate(Estimate(result.p_wipe.stderr, 0)),
            "rounds_mean": _estimate(Estimate(result.rounds_mean.stderr, 0)),
            "participants": {
                pid: {
                    "p_down": _estimate(Estimate(r.p_down.stderr, 0)),
                    "p_dead": _estimate(Estimate(r.p_dead.stderr, 0)),
                    "expected_damage": _estimate(Estimate(r.expected_damage.stderr, 0)),
                }
                for pid, r in result.figures.items()
            },
        },
    }
    if report.rating is not None:
        out["xp_budget"] = {
            "xp": report.rating.xp,
            "rating": report.rating.rating,
            "party_level": report.rating.party_level,
            "party_size": report.rating.party_size,
            "budgets": dict(report.rating.budgets),
        }
    return out


#: The XP budget's threat ratings as the page names them.
THREAT_LABELS = {
    "trivial": N_("Trivial"),
    "low": N_("Low"),
    "moderate": N_("Moderate"),
    "severe": N_("Severe"),
    "extreme": N_("Extreme"),
}


def _share(e: Estimate) -> tuple[str, str]:
    """A proportion and its standard error as percentages in the page's language."""
    return _decimal(e.value * 100) + " %", _decimal(e.stderr * 100)


def _decimal(x: float) -> str:
    return format_decimal(x, format="0.0", locale=get_locale())


def risk_form(data: Mapping[str, object]) -> tuple[int, int | None]:
    """The risk form's trials and seed; a bad number is refused at its field."""
    values: list[int | None] = []
    for name in ("trials", "seed"):
        raw = str(data.get(name, "")).strip()
        try:
            values.append(int(raw) if raw else None)
        except ValueError:
            raise ValidationFailed({name: _("Enter a number.")}) from None
    trials, seed = values
    if seed is not None and not 0 <= seed < 2**63:
        raise ValidationFailed({"seed": _("Enter a number.")})
    return DEFAULT_TRIALS if trials is None else trials, seed


class FigureRiskRow(TypedDict):
    """One participant's risk on the prep page (:func:`risk_display`)."""

    pid: str
    name: str
    party: bool
    p_down: tuple[str, str]
    damage: tuple[str, str]


class RatingDisplay(TypedDict):
    """The XP budget as the prep page shows it (:func:`risk_display`)."""

    xp: int
    label: str
    party_level: int
    party_size: int
    budgets: list[tuple[str, int]]


class RiskDisplay(TypedDict):
    """What the prep page shows of a risk estimate (:func:`risk_display`)."""

    trials: int
    p_any_down: tuple[str, str]
    p_any_dead: tuple[str, str]
    p_wipe: tuple[str, str]
    rounds: tuple[str, str, int]
    participants: list[FigureRiskRow]
    rating: RatingDisplay | None


def risk_display(report: RiskReport) -> RiskDisplay:
    """What the prep page shows of a risk estimate: percentages with their standard
    errors, the rounds, every participant (the party first), and the XP budget."""
    r = report.result
    order = sorted(r.figures, key=lambda pid: (report.sides[pid] != "abenteurer", pid))
    view: RiskDisplay = {
        "trials": r.trials,
        "p_any_down": _share(r.p_any_down),
        "p_any_dead": _share(r.p_any_dead),
        "p_wipe": _share(r.p_wipe),
        "rounds": (_decimal(r.rounds_mean.value), _decimal(r.rounds_mean.stderr), r.rounds_p90),
        "participants": [
            {
                "pid": pid,
                "name": report.names[pid],
                "party": report.sides[pid] == "abenteurer",
                "p_down": _share(r.figures[pid].p_down),
                "damage": (
                    _decimal(r.figures[pid].expected_damage.value),
                    _decimal(r.figures[pid].expected_damage.stderr),
                ),
            }
            for pid in order
        ],
        "rating": None,
    }
    if report.rating is not None:
        view["rating"] = {
            "xp": report.rating.xp,
            "label": THREAT_LABELS[report.rating.rating],
            "party_level": report.rating.party_level,
            "party_size": report.rating.party_size,
            "budgets": [(THREAT_LABELS[t], xp) for t, xp in report.rating.budgets.items()],
        }
    return view
