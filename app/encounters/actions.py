"""Combat actions by name, shared by the HTML forms and the JSON API: a registry.

Each action is one small function registered with :func:`step` (an operation on the running
fight, through :func:`app.encounters.service.operate`: one transaction, its log events) or
:func:`lifecycle` (start, end, undo). Its declaration says what the shared guards check:

- ``gm_only``: GMs and co-GMs only (``Action.run_encounters`` instead of ``act_in_combat``);
- ``as_current``: it acts with the figure whose turn it is (a player only with their own,
  :func:`app.encounters.service.may_act`);
- ``needs``: the capability (a protocol of :mod:`app.encounters.systems.protocol`) the
  action asks of the rule system, refused where the system's adapter does not have it
  (:func:`offered` lists what a system offers);
- ``inputs``: its parameters, read before anything is loaded (a bad one is 422 at its field).

Adding an action = one function here and one method of the systems' adapters (a capability
protocol's); the list in
``docs/encounters.md`` names every action with its inputs (``tests/encounters/test_actions.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.accounts.models import User
from app.encounters import area, service
from app.encounters.combat import CombatError, Report, State, current_pid
from app.encounters.systems import system
from app.encounters.systems.play import Play
from app.encounters.systems.protocol import (
    AttackOptions,
    Checks,
    CombatCore,
    Conditions,
    ExtraActions,
    FirstAid,
    Luck,
    Morale,
    NamedSpells,
    Reactions,
    Recovery,
    Saves,
    Settings,
    Spellcasting,
    Stunts,
    WeaponJams,
    capability,
    need,
)
from app.errors import ValidationFailed
from app.i18n import N_, _
from app.rules.dice import Roller

REASON_MAX = 200
T = TypeVar("T")
TRUE = ("1", "true", "on")


def _int(data: Mapping[str, Any], key: str, default: int | None = None) -> int:
    raw = data.get(key, default)
    try:
        if raw in (None, ""):
            raise ValueError
        return int(str(raw))
    except ValueError:
        raise ValidationFailed({key: _("Enter a number.")}) from None


def _str(data: Mapping[str, Any], key: str, default: str = "") -> str:
    """A text parameter of an action (ids, keys, a reason): the free-text rule, so no NUL
    reaches the combat state or the log."""
    return limits.check_text(str(data.get(key, default) or default).strip(), key)


def _version(data: Mapping[str, Any]) -> int | None:
    raw = data.get("version")
    if raw in (None, ""):
        return None
    try:
        return int(str(raw))
    except ValueError:
        return None


# --- inputs ----------------------------------------------------------------------------------


class Input(Protocol):
    @property
    def key(self) -> str: ...

    def read(self, data: Mapping[str, Any]) -> object: ...


@dataclass(frozen=True, slots=True)
class Text:
    """A text; ``message`` (msgid) refuses it empty or longer than ``max_length``."""

    key: str
    default: str = ""
    message: str | None = None
    max_length: int | None = None
    cut: int | None = None
    upper: bool = False

    def read(self, data: Mapping[str, Any]) -> str:
        text = _str(data, self.key, self.default)
        too_long = self.max_length is not None and len(text) > self.max_length
        if self.message is not None and (not text or too_long):
            raise ValidationFailed({self.key: _(self.message)})
        text = text[: self.cut] if self.cut is not None else text
        return text.upper() if self.upper else text


@dataclass(frozen=True, slots=True)
class Number:
    """A whole number; ``valid`` refuses others with ``message`` (msgid)."""

    key: str
    default: int | None = None
    valid: Callable[[int], bool] | None = None
    message: str = ""

    def read(self, data: Mapping[str, Any]) -> int:
        number = _int(data, self.key, self.default)
        if self.valid is not None and not self.valid(number):
            raise ValidationFailed({self.key: _(self.message)})
        return number


@dataclass(frozen=True, slots=True)
class Flag:
    key: str

    def read(self, data: Mapping[str, Any]) -> bool:
        return str(data.get(self.key, "")).lower() in TRUE


@dataclass(frozen=True, slots=True)
class Targets:
    """Participant ids, as a list or comma-separated (``target`` is taken for ``targets``)."""

    key: str = "targets"
    fallback: str = "target"

    def read(self, data: Mapping[str, Any]) -> list[str]:
        raw = data.get(self.key, data.get(self.fallback, []) if self.fallback else [])
        items = raw if isinstance(raw, list) else str(raw).split(",")
        return [str(x).strip() for x in items if str(x).strip()]


@dataclass(frozen=True, slots=True)
class Args:
    """The parsed inputs of one call, with typed access."""

    values: Mapping[str, object]
    #: What the action passes on to the rule system unread (``attack``: kind, strike, ...).
    rest: Mapping[str, Any]

    def text(self, key: str) -> str:
        return str(self.values[key])

    def number(self, key: str) -> int:
        value = self.values[key]
        assert isinstance(value, int)
        return value

    def flag(self, key: str) -> bool:
        return bool(self.values[key])

    def items(self, key: str) -> list[str]:
        value = self.values[key]
        assert isinstance(value, list)
        return [str(v) for v in value]


def _read(inputs: tuple[Input, ...], data: Mapping[str, Any], passes_rest: bool) -> Args:
    values = {i.key: i.read(data) for i in inputs}
    rest = (
        {k: v for k, v in data.items() if k not in values and k != "version"} if passes_rest else {}
    )
    return Args(values, rest)


# --- the registry --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Turn:
    """What a step works on: the loaded encounter, a copy of its state, the report."""

    loaded: service.Loaded
    state: State
    report: Report
    roller: Roller
    rules: CombatCore
    args: Args

    def rules_as(self, kind: Callable[..., T]) -> T:
        """The system's rules as the capability ``kind`` (the step's ``needs``: refused where
        the system lacks it)."""
        return need(self.rules, kind)

    @property
    def actor(self) -> str:
        """The figure whose turn it is ("" between turns)."""
        return current_pid(self.state) or ""

    @property
    def settings(self) -> Settings:
        return self.loaded.settings

    @property
    def play(self) -> Play:
        """The step's dice, report and settings, as the capabilities take them."""
        return Play(self.roller, self.report, self.settings)


Run = Callable[[Turn], None]


@dataclass(frozen=True, slots=True)
class Step:
    """An operation on the running fight."""

    name: str
    run: Run
    inputs: tuple[Input, ...] = ()
    gm_only: bool = False
    as_current: bool = False
    #: The capability the action asks of the system (refused before anything else where the
    #: system lacks it); ``None``: every system has it.
    needs: Callable[..., object] | None = None
    undoable: bool = True
    allow_pending: bool = False
    passes_rest: bool = False
    #: A GM override (an LP edit): the fair-play table rule decides (``app.sessions``).
    override: bool = False

    async def perform(self, call: Call, data: Mapping[str, Any]) -> service.Loaded:
        args = _read(self.inputs, data, self.passes_rest)

        def op(loaded: service.Loaded, state: State, report: Report, roller: Roller) -> None:
            rules = system(loaded.campaign.system)
            if self.needs is not None:
                need(rules, self.needs)
            turn = Turn(loaded, state, report, roller, rules, args)
            if self.as_current:
                service.may_act(loaded, turn.actor)
            self.run(turn)

        return await service.operate(
            call.session, call.user, call.campaign_id, call.encounter_id, _version(data), op,
            roller=call.roller, gm_only=self.gm_only, undoable=self.undoable,
            allow_pending=self.allow_pending, override=self.override,
        )  # fmt: skip


Whole = Callable[["Call", int | None], Awaitable[service.Loaded]]


@dataclass(frozen=True, slots=True)
class Lifecycle:
    """Starting, ending or undoing: a use case of its own (GM only, checked there)."""

    name: str
    run: Whole
    inputs: tuple[Input, ...] = ()
    gm_only: bool = True
    as_current: bool = False
    needs: Callable[..., object] | None = None

    async def perform(self, call: Call, data: Mapping[str, Any]) -> service.Loaded:
        return await self.run(call, _version(data))


@dataclass(frozen=True, slots=True)
class Call:
    session: AsyncSession
    user: User
    roller: Roller
    campaign_id: int
    encounter_id: int


ACTIONS: dict[str, Step | Lifecycle] = {}


def step(
    name: str,
    *inputs: Input,
    gm_only: bool = False,
    as_current: bool = False,
    needs: Callable[..., object] | None = None,
    undoable: bool = True,
    allow_pending: bool = False,
    passes_rest: bool = False,
    override: bool = False,
) -> Callable[[Run], Run]:
    def register(run: Run) -> Run:
        ACTIONS[name] = Step(
            name, run, inputs, gm_only, as_current, needs, undoable, allow_pending,
            passes_rest, override,
        )  # fmt: skip
        return run

    return register


def lifecycle(name: str) -> Callable[[Whole], Whole]:
    def register(run: Whole) -> Whole:
        ACTIONS[name] = Lifecycle(name, run)
        return run

    return register


async def perform(
    session: AsyncSession,
    user: User,
    roller: Roller,
    campaign_id: int,
    encounter_id: int,
    action: str,
    data: dict[str, object],
) -> service.Loaded:
    """Run combat action ``action``; the fight as it left it is what its answer shows."""
    handler = ACTIONS.get(action)
    if handler is None:
        raise ValidationFailed({"action": _("Unknown action.")})
    return await handler.perform(Call(session, user, roller, campaign_id, encounter_id), data)


# --- the actions -------------------------------------------------------------------------------


@lifecycle("start")
async def _start(call: Call, version: int | None) -> service.Loaded:
    return await service.start(
        call.session, call.user, call.roller, call.campaign_id, call.encounter_id, version
    )


@lifecycle("end")
async def _end(call: Call, version: int | None) -> service.Loaded:
    return await service.end(call.session, call.user, call.campaign_id, call.encounter_id, version)


@lifecycle("undo")
async def _undo(call: Call, version: int | None) -> service.Loaded:
    return await service.undo(call.session, call.user, call.campaign_id, call.encounter_id, version)


@step("next")
def _next(t: Turn) -> None:
    service.op_next(t.loaded, t.state, t.report, t.roller)


@step("delay")
def _delay(t: Turn) -> None:
    service.op_delay(t.loaded, t.state, t.report)


@step("reorder", Text("participant"), Number("direction", -1), gm_only=True)
def _reorder(t: Turn) -> None:
    a = t.args
    service.op_reorder(t.loaded, t.state, t.report, a.text("participant"), a.number("direction"))


@step(
    "attack",
    Text("attacker"),
    Text("target", message=N_("Choose a target.")),
    Number("modifier", 0),
    Flag("secret"),
    passes_rest=True,
)
def _attack(t: Turn) -> None:
    a = t.args
    if a.flag("secret") and not t.loaded.viewer.is_gm:
        raise CombatError(N_("Only the GM rolls secretly."))
    params = {**a.rest, "modifier": a.number("modifier"), "secret": a.flag("secret")}
    attacker = a.text("attacker") or t.actor
    service.op_attack(t.loaded, t.state, t.report, t.roller, attacker, a.text("target"), params)


@step("respond", Text("choice", "defend"), allow_pending=True)
def _respond(t: Turn) -> None:
    service.op_respond(t.loaded, t.state, t.report, t.roller, t.args.text("choice"))


@step(
    "condition",
    Text("participant"),
    Text("condition"),
    Text("cause", cut=60),
    Number("value", 1),
    gm_only=True,
    needs=Conditions,
)
def _condition(t: Turn) -> None:
    a = t.args
    t.rules_as(Conditions).add_condition(
        t.state, a.text("participant"), a.text("condition"), t.play,
        cause=a.text("cause"), value=a.number("value"),
    )  # fmt: skip


@step("uncondition", Text("participant"), Text("condition"), gm_only=True, needs=Conditions)
def _uncondition(t: Turn) -> None:
    a = t.args
    t.rules_as(Conditions).remove_condition(
        t.state, a.text("participant"), a.text("condition"), t.report
    )


@step(
    "adjust",
    Text("participant"),
    Number(
        "delta",
        valid=lambda d: d != 0 and abs(d) <= 999,
        message=N_("A change between -999 and 999, not 0."),
    ),
    Text("reason", message=N_("Give a reason (at most 200 characters)."), max_length=REASON_MAX),
    gm_only=True,
    override=True,
)
def _adjust(t: Turn) -> None:
    a = t.args
    t.rules.adjust(
        t.state, a.text("participant"), a.number("delta"), a.text("reason"),
        t.play,
    )  # fmt: skip


@step(
    "check",
    Text("participant"),
    Text("skill"),
    Number("modifier", 0),
    Flag("secret"),
    Targets("helpers", fallback=""),
    gm_only=True,
    needs=Checks,
    undoable=False,
)
def _check(t: Turn) -> None:
    a = t.args
    t.report.secret = a.flag("secret")
    t.rules_as(Checks).check(
        t.state, a.text("participant"), a.text("skill"), a.number("modifier"), t.roller, t.report,
        a.items("helpers"),
    )  # fmt: skip


SCHRITT = Number(
    "distance", valid=lambda d: 0 <= d <= 200, message=N_("Between 0 and 200 Schritt.")
)


@step(
    "jump",
    Text("participant", message=N_("Choose a figure.")),
    SCHRITT,
    Text("direction", "horizontal"),
    Number("modifier", 0),
    gm_only=True,
    needs=Stunts,
)
def _jump(t: Turn) -> None:
    a = t.args
    t.rules_as(Stunts).jump(
        t.state, a.text("participant"), a.number("distance"), a.text("direction"),
        a.number("modifier"), t.roller, t.report,
    )  # fmt: skip


@step(
    "fall",
    Text("participant", message=N_("Choose a figure.")),
    SCHRITT,
    Number("modifier", 0),
    gm_only=True,
    needs=Stunts,
)
def _fall(t: Turn) -> None:
    a = t.args
    t.rules_as(Stunts).fall(
        t.state, a.text("participant"), a.number("distance"), a.number("modifier"),
        t.play,
    )  # fmt: skip


@step("aim", as_current=True, needs=AttackOptions)
def _aim(t: Turn) -> None:
    t.rules_as(AttackOptions).aim(t.state, t.actor, t.report)


@step("maneuver", Text("target"), Text("maneuver"), as_current=True, needs=AttackOptions)
def _maneuver(t: Turn) -> None:
    a = t.args
    t.rules_as(AttackOptions).maneuver(
        t.state, t.actor, a.text("target"), a.text("maneuver"), t.play
    )


SPELL = Text("spell", message=N_("Choose a spell."))


@step("focus", SPELL, as_current=True, needs=Spellcasting)
def _focus(t: Turn) -> None:
    t.rules_as(Spellcasting).focus(t.state, t.actor, t.args.text("spell"), t.report)


@step(
    "cast",
    SPELL,
    Number(
        "distance",
        0,
        valid=lambda d: 0 <= d <= 250,
        message=N_("A distance between 0 and 250 Schritt."),
    ),
    Text("target"),
    Text("grade", upper=True),
    Number("modifier", 0),
    Flag("override_geometry"),
    as_current=True,
    needs=Spellcasting,
)
def _cast(t: Turn) -> None:
    params = dict(t.args.values)
    service.op_cast(t.loaded, t.state, t.report, t.roller, t.actor, params)


@step(
    "morale",
    Text("participant"),
    Text("skill", "Willenskraft"),
    gm_only=True,
    needs=Morale,
)
def _morale(t: Turn) -> None:
    a = t.args
    t.rules_as(Morale).morale(t.state, a.text("participant"), a.text("skill"), t.play)


@step("shake_off", Text("condition"), as_current=True, needs=Recovery)
def _shake_off(t: Turn) -> None:
    t.rules_as(Recovery).shake_off(t.state, t.actor, t.args.text("condition"), t.play)


@step("free_weapon", as_current=True, needs=WeaponJams)
def _free_weapon(t: Turn) -> None:
    t.rules_as(WeaponJams).free_weapon(t.state, t.actor, t.play)


@step(
    "save",
    Targets(),
    Text("source"),
    Text("save", "reflex"),
    Text("dc"),
    Text("damage"),
    Flag("fortune"),
    Flag("misfortune"),
    Flag("secret"),
    gm_only=True,
    needs=Saves,
)
def _save(t: Turn) -> None:
    a = t.args
    t.report.secret = a.flag("secret")
    params: dict[str, object] = {
        "save": a.text("save"), "dc": a.text("dc"), "damage": a.text("damage"),
        "fortune": a.flag("fortune"), "misfortune": a.flag("misfortune"),
    }  # fmt: skip
    t.rules_as(Saves).save(
        t.state, a.text("source") or None, a.items("targets"), params, t.roller, t.report
    )


@step("stabilise", Text("target", message=N_("Choose a target.")), as_current=True,
      needs=FirstAid)  # fmt: skip
def _stabilise(t: Turn) -> None:
    t.rules_as(FirstAid).stabilise(t.state, t.actor, t.args.text("target"), t.play)


@step("luck", Text("participant"), Text("option"), Text("condition"), needs=Luck,
      allow_pending=True)  # fmt: skip
def _luck(t: Turn) -> None:
    """Glück outside a roll: the figure's player or the GM, also outside its turn."""
    a = t.args
    pid = a.text("participant") or t.actor
    service.may_use_luck(t.loaded, pid)
    t.rules_as(Luck).luck(t.state, pid, a.text("option"), a.text("condition"), t.report)


@step("grant_action", Text("participant"), gm_only=True, needs=ExtraActions)
def _grant_action(t: Turn) -> None:
    t.rules_as(ExtraActions).grant_action(t.state, t.args.text("participant") or t.actor, t.report)


@dataclass(frozen=True, slots=True)
class AreaInput:
    """The area's fields (``shape`` with ``origin``, ``size``, ``toward``, ``source``:
    ``app.encounters.area.read``), each refused at its own key."""

    key: str = "shape"

    def read(self, data: Mapping[str, Any]) -> area.AreaRequest:
        return area.read(data)


@step("area", AreaInput())
def _area(t: Turn) -> None:
    """An area on the linked scene's board (issue 27): its player or a GM for an attack of
    the figure whose turn it is, a GM for a save or free area (checked in ``op_area``)."""
    request = t.args.values["shape"]
    assert isinstance(request, area.AreaRequest)
    area.op_area(t.loaded, t.state, t.report, t.roller, request)


@step(
    "reaction",
    Text("participant"),
    Text("reaction", message=N_("Name the reaction (at most 60 characters)."), max_length=60),
    needs=Reactions,
)
def _reaction(t: Turn) -> None:
    """A reaction (PF2e), also outside the figure's turn: its player or the GM."""
    a = t.args
    pid = a.text("participant") or t.actor
    service.may_use_luck(t.loaded, pid)  # the figure's player (at any time) or a GM
    t.rules_as(Reactions).react(t.state, pid, a.text("reaction"), t.report)


@step(
    "cast_spell",
    Text("spell", message=N_("Name the spell (at most 60 characters)."), max_length=60),
    Number("actions", valid=lambda n: 1 <= n <= 3, message=N_("A spell costs 1 to 3 actions.")),
    Text("target", message=N_("Choose a target.")),
    Text("kind", "attack"),
    Text("attack_bonus"),
    Text("save", "reflex"),
    Text("dc"),
    Flag("basic"),
    Text("damage", cut=60),
    as_current=True,
    needs=NamedSpells,
)
def _cast_spell(t: Turn) -> None:
    """A spell of the figure whose turn it is (PF2e), named with its cost (no catalogue)."""
    t.rules_as(NamedSpells).cast_spell(t.state, t.actor, dict(t.args.values), t.roller, t.report)


def offered(rules: CombatCore) -> frozenset[str]:
    """The actions that need a capability (``needs``) and that ``rules`` offers: its adapter
    has that capability."""
    return frozenset(
        name
        for name, handler in ACTIONS.items()
        if handler.needs is not None and capability(rules, handler.needs) is not None
    )
