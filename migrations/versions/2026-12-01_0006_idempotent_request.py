"""idempotent request: the stored answer of a creating request, per user and key

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 09:45:00

Adds ``idempotent_request`` (primary key user_id + key): the request's fingerprint, when it
was made (keys expire after 24 h, purged lazily) and its answer (status, headers, body).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import app.db

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "idempotent_request",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=100), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("created_at", app.db.UTCDateTime(timezone=True), nullable=False),
        sa.Column("status", sa.Integer(), nullable=True),
        sa.Column("headers", sa.Text(), nullable=True),
        sa.Column("body", sa.LargeBinary(), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user_account.id"],
            name=op.f("fk_idempotent_request_user_id_user_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", "key", name=op.f("pk_idempotent_request")),
    )
    op.create_index(
        op.f("ix_idempotent_request_created_at"),
        "idempotent_request",
        ["created_at"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_idempotent_request_created_at"), table_name="idempotent_request")
    op.drop_table("idempotent_request")
