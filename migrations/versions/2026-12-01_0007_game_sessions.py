"""game sessions and fair play: sessions, client seeds, the rule, the chain of the log

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 12:10:00

Adds ``game_session``, ``session_client_seed`` and ``fairplay_rule``; the campaign row names
its open fair-play session and the newest link of its chain (``fairplay_session_id``,
``fairplay_chain``, read under the log's lock); every event of a fair-play session stores
its ``fairplay`` record (``campaign_event.fairplay``).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import app.db

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "game_session",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("started_at", app.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("ended_at", app.db.UTCDateTime(timezone=True), nullable=True),
        sa.Column("started_by", sa.Integer(), nullable=True),
        sa.Column("start_seq", sa.Integer(), nullable=False),
        sa.Column("end_seq", sa.Integer(), nullable=True),
        sa.Column("commitment", sa.String(length=64), nullable=True),
        sa.Column("server_seed", sa.String(length=64), nullable=True),
        sa.Column("overrides", sa.String(length=10), nullable=True),
        sa.Column("reveal_secret_rolls", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaign.id"],
            name=op.f("fk_game_session_campaign_id_campaign"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["started_by"],
            ["user_account.id"],
            name=op.f("fk_game_session_started_by_user_account"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game_session")),
    )
    op.create_index(
        "ix_game_session_campaign_id_start_seq",
        "game_session",
        ["campaign_id", "start_seq"],
        unique=False,
    )
    op.create_table(
        "session_client_seed",
        sa.Column("session_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("client_seed", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["game_session.id"],
            name=op.f("fk_session_client_seed_session_id_game_session"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user_account.id"],
            name=op.f("fk_session_client_seed_user_id_user_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("session_id", "user_id", name=op.f("pk_session_client_seed")),
    )
    op.create_table(
        "fairplay_rule",
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("overrides", sa.String(length=10), nullable=False),
        sa.Column("reveal_secret_rolls", sa.Boolean(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaign.id"],
            name=op.f("fk_fairplay_rule_campaign_id_campaign"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("campaign_id", name=op.f("pk_fairplay_rule")),
    )
    with op.batch_alter_table("campaign") as batch:
        batch.add_column(sa.Column("fairplay_session_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("fairplay_chain", sa.String(length=64), nullable=True))
    with op.batch_alter_table("campaign_event") as batch:
        batch.add_column(sa.Column("fairplay", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("campaign_event") as batch:
        batch.drop_column("fairplay")
    with op.batch_alter_table("campaign") as batch:
        batch.drop_column("fairplay_chain")
        batch.drop_column("fairplay_session_id")
    op.drop_table("fairplay_rule")
    op.drop_table("session_client_seed")
    op.drop_index("ix_game_session_campaign_id_start_seq", table_name="game_session")
    op.drop_table("game_session")
