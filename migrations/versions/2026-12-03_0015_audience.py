"""one audience per event; scenes shown to players

Revision ID: 0015_audience
Revises: 0014_transfer
Create Date: 2026-12-03 06:30:00

Who sees an event was stored in five places: the ``visibility`` and ``audience_user_id``
columns and the payload keys ``withheld_parties``, ``player_form`` and ``player_forms``.
Upgrade moves all five into one JSON column, ``campaign_event.audience``
(``app.events.audience``, docs/events.md "Audience"), and gives map events their scene and
token, which the projection checks against the scene as it is when read. Downgrade moves
the audience back into the five places.

``map_scene.shown``: whether players may see the scene; scenes that exist are shown (as
they were), new ones start hidden.

``campaign_event`` is rebuilt in batch mode on SQLite (a column with a foreign key cannot be
dropped with ``ALTER TABLE``); no table references it, so dropping the old table cascades
to nothing. ``map_scene`` gets its column with plain ``ALTER TABLE`` (rebuilding it would
cascade to its tokens).
"""

from collections.abc import Iterator, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0015_audience"
down_revision: str | None = "0014_transfer"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CHUNK = 1000
FORM_KEYS = ("withheld_parties", "player_form", "player_forms")
#: Map event types and the payload path of their token's id.
TOKEN_OF = {
    "token_added": ("token", "id"),
    "token_changed": ("token", "id"),
    "token_moved": ("token_id",),
    "token_sighted": ("token_id",),
    "token_removed": ("token_id",),
}
SCENE_EVENTS = frozenset({"scene_updated", "fog_changed", "map_pointer", *TOKEN_OF})

events = sa.table(
    "campaign_event",
    sa.column("id", sa.Integer()),
    sa.column("type", sa.String()),
    sa.column("actor_id", sa.Integer()),
    sa.column("payload", sa.JSON()),
    sa.column("audience", sa.JSON()),
    sa.column("visibility", sa.String()),
    sa.column("audience_user_id", sa.Integer()),
)


def _rows(columns: Sequence[sa.ColumnElement[Any]]) -> Iterator[Sequence[Any]]:
    bind = op.get_bind()
    last = 0
    while True:
        chunk = bind.execute(
            sa.select(*columns).where(columns[0] > last).order_by(columns[0]).limit(CHUNK)
        ).all()
        if not chunk:
            return
        yield from chunk
        last = chunk[-1][0]


def _token_id(type_: str, payload: dict[str, Any]) -> Any:
    value: Any = payload
    for key in TOKEN_OF.get(type_, ()):
        value = value.get(key) if isinstance(value, dict) else None
    return value if type_ in TOKEN_OF else None


def _readers(
    actor_id: int | None, visibility: str, user_id: int | None, payload: dict[str, Any]
) -> set[int]:
    """Besides the GMs: a ``self`` event's user; a ``listed`` one's actor and ``to``."""
    if visibility == "self":
        return set() if user_id is None else {user_id}
    if visibility != "listed":
        return set()
    readers = {int(u) for u in payload.get("to") or ()}
    return readers if actor_id is None else readers | {actor_id}


def _scene(type_: str, payload: dict[str, Any]) -> dict[str, Any]:
    """A map event's scene and token (a deleted scene's event: none)."""
    deleted = type_ == "scene_updated" and payload.get("change") == "deleted"
    if type_ not in SCENE_EVENTS or deleted or payload.get("scene_id") is None:
        return {}
    token = _token_id(type_, payload)
    return {"scene": payload["scene_id"]} | ({} if token is None else {"token": token})


def audience_of(
    type_: str, actor_id: int | None, visibility: str, user_id: int | None, payload: dict[str, Any]
) -> dict[str, Any]:
    """The audience JSON of an event stored the old way (takes the form keys out of
    ``payload``)."""
    out: dict[str, Any] = {"v": visibility}
    readers = _readers(actor_id, visibility, user_id, payload)
    if readers:
        out["to"] = {str(u): 1 for u in sorted(readers)}
    if type_ == "roll":
        out["stub"] = 1
    if payload.get("withheld_parties"):
        out["withheld"] = list(payload["withheld_parties"])
    if payload.get("player_form") is not None:
        out["form"] = payload["player_form"]
    forms = payload.get("player_forms") or {}
    if any(f is not None for f in forms.values()):
        out["forms"] = {k: f for k, f in forms.items() if f is not None}
    if any(f is None for f in forms.values()):
        out["blind"] = {k: 1 for k, f in forms.items() if f is None}
    out |= _scene(type_, payload)
    for key in FORM_KEYS:
        payload.pop(key, None)
    return out


def old_form(audience: dict[str, Any], payload: dict[str, Any]) -> tuple[str, int | None]:
    """The visibility and ``audience_user_id`` of an audience; puts the form keys back into
    ``payload``."""
    visibility = str(audience.get("v", "public"))
    readers = [int(u) for u in audience.get("to", {})]
    if audience.get("withheld"):
        payload["withheld_parties"] = audience["withheld"]
    if audience.get("form") is not None:
        payload["player_form"] = audience["form"]
    forms: dict[str, Any] = dict(audience.get("forms", {}))
    forms.update({k: None for k in audience.get("blind", {})})
    if forms:
        payload["player_forms"] = forms
    user_id = readers[0] if visibility == "self" and readers else None
    return visibility, user_id


def upgrade() -> None:
    op.add_column(
        "map_scene", sa.Column("shown", sa.Boolean(), nullable=False, server_default=sa.true())
    )
    op.add_column(
        "campaign_event",
        sa.Column("audience", sa.JSON(), nullable=False, server_default=sa.text("'{}'")),
    )
    bind = op.get_bind()
    c = events.c
    for id_, type_, actor_id, payload, visibility, user_id in _rows(
        [c.id, c.type, c.actor_id, c.payload, c.visibility, c.audience_user_id]
    ):
        payload = dict(payload or {})
        audience = audience_of(type_, actor_id, visibility, user_id, payload)
        bind.execute(
            sa.update(events).where(c.id == id_).values(audience=audience, payload=payload)
        )
    with op.batch_alter_table("campaign_event") as batch:
        batch.drop_constraint("fk_campaign_event_audience_user_id_user_account", type_="foreignkey")
        batch.drop_column("audience_user_id")
        batch.drop_column("visibility")


def downgrade() -> None:
    with op.batch_alter_table("campaign_event") as batch:
        batch.add_column(
            sa.Column("visibility", sa.String(8), nullable=False, server_default="public")
        )
        batch.add_column(sa.Column("audience_user_id", sa.Integer(), nullable=True))
        batch.create_foreign_key(
            "fk_campaign_event_audience_user_id_user_account",
            "user_account",
            ["audience_user_id"],
            ["id"],
            ondelete="SET NULL",
        )
    bind = op.get_bind()
    c = events.c
    for id_, payload, audience in _rows([c.id, c.payload, c.audience]):
        payload = dict(payload or {})
        visibility, user_id = old_form(dict(audience or {}), payload)
        bind.execute(
            sa.update(events)
            .where(c.id == id_)
            .values(visibility=visibility, audience_user_id=user_id, payload=payload)
        )
    with op.batch_alter_table("campaign_event") as batch:
        batch.drop_column("audience")
    op.drop_column("map_scene", "shown")
