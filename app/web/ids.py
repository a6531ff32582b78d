"""Bounds of the integers a request may name a row by.

Row ids, seqs and other references are 32-bit integer columns on PostgreSQL; a larger
number in a query or a body would fail in the database (500) instead of at the field (422).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Path
from pydantic import Field

#: The largest id or seq a request may name (PostgreSQL ``integer``).
MAX_ROW_ID = 2**31 - 1

#: A reference to a row in a request body.
RowId = Annotated[int, Field(ge=1, le=MAX_ROW_ID)]

#: A row id in a URL path.
PathId = Annotated[int, Path(ge=1, le=MAX_ROW_ID)]
