"""Bounds of the integers a request may name a row by.

Row ids, seqs and other references are 32-bit integer columns on PostgreSQL; a larger
number in a query or a body would fail in the database (500) instead of at the field (422).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Path

from app.limits import INT_MAX, RowId

#: The largest id or seq a request may name (PostgreSQL ``integer``).
MAX_ROW_ID = INT_MAX

__all__ = ["MAX_ROW_ID", "PathId", "RowId"]

#: A row id in a URL path.
PathId = Annotated[int, Path(ge=1, le=MAX_ROW_ID)]
