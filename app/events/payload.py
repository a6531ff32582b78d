"""The campaign log's event payloads: their base class and the registry of event types.

Each payload class lives in the package that writes it (``app/<package>/events.py``; the
membership events and the dice roll, which the log itself and packages on several layers
read, in ``app/events/events.py``). ``@event_type("name")`` gives a class its type name
and makes it a payload dataclass; each such module lists its classes in ``EVENTS``, and
``app.wiring`` registers them all with :func:`register` — importing a module registers
nothing.

A payload is a frozen dataclass, not a pydantic model: every payload is built on the
server from values the services have already validated, on the hottest paths (a roll, a
combat action), so a second validation would only cost time; and the stored form is plain
JSON that projection and templates read as it is. ``dataclasses.fields`` gives the field
list that ``docs/events.md`` is checked against (``tests/test_docs.py``).

Each class names the visibilities its events may have (``append_event`` refuses others)
and, for events about one character or encounter, its ``subject``: the column the sheet
history and the combat log filter on in SQL.

Stored rows stay readable: :meth:`EventPayload.from_json` fills a field that an older row
lacks with its default.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal, Self, TypeVar, dataclass_transform

PUBLIC: frozenset[str] = frozenset({"public"})
PUBLIC_OR_GM: frozenset[str] = frozenset({"public", "gm"})

P = TypeVar("P", bound="EventPayload")

#: Event type name → payload class; filled by :func:`register` (``app.wiring``).
EVENT_TYPES: dict[str, type[EventPayload]] = {}


@dataclass_transform(frozen_default=True, kw_only_default=True)
def event_type(name: str) -> Callable[[type[P]], type[P]]:
    """Make a class the payload of events of type ``name`` (:func:`register` adds it): a
    frozen, slotted, keyword-only dataclass like :class:`EventPayload`, the one place every
    payload class gets those options from."""

    def name_it(cls: type[P]) -> type[P]:
        if "__dataclass_fields__" in cls.__dict__:
            raise TypeError(f"{cls.__name__}: @event_type makes it a dataclass; drop @dataclass")
        payload = dataclass(frozen=True, slots=True, kw_only=True)(cls)
        payload.TYPE = name
        return payload

    return name_it


def register(classes: Iterable[type[EventPayload]]) -> None:
    """Add payload classes to :data:`EVENT_TYPES`; registering one again changes nothing,
    another class under a name already taken is refused."""
    for cls in classes:
        known = EVENT_TYPES.setdefault(cls.TYPE, cls)
        if known is not cls:
            raise ValueError(f"event type {cls.TYPE!r} registered twice")


def subject_of(kind: Literal["character", "encounter"], id_: int) -> str:
    """The ``campaign_event.subject`` of events about one character or encounter."""
    return f"{kind}:{id_}"


@dataclass(frozen=True, slots=True, kw_only=True)
class EventPayload:
    """What every event carries: who did it, by name (the log outlives accounts)."""

    TYPE: ClassVar[str]
    #: The visibilities events of this type may have (see ``VISIBILITIES`` of the service).
    VISIBILITIES: ClassVar[frozenset[str]] = PUBLIC
    #: Whether those it is hidden from learn that it happened (a stub: a secret roll).
    STUB_WHEN_HIDDEN: ClassVar[bool] = False

    actor_name: str

    @property
    def subject(self) -> str | None:
        """The character or encounter this event is about, if one."""
        return None

    def scene_ref(self) -> tuple[int | None, int | None]:
        """The scene and token a map event is about, which its audience checks when it is
        read (``app.events.audience.sight``); ``(None, None)`` for other events."""
        return None, None

    def to_json(self) -> dict[str, object]:
        """The stored form: every field by name (nested values as they are)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """Read a stored payload back; fields an older row lacks take their defaults."""
        return cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})
