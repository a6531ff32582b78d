"""Every row belongs to one campaign or to one account, so campaigns can be sharded.

``docs/scaling.md`` («Past one PostgreSQL primary») shards by campaign through a directory:
a campaign's rows live in one database and move together. That needs each table to be
either account-scoped (the small shared database) or owned by exactly one campaign: a
``campaign_id`` that is never NULL, or a key that is never NULL to a campaign-owned row it is
deleted with (``app.db.owned_by``), so a campaign's rows are found by following its keys.
A new table that is neither fails here.
"""

from __future__ import annotations

from sqlalchemy import Table

from app.models import Base

#: Tables of accounts and their sign-ins, not of a campaign (an API token may be limited to
#: one campaign, but belongs to its user).
ACCOUNT_TABLES = {"user_account", "user_session", "login_failure", "api_token"}
#: Keyed by the user; its stored answers name campaigns only in their bodies.
ACCOUNT_OWNED = {"idempotent_request"}


def _owners(table: Table) -> set[str]:
    """The tables ``table`` belongs to: never-NULL keys deleted with the row they name."""
    return {
        fk.column.table.name
        for fk in table.foreign_keys
        if fk.ondelete == "CASCADE" and not fk.parent.nullable
    }


def _campaign_tables() -> set[str]:
    """``campaign`` and every table owned, through its keys, by a campaign-owned row."""
    owned = {"campaign"}
    growing = True
    while growing:
        found = {t.name for t in Base.metadata.sorted_tables if _owners(t) & owned} - owned
        owned |= found
        growing = bool(found)
    return owned


def test_every_table_belongs_to_a_campaign_or_to_an_account() -> None:
    tables = {t.name for t in Base.metadata.sorted_tables}
    campaign = _campaign_tables()
    assert not (campaign & (ACCOUNT_TABLES | ACCOUNT_OWNED))
    assert tables - campaign == ACCOUNT_TABLES | ACCOUNT_OWNED


def test_a_campaign_id_column_is_the_key_to_its_campaign() -> None:
    """Where a campaign-owned table names its campaign, the directory can find its rows by it:
    never NULL and deleted with the campaign."""
    for name in sorted(_campaign_tables() - {"campaign"}):
        table = Base.metadata.tables[name]
        if "campaign_id" in table.c:
            assert "campaign" in _owners(table), name


def test_the_account_owned_tables_do_not_hang_off_a_campaign() -> None:
    for name in ACCOUNT_OWNED:
        assert _owners(Base.metadata.tables[name]) == {"user_account"}, name
