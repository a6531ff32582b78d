"""token portraits

Revision ID: 0016_tokenslook
Revises: 0015_audience
Create Date: 2026-12-03 07:40:00

A token's optional portrait (issue 28, docs/map.md): the re-encoded image in
``map_token_portrait`` (one row per token, gone with it), its ETag in
``map_token.portrait_etag``. The column is added with plain ``ALTER TABLE`` on SQLite too, not
batch mode: rebuilding ``map_token`` would cascade to nothing yet but is not needed for a
nullable column.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016_tokenslook"
down_revision: str | None = "0015_audience"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("map_token", sa.Column("portrait_etag", sa.String(length=64), nullable=True))
    op.create_table(
        "map_token_portrait",
        sa.Column("token_id", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("mime", sa.String(length=32), nullable=False),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("height", sa.Integer(), nullable=False),
        sa.Column("etag", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["token_id"],
            ["map_token.id"],
            name=op.f("fk_map_token_portrait_token_id_map_token"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("token_id", name=op.f("pk_map_token_portrait")),
    )


def downgrade() -> None:
    op.drop_table("map_token_portrait")
    op.drop_column("map_token", "portrait_etag")
