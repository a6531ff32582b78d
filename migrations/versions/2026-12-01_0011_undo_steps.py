"""undo steps in their own table

Revision ID: 0011
Revises: 0010_sight
Create Date: 2026-12-01 19:45:00

The GM's undo history leaves ``encounter.history`` (a JSON list of up to 30 copies of the
combat state, read and rewritten whole by every combat action) for ``encounter_undo``, one
row per step (docs/encounters.md, "Undo"). Upgrade moves each list into rows in its order
(oldest first, so ``id`` keeps the order); downgrade moves the rows back into the lists.

The column is dropped and added with ``ALTER TABLE`` on SQLite too (3.35+), not in batch
mode: batch mode rebuilds ``encounter``, and dropping the old table with foreign keys on
would cascade to its participants and undo steps. So on SQLite the column a downgrade adds
back keeps its default ``'[]'`` (PostgreSQL drops it again).
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010_sight"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

encounter = sa.table("encounter", sa.column("id", sa.Integer()), sa.column("history", sa.JSON()))
encounter_undo = sa.table(
    "encounter_undo",
    sa.column("id", sa.Integer()),
    sa.column("encounter_id", sa.Integer()),
    sa.column("state", sa.JSON()),
    sa.column("seqs", sa.JSON()),
)


def _step(encounter_id: int, entry: Any) -> dict[str, Any] | None:
    """The row of one history entry ``{"state": {...}, "seq": [...] or null}``; None for
    an entry without a state (the old undo could not restore it either)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("state"), dict):
        return None
    seqs = [int(s) for s in entry.get("seq") or []]
    return {"encounter_id": encounter_id, "state": entry["state"], "seqs": seqs}


def upgrade() -> None:
    op.create_table(
        "encounter_undo",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("encounter_id", sa.Integer(), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("seqs", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["encounter_id"],
            ["encounter.id"],
            name=op.f("fk_encounter_undo_encounter_id_encounter"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_encounter_undo")),
    )
    op.create_index(
        "ix_encounter_undo_encounter_id_id", "encounter_undo", ["encounter_id", "id"], unique=False
    )
    bind = op.get_bind()
    for encounter_id, history in bind.execute(
        sa.select(encounter.c.id, encounter.c.history).order_by(encounter.c.id)
    ):
        rows = [row for entry in history or [] if (row := _step(encounter_id, entry))]
        if rows:
            bind.execute(encounter_undo.insert(), rows)
    op.drop_column("encounter", "history")


def downgrade() -> None:
    op.add_column("encounter", sa.Column("history", sa.JSON(), nullable=False, server_default="[]"))
    bind = op.get_bind()
    histories: dict[int, list[dict[str, Any]]] = {}
    steps = sa.select(encounter_undo.c.encounter_id, encounter_undo.c.state, encounter_undo.c.seqs)
    for encounter_id, state, seqs in bind.execute(steps.order_by(encounter_undo.c.id)):
        histories.setdefault(encounter_id, []).append({"state": state, "seq": seqs})
    for encounter_id, history in histories.items():
        bind.execute(
            encounter.update().where(encounter.c.id == encounter_id).values(history=history)
        )
    if bind.dialect.name != "sqlite":
        op.alter_column("encounter", "history", existing_type=sa.JSON(), server_default=None)
    op.drop_index("ix_encounter_undo_encounter_id_id", table_name="encounter_undo")
    op.drop_table("encounter_undo")
