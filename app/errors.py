"""Errors raised by services. The web layer maps them to HTTP; services never import FastAPI."""

from __future__ import annotations


class AppError(Exception):
    status_code = 400
    #: Commit the request's transaction even though it fails (e.g. to record a failed login).
    commit_anyway = False

    def __init__(self, message: str = "") -> None:
        super().__init__(message)
        self.message = message


class Unauthenticated(AppError):
    status_code = 401


class LoginFailed(Unauthenticated):
    commit_anyway = True


class Forbidden(AppError):
    status_code = 403


class NotFound(AppError):
    """Also what a non-member gets for anything of a campaign: its existence is not revealed."""

    status_code = 404


class Conflict(AppError):
    """A stale write: the row changed since the caller read it."""

    status_code = 409


class ValidationFailed(AppError):
    """Bad input; ``fields`` maps each field name to a translated message."""

    status_code = 422

    def __init__(self, fields: dict[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in fields.items()))
        self.fields = fields


class TooManyRequests(AppError):
    status_code = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after
