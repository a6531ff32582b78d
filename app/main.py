"""The ASGI application: ``app.main:app`` (settings from the environment)."""

from __future__ import annotations

import ctypes
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.types import Receive, Scope, Send

from app.accounts.passwords import Hasher
from app.accounts.service import SESSIONS_ENDED_CHANNEL
from app.apitokens import api as apitokens_api
from app.apitokens import routes as apitokens_routes
from app.campaigns import api as campaigns_api
from app.campaigns import permissions as campaign_permissions
from app.campaigns import routes as campaigns_routes
from app.characters import api as characters_api
from app.characters import routes as characters_routes
from app.config import Settings
from app.db import create_engine, create_read_sessionmaker, create_sessionmaker
from app.encounters import api as encounters_api
from app.encounters import routes as encounters_routes
from app.events.broker import Broker, PostgresListener, StreamQuota, libpq_conninfo
from app.events.jetstream import JetStream
from app.events.service import NOTIFY_OFF_KEY
from app.events.transport import Transport
from app.idempotency.sweeper import KeySweeper
from app.login import api as login_api
from app.login import routes as login_routes
from app.maps import api as maps_api
from app.maps import routes as maps_routes
from app.maps.present import scenes_now
from app.printing import api as printing_api
from app.rolls import api as rolls_api
from app.rolls import routes as rolls_routes
from app.rules.dice import SecureRoller
from app.sessions import api as sessions_api
from app.sessions import routes as sessions_routes
from app.sessions.dice import SeededRoller
from app.talk import api as talk_api
from app.talk import routes as talk_routes
from app.transfer import api as transfer_api
from app.transfer import routes as transfer_routes
from app.web import api_docs, errors
from app.web.context import AppContext
from app.web.deps import TransactionalRoute
from app.web.members import Members
from app.web.routers import Router, prepare
from app.web.security import SECURITY_HEADERS, CrossOriginProtection, SecurityHeaders
from app.web.sse import serve_deferred
from app.web.static import favicon, static_app
from app.webhooks import api as webhooks_api
from app.webhooks import routes as webhooks_routes
from app.webhooks.delivery import Courier
from app.wiring import wire

#: glibc's ``mallopt`` parameter for the number of malloc arenas.
M_ARENA_MAX = -8


def _fewer_malloc_arenas() -> None:
    """At most two glibc malloc arenas for the process's threads (the default is eight per
    core): memory one thread frees, another can reuse, so the process stays smaller (idle SSE
    streams: ~2.5 KiB each less RSS, bench/NOTES.md). Nothing to do off glibc."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return
    libc.mallopt(M_ARENA_MAX, 2)


#: Allocations (net of frees) between the collector's young passes; CPython's default is 700.
GC_YOUNG_ALLOCATIONS = 10_000
#: Young passes between passes of the middle generation, and those between full passes (a
#: full one also waits until a quarter of the long-lived objects are new); defaults 10, 10.
GC_MIDDLE_EVERY, GC_OLD_EVERY = 20, 20


def _fewer_collections() -> None:
    """The collector's passes spaced out. Nearly all of a request's objects are freed by
    reference counting, and the passes find little: on 300 moves with line of sight to 8
    viewers and 300 rolls (``bench.collector``, docs/scaling.md «The collector») they took
    1,379 young, 125 middle and 10 full passes, 0.4 s of CPU, each full one stopping the
    event loop for up to 17 ms; with these, 12 young passes (40 ms) and no older one.
    Cyclic garbage waits longer to be freed: about :data:`GC_YOUNG_ALLOCATIONS` objects
    at most."""
    gc.set_threshold(GC_YOUNG_ALLOCATIONS, GC_MIDDLE_EVERY, GC_OLD_EVERY)


def _routers() -> tuple[Router, ...]:
    """Every router of the app, JSON API first, in the order their paths are matched."""
    return (
        login_api.router,
        apitokens_api.router,
        campaigns_api.router,
        rolls_api.router,
        characters_api.router,
        encounters_api.router,
        talk_api.router,
        sessions_api.router,
        maps_api.router,
        transfer_api.router,
        webhooks_api.router,
        printing_api.router,
        campaigns_api.events_router,
        login_routes.router,
        apitokens_routes.router,
        campaigns_routes.router,
        rolls_routes.router,
        encounters_routes.router,
        characters_routes.router,
        api_docs.router,
        talk_routes.router,
        sessions_routes.router,
        maps_routes.router,
        transfer_routes.router,
        webhooks_routes.router,
    )


def _transports(settings: Settings, broker: Broker) -> list[Transport]:
    """``LISTEN`` for ended login sessions and, without NATS, for new events (``NOTIFY``);
    with ``TAFELRUNDE_NATS_URL`` NATS JetStream carries the events."""
    transports: list[Transport] = []
    if settings.is_postgres:
        transports.append(
            PostgresListener(
                libpq_conninfo(settings.resolved_database_url),
                broker,
                sessions_channel=SESSIONS_ENDED_CHANNEL,
                events=not settings.nats_url,
            )
        )
    if settings.nats_url:
        transports.append(JetStream(settings.nats_url, broker))
    return transports


#: Who is a member of a campaign, and as what, for the web toolkit (``app.web.members``).
MEMBERS = Members(
    lookup=campaign_permissions.USER_AND_ROLE_FOR_TOKEN,
    remember=campaign_permissions.remember_lookup,
    current_viewer=campaign_permissions.current_viewer,
    roles=campaign_permissions.member_roles,
    member_viewer=campaign_permissions.member_viewer,
)


class Tafelrunde(FastAPI):
    """The app: a live stream is streamed after the request's middlewares and FastAPI's
    dependency machinery have returned (:func:`app.web.sse.serve_deferred`): an idle stream
    holds none of their frames, exit stacks and closures. The middlewares it leaves out do
    nothing to a stream once its response started, but for the security headers, added here.
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await serve_deferred(super().__call__, scope, receive, send, SECURITY_HEADERS)
        else:
            await super().__call__(scope, receive, send)


def create_app(settings: Settings | None = None) -> FastAPI:
    wire()  # the event types and the packages' hooks (app/wiring.py): once per process
    transfer_api.describe_import_body()  # the campaign document's schema: its parts are wired
    settings = settings or Settings()
    engine = create_engine(settings.resolved_database_url)
    session_info = {NOTIFY_OFF_KEY: True} if settings.nats_url else None
    ctx = AppContext(
        settings=settings,
        engine=engine,
        sessionmaker=create_sessionmaker(engine, session_info),
        read_sessions=create_read_sessionmaker(engine, session_info),
        broker=Broker(
            StreamQuota(
                settings.streams_per_user,
                settings.streams_per_credential,
                settings.streams_per_api_token,
            )
        ),
        hasher=Hasher(settings.argon2_time_cost, settings.argon2_memory_kib),
        roller=SecureRoller() if settings.dice_seed is None else SeededRoller(settings.dice_seed),
        members=MEMBERS,
        look=scenes_now,
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        # Everything loaded so far lives as long as the process: keep it out of the
        # collector's full passes, which otherwise stall every request now and then.
        gc.collect()
        gc.freeze()
        _fewer_collections()
        _fewer_malloc_arenas()
        ctx.transports = _transports(settings, ctx.broker)
        for transport in ctx.transports:
            transport.start()
        courier = Courier(
            ctx.sessionmaker,
            allow_private=settings.webhooks_allow_private,
            interval=settings.webhooks_poll_seconds,
        )
        courier.start()
        sweeper = KeySweeper(ctx.sessionmaker)
        sweeper.start()
        try:
            yield
        finally:
            await sweeper.stop()
            await courier.stop()
            await ctx.warden.stop()
            for transport in ctx.transports:
                await transport.stop()
            await engine.dispose()

    app = Tafelrunde(
        title="Tafelrunde",
        version="0.1.0",
        lifespan=lifespan,
        openapi_url="/api/openapi.json",
        docs_url=None,  # app.web.api_docs serves it from static/vendor
        redoc_url=None,
        # Starlette's body limit: 413 on a larger Content-Length before a byte of the body is
        # read, and on a chunked body as soon as the bytes received pass the limit.
        max_body_size=settings.max_body_bytes,
    )
    app.state.ctx = ctx
    app.add_middleware(CrossOriginProtection)
    app.add_middleware(SecurityHeaders)
    errors.install(app)
    for router in _routers():
        app.include_router(router)
    app.router.add_api_route(
        "/favicon.ico", favicon, include_in_schema=False, route_class_override=TransactionalRoute
    )
    app.mount("/static", static_app(), name="static")
    return app


def __getattr__(name: str) -> FastAPI:
    """``app.main:app`` builds the app lazily, so importing this module has no side effects.

    The served app has its routers prepared before it serves (0.4 s; the tests' apps, one
    per test, are not: their first requests build what they ask)."""
    if name == "app":
        application = create_app()
        prepare(application)
        globals()["app"] = application
        return application
    raise AttributeError(name)
