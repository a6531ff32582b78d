"""Who sees what form of an event: one value per event, one function reads it.

Every event in the campaign log carries an :class:`Audience`, stored whole in the
``campaign_event.audience`` JSON column (:meth:`Audience.to_json`). It is built by the
constructors below when the event is written and read by :func:`form_for` alone; the
SQL twin :func:`visible_sql` is the same rule as a condition on the column, for the
queries that filter the log in the database. ``tests/events/test_audience.py`` checks that
the two agree on the real database and that no form names a hidden party to a player.

The forms (:class:`Form`): a GM gets every event ``whole``. Anyone else gets, in this order:
``nothing`` when the audience blinds them; their ``own`` form when it has one for them (a
player's line of sight); when the event is for them (``public``, or they are among its
``readers``) the ``party`` form if it has one, else ``reduced`` when it withholds parties,
else ``whole``; otherwise a ``stub`` (a secret roll: the fact that it happened) or
``nothing``.

Map events also name their ``scene`` and ``token``: those are checked at read time against
the scene as it is (:class:`Present`), so a player gets a map event only if it reached them
when it happened (the forms above) and they can see the scene, and its token, now. A
reader that does not know the scene as it is (and the SQL twin) gives them none.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Protocol

from sqlalchemy import ColumnElement, and_, false, not_, or_, true
from sqlalchemy.orm import InstrumentedAttribute

from app.core.viewer import Viewer

#: A form some viewers get instead of the event: ``{"type": …, fields…}``.
FormData = Mapping[str, Any]


class Form(StrEnum):
    whole = "whole"
    #: Without the keys of the parties it withholds.
    reduced = "reduced"
    #: The audience's form for everyone who is not a GM.
    party = "party"
    #: The viewer's own form (per player line of sight).
    own = "own"
    #: The fact that it happened, without content.
    stub = "stub"
    nothing = "nothing"


@dataclass(frozen=True, slots=True)
class Party:
    """A character an event's payload may name: the key of its id and every key that says
    who it is (the name, and texts built from the name)."""

    id_key: str
    keys: tuple[str, ...]


#: The characters an event may name, and where. ``character_id`` is what the event is
#: about; the others it names in passing (the receiver of a moved item, its giver).
SUBJECT = Party("character_id", ("character_id", "character_name"))
PARTIES = (
    SUBJECT,
    Party("to_character_id", ("to_character_id", "to_character_name")),
    Party("from_character_id", ("from_character_id", "from_character_name")),
)
VISIBILITIES = ("public", "gm", "self", "listed")


@dataclass(frozen=True, slots=True)
class Audience:
    """Who sees what form of one event (see the module's docstring for the rule).

    ``visibility`` is the word the event shows of itself (``public``, ``gm``, ``self``,
    ``listed``); ``readers``: the users besides the GMs it is for when not public.
    """

    visibility: str = "public"
    readers: frozenset[int] = frozenset()
    #: Those it is not for get a stub instead of nothing (a secret roll).
    stub: bool = False
    #: The ``id_key`` of each party named in passing that players must not learn.
    withheld: tuple[str, ...] = ()
    #: What every non-GM it is for gets instead of the event.
    party_form: FormData | None = None
    #: Per user: their own form, before everything else.
    own_forms: Mapping[int, FormData] = field(default_factory=dict)
    #: Users who get nothing of it, before everything else.
    blind: frozenset[int] = frozenset()
    #: A map event: the scene and token checked against the scene as it is when read.
    scene_id: int | None = None
    token_id: int | None = None

    def __post_init__(self) -> None:
        if self.visibility not in VISIBILITIES:
            raise ValueError(f"unknown visibility {self.visibility!r}")

    def read_by(self, user_id: int | None) -> Audience:
        """The same audience, with ``user_id`` among the readers of a ``listed`` one (the
        actor of a whisper reads it)."""
        if self.visibility != "listed" or user_id is None or user_id in self.readers:
            return self
        return replace(self, readers=self.readers | {user_id})

    def stubbed(self) -> Audience:
        return replace(self, stub=True)

    def to_json(self) -> dict[str, object]:
        """The stored form; user ids are object keys so that SQL finds them by path."""
        out: dict[str, object] = {"v": self.visibility}
        if self.readers:
            out["to"] = {str(u): 1 for u in sorted(self.readers)}
        if self.stub:
            out["stub"] = 1
        if self.withheld:
            out["withheld"] = list(self.withheld)
        if self.party_form is not None:
            out["form"] = dict(self.party_form)
        if self.own_forms:
            out["forms"] = {str(u): dict(f) for u, f in sorted(self.own_forms.items())}
        if self.blind:
            out["blind"] = {str(u): 1 for u in sorted(self.blind)}
        if self.scene_id is not None:
            out["scene"] = self.scene_id
        if self.token_id is not None:
            out["token"] = self.token_id
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Audience:
        return cls(
            visibility=str(data.get("v", "public")),
            readers=frozenset(int(u) for u in data.get("to", {})),
            stub=bool(data.get("stub")),
            withheld=tuple(data.get("withheld", ())),
            party_form=data.get("form"),
            own_forms={int(u): f for u, f in data.get("forms", {}).items()},
            blind=frozenset(int(u) for u in data.get("blind", {})),
            scene_id=data.get("scene"),
            token_id=data.get("token"),
        )


# --- the constructors -------------------------------------------------------------------------


def public() -> Audience:
    """Every member."""
    return Audience()


def gm_only() -> Audience:
    return Audience("gm")


def only(user_id: int) -> Audience:
    """The GMs and one user (a roll "for the GM and me")."""
    return Audience("self", frozenset({user_id}))


def listed(to: Collection[int]) -> Audience:
    """The GMs and the users in ``to`` (and the event's actor, added when it is written)."""
    return Audience("listed", frozenset(to))


def chosen(visibility: str, user_id: int | None, to: Collection[int] = ()) -> Audience:
    """The audience a user chose for their roll or message: ``public``, ``gm``, ``self``
    (the GMs and ``user_id``) or ``listed`` (the GMs and ``to``)."""
    if visibility == "self" and user_id is not None:
        return only(user_id)
    if visibility == "listed":
        return listed(to)
    return Audience(visibility)


def about(
    payload: Mapping[str, Any], hidden_parties: Collection[int], base: Audience | None = None
) -> Audience:
    """``base`` (public), no more visible than the characters ``payload`` names: an event
    about a hidden character is for the GMs only; one that names a hidden character in
    passing reaches its audience ``reduced``, without that party."""
    audience = base or public()
    if not hidden_parties:
        return audience
    if payload.get(SUBJECT.id_key) in hidden_parties:
        return gm_only()
    withheld = tuple(p.id_key for p in PARTIES[1:] if payload.get(p.id_key) in hidden_parties)
    return replace(audience, withheld=withheld) if withheld else audience


def sight(
    scene_id: int,
    token_id: int | None,
    party: FormData | None,
    users: Mapping[int, FormData | None] | None = None,
    *,
    seen: bool = True,
) -> Audience:
    """A map event: ``seen``: whether the party's view saw it (else GMs only, but for the
    users with a form of their own); ``party``: the form players get instead (``None``: the
    event itself); ``users``: per player whose view differs, theirs (``None``: nothing)."""
    users = users or {}
    return Audience(
        "public" if seen else "gm",
        party_form=party,
        own_forms={u: f for u, f in users.items() if f is not None},
        blind=frozenset(u for u, f in users.items() if f is None),
        scene_id=scene_id,
        token_id=token_id,
    )


def in_scene(scene_id: int) -> Audience:
    """An event about a scene as a whole: every member who may see the scene now."""
    return Audience(scene_id=scene_id)


# --- the one function ---------------------------------------------------------------------------


class Present(Protocol):
    """The scenes as they are now, as one viewer sees them (given by the reader)."""

    def sees(self, scene_id: int, token_id: int | None) -> bool:
        """Whether the viewer sees the scene (and the token, if one) now."""
        ...


#: The forms a removal takes: they name no more than a token's id, which the viewer had.
REMOVALS = frozenset({"token_removed"})


def form_for(
    audience: Audience, viewer: Viewer, present: Present | None = None, kind: str | None = None
) -> Form:
    """The form of an event with this audience (and of type ``kind``) that ``viewer`` gets.
    ``present``: the scenes as they are, for map events; a reader that cannot say
    (``None``) gives no one but the GMs a map event at all."""
    if viewer.is_gm:
        return Form.whole
    form = _stored_form(audience, viewer.user_id)
    if form is Form.nothing or audience.scene_id is None:
        return form
    if present is None or not present.sees(audience.scene_id, None):
        return Form.nothing
    token = audience.token_id
    if form is Form.stub or token is None:
        return form
    if _type_of(audience, viewer.user_id, form, kind) not in REMOVALS:
        return form if present.sees(audience.scene_id, token) else Form.nothing
    return form


def _stored_form(audience: Audience, user_id: int) -> Form:
    if user_id in audience.blind:
        return Form.nothing
    if user_id in audience.own_forms:
        return Form.own
    if audience.visibility == "public" or user_id in audience.readers:
        if audience.party_form is not None:
            return Form.party
        return Form.reduced if audience.withheld else Form.whole
    return Form.stub if audience.stub else Form.nothing


def _type_of(audience: Audience, user_id: int, form: Form, kind: str | None) -> str | None:
    """The type of what a viewer gets: their form's, or the event's own (``kind``)."""
    replacement = form_data(audience, form, user_id)
    return kind if replacement is None else str(replacement.get("type"))


def form_data(audience: Audience, form: Form, user_id: int) -> FormData | None:
    """The replacement a ``party`` or ``own`` form stands for."""
    if form is Form.own:
        return audience.own_forms[user_id]
    if form is Form.party:
        return audience.party_form
    return None


def withheld_keys(audience: Audience) -> frozenset[str]:
    """The payload keys a ``reduced`` form leaves out."""
    return frozenset(k for p in PARTIES if p.id_key in audience.withheld for k in p.keys)


# --- the SQL twin ---------------------------------------------------------------------------------


def sql_reader(viewer: Viewer) -> int | None:
    """What :func:`visible_sql`'s condition depends on for ``viewer``: their user id, or
    ``None`` for the GMs, who see everything. Statements that carry the condition are kept
    by it (built once per reader)."""
    return None if viewer.is_gm else viewer.user_id


def visible_sql(
    column: InstrumentedAttribute[dict[str, object]], viewer: Viewer, *, stubs: bool = True
) -> ColumnElement[bool]:
    """:func:`form_for` without ``present`` as a condition on an audience JSON ``column``:
    true exactly where the viewer gets more than ``nothing`` (with ``stubs`` false: more
    than a stub as well). So no map event for anyone but the GMs: the scene as it is is
    not in SQL (the streams check it, ``app.maps.present``)."""
    if viewer.is_gm:
        return true()
    key = str(viewer.user_id)
    blind = column[("blind", key)].as_integer().is_not(None)
    own = column[("forms", key)].as_string().is_not(None)
    for_them = or_(
        column["v"].as_string() == "public",
        column[("to", key)].as_integer().is_not(None),
    )
    stub = column["stub"].as_integer().is_not(None) if stubs else false()
    unbound = column["scene"].as_integer().is_(None)
    return and_(unbound, not_(blind), or_(own, for_them, stub))
