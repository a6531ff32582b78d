"""The explicit wiring (``app/wiring.py``): every package's event types are registered by it,
none by an import, and a package left out of it fails here."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path
from types import ModuleType

import pytest

from app import wiring
from app.encounters import board, service
from app.events import payload
from app.events.payload import EVENT_TYPES, EventPayload
from app.maps import displace, tactics
from tests.test_docs import documented_events

APP = Path(__file__).resolve().parents[1] / "app"


def _event_modules_on_disk() -> set[str]:
    """``app.<package>.events`` for every ``app/<package>/events.py``."""
    return {f"app.{path.parent.name}.events" for path in APP.glob("*/events.py")}


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
