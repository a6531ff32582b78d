"""event subject: what an event is about, for the encounter log and sheet history in SQL

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 09:00:00

Adds ``campaign_event.subject`` (``character:<id>`` / ``encounter:<id>``) with an index on
(campaign_id, subject, seq), and fills it for the existing rows from their payloads, as
``app.events.types`` sets it for new ones: ``character_*`` events and sheet rolls by their
``character_id``, ``combat`` and ``encounter`` events by their ``encounter_id``.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: (subject kind, payload key, which event types) of the backfill.
_BACKFILL = (
    ("character", "character_id", "type LIKE 'character%' OR type = 'roll'"),
    ("encounter", "encounter_id", "type IN ('combat', 'encounter')"),
)


def _payload_value(dialect: str, key: str) -> str:
    """SQL for a payload's value at ``key`` as text (NULL when absent or JSON null)."""
    if dialect == "postgresql":
        return f"(payload ->> '{key}')"
    return f"CAST(json_extract(payload, '$.{key}') AS TEXT)"


def upgrade() -> None:
    with op.batch_alter_table("campaign_event", schema=None) as batch_op:
        batch_op.add_column(sa.Column("subject", sa.String(length=40), nullable=True))
        batch_op.create_index(
            "ix_campaign_event_subject", ["campaign_id", "subject", "seq"], unique=False
        )
    dialect = op.get_bind().dialect.name
    for kind, key, types in _BACKFILL:
        value = _payload_value(dialect, key)
        op.execute(
            f"UPDATE campaign_event SET subject = '{kind}:' || {value} "
            f"WHERE ({types}) AND {value} IS NOT NULL"
        )


def downgrade() -> None:
    with op.batch_alter_table("campaign_event", schema=None) as batch_op:
        batch_op.drop_index("ix_campaign_event_subject")
        batch_op.drop_column("subject")
