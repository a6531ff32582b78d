"""battle map

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 11:52:00.761484

The tables of ``app/maps/models.py``: scenes, their background image, tokens.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "map_scene",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("encounter_id", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("cols", sa.Integer(), nullable=False),
        sa.Column("rows", sa.Integer(), nullable=False),
        sa.Column("grid_x", sa.Integer(), nullable=False),
        sa.Column("grid_y", sa.Integer(), nullable=False),
        sa.Column("cell_px", sa.Integer(), nullable=False),
        sa.Column("walls", sa.JSON(), nullable=False),
        sa.Column("doors", sa.JSON(), nullable=False),
        sa.Column("difficult", sa.JSON(), nullable=False),
        sa.Column("fog", sa.Boolean(), nullable=False),
        sa.Column("revealed", sa.JSON(), nullable=False),
        sa.Column("background_etag", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaign.id"],
            name=op.f("fk_map_scene_campaign_id_campaign"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["encounter_id"],
            ["encounter.id"],
            name=op.f("fk_map_scene_encounter_id_encounter"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_map_scene")),
    )
    with op.batch_alter_table("map_scene", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_map_scene_campaign_id"), ["campaign_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_map_scene_encounter_id"), ["encounter_id"], unique=False
        )

    op.create_table(
        "map_background",
        sa.Column("scene_id", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("mime", sa.String(length=32), nullable=False),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("height", sa.Integer(), nullable=False),
        sa.Column("etag", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["scene_id"],
            ["map_scene.id"],
            name=op.f("fk_map_background_scene_id_map_scene"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("scene_id", name=op.f("pk_map_background")),
    )
    op.create_table(
        "map_token",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("scene_id", sa.Integer(), nullable=False),
        sa.Column("participant_id", sa.Integer(), nullable=True),
        sa.Column("character_id", sa.Integer(), nullable=True),
        sa.Column("label", sa.String(length=100), nullable=False),
        sa.Column("colour", sa.String(length=7), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("hidden", sa.Boolean(), nullable=False),
        sa.Column("x", sa.Integer(), nullable=False),
        sa.Column("y", sa.Integer(), nullable=False),
        sa.Column("moved", sa.Integer(), nullable=False),
        sa.Column("moved_turn", sa.String(length=16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["character_id"],
            ["character.id"],
            name=op.f("fk_map_token_character_id_character"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["participant_id"],
            ["encounter_participant.id"],
            name=op.f("fk_map_token_participant_id_encounter_participant"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["scene_id"],
            ["map_scene.id"],
            name=op.f("fk_map_token_scene_id_map_scene"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_map_token")),
    )
    with op.batch_alter_table("map_token", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_map_token_character_id"), ["character_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_map_token_participant_id"), ["participant_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_map_token_scene_id"), ["scene_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("map_token", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_map_token_scene_id"))
        batch_op.drop_index(batch_op.f("ix_map_token_participant_id"))
        batch_op.drop_index(batch_op.f("ix_map_token_character_id"))

    op.drop_table("map_token")
    op.drop_table("map_background")
    with op.batch_alter_table("map_scene", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_map_scene_encounter_id"))
        batch_op.drop_index(batch_op.f("ix_map_scene_campaign_id"))

    op.drop_table("map_scene")
