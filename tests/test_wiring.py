"""The explicit wiring (``app/wiring.py``): every package's event types and live regions are
registered by it, none by an import, and a package left out of it fails here."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from app import wiring
from app.encounters import board, service
from app.events import payload
from app.events.payload import EVENT_TYPES, EventPayload
from app.maps import displace, tactics
from app.web.regions import Page
from tests.test_docs import documented_events

APP = Path(__file__).resolve().parents[1] / "app"


def _modules_on_disk(name: str) -> set[str]:
    """``app.<package>.<name>`` for every ``app/<package>/<name>.py``."""
    return {f"app.{path.parent.name}.{name}" for path in APP.glob(f"*/{name}.py")}


def _event_modules_on_disk() -> set[str]:
    return _modules_on_disk("events")


def _payload_classes(module: ModuleType) -> set[type[EventPayload]]:
    """The classes with an event type that ``module`` defines (not those it imports)."""
    return {
        cls
        for _name, cls in inspect.getmembers(module, inspect.isclass)
        if cls.__module__ == module.__name__
        and issubclass(cls, EventPayload)
        and "TYPE" in vars(cls)
    }


def test_the_wiring_lists_every_packages_events_module() -> None:
    listed = [m.__name__ for m in wiring.EVENT_MODULES]
    assert len(listed) == len(set(listed))
    assert set(listed) == _event_modules_on_disk()


def test_every_payload_class_of_an_events_module_is_listed_and_registered() -> None:
    wiring.wire()
    classes: set[type[EventPayload]] = set()
    for name in sorted(_event_modules_on_disk()):
        module = importlib.import_module(name)
        defined = _payload_classes(module)
        assert set(module.EVENTS) == defined, name
        assert len(module.EVENTS) == len(defined), name
        classes |= defined
    assert {cls.TYPE: cls for cls in classes} == EVENT_TYPES
    assert len(classes) == len(EVENT_TYPES)


def test_every_documented_event_type_is_registered() -> None:
    wiring.wire()
    assert set(documented_events()) == set(EVENT_TYPES)


def test_wiring_twice_registers_nothing_twice() -> None:
    wiring.wire()
    before = dict(EVENT_TYPES)
    wiring.wire()
    assert before == EVENT_TYPES
    assert service.AFTER_OPERATION.count(displace.move_displaced) == 1
    assert service.AFTER_UNDO.count(displace.move_back) == 1
    assert board.SOURCES.count(tactics.fight_board) == 1


def test_another_class_under_a_registered_name_is_refused() -> None:
    @payload.event_type("roll")
    class Impostor(EventPayload):
        pass

    with pytest.raises(ValueError, match="registered twice"):
        payload.register([Impostor])


def test_an_events_module_left_out_of_the_wiring_fails_the_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(wiring, "EVENT_MODULES", wiring.EVENT_MODULES[1:])
    with pytest.raises(AssertionError):
        test_the_wiring_lists_every_packages_events_module()


def test_the_wiring_lists_every_packages_live_module() -> None:
    listed = [m.__name__ for m in wiring.LIVE_MODULES]
    assert len(listed) == len(set(listed))
    assert set(listed) == _modules_on_disk("live")


def _regions(page: Page[Any]) -> list[str]:
    return [r.name for r in page.regions]


def test_the_pages_have_their_regions_once_in_order() -> None:
    from app.campaigns.live import CAMPAIGN_PAGE
    from app.characters.live import HISTORY_PAGE, SHEET_PAGE
    from app.encounters.live import COMBAT_PAGE, ENCOUNTER_LIST, NOTICES
    from app.maps.live import SCENE_PAGE
    from app.talk.live import CHAT_PAGE

    wiring.wire()
    wiring.wire()
    assert _regions(CAMPAIGN_PAGE) == ["roll", "log", "members", "sessions", "chat"]
    assert _regions(COMBAT_PAGE) == [
        *("log", "roster", "turn", "pending", "controls", "status"),
        *("map", "chat"),
    ]
    assert _regions(SCENE_PAGE) == ["board", "moves", "sighted", "pointer"]
    assert _regions(CHAT_PAGE) == ["chat"]
    assert _regions(SHEET_PAGE) == ["sheet"]
    assert _regions(HISTORY_PAGE) == ["history"]
    assert _regions(NOTICES) == ["notice"]
    assert _regions(ENCOUNTER_LIST) == ["list"]


def test_no_module_registers_anything_when_imported() -> None:
    """A module-level call statement (``PAGE.register(...)``, ``HOOKS.append(...)``) would
    register on import; such registrations belong in ``app.wiring``. The one left: the
    database session's own memo hooks (``app/db.py``), which the module itself uses."""
    calls = set()
    for path in sorted(APP.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                calls.add((path.relative_to(APP).as_posix(), ast.unparse(node.value.func)))
    assert calls == {("db.py", "event.listen")}


def test_no_import_is_kept_for_its_side_effect() -> None:
    """Every import is used (ruff's F401); none is exempted to run a module for what it
    registers (issue 26): the wiring registers, explicitly."""
    kept = [
        f"{path.relative_to(APP).as_posix()}:{number}"
        for path in sorted(APP.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"noqa:[^#]*\bF401\b", line)
    ]
    assert not kept, kept


#: The registries ``app.wiring`` fills: empty while the modules are imported.
FILLED_BY_WIRING = {"SYSTEMS", "OPTIONS", "STATBLOCKS"}


def _module_level_reads(tree: ast.Module) -> list[tuple[int, str]]:
    """Names of :data:`FILLED_BY_WIRING` that module-level code (outside functions) reads."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(node, ast.AnnAssign | ast.Assign) and isinstance(node.value, ast.Dict):
            continue  # the registry's own (empty) definition
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id in FILLED_BY_WIRING:
                found.append((node.lineno, n.id))
            elif isinstance(n, ast.Attribute) and n.attr in FILLED_BY_WIRING:
                found.append((node.lineno, n.attr))
    return found


def test_no_module_reads_a_registry_when_imported() -> None:
    """A registry read at import time is empty (the wiring fills it later): the English
    combat page once showed «tot» for a condition whose msgid a module-level dict missed."""
    reads = {
        f"{path.relative_to(APP).as_posix()}:{line} {name}"
        for path in sorted(APP.rglob("*.py"))
        if path.name != "wiring.py"
        for line, name in _module_level_reads(ast.parse(path.read_text(encoding="utf-8")))
    }
    assert not reads, reads


def test_a_condition_without_a_rule_term_is_shown_in_the_readers_language() -> None:
    from app.encounters.views import condition_label
    from app.i18n import set_locale

    set_locale("en")
    try:
        assert condition_label("tot") == "dead"
        assert condition_label("Waffe fallen gelassen") != "Waffe fallen gelassen"
    finally:
        set_locale("de")
