"""The combat actions: the registry against its documentation, and the declared guards."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi import FastAPI

from app.encounters.actions import ACTIONS, offered
from app.encounters.systems import SYSTEMS
from tests.conftest import ClientFactory
from tests.encounters.test_hh import hh_fight

DOC = Path(__file__).resolve().parents[2] / "docs" / "encounters.md"


def _documented() -> dict[str, tuple[str, str, list[str]]]:
    """Action → (who, systems, inputs) from the table under "## Combat actions"."""
    text = DOC.read_text(encoding="utf-8").split("## Combat actions", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, tuple[str, str, list[str]]] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name = re.fullmatch(r"`(\w+)`", cells[0]) if len(cells) == 5 else None
        if name:
            rows[name.group(1)] = (cells[1], cells[2], re.findall(r"`(\w+)`", cells[3]))
    return rows


def _systems(action: str) -> str:
    handler = ACTIONS[action]
    if handler.needs is None:
        return "all"
    return ", ".join(sorted(n for n, rules in SYSTEMS.items() if action in offered(rules)))


def test_every_action_is_documented_and_every_documented_one_exists() -> None:
    documented = _documented()
    assert sorted(documented) == sorted(ACTIONS)
    for name, (who, systems, inputs) in documented.items():
        handler = ACTIONS[name]
        assert (who == "GM") == handler.gm_only, name
        assert systems == _systems(name), name
        assert inputs == [i.key for i in handler.inputs], name


def test_system_actions_are_offered_by_a_system_that_implements_them() -> None:
    for name, handler in ACTIONS.items():
        if handler.needs is not None:
            assert _systems(name), name


async def test_a_system_action_elsewhere_is_refused(
    make_client: ClientFactory, app: FastAPI
) -> None:
    fight, pids = await hh_fight(make_client, app)
    r = await fight.gm.post(f"{fight.base}/actions/save", json={"targets": [pids["Alrik"]]})
    assert r.status_code == 422
    assert "combat" in r.json()["errors"]
    r = await fight.gm.post(f"{fight.base}/actions/fly", json={})
    assert r.status_code == 422 and "action" in r.json()["errors"]
