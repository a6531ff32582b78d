"""table talk: chat messages, whisper recipients, last-read marks, handouts, journal

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 09:36:20.036156

The tables of ``app/talk/models.py``; their history is in the campaign log.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "chat_read",
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("last_seq", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaign.id"],
            name=op.f("fk_chat_read_campaign_id_campaign"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user_account.id"],
            name=op.f("fk_chat_read_user_id_user_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("campaign_id", "user_id", name=op.f("pk_chat_read")),
    )
    op.create_table(
        "handout",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("shown_to_all", sa.Boolean(), nullable=False),
        sa.Column("shown_seq", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaign.id"],
            name=op.f("fk_handout_campaign_id_campaign"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_handout")),
    )
    with op.batch_alter_table("handout", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_handout_campaign_id"), ["campaign_id"], unique=False)

    op.create_table(
        "chat_message",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=True),
        sa.Column("author_name", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("speaker", sa.String(length=100), nullable=True),
        sa.Column("character_id", sa.Integer(), nullable=True),
        sa.Column("visibility", sa.String(length=8), nullable=False),
        sa.Column("to_gm", sa.Boolean(), nullable=False),
        sa.Column("roll", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("edited_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["author_id"],
            ["user_account.id"],
            name=op.f("fk_chat_message_author_id_user_account"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaign.id"],
            name=op.f("fk_chat_message_campaign_id_campaign"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["character_id"],
            ["character.id"],
            name=op.f("fk_chat_message_character_id_character"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chat_message")),
    )
    with op.batch_alter_table("chat_message", schema=None) as batch_op:
        batch_op.create_index(
            "ix_chat_message_campaign_id_seq", ["campaign_id", "seq"], unique=False
        )

    op.create_table(
        "handout_reader",
        sa.Column("handout_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["handout_id"],
            ["handout.id"],
            name=op.f("fk_handout_reader_handout_id_handout"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user_account.id"],
            name=op.f("fk_handout_reader_user_id_user_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("handout_id", "user_id", name=op.f("pk_handout_reader")),
    )
    with op.batch_alter_table("handout_reader", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_handout_reader_user_id"), ["user_id"], unique=False)

    op.create_table(
        "chat_recipient",
        sa.Column("message_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["message_id"],
            ["chat_message.id"],
            name=op.f("fk_chat_recipient_message_id_chat_message"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user_account.id"],
            name=op.f("fk_chat_recipient_user_id_user_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("message_id", "user_id", name=op.f("pk_chat_recipient")),
    )
    with op.batch_alter_table("chat_recipient", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_chat_recipient_user_id"), ["user_id"], unique=False)

    op.create_table(
        "journal_note",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=True),
        sa.Column("author_name", sa.String(length=32), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("sharing", sa.String(length=8), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["author_id"],
            ["user_account.id"],
            name=op.f("fk_journal_note_author_id_user_account"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaign.id"],
            name=op.f("fk_journal_note_campaign_id_campaign"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_journal_note")),
    )
    with op.batch_alter_table("journal_note", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_journal_note_campaign_id"), ["campaign_id"], unique=False
        )

    op.create_table(
        "journal_reader",
        sa.Column("note_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["note_id"],
            ["journal_note.id"],
            name=op.f("fk_journal_reader_note_id_journal_note"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user_account.id"],
            name=op.f("fk_journal_reader_user_id_user_account"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("note_id", "user_id", name=op.f("pk_journal_reader")),
    )
    with op.batch_alter_table("journal_reader", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_journal_reader_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("journal_reader", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_journal_reader_user_id"))

    op.drop_table("journal_reader")
    with op.batch_alter_table("journal_note", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_journal_note_campaign_id"))

    op.drop_table("journal_note")
    with op.batch_alter_table("chat_recipient", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_chat_recipient_user_id"))

    op.drop_table("chat_recipient")
    with op.batch_alter_table("handout_reader", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_handout_reader_user_id"))

    op.drop_table("handout_reader")
    with op.batch_alter_table("chat_message", schema=None) as batch_op:
        batch_op.drop_index("ix_chat_message_campaign_id_seq")

    op.drop_table("chat_message")
    with op.batch_alter_table("handout", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_handout_campaign_id"))

    op.drop_table("handout")
    op.drop_table("chat_read")
