"""Rows of a table written whole, column by column, and read back checked.

The game sessions and the fair-play rule travel this way: every column of the table but
the ones named (its id, its campaign), so that a column added later travels without a change
here. :func:`doc_model` derives the checking model from the table itself (types, lengths,
nullability); :func:`row_doc` writes a row as JSON values.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field, create_model
from sqlalchemy import JSON, Boolean, Integer, String, Table

from app.db import Base, UTCDateTime


def _field(column: Any) -> tuple[Any, Any]:
    """The pydantic type and default of one column."""
    kind = column.type
    annotation: Any
    if isinstance(kind, UTCDateTime):
        annotation = datetime
    elif isinstance(kind, Boolean):
        annotation = bool
    elif isinstance(kind, Integer):
        annotation = int
    elif isinstance(kind, String):
        annotation = str
    elif isinstance(kind, JSON):
        annotation = dict[str, object] | list[object]
    else:  # pragma: no cover - a column type this module does not know yet
        raise TypeError(f"{column.table.name}.{column.name}: {kind!r}")
    length = getattr(kind, "length", None)
    if column.nullable or column.default is not None:
        # Optional; absent in a document written before the column existed: its default.
        return annotation | None, Field(default=None, max_length=length)
    return annotation, Field(max_length=length)


def table_of(model: type[Base]) -> Table:
    return cast(Table, model.__table__)


def doc_model(model: type[Base], skip: frozenset[str]) -> type[BaseModel]:
    """A pydantic model with a field per column of ``model`` not in ``skip`` (unknown
    fields refused, as everywhere in the document)."""
    fields: dict[str, Any] = {
        c.name: _field(c) for c in table_of(model).columns if c.name not in skip
    }
    return create_model(f"{model.__name__}Doc", __config__=ConfigDict(extra="forbid"), **fields)


def row_doc(row: Base, skip: frozenset[str]) -> dict[str, object]:
    """Every column of ``row`` not in ``skip`` as a JSON value."""
    out: dict[str, object] = {}
    for column in table_of(type(row)).columns:
        if column.name in skip:
            continue
        value = getattr(row, column.key)
        out[column.name] = value.isoformat() if isinstance(value, datetime) else value
    return out


def row_values(model: type[Base], doc: BaseModel, skip: frozenset[str]) -> dict[str, object]:
    """The attribute values of a new row of ``model`` from a checked ``doc`` (a column that
    may not be NULL and was left out gets its default)."""
    columns = {c.name: c for c in table_of(model).columns if c.name not in skip}
    return {
        columns[name].key: value
        for name, value in doc.model_dump().items()
        if name in columns and (value is not None or columns[name].nullable)
    }
