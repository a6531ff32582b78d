"""An image in the campaign document (a handout's, a scene's background, a token's portrait):
the stored, already re-encoded bytes as base64, with their ETag, so a copy serves the same
bytes (docs/transfer.md)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Protocol, TypedDict, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.limits import INT_MAX

R = TypeVar("R")

#: The largest image a document may carry (its base64 text), as an upload may be.
IMAGE_TEXT_MAX = 14 * 1024 * 1024


class ImageDoc(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mime: str = Field(pattern="^image/(png|jpeg|webp)$")
    width: int = Field(ge=1, le=INT_MAX)
    height: int = Field(ge=1, le=INT_MAX)
    etag: str = Field(max_length=80)
    data: str = Field(max_length=IMAGE_TEXT_MAX)

    @field_validator("data")
    @classmethod
    def _base64(cls, value: str) -> str:
        try:
            base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError("not base64") from None
        return value


class StoredImage(Protocol):
    """A stored image row (``HandoutImage``, ``SceneBackground``, ``TokenPortrait``)."""

    @property
    def mime(self) -> str: ...
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def etag(self) -> str: ...
    @property
    def data(self) -> bytes: ...


class ImageExport(TypedDict):
    """An image as the document holds it (read back as :class:`ImageDoc`)."""

    mime: str
    width: int
    height: int
    etag: str
    data: str


def image_document(image: StoredImage | None) -> ImageExport | None:
    """A stored image as a document carries it (``ImageDoc``); ``None``: no image."""
    if image is None:
        return None
    return {
        "mime": image.mime,
        "width": image.width,
        "height": image.height,
        "etag": image.etag,
        "data": base64.b64encode(image.data).decode(),
    }


def image_row(model: Callable[..., R], doc: ImageDoc, **owner: int) -> R:
    """A document's image as a new stored row of ``model`` (the way back from
    :func:`image_document`); ``owner``: the key of the row it belongs to."""
    return model(
        **owner, data=base64.b64decode(doc.data), mime=doc.mime, width=doc.width,
        height=doc.height, etag=doc.etag,
    )  # fmt: skip
