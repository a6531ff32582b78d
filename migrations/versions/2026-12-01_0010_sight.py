"""line of sight

Revision ID: 0010_sight
Revises: 0009
Create Date: 2026-12-01 16:15:00

Per-player line of sight on a scene (docs/map.md): ``map_scene.line_of_sight`` switches it
on, ``map_scene.sight_radius`` limits it (cells; ``NULL``: no limit).

Plain ``ALTER TABLE`` on SQLite too (3.35+ drops columns), not batch mode: a default that is
an expression (``false()``) makes batch mode rebuild ``map_scene``, and dropping the old
table with foreign keys on deleted every scene's tokens and background by cascade.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_sight"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "map_scene",
        sa.Column("line_of_sight", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.add_column("map_scene", sa.Column("sight_radius", sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column("map_scene", "sight_radius")
    op.drop_column("map_scene", "line_of_sight")
