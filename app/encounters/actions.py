"""Combat actions by name, shared by the HTML forms and the JSON API.

``perform(session, user, roller, campaign_id, encounter_id, action, data)`` checks the
parameters, then runs the operation through :func:`app.encounters.service.operate` (one
transaction, one or two log events).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts.models import User
from app.encounters import service
from app.encounters.combat import CombatError, Report, State, current_pid
from app.encounters.models import Encounter
from app.encounters.systems import system
from app.errors import ValidationFailed
from app.i18n import N_, _
from app.rules.dice import Roller

ACTIONS = (
    "next",
    "delay",
    "reorder",
    "attack",
    "respond",
    "undo",
    "condition",
    "uncondition",
    "adjust",
    "check",
    "aim",
    "maneuver",
    "focus",
    "cast",
    "morale",
    "shake_off",
    "save",
    "start",
    "end",
)
GM_ONLY = frozenset({"reorder", "condition", "uncondition", "adjust", "save", "morale", "check"})
REASON_MAX = 200


def _int(data: dict[str, Any], key: str, default: int | None = None) -> int:
    raw = data.get(key, default)
    try:
        if raw in (None, ""):
            raise ValueError
        return int(str(raw))
    except ValueError:
        raise ValidationFailed({key: _("Enter a number.")}) from None


def _str(data: dict[str, Any], key: str, default: str = "") -> str:
    return str(data.get(key, default) or default).strip()


def _version(data: dict[str, Any]) -> int | None:
    raw = data.get("version")
    if raw in (None, ""):
        return None
    try:
        return int(str(raw))
    except ValueError:
        return None


def _targets(data: dict[str, Any]) -> list[str]:
    raw = data.get("targets", data.get("target", []))
    items = raw if isinstance(raw, list) else str(raw).split(",")
    return [str(x).strip() for x in items if str(x).strip()]


async def perform(
    session: AsyncSession,
    user: User,
    roller: Roller,
    campaign_id: int,
    encounter_id: int,
    action: str,
    data: dict[str, Any],
) -> Encounter:
    if action not in ACTIONS:
        raise ValidationFailed({"action": _("Unknown action.")})
    version = _version(data)
    if action == "start":
        return await service.start(session, user, roller, campaign_id, encounter_id, version)
    if action == "end":
        return await service.end(session, user, campaign_id, encounter_id, version)
    if action == "undo":
        return await service.undo(session, user, campaign_id, encounter_id, version)

    def sysmod(loaded: service.Loaded) -> Any:
        return system(loaded.campaign.system)

    op: Any
    allow_pending = False
    undoable = True
    if action == "next":

        def op(loaded: service.Loaded, state: State, report: Report) -> None:
            service.op_next(loaded, state, report, roller)

    elif action == "delay":

        def op(loaded: service.Loaded, state: State, report: Report) -> None:
            service.op_delay(loaded, state, report)

    elif action == "reorder":
        pid = _str(data, "participant")
        direction = _int(data, "direction", -1)

        def op(loaded: service.Loaded, state: State, report: Report) -> None:
            service.op_reorder(loaded, state, report, pid, direction)

    elif action == "attack":
        attacker, target = _str(data, "attacker"), _str(data, "target")
        if not target:
            raise ValidationFailed({"target": _("Choose a target.")})
        params = {k: v for k, v in data.items() if k not in ("attacker", "target", "version")}
        if "modifier" in params:
            params["modifier"] = _int(data, "modifier", 0)
        params["secret"] = str(data.get("secret", "")).lower() in ("1", "true", "on")

        def op(loaded: service.Loaded, state: State, report: Report) -> None:
            if params["secret"] and not loaded.viewer.is_gm:
                raise CombatError(N_("Only the GM rolls secretly."))
            actor = attacker or (current_pid(state) or "")
            service.op_attack(loaded, state, report, roller, actor, target, params)

    elif action == "respond":
        choice = _str(data, "choice", "defend")
        allow_pending = True

        def op(loaded: service.Loaded, state: State, report: Report) -> None:
            service.op_respond(loaded, state, report, roller, choice)

    elif action in ("condition", "uncondition"):
        pid, key = _str(data, "participant"), _str(data, "condition")
        cause = _str(data, "cause")[:60]
        value = _int(data, "value", 1)

        def op(loaded: service.Loaded, state: State, report: Report) -> None:
            mod = sysmod(loaded)
            if action == "uncondition":
                mod.remove_condition(state, pid, key, report)
            elif loaded.campaign.system == "pf2e":
                mod.add_condition(
                    state, pid, key, roller, report, loaded.encounter.settings,
                    cause=cause, value=value,
                )  # fmt: skip
            else:
                mod.add_condition(
                    state, pid, key, roller, report, loaded.encounter.settings, cause=cause
                )

    elif action == "adjust":
        pid = _str(data, "participant")
        delta = _int(data, "delta")
        reason = _str(data, "reason")
        if not reason or len(reason) > REASON_MAX:
            raise ValidationFailed({"reason": _("Give a reason (at most 200 characters).")})
        if delta == 0 or abs(delta) > 999:
            raise ValidationFailed({"delta": _("A change between -999 and 999, not 0.")})

        def op(loaded: service.Loaded, state: State, report: Report) -> None:
            sysmod(loaded).adjust(
                state, pid, delta, reason, roller, report, loaded.encounter.settings
            )

    elif action == "check":
        pid, skill = _str(data, "participant"), _str(data, "skill")
        modifier = _int(data, "modifier", 0)
        secret = str(data.get("secret", "")).lower() in ("1", "true", "on")
        undoable = False

        def op(loaded: service.Loaded, state: State, report: Report) -> None:
            report.secret = secret
            sysmod(loaded).check(state, pid, skill, modifier, roller, report)

    elif action == "aim":

        def op(loaded: service.Loaded, state: State, report: Report) -> None:
            _hh_only(loaded)
            pid = current_pid(state) or ""
            service.may_act(loaded, pid)
            sysmod(loaded).aim(state, pid, report)

    elif action == "maneuver":
        target, key = _str(data, "target"), _str(data, "maneuver")

        def op(loaded: service.Loaded, state: State, report: Report) -> None:
            _hh_only(loaded)
            pid = current_pid(state) or ""
            service.may_act(loaded, pid)
            sysmod(loaded).maneuver(
                state, pid, target, key, roller, report, loaded.encounter.settings
            )

    elif action == "focus":
        key = _str(data, "spell")
        if not key:
            raise ValidationFailed({"spell": _("Choose a spell.")})

        def op(loaded: service.Loaded, state: State, report: Report) -> None:
            _hh_only(loaded)
            pid = current_pid(state) or ""
            service.may_act(loaded, pid)
            sysmod(loaded).focus(state, pid, key, report)

    elif action == "cast":
        key = _str(data, "spell")
        if not key:
            raise ValidationFailed({"spell": _("Choose a spell.")})
        distance = _int(data, "distance", 0)
        if not 0 <= distance <= 250:
            raise ValidationFailed({"distance": _("A distance between 0 and 250 Schritt.")})
        params = {
            "spell": key,
            "target": _str(data, "target"),
            "distance": distance,
            "grade": _str(data, "grade").upper(),
            "modifier": _int(data, "modifier", 0),
        }

        def op(loaded: service.Loaded, state: State, report: Report) -> None:
            _hh_only(loaded)
            service.op_cast(loaded, state, report, roller, current_pid(state) or "", params)

    elif action == "morale":
        pid, skill = _str(data, "participant"), _str(data, "skill", "Willenskraft")

        def op(loaded: service.Loaded, state: State, report: Report) -> None:
            _hh_only(loaded)
            sysmod(loaded).morale(state, pid, skill, roller, report, loaded.encounter.settings)

    elif action == "shake_off":
        key = _str(data, "condition")

        def op(loaded: service.Loaded, state: State, report: Report) -> None:
            _hh_only(loaded)
            pid = current_pid(state) or ""
            service.may_act(loaded, pid)
            sysmod(loaded).shake_off(state, pid, key, roller, report, loaded.encounter.settings)

    else:  # save
        targets = _targets(data)
        source = _str(data, "source") or None
        params = {
            "save": _str(data, "save", "reflex"),
            "dc": _str(data, "dc"),
            "damage": _str(data, "damage"),
        }

        def op(loaded: service.Loaded, state: State, report: Report) -> None:
            if loaded.campaign.system != "pf2e":
                raise CombatError(N_("Not available in this rule system."))
            sysmod(loaded).save(state, source, targets, params, roller, report)

    return await service.operate(
        session,
        user,
        campaign_id,
        encounter_id,
        version,
        op,
        gm_only=action in GM_ONLY,
        undoable=undoable,
        allow_pending=allow_pending,
    )


def _hh_only(loaded: service.Loaded) -> None:
    if loaded.campaign.system != "hh":
        raise CombatError(N_("Not available in this rule system."))
