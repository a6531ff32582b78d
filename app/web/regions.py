"""Live regions: the parts of a page that follow the campaign log, registered by their owners.

A :class:`Page` is one kind of page with a live stream (the campaign page, the combat page,
the sheet, the sheet's history). Its package creates it with the page's context builder; every
package that shows something on it registers a :class:`Region` there: its name, which events
it reacts to, and how it renders them for one viewer. The page's live stream
(:meth:`Page.stream`) is composed of whatever is registered, so a new package (chat, a map)
adds a region to a page by registering one, without editing the page's other regions.

A region renders from the page's context (the same builder the full page and the HTMX
fragments use, asked only for the ``parts`` the reacting regions need) plus what its own
``load`` adds. Regions that the page template lays out itself name no ``slot``; a region of
another package names one, and the page template places its ``html`` there
(``{{ slot("side") }}``).

Viewers who see the same thing share one render (:class:`Page` ``audience``): while a
push for one batch of events is rendered for a viewer, every other stream of the page whose
viewer has the same audience key and got the same batch (same events in the same form)
waits for that render instead of loading the page's context and rendering it again. A page
whose regions render nothing that depends on who exactly is looking, beyond what the key
says, may share; by default (no ``audience``) every stream renders for itself.

What a page's context builder reads the same way for every viewer it may read once per
step for all of them (:func:`shared_load`), so a step costs one read however many watch.

This module knows no page and no region of its own: they come to it from their packages.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Generic, TypeVar

from markupsafe import Markup
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.viewer import Role, Viewer
from app.events.service import VisibleEvent
from app.events.stream import Outgoing, Render

K = TypeVar("K")
T = TypeVar("T")
Context = dict[str, Any]

#: The page's context builder for one viewer: ``parts`` names the parts of the page the
#: reacting regions render from (``None``: the whole page). ``None`` back means the viewer may
#: no longer see what the page is about.
Loader = Callable[[AsyncSession, Viewer, K, frozenset[str]], Awaitable[Context | None]]


#: Who sees the same page as whom: viewers with equal keys get the same render.
Audience = Callable[[Viewer], Hashable]
#: Seconds a finished shared render is kept for streams that wake a little later.
SHARED_SECONDS = 2.0
#: Shared renders kept at most per page (the oldest go first).
SHARED_MAX = 512


def shared_by(*roles: Role) -> Audience:
    """An audience in which every viewer of one of ``roles`` sees the same as the others of
    that role (e.g. observers), and everyone else sees a page of their own."""

    def audience(viewer: Viewer) -> Hashable:
        return (viewer.role,) if viewer.role in roles else (viewer.user_id, viewer.role)

    return audience


#: The last event of the batch a live push is rendered for (``None``: not in a push).
_PUSHING: ContextVar[object | None] = ContextVar("pushing", default=None)
#: Shared loads by key: the last event of the batch whose push started it, and its result.
_LOADS: dict[Hashable, tuple[object, asyncio.Future[Any]]] = {}


class _Abandoned(Exception):
    """The push that started a shared load ended (its stream closed) before the load did."""


async def shared_load(key: Hashable, load: Callable[[], Awaitable[T]]) -> T:
    """``load()``, shared by the live pushes of every viewer woken by one step; ``key``
    names what is loaded (unique across pages).

    For what a context builder reads the same way for every viewer (rows, not their
    projection). A load started by one push serves the pushes whose batch ends with the
    very same event (the same object: streams of a campaign share its tail in the broker),
    so it started after everything they show was committed. Outside a live push (the full
    page, HTMX answers) it is just ``load()``.

    The load runs in the push that started it, with that push's session: a push that ends
    meanwhile (its stream closed) ends its load with it, and the pushes waiting for that
    load then load for themselves. (It used to run in a task of its own, which went on
    reading with the ended push's session after that was closed: the session then took a
    connection that it never gave back, left in a transaction.)
    """
    last = _PUSHING.get()
    if last is None:
        return await load()
    known = _LOADS.get(key)
    if known is not None and known[0] is last:
        with contextlib.suppress(Exception):  # its push failed or ended: load here
            result: T = await asyncio.shield(known[1])
            return result
    loaded: asyncio.Future[T] = asyncio.get_running_loop().create_future()
    _LOADS[key] = (last, loaded)
    loaded.add_done_callback(partial(_forget_later, key))
    try:
        result = await load()
    except BaseException as exc:
        loaded.set_exception(exc if isinstance(exc, Exception) else _Abandoned())
        raise
    loaded.set_result(result)
    return result


def _forget_later(key: Hashable, done: asyncio.Future[Any]) -> None:
    """Keep a finished load for :data:`SHARED_SECONDS`; its failure counts as seen (the push
    that started it raised it), not as an exception nobody retrieved."""
    if not done.cancelled():
        done.exception()
    asyncio.get_running_loop().call_later(SHARED_SECONDS, _forget, key, done)


def _forget(key: Hashable, done: asyncio.Future[Any]) -> None:
    known = _LOADS.get(key)
    if known is not None and known[1] is done:
        del _LOADS[key]


@dataclass(frozen=True, slots=True)
class Batch(Generic[K]):
    """What a region renders one push from."""

    key: K
    viewer: Viewer
    #: The events of the batch this region reacts to, oldest first.
    events: Sequence[VisibleEvent]
    #: The last ``seq`` of the whole batch: a message carrying it resumes after the batch.
    last_seq: int
    #: The page's context for the viewer (empty when no reacting region needs one).
    context: Mapping[str, Any]
    #: An open session when the page's context was loaded, else ``None``.
    session: AsyncSession | None


@dataclass(frozen=True, slots=True)
class Region(Generic[K]):
    """One live region of a page."""

    #: Unique on its page; the SSE event name of its messages unless the page bundles them.
    name: str
    #: Whether an event (already projected for the viewer) concerns this region of page ``K``.
    reacts: Callable[[K, VisibleEvent], bool]
    #: The region's messages for a batch of the events it reacts to (on a bundling page: its
    #: out-of-band swaps per event, ``""`` for none).
    push: Callable[[Batch[K]], Awaitable[list[Outgoing]]]
    #: Parts of the page's context it renders from; none (and no ``load``): its pushes need
    #: no session at all.
    parts: frozenset[str] = frozenset()
    #: What the region adds to the page's context (a region of another package: its data).
    load: Callable[[AsyncSession, Viewer, K], Awaitable[Context]] | None = None
    #: Whether its pushes render from what ``load`` added. Else a push does not run
    #: ``load``: the chat's pushes render the messages they are about, not the page's panel
    #: of twenty, which would otherwise be read again for every viewer of every line.
    load_on_push: bool = False
    #: Where the page template places a region it does not lay out itself.
    slot: str | None = None
    #: The region as the full page shows it (regions with a ``slot``).
    html: Callable[[Mapping[str, Any]], str] | None = None
    #: Whether the events it reacts to still concern it once what every viewer's page reads
    #: alike is known (a :func:`shared_load`); asked before anyone's context is built. For a
    #: region whose ``reacts`` can only say «maybe» (a fight step, for the board of a scene
    #: that may not be the fight's): when it says no, no viewer's context is built for it.
    confirm: Callable[[AsyncSession, K, Sequence[VisibleEvent]], Awaitable[bool]] | None = None

    def __post_init__(self) -> None:
        if (self.slot is None) != (self.html is None):
            raise ValueError(f"region {self.name!r}: a slot needs its html and html its slot")

    @property
    def needs_context(self) -> bool:
        """Whether its pushes render from the page's context (the page's ``load`` runs)."""
        return bool(self.parts) or self.load_on_push

    @property
    def reads(self) -> bool:
        """Whether its pushes get a session: to render from the page's context, or, with a
        ``load`` of its own, to read what their events are about (the chat's changed
        lines, the sessions panel), or to ``confirm`` them."""
        return self.needs_context or self.load is not None or self.confirm is not None


@dataclass(eq=False)
class Page(Generic[K]):
    """A page with a live stream, and the regions registered on it (in registration order).

    ``bundle`` joins every region's messages about one event into one message of that name
    (the combat page swaps them out of band from one sink); ``gone`` is the message sent
    when the viewer may no longer see what the page is about; ``audience`` says which
    viewers share one render (see the module's docstring).
    """

    name: str
    load: Loader[K]
    bundle: str | None = None
    gone: str | None = None
    regions: tuple[Region[K], ...] = field(default=())
    audience: Audience | None = None
    #: Shared renders by (key, audience, batch), with the batch they keep alive.
    _shared: OrderedDict[Hashable, tuple[asyncio.Task[list[Outgoing]], object]] = field(
        default_factory=OrderedDict, repr=False
    )

    def __post_init__(self) -> None:
        if self.name in PAGES:
            raise ValueError(f"page {self.name!r} exists already")
        PAGES[self.name] = self

    def register(self, region: Region[K]) -> Region[K]:
        if any(r.name == region.name for r in self.regions):
            raise ValueError(f"page {self.name!r} has a region {region.name!r} already")
        self.regions = (*self.regions, region)
        return region

    async def contribute(
        self, session: AsyncSession, viewer: Viewer, key: K, context: Context
    ) -> Context:
        """Add the regions' own context and their slotted HTML to the full page's ``context``."""
        await _load_regions(session, viewer, key, context, self.regions)
        slots: dict[str, list[str]] = {}
        for region in self.regions:
            if region.slot is not None and region.html is not None:
                slots.setdefault(region.slot, []).append(region.html(context))
        context["slots"] = {name: Markup("\n".join(parts)) for name, parts in slots.items()}
        return context

    def stream(self, key: K) -> Render:
        """The render function of this page's live stream about ``key``: shared by the
        viewers of one audience who got the same batch."""

        async def render(
            sessions: async_sessionmaker[AsyncSession],
            viewer: Viewer,
            events: Sequence[VisibleEvent],
        ) -> list[Outgoing]:
            active = [(r, mine) for r in self.regions if (mine := _reacting(r, key, events))]
            if not active:
                return []
            if self.audience is None:
                return await self._render(sessions, key, viewer, active, events[-1])
            # The event objects, not their seq: streams of a campaign share them (its tail in
            # the broker), and a seq may come again after a delete (SQLite reuses ids).
            shared = (key, self.audience(viewer), tuple((id(e.event), e.form) for e in events))
            task = self._shared.get(shared, (None, None))[0]
            if task is None:
                rendering = self._render(sessions, key, viewer, active, events[-1])
                task = asyncio.ensure_future(rendering)
                self._keep(shared, task, events)
            # A stream that ends meanwhile must not cancel the render the others wait for.
            return await asyncio.shield(task)

        return render

    def _keep(
        self,
        shared: Hashable,
        task: asyncio.Task[list[Outgoing]],
        events: Sequence[VisibleEvent],
    ) -> None:
        """Keep the render while it may be asked for again; ``events`` stay alive with it, so
        the ids in its key cannot be another object's meanwhile."""
        self._shared[shared] = (task, events)
        while len(self._shared) > SHARED_MAX:
            self._shared.popitem(last=False)

        def forget(done: asyncio.Task[list[Outgoing]]) -> None:
            if done.cancelled() or done.exception() is not None:
                self._drop(shared, done)  # a failed render is not served again
            else:
                asyncio.get_running_loop().call_later(SHARED_SECONDS, self._drop, shared, done)

        task.add_done_callback(forget)

    def _drop(self, shared: Hashable, task: asyncio.Task[list[Outgoing]]) -> None:
        if self._shared.get(shared, (None, None))[0] is task:
            del self._shared[shared]

    async def _render(
        self,
        sessions: async_sessionmaker[AsyncSession],
        key: K,
        viewer: Viewer,
        active: list[tuple[Region[K], list[VisibleEvent]]],
        final: VisibleEvent,
    ) -> list[Outgoing]:
        """One push for ``viewer`` (and everyone of their audience) about a batch."""
        last = final.seq
        if not any(r.reads for r, _mine in active):
            return await self._push(active, key, viewer, last, {}, None)
        parts = frozenset().union(*(r.parts for r, _mine in active))
        pushing = _PUSHING.set(final.event)
        try:
            async with sessions() as session:
                active = await _confirmed(session, key, active)
                if not active:
                    return []
                if not any(r.needs_context for r, _mine in active):
                    # A chat line: the page's own context (its row, its parts) is not read.
                    return await self._push(active, key, viewer, last, {}, session)
                return await self._load_and_push(session, active, key, viewer, last, parts)
        finally:
            _PUSHING.reset(pushing)

    async def _load_and_push(
        self,
        session: AsyncSession,
        active: list[tuple[Region[K], list[VisibleEvent]]],
        key: K,
        viewer: Viewer,
        last: int,
        parts: frozenset[str],
    ) -> list[Outgoing]:
        context = await self.load(session, viewer, key, parts)
        if context is None:
            return [Outgoing(last, self.gone, "")] if self.gone else []
        await _load_regions(
            session, viewer, key, context, [r for r, _m in active if r.load_on_push]
        )
        return await self._push(active, key, viewer, last, context, session)

    async def _push(
        self,
        active: list[tuple[Region[K], list[VisibleEvent]]],
        key: K,
        viewer: Viewer,
        last: int,
        context: Context,
        session: AsyncSession | None,
    ) -> list[Outgoing]:
        out: list[Outgoing] = []
        for region, mine in active:
            out.extend(await region.push(Batch(key, viewer, mine, last, context, session)))
        return self._compose(out)

    def _compose(self, messages: list[Outgoing]) -> list[Outgoing]:
        """Messages in ``seq`` order (a resume never repeats an event), bundled if asked."""
        if self.bundle is None:
            return sorted(messages, key=lambda m: m.seq)
        by_seq: dict[int, list[str]] = {}
        for message in messages:
            if message.data:
                by_seq.setdefault(message.seq, []).append(message.data)
        return [Outgoing(seq, self.bundle, "\n".join(by_seq[seq])) for seq in sorted(by_seq)]


async def _load_regions(
    session: AsyncSession,
    viewer: Viewer,
    key: K,
    context: Context,
    regions: Sequence[Region[K]],
) -> None:
    """Add what each region loads for itself to the page's ``context``."""
    for region in regions:
        if region.load is not None:
            context.update(await region.load(session, viewer, key))


def _reacting(region: Region[K], key: K, events: Sequence[VisibleEvent]) -> list[VisibleEvent]:
    return [e for e in events if region.reacts(key, e)]


async def _confirmed(
    session: AsyncSession, key: K, active: list[tuple[Region[K], list[VisibleEvent]]]
) -> list[tuple[Region[K], list[VisibleEvent]]]:
    """The reacting regions whose ``confirm`` (if any) says the events still concern them."""
    return [
        (region, mine)
        for region, mine in active
        if region.confirm is None or await region.confirm(session, key, mine)
    ]


#: Every page with a live stream, by name.
PAGES: dict[str, Page[Any]] = {}
