"""imported parts and imported game sessions

Revision ID: 0014_transfer
Revises: 0013_api_tokens
Create Date: 2026-12-03 06:40:00

``imported_part``: the people an imported campaign names, as placeholders the GM hands over
by a takeover link (``app.transfer.models``). ``game_session.origin``: the campaign and
session ids an imported fair-play session's dice were derived from (``docs/fairplay.md``).
The column is added and dropped with ``ALTER TABLE`` on SQLite too (no batch mode, which
would rebuild ``game_session``).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014_transfer"
down_revision: str | None = "0013_api_tokens"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "imported_part",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("character_ids", sa.JSON(), nullable=False),
        sa.Column("grants", sa.JSON(), nullable=False),
        sa.Column("code", sa.String(length=32), nullable=True),
        sa.Column("claimed_by", sa.Integer(), nullable=True),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaign.id"],
            name=op.f("fk_imported_part_campaign_id_campaign"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["claimed_by"],
            ["user_account.id"],
            name=op.f("fk_imported_part_claimed_by_user_account"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_imported_part")),
        sa.UniqueConstraint("code", name=op.f("uq_imported_part_code")),
    )
    op.create_index(
        op.f("ix_imported_part_campaign_id"), "imported_part", ["campaign_id"], unique=False
    )
    op.add_column("game_session", sa.Column("origin", sa.JSON(), nullable=True))


def downgrade() -> None:
    op.drop_column("game_session", "origin")
    op.drop_index(op.f("ix_imported_part_campaign_id"), table_name="imported_part")
    op.drop_table("imported_part")
