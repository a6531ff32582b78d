"""What the combat needs of a rule system: typed capabilities, one adapter per system.

``app.encounters.systems`` registers one adapter per system as a :class:`CombatCore` (the
turns and the attack, which every system has). Everything else is a capability of its own,
a ``runtime_checkable`` protocol of at most 15 members (:data:`CAPABILITIES`): the service,
the action handlers and the views ask for it with :func:`capability` (``None`` where the
system lacks it) or :func:`need` (refused then), so mypy checks every call. A system-specific
action (``aim``, ``cast``, ``save``, ...) names the capability it needs (``@step(...,
needs=Saves)``) and is refused where the system's adapter does not implement it. Templates
show what a system offers through ``partials`` (slot → template). docs/architecture.md lists
every member («Rule-system capabilities»).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any, NotRequired, Protocol, TypedDict, TypeVar, cast, runtime_checkable

from app.core.capability import capability as capability
from app.encounters.combat import BurstParams, CombatError, Report, State
from app.encounters.state import FigureData
from app.encounters.systems.play import AttackOrder, Play, Trials
from app.i18n import N_
from app.rules.dice import Roller
from app.rules.grid import Cell, Metric
from app.rules.odds import ActionForecast, BudgetRating, RiskResult

T = TypeVar("T")


class Settings(TypedDict, total=False):
    """An encounter's settings (``Encounter.settings``), as the adapters read them: the
    campaign's rule options when the encounter was made (``app.campaigns.settings``; the
    battle map passes the campaign's own) and the encounter's ``surprise`` (the side that is
    surprised, ``""``: none) and ``defence_timeout`` (seconds). Built by :func:`settings_of`."""

    surprise: str
    defence_timeout: int
    movement: str
    condition_escalation: str
    long_rest_lp: str
    focus_qs: str
    npc_drop_at_zero: str
    secret_checks: str
    knowledge_to: str


_SETTING_TEXTS = (
    "surprise", "movement", "condition_escalation", "long_rest_lp", "focus_qs",
    "npc_drop_at_zero", "secret_checks", "knowledge_to",
)  # fmt: skip


def settings_of(stored: Mapping[str, object]) -> Settings:
    """The :class:`Settings` of a stored JSON mapping: the known keys of their type (a
    ``defence_timeout`` stored as a number's text is read as the number); others are left
    out, as the adapters ignore them."""
    found: dict[str, str] = {k: v for k in _SETTING_TEXTS if isinstance(v := stored.get(k), str)}
    settings = cast(Settings, found)
    timeout = stored.get("defence_timeout")
    if isinstance(timeout, (int, str)) and not isinstance(timeout, bool):
        with suppress(ValueError):
            settings["defence_timeout"] = int(timeout)
    return settings


class FigureView(TypedDict):
    """A figure for the roster (:meth:`CombatCore.view`): ``status`` (key, label: a msgid or
    a rule term), ``points`` («12/20 LP»), ``health`` (current, maximum of those points), its
    ``conditions`` (keys), ``extra`` lines, ``initiative`` (``None``: not rolled) and ``out``
    (it no longer fights)."""

    status: tuple[str, str]
    points: str
    health: tuple[int, int]
    conditions: list[str]
    extra: list[str]
    initiative: int | None
    out: bool


class Offers(TypedDict):
    """What the acting figure's forms list: PF2e Strikes, H&H Kampfmanöver and spells."""

    #: The system's own entries (PF2e ``PF2eStrikeData``, H&H ``HHSpellData``) for the forms.
    strikes: Sequence[Mapping[str, object]]
    maneuvers: list[tuple[str, str]]
    spells: Sequence[Mapping[str, object]]
    #: Why the figure cannot act on its turn (a msgid with ``%(name)s``; a PF2e figure
    #: at 0 TP): its turn offers only "End turn".
    helpless: NotRequired[str]
    #: The conditions the figure can shake off with its own action: (key, rule term).
    shake_off: NotRequired[list[tuple[str, str]]]
    #: Its weapon is jammed (H&H's attack Patzer «Waffe blockiert»): freeing it is its action.
    jammed: NotRequired[bool]


@dataclass(frozen=True, slots=True)
class MoveReaction:
    """A figure that may react to a move on the battle map: ``kind`` (``blockade``), and
    ``index``, the step of the path where the mover is stopped for it."""

    pid: str
    kind: str
    index: int


@dataclass(frozen=True, slots=True)
class AttackLine:
    """What the battle map measured between an attacker and a target (``app.maps``).

    ``distance``: open-ground distance in the system's unit (``cells`` in cells);
    ``wall_blocked`` of ``wall_lines``: cover lines a wall stops (``grid.cover_lines``);
    ``between``: the figures on the line the viewer may see, nearest to the attacker first.
    """

    distance: Fraction
    cells: int
    wall_blocked: int
    wall_lines: int
    between: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RangeNote:
    """Whether a weapon or attack reaches the target: ``modifier`` the range modifier,
    ``None`` out of range; ``reach`` how far it reaches in the system's unit (``None``:
    no limit), for a refusal's message."""

    label: str
    modifier: int | None
    reach: float | None = None


@dataclass(frozen=True, slots=True)
class AreaSource:
    """What made an area on the map (issue 27): ``kind`` (``attack``, ``spell``, ``save``,
    ``free``) and its own fields as posted (PF2e ``save``: ``save``, ``dc``, ``damage``,
    ``basic``; an attack's weapon fields)."""

    kind: str
    params: Mapping[str, Any] = field(default_factory=dict)


#: A parameter only the board sets (``MapAttack.fill``): the cover is a wall's ("wall"), so
#: the breakdown may name it. A posted one is dropped, on a scene and off it.
COVER_FROM = "cover_from"


@dataclass(frozen=True, slots=True)
class MapAttack:
    """The server's suggestion for an attack chosen on the map: ranges per weapon, the
    attack form's fields to pre-fill (``fill``: name → value) and the suggested cover
    (``cover`` ``""`` where the system's form has none) with the covering figure."""

    ranges: tuple[RangeNote, ...]
    fill: Mapping[str, str]
    cover: str = ""
    covering: str = ""


@dataclass(frozen=True, slots=True)
class Forecast:
    """The odds of an attack for one caller, before anyone rolls (issue 18).

    ``p_attack`` is the chance of the attack roll itself (it uses only the attacker's own
    values); ``outcome`` the whole chain, or ``None`` when the caller may not know the
    target's values, which ``unknown`` then names. ``None`` for ``p_attack`` means even the
    attack roll depends on a value the caller may not know (PF2e: the target's RK).
    """

    p_attack: Fraction | None
    outcome: ActionForecast | None
    unknown: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Unknown:
    """The target's values a forecast's caller does not know (issue 31): those the forecast
    needs and that were not revealed to them (fact key → label, e.g. ``{"tp": "TP"}``), or
    ``everything`` (a figure without a bestiary entry). Empty: the caller knows them all."""

    values: Mapping[str, str] = field(default_factory=dict)
    everything: bool = False

    def __contains__(self, key: object) -> bool:
        return self.everything or key in self.values

    def __bool__(self) -> bool:
        return self.everything or bool(self.values)

    def labels(self, every: tuple[str, ...]) -> tuple[str, ...]:
        """What the forecast names as unknown (``every``: the system's labels of them all)."""
        return every if self.everything else tuple(dict.fromkeys(self.values.values()))


@dataclass(frozen=True, slots=True)
class Budget:
    """The actions the figure whose turn it is has left (PF2e: «◆◆◇»), for the controls:
    ``costs`` names what each control's action costs (``attack``, ``shake_off``)."""

    left: int
    total: int
    symbols: str
    costs: Mapping[str, int] = field(default_factory=dict)
    #: Whether its reaction is still there (PF2e); ``None``: the system counts none here.
    reaction: bool | None = None

    def refuses(self, action: str) -> bool:
        """Whether ``action`` costs more than what is left (its control is disabled)."""
        return self.costs.get(action, 0) > self.left


@dataclass(frozen=True, slots=True)
class Spent:
    """What the figure whose turn it is can no longer do in this step or turn, and why
    (issue 28): ``refused`` names the controls' actions (``attack``, ``aim``, ``shake_off``,
    …) its Handlung, Aktion or actions no longer allow; ``reason`` (a msgid with ``params``)
    is the message the server refuses them with. Empty: everything is still possible."""

    refused: frozenset[str] = frozenset()
    reason: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)

    def refuses(self, action: str) -> bool:
        return action in self.refused


#: The reason the controls give when an action costs more than a turn's budget has left.
NO_ACTION_LEFT = N_("No action left for this: end the turn.")


# --- the capabilities ------------------------------------------------------------------------
#
# A system's adapter (``RULES`` in ``<system>.py``) is one class that implements
# :class:`CombatCore` and whichever capabilities below its game has; the registry knows it as a
# :class:`CombatCore`, and a caller asks for more with :func:`capability` or :func:`need`.


@runtime_checkable
class CombatCore(Protocol):
    """What every system has in combat: the figure, the turn order, the attack, the views."""

    @property
    def name(self) -> str: ...

    @property
    def partials(self) -> Mapping[str, str]:
        """Templates of the system's own form parts: slot (``attack``, ``actions``,
        ``gm_tools``, ``manage``, ``prepare``) → template name."""

    def new_figure(
        self, pid: str, name: str, side: str, stats: Mapping[str, Any], *, npc: bool,
        settings: Settings,
    ) -> FigureData: ...  # fmt: skip

    def view(self, data: FigureData) -> FigureView:
        """A figure for the roster (:class:`FigureView`)."""

    def offers(self, data: FigureData) -> Offers: ...

    def start(self, state: State, play: Play) -> None: ...

    def add_figure(self, state: State, pid: str, roller: Roller, report: Report) -> None: ...

    def advance(self, state: State, play: Play) -> None: ...

    def attack(
        self, state: State, order: AttackOrder, play: Play, *, target_owner: int | None
    ) -> None: ...

    def respond(self, state: State, choice: str, play: Play) -> None:
        """The answer to the defence ``attack`` left open (``state["pending"]``)."""

    def adjust(self, state: State, pid: str, delta: int, reason: str, play: Play) -> None:
        """The GM's change of a figure's hit points (also a free area's damage)."""


@runtime_checkable
class Conditions(Protocol):
    """Conditions the GM gives and takes away."""

    @property
    def conditions(self) -> tuple[str, ...]:
        """The conditions the GM may give."""

    @property
    def condition_names(self) -> Mapping[str, str]:
        """Condition keys that are no rule term, with their English msgid (the view
        translates them; every other key is a rule term and shows as it is)."""

    def add_condition(
        self, state: State, pid: str, key: str, play: Play, *, cause: str, value: int
    ) -> None: ...

    def remove_condition(self, state: State, pid: str, key: str, report: Report) -> None: ...


@runtime_checkable
class Checks(Protocol):
    """The GM's checks (secret or open) in the fight."""

    @property
    def default_check(self) -> str:
        """The check the GM's secret-check form suggests."""

    @property
    def check_names(self) -> tuple[str, ...]:
        """The checks the GM's check form lists (any of them may also be typed)."""

    def check(
        self, state: State, pid: str, skill: str, modifier: int, roller: Roller, report: Report,
        helpers: Sequence[str] = (),
    ) -> None:  # fmt: skip
        """A GM's check; ``helpers`` help it where the system has Helfen (H&H)."""


@runtime_checkable
class Spending(Protocol):
    """A turn whose Handlung, Aktion or actions run out (every system so far)."""

    def spent(self, state: State) -> Spent:
        """Which actions the figure whose turn it is may no longer take now, and why."""


@runtime_checkable
class CountedActions(Protocol):
    """A turn of counted actions (PF2e): a move on the battle map is one of them (a Stride,
    each up to the figure's movement); without it the turn's moves share its movement."""

    def turn_budget(self, state: State) -> Budget | None:
        """The actions left in this turn (``None`` between turns)."""

    def stride(self, state: State, pid: str, report: Report) -> None:
        """A move on the battle map of ``pid``, whose turn it is, as an action: spent from
        the turn's budget and logged; :class:`CombatError` when none is left."""


@runtime_checkable
class Foresight(Protocol):
    """Odds before anyone rolls: one attack's forecast, a whole fight's risk (issues 18, 31)."""

    def forecast(
        self, state: State, order: AttackOrder, settings: Settings, *, unknown: Unknown,
        defends: bool | None,
    ) -> Forecast:  # fmt: skip
        """The odds of ``attack`` with the same inputs, without rolling or changing
        anything. ``unknown``: the target's values the caller may not know; ``defends``: assume
        the target defends (``None``: as it would, with a reaction if one is left)."""

    def simulate(self, figures: list[FigureData], settings: Settings, trials: Trials) -> RiskResult:
        """Play the fight between ``figures`` (JSON figures) as ``trials`` says, each to its
        end; the risk is the Abenteurer side's."""

    def rating(self, figures: list[FigureData]) -> BudgetRating | None:
        """The system's own difficulty guideline for a fight between ``figures`` (PF2e: the
        XP budget), shown beside the simulated risk; ``None`` where the system has none."""


@runtime_checkable
class SheetSync(Protocol):
    """A player character's values that the fight and the sheet share (one truth, issue 13)."""

    def sheet_state(self, data: FigureData) -> Mapping[str, object]:
        """A player character's values the fight changes and the sheet keeps (the keys of
        ``CombatSheet.combat_values``); ``{}``: nothing goes back to the sheet."""

    def take_sheet_state(self, data: FigureData, values: Mapping[str, Any]) -> None:
        """Set the figure ``data`` to the sheet's current ``values`` (the sheet is the truth)."""


@runtime_checkable
class Tactics(Protocol):
    """The battle map's rules (``app/maps``): measure, move, range and cover."""

    @property
    def metric(self) -> Metric:
        """How this system measures on the grid: the diagonal rule, the unit of a cell."""

    def movement_allowance(
        self, data: FigureData, stats: Mapping[str, Any], settings: Settings
    ) -> int:
        """Cells the figure (``data``; ``stats`` its stat block) may move with one move:
        H&H its Bewegung per Handlung, DS4 Laufen, PF2e its Speed per Stride."""

    def map_attack(self, state: State, attacker: str, target: str, line: AttackLine) -> MapAttack:
        """Range and cover of an attack from ``attacker`` on ``target`` over ``line``, as the
        system's engine decides them (a suggestion the GM confirms in the attack form)."""

    def attack_range(
        self, state: State, attacker: str, params: Mapping[str, Any], found: MapAttack
    ) -> RangeNote | None:
        """Of ``found``'s ranges the one the attack posted with ``params`` uses (its weapon,
        kind or Strike); ``None`` where it has no limit (docs/rules/, issue 27)."""


@runtime_checkable
class Zones(Protocol):
    """Cells a figure threatens, and moves through them that it may react to (H&H)."""

    def threat_cells(self, state: State, pid: str, cells: list[Cell]) -> list[Cell]:
        """The cells the figure on ``cells`` threatens (H&H: its Gefährdungsbereich)."""

    def move_reactions(
        self, state: State, mover: str, path: list[Cell], positions: dict[str, Cell]
    ) -> list[MoveReaction]:
        """Figures that may react to ``mover`` walking ``path`` (start cell first), in the
        order they are triggered; ``positions``: the other figures' cells."""


@runtime_checkable
class Areas(Protocol):
    """Areas placed on the board (issue 27) that the system resolves."""

    @property
    def area_sources(self) -> frozenset[str]:
        """The kinds of area (:class:`AreaSource`) this system resolves besides ``free``
        (which the fight resolves alike in every system)."""

    def area(
        self, state: State, actor: str, targets: list[str], source: AreaSource, play: Play
    ) -> None:
        """Resolve an area on ``targets`` (the figures in it, from the board) made by
        ``actor`` (``""``: the GM's). One log line per target, each about that target (a
        hidden one's stay the GMs'). A defence the targets answer themselves waits as
        ``state["pending"]``, one after the other (H&H); the area is resolved when nothing
        waits any more."""


@runtime_checkable
class Bursts(Protocol):
    """Areas the rules set off by themselves (H&H «Arkane Explosion»)."""

    def burst(
        self, state: State, actor: str, targets: list[str], params: BurstParams, play: Play
    ) -> None:
        """Resolve an area the rules set off around ``actor`` (a
        :class:`~app.encounters.combat.Burst` the system put in the report), placed on the
        board with ``targets`` in it (``actor`` among them). One log line per target."""


# --- a system's own actions (``app.encounters.actions``: ``@step(..., needs=...)``) ----------


@runtime_checkable
class AttackOptions(Protocol):
    """Ways to improve the next attack (H&H: Zielen, Kampfmanöver)."""

    def aim(self, state: State, pid: str, report: Report) -> None: ...

    def maneuver(
        self, state: State, attacker_id: str, target_id: str, key: str, play: Play
    ) -> None: ...


@runtime_checkable
class Spellcasting(Protocol):
    """Spells of the figure's list (H&H: Fokus and Zauber wirken)."""

    def focus(self, state: State, pid: str, key: str, report: Report) -> None: ...

    def cast(self, state: State, pid: str, params: Mapping[str, Any], play: Play) -> None: ...


@runtime_checkable
class NamedSpells(Protocol):
    """Spells named by the caster with their cost, no catalogue (PF2e)."""

    def cast_spell(
        self, state: State, caster_id: str, params: Mapping[str, Any], roller: Roller,
        report: Report,
    ) -> None:  # fmt: skip
        """A spell named by the caster, its actions spent, on one target."""


@runtime_checkable
class Recovery(Protocol):
    """A figure shakes off a condition in its turn (every system so far)."""

    def shake_off(self, state: State, pid: str, key: str, play: Play) -> None: ...


@runtime_checkable
class WeaponJams(Protocol):
    """A fumble can jam a figure's weapon; freeing it takes the figure's action (H&H)."""

    def free_weapon(self, state: State, pid: str, play: Play) -> None: ...


@runtime_checkable
class FirstAid(Protocol):
    """A figure stabilises a dying one (H&H)."""

    def stabilise(self, state: State, pid: str, target_id: str, play: Play) -> None: ...


@runtime_checkable
class Saves(Protocol):
    """Saving throws the GM calls for (PF2e)."""

    def save(
        self, state: State, source_id: str | None, target_ids: list[str],
        params: Mapping[str, Any], roller: Roller, report: Report,
    ) -> None: ...  # fmt: skip


@runtime_checkable
class Reactions(Protocol):
    """A reaction in anyone's turn (PF2e)."""

    def react(self, state: State, pid: str, name: str, report: Report) -> None:
        """``pid`` uses its reaction, named ``name``."""


@runtime_checkable
class Luck(Protocol):
    """Glück spent or burned outside a roll (H&H)."""

    def luck(self, state: State, pid: str, option: str, condition: str, report: Report) -> None: ...


@runtime_checkable
class Morale(Protocol):
    """The GM's morale check of an NSC (H&H)."""

    def morale(self, state: State, pid: str, skill: str, play: Play) -> None: ...


@runtime_checkable
class ExtraActions(Protocol):
    """The GM's override: one more Handlung in this step (H&H)."""

    def grant_action(self, state: State, pid: str, report: Report) -> None: ...


@runtime_checkable
class Stunts(Protocol):
    """Jumps and falls the GM has a figure make (H&H Sprünge, Stürze)."""

    def jump(
        self, state: State, pid: str, distance: int, direction: str, modifier: int,
        roller: Roller, report: Report,
    ) -> None: ...  # fmt: skip

    def fall(self, state: State, pid: str, height: int, modifier: int, play: Play) -> None:
        """A fall, its damage booked."""


#: Every capability protocol besides :class:`CombatCore`, for the docs and the seam tests.
CAPABILITIES: tuple[type, ...] = (
    Conditions, Checks, Spending, CountedActions, Foresight, SheetSync, Tactics, Zones, Areas,
    Bursts, AttackOptions, Spellcasting, NamedSpells, Recovery, FirstAid, Saves, Reactions, Luck,
    Morale, ExtraActions, Stunts,
)  # fmt: skip


def unavailable() -> CombatError:
    return CombatError(N_("Not available in this rule system."))


def need(rules: object, kind: Callable[..., T]) -> T:
    """``rules`` as the capability ``kind``; where the system lacks it, the fight's refusal
    «Not available in this rule system.» (a :class:`CombatError`)."""
    found = capability(rules, kind)
    if found is None:
        raise unavailable()
    return found


def area_sources(rules: object) -> frozenset[str]:
    """The kinds of area the system resolves (:attr:`Areas.area_sources`); without
    :class:`Areas`, the ``free`` area the fight resolves in every system with map rules."""
    areas = capability(rules, Areas)
    if areas is not None:
        return areas.area_sources
    return frozenset({"free"}) if capability(rules, Tactics) is not None else frozenset()


def spent_by_budget(budget: Budget | None) -> Spent:
    """A counted turn's :meth:`Spending.spent`: the actions that cost more than is left."""
    if budget is None:
        return Spent()
    refused = frozenset(a for a in budget.costs if budget.refuses(a))
    return Spent(refused, NO_ACTION_LEFT if refused else "")


class Common:
    """What a system's adapter has unless it says otherwise: no form parts of its own, no
    offers beyond the attack form, no condition key that needs a translation."""

    partials: Mapping[str, str] = MappingProxyType({})
    condition_names: Mapping[str, str] = MappingProxyType({})

    def offers(self, data: FigureData) -> Offers:
        return {"strikes": [], "maneuvers": [], "spells": []}
