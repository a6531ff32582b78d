"""movement lives in the fight

Revision ID: 0017_moveundo
Revises: 0016_tokenslook
Create Date: 2026-12-03 09:45:00

The movement a figure spent in a fight's Handlung or turn leaves the token
(``map_token.moved``, ``moved_turn``) for the combat state (``encounter.state["movement"]``,
``{"turn": "round:turn", "spent": {pid: cells}}``), so that the GM's undo gives it back
(docs/map.md, docs/encounters.md). Upgrade moves what a participant's token spent in the
current turn of its scene's running fight into that fight's state (the most, should two
scenes of one fight disagree); what was spent in an earlier turn counts no more and goes.
Downgrade writes the fight's counts back onto the figures' tokens.

The columns are dropped and added with ``ALTER TABLE`` on SQLite too (3.35+), not in batch
mode: rebuilding ``map_token`` would cascade to its portraits.
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0017_moveundo"
down_revision: str | None = "0016_tokenslook"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

encounter = sa.table(
    "encounter",
    sa.column("id", sa.Integer()),
    sa.column("status", sa.String()),
    sa.column("state", sa.JSON()),
)
scene = sa.table(
    "map_scene", sa.column("id", sa.Integer()), sa.column("encounter_id", sa.Integer())
)
token = sa.table(
    "map_token",
    sa.column("id", sa.Integer()),
    sa.column("scene_id", sa.Integer()),
    sa.column("participant_id", sa.Integer()),
    sa.column("moved", sa.Integer()),
    sa.column("moved_turn", sa.String()),
)


def _key(state: dict[str, Any]) -> str:
    return f"{state.get('round', 0)}:{state.get('turn', 0)}"


def _fight_tokens() -> sa.Select[Any]:
    """Each figure's token on a scene of a running fight, with that fight."""
    return (
        sa.select(
            token.c.id, token.c.participant_id, token.c.moved, token.c.moved_turn,
            encounter.c.id, encounter.c.state,
        )
        .join(scene, scene.c.id == token.c.scene_id)
        .join(encounter, encounter.c.id == scene.c.encounter_id)
        .where(encounter.c.status == "running", token.c.participant_id.is_not(None))
        .order_by(token.c.id)
    )  # fmt: skip


def upgrade() -> None:
    bind = op.get_bind()
    states: dict[int, dict[str, Any]] = {}
    for _tid, pid, moved, moved_turn, eid, state in bind.execute(_fight_tokens()):
        if not isinstance(state, dict) or not moved or moved_turn != _key(state):
            continue
        new = states.setdefault(eid, dict(state))
        movement = new.get("movement") or {}
        spent = dict(movement.get("spent") or {}) if movement.get("turn") == moved_turn else {}
        spent[str(pid)] = max(int(spent.get(str(pid), 0)), int(moved))
        new["movement"] = {"turn": moved_turn, "spent": spent}
    for eid, state in states.items():
        bind.execute(encounter.update().where(encounter.c.id == eid).values(state=state))
    op.drop_column("map_token", "moved")
    op.drop_column("map_token", "moved_turn")


def downgrade() -> None:
    op.add_column("map_token", sa.Column("moved", sa.Integer(), nullable=False, server_default="0"))
    op.add_column(
        "map_token",
        sa.Column("moved_turn", sa.String(length=16), nullable=False, server_default=""),
    )
    bind = op.get_bind()
    for tid, pid, _moved, _turn, _eid, state in bind.execute(_fight_tokens()).all():
        movement = (state or {}).get("movement") or {} if isinstance(state, dict) else {}
        spent = (movement.get("spent") or {}).get(str(pid))
        if spent and movement.get("turn") == _key(state):
            bind.execute(
                token.update()
                .where(token.c.id == tid)
                .values(moved=int(spent), moved_turn=str(movement["turn"]))
            )
    if bind.dialect.name != "sqlite":
        op.alter_column("map_token", "moved", existing_type=sa.Integer(), server_default=None)
        op.alter_column(
            "map_token", "moved_turn", existing_type=sa.String(length=16), server_default=None
        )
