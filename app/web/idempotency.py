"""Idempotent creating routes: one dependency claims the key, one route class stores the answer.

A creating route declares ``dependencies=[IDEMPOTENT]`` and its router uses
``route_class=IdempotentRoute``. The dependency reads the key (``Idempotency-Key`` header or
the form's hidden ``idempotency_key`` field) and claims it in the request's session; a repeat
raises :class:`Replay`, which the route class answers with the stored response. After the
route returned, the route class stores a 2xx/3xx answer in the same transaction (committed
by ``app.web.deps.TransactionalRoute`` right after) and releases the claim of any other answer.
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
from app.web.deps import Session, TransactionalRoute, signed_in

HEADER = "Idempotency-Key"
REPLAY_HEADER = "Idempotent-Replayed"


@dataclass(frozen=True, slots=True)
class _Claim:
    session: AsyncSession
    user_id: int
    key: str


class Replay(Exception):
    """Raised by the dependency when the key's first request already answered."""

    def __init__(self, answer: service.StoredAnswer) -> None:
        super().__init__("idempotent replay")
        self.answer = answer


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


async def claim_idempotency_key(
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
    answer = await service.claim(session, user.id, key, print_, utcnow())
    if answer is not None:
        raise Replay(answer)
    request.state.idempotency = _Claim(session, user.id, key)


IDEMPOTENT = Depends(claim_idempotency_key)


def _replayed(answer: service.StoredAnswer) -> Response:
    """The stored answer again; Content-Length is recomputed (and absent on a 204)."""
    response = Response(content=answer.body, status_code=answer.status)
    response.raw_headers.extend(
        (name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in answer.headers
    )
    response.raw_headers.append((REPLAY_HEADER.lower().encode(), b"true"))
    return response


async def _settle(claim: _Claim, response: Response) -> None:
    body = getattr(response, "body", None)
    if response.status_code < 400 and isinstance(body, bytes):
        headers = [
            (name.decode("latin-1"), value.decode("latin-1"))
            for name, value in response.raw_headers
        ]
        await service.remember(
            claim.session, claim.user_id, claim.key, response.status_code, headers, body
        )
    else:
        await service.release(claim.session, claim.user_id, claim.key)


class IdempotentRoute(TransactionalRoute):
    """Answers a replay from the store; stores the answer of a request that claimed a key.

    A :class:`TransactionalRoute` too: an answer >= 400 rolls the request back.
    """

    def answer_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().answer_handler()

        async def idempotent_handler(request: Request) -> Response:
            try:
                response = await handler(request)
            except Replay as replay:
                return _replayed(replay.answer)
            except AppError as exc:
                claim = getattr(request.state, "idempotency", None)
                if claim is not None and exc.commit_anyway:
                    await service.release(claim.session, claim.user_id, claim.key)
                raise
            claim = getattr(request.state, "idempotency", None)
            if claim is not None:
                await _settle(claim, response)
            return response

        return idempotent_handler
