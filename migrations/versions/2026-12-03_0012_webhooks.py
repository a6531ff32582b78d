"""webhooks

Revision ID: 0012_webhooks
Revises: 0011
Create Date: 2026-12-03 07:00:00

A campaign's webhooks (``app/webhooks``): one new table, nothing else changes.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_webhooks"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    when = sa.DateTime(timezone=True)
    op.create_table(
        "webhook",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("secret", sa.String(length=64), nullable=False),
        sa.Column("locale", sa.String(length=5), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", when, nullable=False),
        sa.Column("cursor_seq", sa.Integer(), nullable=False),
        sa.Column("last_status", sa.Integer(), nullable=True),
        sa.Column("last_error", sa.String(length=200), nullable=True),
        sa.Column("last_attempt_at", when, nullable=True),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", when, nullable=False),
        sa.Column("lease_until", when, nullable=True),
        sa.Column("lease_owner", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaign.id"],
            name=op.f("fk_webhook_campaign_id_campaign"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["created_by"],
            ["user_account.id"],
            name=op.f("fk_webhook_created_by_user_account"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook")),
    )
    op.create_index("ix_webhook_campaign_id", "webhook", ["campaign_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_webhook_campaign_id", table_name="webhook")
    op.drop_table("webhook")
