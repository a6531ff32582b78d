"""Validate and re-encode an uploaded image before anything stores or serves it.

An upload is untrusted bytes. Only PNG, JPEG and WebP are accepted; the dimensions are read
from the header and checked *before* the pixels are decoded (a decompression bomb — a small
file that declares 50,000 × 50,000 pixels — is refused without allocating them). The image is
then decoded, turned upright by its EXIF orientation and encoded afresh in the same format,
so no metadata (EXIF, GPS, ICC, text chunks) and no trailing bytes of the upload survive.
Animated images keep their first frame. Decoding and encoding cost CPU: route code calls
:func:`process_upload`, which runs :func:`reencode_image` in a worker thread.

The app's request body limit (1 MiB) is below an image's: an upload route raises it for itself
with FastAPI's per-route ``max_body_size=UPLOAD_BODY_BYTES`` (the image plus room for the
multipart envelope), so a 50 MB upload still ends in 413 before it is read.
"""

from __future__ import annotations

import hashlib
import io
import warnings
from dataclasses import dataclass

import anyio
from PIL import Image, ImageOps, UnidentifiedImageError

from app import limits
from app.i18n import _

#: Pillow format name → (MIME type, save options).
_FORMATS: dict[str, tuple[str, dict[str, object]]] = {
    "PNG": ("image/png", {"optimize": False}),
    "JPEG": ("image/jpeg", {"quality": 85}),
    "WEBP": ("image/webp", {"quality": 85}),
}


#: The body limit of an image upload route: the image and its multipart envelope.
UPLOAD_BODY_BYTES = limits.IMAGE_UPLOAD_BYTES + 65_536


@dataclass(frozen=True)
class StoredImage:
    """A re-encoded image as it is stored: its bytes, type, size and a content tag."""

    data: bytes
    mime: str
    width: int
    height: int
    etag: str


class ImageRejected(ValueError):
    """The upload is no acceptable image; ``status`` is 413 (too large) or 422 (anything else)."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def reencode_image(raw: bytes) -> StoredImage:
    """The upload as a clean image of the same format, or :class:`ImageRejected`."""
    if len(raw) > limits.IMAGE_UPLOAD_BYTES:
        raise ImageRejected(_too_large(), status=413)
    image = _open_checked(raw)
    fmt = str(image.format)
    mime, options = _FORMATS[fmt]
    clean = _decoded(image, fmt)
    out = io.BytesIO()
    clean.save(out, format=fmt, **options)
    data = out.getvalue()
    return StoredImage(
        data=data,
        mime=mime,
        width=clean.width,
        height=clean.height,
        etag=hashlib.sha256(data).hexdigest()[:32],
    )


async def process_upload(raw: bytes) -> StoredImage:
    """:func:`reencode_image` in a worker thread, so a large image never stalls the loop."""
    return await anyio.to_thread.run_sync(reencode_image, raw)


def _too_large() -> str:
    return _("The image is larger than %(max)d MB.", max=limits.IMAGE_UPLOAD_BYTES // 1_048_576)


def _open_checked(raw: bytes) -> Image.Image:
    """The lazily opened image after the format and dimension checks (no pixels decoded)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(raw), formats=list(_FORMATS))
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ImageRejected(_too_many_pixels()) from None
    except UnidentifiedImageError:
        raise ImageRejected(_("This is no PNG, JPEG or WebP image.")) from None
    except (OSError, ValueError, SyntaxError):
        raise ImageRejected(_("The image file is damaged.")) from None
    width, height = image.size
    if (
        max(width, height) > limits.IMAGE_MAX_SIDE
        or width * height > limits.IMAGE_MAX_PIXELS
        or min(width, height) < 1
    ):
        raise ImageRejected(_too_many_pixels())
    return image


def _too_many_pixels() -> str:
    return _(
        "The image may be at most %(side)d pixels wide and high"
        " and have at most %(mp)d megapixels.",
        side=limits.IMAGE_MAX_SIDE,
        mp=limits.IMAGE_MAX_PIXELS // 1_000_000,
    )


def _decoded(image: Image.Image, fmt: str) -> Image.Image:
    """The first frame decoded, upright, in a mode its format can store, without metadata."""
    try:
        image.seek(0)
        image.load()
        upright = ImageOps.exif_transpose(image)
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError):
        raise ImageRejected(_("The image file is damaged.")) from None
    if fmt == "JPEG":
        wanted = "RGB" if upright.mode not in ("L", "RGB") else upright.mode
    else:
        wanted = "RGBA" if upright.mode not in ("L", "LA", "RGB", "RGBA") else upright.mode
    clean = upright.convert(wanted)
    clean.info = {}
    return clean
