"""Every integer a request may carry is bounded at its field: a number beyond a PostgreSQL
``integer`` answers 422 naming the field, never a database error (500 "integer out of range").

Found by scripts/schemathesis_run.py on PostgreSQL (issue 25, N9: ``POST …/messages/read``
with ``{"seq": 2147483649}``); ``tests/api/test_row_id_bounds.py`` covers the first ones.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from annotated_types import Ge, Le
from fastapi import FastAPI
from fastapi.dependencies.utils import get_flat_params

from app.limits import INT_MAX
from tests.api.helpers import api_routes, make_table
from tests.conftest import ClientFactory

BEYOND = INT_MAX + 2  # 2147483649, the number of the finding
#: Integers that never reach the database, bounded otherwise: the risk simulation's seed.
NOT_STORED = {"RiskIn.seed"}


def integer_fields(
    schema: dict[str, Any], where: str, components: dict[str, Any]
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every integer inside ``schema`` (through references, unions, objects and arrays)."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        yield from integer_fields(components[name], name, components)
        return
    if schema.get("type") == "integer":
        yield where, schema
    for union in ("anyOf", "oneOf", "allOf"):
        for part in schema.get(union, []):
            yield from integer_fields(part, where, components)
    for name, part in schema.get("properties", {}).items():
        yield from integer_fields(part, f"{where}.{name}", components)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            yield from integer_fields(schema[key], f"{where}[]", components)
    for part in schema.get("prefixItems", []):
        yield from integer_fields(part, f"{where}[]", components)


def unbounded(schema: dict[str, Any]) -> bool:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    return low is None or high is None or low < -INT_MAX - 1 or high > INT_MAX


def test_every_integer_of_the_api_schema_is_bounded(app: FastAPI) -> None:
    spec = app.openapi()
    components = spec["components"]["schemas"]
    found = []
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            schemas = [
                (f"{p['in']}:{p['name']}", p["schema"]) for p in operation.get("parameters", [])
            ]
            for content in operation.get("requestBody", {}).get("content", {}).values():
                schemas.append(("body", content["schema"]))
            for where, schema in schemas:
                for field, integer in integer_fields(schema, where, components):
                    if field not in NOT_STORED and unbounded(integer):
                        found.append(f"{method.upper()} {path} {field}")
    assert not found, found


def test_every_integer_parameter_of_the_pages_is_bounded(app: FastAPI) -> None:
    """The HTML routes too (not in the OpenAPI): path ids, ``?before=``, ``?after=``."""
    found = []
    for route in api_routes(app):
        for param in get_flat_params(route.dependant):
            if param.field_info.annotation not in (int, int | None):
                continue
            metadata = param.field_info.metadata
            low = next((m.ge for m in metadata if isinstance(m, Ge)), None)
            high = next((m.le for m in metadata if isinstance(m, Le)), None)
            if low is None or high is None or int(str(high)) > INT_MAX:
                found.append(f"{route.path} {param.name}")
    assert not found, found


async def test_integers_beyond_the_database_answer_422_at_the_field(
    make_client: ClientFactory, app: FastAPI
) -> None:
    table = await make_table(make_client, app)
    gm, base = table.gm, f"/api/v1/campaigns/{table.campaign_id}"
    character = (await gm.post(f"{base}/characters", json={"name": "Alrik"})).json()["id"]
    encounter = (await gm.post(f"{base}/encounters", json={"name": "Hinterhalt"})).json()
    cases: list[tuple[str, str, dict[str, Any] | None, str | None]] = [
        ("POST", f"{base}/messages/read", {"seq": BEYOND}, "seq"),
        ("GET", f"/api/v1/campaigns/{BEYOND}", None, "campaign_id"),
        ("GET", f"{base}/characters/{BEYOND}", None, "character_id"),
        ("GET", f"/campaigns/{table.campaign_id}/encounters/{BEYOND}", None, "encounter_id"),
        ("GET", f"/campaigns/{table.campaign_id}/log?before={BEYOND}", None, "before"),
        ("POST", f"{base}/messages", {"text": "Hallo", "to": [BEYOND]}, "to"),
        (
            "POST",
            f"{base}/messages",
            {"text": "Hallo", "as_character_id": BEYOND},
            "as_character_id",
        ),
        (
            "PATCH",
            f"{base}/encounters/{encounter['id']}",
            {"name": "Hinterhalt", "version": BEYOND},
            "version",
        ),
        (
            "POST",
            f"{base}/characters/{character}/items",
            {"name": "Seil", "quantity": BEYOND},
            None,
        ),
        (
            "POST",
            f"{base}/characters/{character}/xp",
            {"amount": 1, "companion_id": -BEYOND},
            "companion_id",
        ),
    ]
    for method, url, body, field in cases:
        r = await gm.request(method, url, json=body)
        assert r.status_code == 422, (method, url, body, r.status_code, r.text)
        if url.startswith("/api/") and field is not None:
            errors = r.json()["errors"]
            assert any(k == field or k.startswith(f"{field}.") for k in errors), (url, errors)
    read = await gm.post(f"{base}/messages/read", json={"seq": INT_MAX})
    assert read.status_code == 200, read.text
