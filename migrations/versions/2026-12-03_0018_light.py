"""light

Revision ID: 0018_light
Revises: 0017_moveundo
Create Date: 2026-12-03 12:00:00

Light, optional per scene (issue 27, docs/map.md «Light»): ``map_scene.dark`` (a dark scene:
players see tokens only on lit cells), ``map_scene.lights`` (light sources placed on cells,
``[[x, y, radius], …]``, radius in cells) and ``map_token.light`` (the radius of the light a
token carries with it, in cells; 0: none). Plain ``ALTER TABLE`` on SQLite too: rebuilding
``map_token`` in batch mode would cascade to its portraits.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018_light"
down_revision: str | None = "0017_moveundo"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "map_scene", sa.Column("dark", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    op.add_column(
        "map_scene",
        sa.Column("lights", sa.JSON(), nullable=False, server_default=sa.text("'[]'")),
    )
    op.add_column("map_token", sa.Column("light", sa.Integer(), nullable=False, server_default="0"))
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column("map_scene", "lights", existing_type=sa.JSON(), server_default=None)


def downgrade() -> None:
    op.drop_column("map_token", "light")
    op.drop_column("map_scene", "lights")
    op.drop_column("map_scene", "dark")
