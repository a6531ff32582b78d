"""The test database for a blocking SQLAlchemy engine, for tests that set rows up by hand."""


def blocking_url(url: str) -> str:
    """``url`` with a blocking driver: the async drivers (aiosqlite, asyncpg) run only under
    an event loop; psycopg serves both."""
    return url.replace("+aiosqlite", "").replace("+asyncpg", "+psycopg")
