"""Idempotent creating routes: one dependency reads the key, one route class stores the answer.

A creating route declares ``dependencies=[IDEMPOTENT]`` and its router uses
``route_class=IdempotentRoute``. The dependency reads the key (``Idempotency-Key`` header or
the form's hidden ``idempotency_key`` field) and the request's fingerprint; no statement.
After the route answered, the route class stores a 2xx/3xx answer under the key in the same
transaction (committed by ``app.web.deps.TransactionalRoute`` right after), or — when the
key's first request answered already — rolls this request's work back and replays that
answer; a failed request replays it too, when there is one (``app.idempotency.service``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import BackgroundTasks, Depends, Header, Request
from fastapi.datastructures import UploadFile
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import utcnow
from app.errors import AppError
from app.idempotency import service
from app.web.deps import Session, TransactionalRoute, app_ctx, signed_in

HEADER = "Idempotency-Key"
REPLAY_HEADER = "Idempotent-Replayed"


@dataclass(frozen=True, slots=True)
class _Key:
    """A request's idempotency key, and what it asks (its fingerprint)."""

    session: AsyncSession
    user_id: int
    key: str
    print_: str


async def _form_digest(request: Request) -> tuple[str | None, str]:
    """The form's key and a digest of its other fields (multipart boundaries vary per post)."""
    form = await request.form()
    digest = hashlib.sha256()
    key: str | None = None
    for name, value in sorted(form.multi_items(), key=lambda item: item[0]):
        if name == service.FIELD and isinstance(value, str):
            key = value
            continue
        if isinstance(value, UploadFile):
            content = await value.read()
            await value.seek(0)
            value = f"{value.filename}:{hashlib.sha256(content).hexdigest()}"
        digest.update(f"{name}={value}\n".encode())
    return key, digest.hexdigest()


async def _key_and_digest(request: Request, header_key: str | None) -> tuple[str | None, str]:
    content_type = request.headers.get("content-type", "")
    if content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        form_key, digest = await _form_digest(request)
        return header_key or form_key, digest
    return header_key, hashlib.sha256(await request.body()).hexdigest()


async def read_idempotency_key(
    request: Request,
    session: Session,
    later: BackgroundTasks,
    idempotency_key: Annotated[
        str | None,
        Header(
            alias=HEADER,
            description="Repeat a creating request safely: the same key with the same "
            "request answers like the first (for 24 h) and creates nothing.",
        ),
    ] = None,
) -> None:
    user = await signed_in(request, session, later)  # not OptionalUser: a tree less to solve
    if user is None:
        return
    key, digest = await _key_and_digest(request, idempotency_key)
    if key is None:
        return
    key = service.check_key(key)
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    print_ = service.fingerprint(request.method, target, digest)
    request.state.idempotency = _Key(session, user.id, key, print_)


IDEMPOTENT = Depends(read_idempotency_key)


def _replayed(answer: service.StoredAnswer) -> Response:
    """The stored answer again; Content-Length is recomputed (and absent on a 204)."""
    response = Response(content=answer.body, status_code=answer.status)
    response.raw_headers.extend(
        (name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in answer.headers
    )
    response.raw_headers.append((REPLAY_HEADER.lower().encode(), b"true"))
    return response


def _answer(response: Response) -> service.Answer | None:
    """What to remember of an answer that succeeded: ``None`` if its body is not at hand."""
    body = getattr(response, "body", None)
    if not isinstance(body, bytes):
        return None
    headers = [
        (name.decode("latin-1"), value.decode("latin-1")) for name, value in response.raw_headers
    ]
    return service.Answer(response.status_code, headers, body)


async def _settle(request: Request, key: _Key, response: Response) -> Response:
    """``response`` remembered under the key, or the key's first answer instead: then this
    request's work is rolled back (what it created, its events)."""
    if response.status_code >= 400:
        return await _replay_instead(request, key) or response
    answer = _answer(response)
    if answer is None:
        return response
    first = await service.remember(key.session, key.user_id, key.key, key.print_, utcnow(), answer)
    if first is None:
        return response
    await app_ctx(request).rollback(key.session)
    return _replayed(first)


async def _replay_instead(request: Request, key: _Key) -> Response | None:
    """For a request that failed: the key's first answer, if it has one (a repeat may fail
    where its first request succeeded: the turn has passed). Read once the request's own
    transaction is rolled back, as a failed request's is anyway, on its own connection: a
    second connection per failing request would let a burst of them take the whole pool."""
    await app_ctx(request).rollback(key.session)
    first = await service.stored_answer(key.session, key.user_id, key.key, key.print_, utcnow())
    return None if first is None else _replayed(first)


class IdempotentRoute(TransactionalRoute):
    """Stores the answer of a request with a key, or replays the key's first answer.

    A :class:`TransactionalRoute` too: an answer >= 400 rolls the request back.
    """

    def answer_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().answer_handler()

        async def idempotent_handler(request: Request) -> Response:
            try:
                response = await handler(request)
            except AppError as exc:
                key = getattr(request.state, "idempotency", None)
                replay = None
                if key is not None and not exc.commit_anyway:
                    replay = await _replay_instead(request, key)
                if replay is None:
                    raise
                return replay
            key = getattr(request.state, "idempotency", None)
            return response if key is None else await _settle(request, key, response)

        return idempotent_handler
