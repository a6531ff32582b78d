"""The "Limits" table of docs/security.md and the code say the same: every constant of
``app.limits`` and every limit setting has a row, and each row's value is the code's."""

from __future__ import annotations

import re
from pathlib import Path

from app import limits
from app.config import Settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "security.md"
ROW = re.compile(r"^\| (?P<what>[^|]+) \| (?P<value>[^|]+) \| (?P<where>[^|]+) \| [^|]+ \|$")
LIMIT_SETTINGS = (
    "max_body_bytes",
    "write_rate_per_minute",
    "write_burst",
    "streams_per_user",
    "streams_per_credential",
    "streams_per_api_token",
)


def documented() -> dict[str, int]:
    """``where`` → value of each row of the table in the "Limits" section."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("\n## Limits\n", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, int] = {}
    for line in section.splitlines():
        match = ROW.match(line)
        if not match or match["value"].strip() in ("value", "---"):
            continue
        name = re.search(r"`([^`]+)`", match["where"])
        number = re.match(r"[\d,]+", match["value"].strip())
        assert name and number, line
        rows[name.group(1)] = int(number.group(0).replace(",", ""))
    return rows


def constants() -> dict[str, int]:
    return {
        name: value
        for name, value in vars(limits).items()
        if name.isupper() and isinstance(value, int) and not isinstance(value, bool)
    }


def test_every_limit_is_in_the_table_with_its_value() -> None:
    rows = documented()
    defaults = {name: Settings.model_fields[name].default for name in LIMIT_SETTINGS}
    expected = {**constants(), **defaults}
    assert rows == expected


def test_the_table_is_not_empty() -> None:
    """A table the parser cannot read must not pass as agreeing with nothing."""
    assert len(documented()) >= 20
