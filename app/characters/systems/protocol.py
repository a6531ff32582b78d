"""What the characters domain needs of a rule system: one typed seam instead of branches.

A system module (``hh.py``, ``ds4.py``, ``pf2e.py`` beside this file) implements
:class:`CharacterCore` and the capabilities its game has (:data:`CAPABILITIES`, each a
``runtime_checkable`` protocol of at most 15 members), and is registered once in
:mod:`app.characters.systems.registry`, which also hands out each capability (a system
without an optional one answers through ``Without…``'s refusals). Services, routes, history
and templates ask the campaign's system through these protocols and never compare ``system``
with a system's name (``tests/test_system_seams.py``).

Everything here is pure: sheet data and items in, values or messages out. No database, no
FastAPI; messages come back as strings for the caller to raise at the right field.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from app.characters.catalog import ItemField, StarterItem
from app.characters.rolling import HelperSheet, Odds, RollOutcome, RollRequest, Target
from app.characters.sheets import FieldSpec, ItemLike, SheetView
from app.i18n import gettext
from app.rules.dice import Roller

Choices = tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class SheetPartials:
    """Templates the sheet page includes for what only some systems have; ``None`` = none.

    Paths are below ``templates/``, by convention ``characters/systems/<key>/…``."""

    #: More actions on an item that is not equipped (H&H: into/out of the Rucksack).
    item_actions: str | None = None
    #: More fields of the roll dialog (PF2e: SG/RK, attack number, Glück/Unglück).
    roll_fields: str | None = None
    #: Fields of a rest's form (H&H: hours since the last rest, camp site, camp Probe).
    rest_fields: str | None = None
    #: Fields of a guided check's form (H&H: Beschaffung, Herstellung); ``key`` is the check.
    check_fields: str | None = None


@dataclass(frozen=True, slots=True)
class Rest:
    """What a rest from the sheet changes: data key → new value, and the rule text."""

    changes: Mapping[str, object]
    detail: str


@dataclass(frozen=True, slots=True)
class ItemDraft:
    """An item a guided check is about, before it is on the sheet (from the starter list,
    the campaign library or a name typed in the form)."""

    name: str
    quantity: int = 1
    price: int | None = None
    fields: Mapping[str, object] = field(default_factory=dict)
    description: str = ""


@dataclass(frozen=True, slots=True)
class SheetCheck:
    """What a guided check from the sheet did: its outcome, the sheet data it changed
    (key → new value, e.g. Lira paid), the item it puts into the inventory (``None``: none)
    and the rule text with every face."""

    success: bool
    changes: Mapping[str, object]
    item: ItemDraft | None
    detail: str


@runtime_checkable
class CharacterCore(Protocol):
    """One rule system as the characters domain sees it: the sheet (every system has it)."""

    @property
    def key(self) -> str:
        """The campaign's ``system`` value (``app.core.systems.RuleSystem``)."""
        ...

    @property
    def partials(self) -> SheetPartials: ...

    def fields(self, kind: str) -> list[FieldSpec]:
        """The editable fields of a sheet of ``kind`` (``pc`` or ``npc``)."""
        ...

    def default_data(self, kind: str) -> dict[str, object]: ...

    def view(
        self, data: Mapping[str, object], items: Sequence[ItemLike], settings: Mapping[str, object]
    ) -> SheetView:
        """Derived values, warnings, conditions and load, from the engines."""
        ...

    def cross_check(self, data: Mapping[str, object], items: Sequence[ItemLike]) -> dict[str, str]:
        """Rules over several fields (current ≤ maximum, creation limits): field → message."""
        ...

    def follow_up(
        self, before: Mapping[str, object], data: dict[str, object], touched: Sequence[str]
    ) -> list[str]:
        """Adjust fields that a change makes invalid or that follow from the values (in
        place); returns the keys changed. ``before`` is the sheet before the change (the
        system's defaults for a new or imported sheet, whose given fields are ``touched``)."""
        ...


@runtime_checkable
class Inventory(Protocol):
    """The inventory: slots, item fields, the starter list, where an item may be."""

    @property
    def equip_slots(self) -> Mapping[str, str]:
        """Slot key → label (a msgid or a German rule term)."""
        ...

    @property
    def item_fields(self) -> tuple[ItemField, ...]: ...

    def starter_items(self) -> list[StarterItem]: ...

    def default_container(self, data: Mapping[str, object]) -> str | None:
        """Where a new, unequipped or received item goes."""
        ...

    def equip_problem(
        self, data: Mapping[str, object], items: Sequence[ItemLike], item: ItemLike, slot: str
    ) -> str | None:
        """Why ``item`` cannot be equipped in ``slot`` (``items``: the sheet's, with it)."""
        ...

    def stow_problem(
        self, data: Mapping[str, object], items: Sequence[ItemLike], item: ItemLike
    ) -> str | None:
        """Why ``item`` cannot stay in its container (``items``: the sheet's, with it)."""
        ...

    def edit_problems(
        self, data: Mapping[str, object], items: Sequence[ItemLike], item: ItemLike
    ) -> dict[str, str]:
        """What an edit of ``item``'s fields breaks where it is: field → message."""
        ...

    def import_problem(self, data: Mapping[str, object], items: Sequence[ItemLike]) -> str | None:
        """Why an imported sheet cannot carry ``items``."""
        ...


@runtime_checkable
class SheetRolls(Protocol):
    """Rolls from the sheet: what may be rolled, the dialog's choices, the odds, the roll."""

    @property
    def roll_difficulties(self) -> Choices:
        """The difficulty choices of the roll dialog (empty: the dialog shows none)."""
        ...

    @property
    def helping(self) -> bool:
        """Whether a sheet roll may name a helping character (H&H Helfen)."""
        ...

    @property
    def luck_options(self) -> Choices:
        """Glück options declared before a roll (empty: the dialog shows none)."""
        ...

    def roll_targets(self, data: Mapping[str, object], items: Sequence[ItemLike]) -> list[Target]:
        """What a click on the sheet may roll."""
        ...

    def odds(self, data: Mapping[str, object], items: Sequence[ItemLike], req: RollRequest) -> Odds:
        """The chance before rolling (raises ``ValidationFailed`` at the bad field)."""
        ...

    def roll_visibility(self, req: RollRequest, settings: Mapping[str, object]) -> str:
        """Who sees this roll, as the campaign's rule options demand (PF2e: checks the rules
        make secret are a Verdeckter Wurf, ``"gm"``); otherwise the roller's choice."""
        ...

    def roll(
        self,
        roller: Roller,
        data: Mapping[str, object],
        items: Sequence[ItemLike],
        req: RollRequest,
    ) -> RollOutcome: ...


@runtime_checkable
class Rests(Protocol):
    """Rests the sheet offers as actions (DS4: Verschnaufen; H&H: Rast)."""

    @property
    def rests(self) -> Choices:
        """The rests the sheet offers as actions (DS4: Verschnaufen; empty: none)."""
        ...

    def rest(
        self,
        roller: Roller,
        data: Mapping[str, object],
        items: Sequence[ItemLike],
        key: str,
        params: Mapping[str, str],
        settings: Mapping[str, object],
        healer: HelperSheet | None = None,
    ) -> Rest | str:
        """What the rest ``key`` changes, or why it cannot be taken now (a message).

        ``params``: the rest form's fields (``rest_fields`` partial); ``settings``: the
        campaign's (rule options); ``healer``: another character's sheet whose Heilkunde
        tends this one during the rest (H&H). Dice come from ``roller``; the rule text
        shows them."""
        ...


@runtime_checkable
class SheetChecks(Protocol):
    """Guided checks from the sheet about an item (H&H: Beschaffung, Herstellung)."""

    @property
    def checks(self) -> Choices:
        """The guided checks the sheet offers (H&H: Beschaffung, Herstellung; empty: none)."""
        ...

    def check(
        self,
        roller: Roller,
        data: Mapping[str, object],
        items: Sequence[ItemLike],
        key: str,
        params: Mapping[str, str],
        item: ItemDraft,
        settings: Mapping[str, object],
    ) -> SheetCheck | dict[str, str]:
        """The guided check ``key`` about ``item``, or why it cannot be made (field →
        message; nothing rolled then). ``params``: the check form's fields."""
        ...


@runtime_checkable
class Companions(Protocol):
    """Companion sheets bound to a hero (H&H Gefährten)."""

    def new_companion(self) -> dict[str, object] | None:
        """The data of a new companion sheet (``None``: the system has no companions)."""
        ...

    def share_xp(
        self, hero: Mapping[str, object], companion: Mapping[str, object] | None, amount: int
    ) -> tuple[dict[str, object], dict[str, object]] | str:
        """XP the hero gains, shared with ``companion`` (H&H «Band der Erfahrung»): the
        changes of both sheets, or why not (a message)."""
        ...

    def raise_companion(self, data: Mapping[str, object]) -> dict[str, object] | str:
        """A companion's next level for its XP: the sheet's changes, or why not."""
        ...


@runtime_checkable
class CombatSheet(Protocol):
    """What a fight takes from the sheet and gives back (issue 13)."""

    def combat_statblock(
        self, data: Mapping[str, object], items: Sequence[ItemLike]
    ) -> dict[str, object]:
        """The encounter stat block (the keys of the system's bestiary schema)."""
        ...

    def combat_values(
        self, data: Mapping[str, object], items: Sequence[ItemLike]
    ) -> dict[str, object]:
        """The values a fight takes from the sheet at every step (one truth, issue 13):
        current resources, conditions, worn armour. ``{}``: the fight keeps its own."""
        ...

    def sheet_values(
        self, data: Mapping[str, object], values: Mapping[str, object]
    ) -> dict[str, object]:
        """Sheet key → value for ``values`` as a fight left them (``combat_values``' keys),
        for the keys the sheet ``data`` holds."""
        ...


#: Every capability protocol besides :class:`CharacterCore`, for the docs and the seam tests.
CAPABILITIES: tuple[type, ...] = (
    Inventory, SheetRolls, Rests, SheetChecks, Companions, CombatSheet
)  # fmt: skip


class WithoutRests:
    """What a system without rests answers (:class:`Rests`): none offered."""

    rests: Choices = ()

    def rest(
        self,
        roller: Roller,
        data: Mapping[str, object],
        items: Sequence[ItemLike],
        key: str,
        params: Mapping[str, str],
        settings: Mapping[str, object],
        healer: HelperSheet | None = None,
    ) -> Rest | str:
        return gettext("This rest does not exist in this rule system.")


class WithoutSheetChecks:
    """What a system without guided sheet checks answers (:class:`SheetChecks`; DS4, PF2e):
    none offered, the refusal in the user's language, so the service needs no branch."""

    checks: Choices = ()

    def check(
        self,
        roller: Roller,
        data: Mapping[str, object],
        items: Sequence[ItemLike],
        key: str,
        params: Mapping[str, str],
        item: ItemDraft,
        settings: Mapping[str, object],
    ) -> SheetCheck | dict[str, str]:
        return {"check": gettext("This check does not exist in this rule system.")}


class WithoutCompanions:
    """What a system without Gefährten answers (:class:`Companions`; DS4, PF2e)."""

    def new_companion(self) -> dict[str, object] | None:
        return None

    def share_xp(
        self, hero: Mapping[str, object], companion: Mapping[str, object] | None, amount: int
    ) -> tuple[dict[str, object], dict[str, object]] | str:
        return gettext("This rule system has no Gefährten.")

    def raise_companion(self, data: Mapping[str, object]) -> dict[str, object] | str:
        return gettext("This rule system has no Gefährten.")


class SheetDefaults:
    """What a system's adapter answers where its game adds nothing, so that it writes only
    what it has (base of DS4's and PF2e's): no partials, dialog choices, Glück or helping; no
    containers (an item is carried or equipped, nothing to stow or to check on an edit or
    import); the roller's visibility; rests no other character tends."""

    partials = SheetPartials()
    roll_difficulties: Choices = ()
    luck_options: Choices = ()
    helping = False
    rests: Choices = ()

    def default_container(self, data: Mapping[str, object]) -> str | None:
        return None

    def stow_problem(
        self, data: Mapping[str, object], items: Sequence[ItemLike], item: ItemLike
    ) -> str | None:
        return None

    def edit_problems(
        self, data: Mapping[str, object], items: Sequence[ItemLike], item: ItemLike
    ) -> dict[str, str]:
        return {}

    def import_problem(self, data: Mapping[str, object], items: Sequence[ItemLike]) -> str | None:
        return None

    def roll_visibility(self, req: RollRequest, settings: Mapping[str, object]) -> str:
        return req.visibility

    def rest(
        self,
        roller: Roller,
        data: Mapping[str, object],
        items: Sequence[ItemLike],
        key: str,
        params: Mapping[str, str],
        settings: Mapping[str, object],
        healer: HelperSheet | None = None,
    ) -> Rest | str:
        if healer is not None:
            return gettext("This rest has no healer in this rule system.")
        return self.untended_rest(data, items, key)

    def untended_rest(
        self, data: Mapping[str, object], items: Sequence[ItemLike], key: str
    ) -> Rest | str:
        """The rest ``key`` without a healer (DS4 Verschnaufen): none unless overridden."""
        return gettext("This rest does not exist in this rule system.")


class OneSheet:
    """The sheet of a system whose PCs and NPCs share one (``kind`` changes nothing) and whose
    view needs no rule options (DS4, PF2e): made of the module's functions for them."""

    def __init__(
        self,
        fields: Callable[[], list[FieldSpec]],
        default: Callable[[], Mapping[str, object]],
        view: Callable[[Mapping[str, object], Sequence[ItemLike]], SheetView],
    ) -> None:
        self._fields = fields
        self._default = default
        self._view = view

    def fields(self, kind: str) -> list[FieldSpec]:
        return self._fields()

    def default_data(self, kind: str) -> dict[str, object]:
        return dict(self._default())

    def view(
        self, data: Mapping[str, object], items: Sequence[ItemLike], settings: Mapping[str, object]
    ) -> SheetView:
        return self._view(data, items)
