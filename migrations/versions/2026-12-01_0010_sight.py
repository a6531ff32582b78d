"""line of sight

Revision ID: 0010_sight
Revises: 0009
Create Date: 2026-12-01 16:15:00

Per-player line of sight on a scene (docs/map.md): ``map_scene.line_of_sight`` switches it
on, ``map_scene.sight_radius`` limits it (cells; ``NULL``: no limit).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_sight"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("map_scene") as batch:
        batch.add_column(
            sa.Column("line_of_sight", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("sight_radius", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("map_scene") as batch:
        batch.drop_column("sight_radius")
        batch.drop_column("line_of_sight")
